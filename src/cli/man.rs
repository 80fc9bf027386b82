//! `hcpx man [SUBCOMMAND]...`: a man page (roff) generated from the clap
//! definitions, so it never drifts from the CLI. The page of hcpx adds the
//! sections clap_mangen does not write: ENVIRONMENT, EXIT STATUS (HCP.md
//! §10.2–§10.3) and EXAMPLES (each subcommand's examples from
//! `cli::help`); its SUBCOMMANDS section names a page per subcommand,
//! `hcpx-exec(1)`, as git, cargo and gh do, and `hcpx man exec` prints
//! that page (a nested one: `hcpx man catalog add`).

use crate::cli::Cli;
use crate::cli::completions::emit;
use crate::cli::help;
use crate::cli::output::Output;
use crate::engine::error::{Error, ErrorCode};
use clap::CommandFactory;
use std::io::Write;

pub use crate::command::args::man::ManArgs;

pub fn man(args: &ManArgs, out: &Output) -> i32 {
    let page = if args.command.is_empty() {
        render()
    } else {
        match subcommand_page(&args.command) {
            Ok(page) => page,
            Err(err) => {
                out.error(&err);
                return err.code.exit_code();
            }
        }
    };
    match page {
        Ok(page) => emit(out, &page, serde_json::json!({"ok": true}), "roff"),
        Err(err) => {
            out.error(&Error::new(
                ErrorCode::Io,
                format!("cannot render the man page: {err}"),
            ));
            1
        }
    }
}

/// The page of the subcommand at `path` (`["catalog", "add"]`): clap_mangen's
/// page of it, titled `hcpx-catalog-add`; a name that is no subcommand is
/// `usage`, with the closest one as its hint.
fn subcommand_page(path: &[String]) -> Result<std::io::Result<Vec<u8>>, Error> {
    let mut root = Cli::command().disable_help_subcommand(true);
    root.build();
    let mut at = &root;
    for name in path {
        let Some(sub) = at.find_subcommand(name) else {
            let names: Vec<&str> = at.get_subcommands().map(clap::Command::get_name).collect();
            let shown = crate::engine::pack::text::one_line(name);
            let mut err = Error::usage(format!(
                "`{}` has no subcommand `{shown}`",
                at.get_bin_name().unwrap_or("hcpx")
            ));
            if let Some(hint) = crate::engine::pack::suggest::did_you_mean(name, names) {
                err = err.hint(hint);
            }
            return Err(err);
        };
        at = sub;
    }
    let mut page = Vec::new();
    let source = format!("hcpx {}", env!("CARGO_PKG_VERSION"));
    Ok(clap_mangen::Man::new(at.clone())
        .source(source)
        .render(&mut page)
        .map(|()| page))
}

/// The whole page: clap_mangen's sections (without its EXTRA section,
/// which would repeat the root's help epilogue), then ours.
pub fn render() -> std::io::Result<Vec<u8>> {
    // No `hcpx-help(1)` in SUBCOMMANDS: `hcpx help` is `--help`.
    let cmd = Cli::command().disable_help_subcommand(true);
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    man.render_subcommands_section(&mut page)?;
    section(&mut page, "ENVIRONMENT", help::ENVIRONMENT)?;
    writeln!(page, ".SH \"EXIT STATUS\"")?;
    writeln!(page, "Every subcommand but exec:")?;
    tagged(&mut page, help::EXIT_STATUS)?;
    writeln!(page, ".PP")?;
    writeln!(page, "{}:", escape("hcpx exec"))?;
    tagged(&mut page, help::EXEC_EXIT_STATUS)?;
    writeln!(page, ".SH EXAMPLES")?;
    for sub in cmd.get_subcommands() {
        let Some(after) = sub.get_after_help() else {
            continue;
        };
        let text = after.to_string();
        let examples = help::examples(&text);
        if examples.is_empty() {
            continue;
        }
        writeln!(page, ".TP")?;
        writeln!(page, "\\fB{}\\fR", escape(sub.get_name()))?;
        writeln!(page, ".nf")?;
        for line in examples {
            writeln!(page, "{}", escape(line))?;
        }
        writeln!(page, ".fi")?;
    }
    man.render_version_section(&mut page)?;
    Ok(page)
}

fn section(page: &mut Vec<u8>, title: &str, items: &[(&str, &str)]) -> std::io::Result<()> {
    writeln!(page, ".SH {title}")?;
    tagged(page, items)
}

/// `.TP` items: the name in bold, its meaning below.
fn tagged(page: &mut Vec<u8>, items: &[(&str, &str)]) -> std::io::Result<()> {
    for (name, meaning) in items {
        writeln!(page, ".TP")?;
        writeln!(page, "\\fB{}\\fR", escape(name))?;
        writeln!(page, "{}", escape(meaning))?;
    }
    Ok(())
}

/// Text as one roff line: backslashes and hyphens escaped, a leading `.`
/// or `'` kept from being read as a request.
fn escape(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
