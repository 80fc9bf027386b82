//! The headless front-end: the process's arguments parsed with the one
//! clap tree (`command::args`), the subcommand run by the command layer
//! (`report`: a `Request`, its `Outcome` printed as text or as the
//! `--json` documents of HCP.md §10), plus what only a terminal does: the
//! install picker and fetch lines (`install`, `catalog`), the secret
//! prompt (`connect`), exec's passthrough and signals (`exec`,
//! `signals`). No lifecycle logic lives here.

pub mod availability;
pub mod both;
pub mod catalog;
pub mod completions;
pub mod connect;
pub mod context;
pub mod doctor;
pub mod exec;
pub mod fix;
pub mod grant;
pub mod install;
pub mod list;
pub mod man;
pub mod mcp;
pub mod outdated;
pub mod output;
pub mod refused;
pub mod report;
pub mod show;
pub mod signals;
pub mod sync;
pub mod tui;
pub mod verify;
pub mod why;

pub use crate::command::{complete, help};

use clap::Parser;
use output::Output;
use std::io::Write;
use std::process::ExitCode;

pub use crate::command::args::{
    CatalogArg, Cli, Command, EngineFlags, GlobalArgs, JsonArg, OwnFlags, PrincipalArg,
};

/// Runs hcpx with the process arguments; the entry point of both binaries.
pub fn main() -> ExitCode {
    // `HCPX_COMPLETE=bash hcpx -- hcpx ...`: a shell asking for completions.
    crate::command::complete_if_asked();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    // `hcpx exec PACK_ID VERB --help` shows that command's arguments.
    let help_at = exec_help_at(&args);
    let parsed = match help_at {
        Some(at) => {
            let mut rest = args.clone();
            rest.remove(at);
            Cli::try_parse_from(&rest)
        }
        None => parse_alone(&args).map_or_else(|| Cli::try_parse_from(&args), Ok),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(err) => return usage_error(err, json, is_exec(&args)),
    };
    signals::install();
    let global = match &cli.command {
        Some(command) => command.merge_flags(cli.global.clone()),
        None => cli.global.clone(),
    };
    let ctx = context::Ctx::new(global);
    warn_missing_catalogs(&ctx.global.catalogs);
    let code = run(cli.command, help_at.is_some(), &ctx);
    signals::hold_if_ending();
    ExitCode::from(u8::try_from(code).unwrap_or(125))
}

/// Runs a subcommand; all but `completions`, `man` and `tui` run through
/// the command layer (`report`).
fn run(command: Option<Command>, exec_help: bool, ctx: &context::Ctx) -> i32 {
    let out = ctx.out.clone();
    match command {
        Some(Command::Exec(args)) if exec_help => show::exec_help(&args.pack, &args.verb, ctx),
        Some(command @ (Command::Install(_) | Command::Add(_))) => install::run(&command, ctx),
        Some(command @ Command::Connect(_)) => connect::run(&command, ctx),
        Some(command @ Command::Exec(_)) => exec::run(&command, ctx),
        Some(command @ Command::Catalog(_)) => catalog::run(&command, ctx),
        Some(command @ Command::Sync(_)) => sync::run(&command, ctx),
        Some(Command::Completions(args)) => completions::completions(&args, &out),
        Some(Command::Man(args)) => man::man(&args, &out),
        Some(Command::Mcp(args)) => mcp::run(&args, ctx),
        Some(Command::Tui(args)) => tui::run(&args, ctx),
        Some(command) => report::command(&command, ctx),
        // On a terminal, `hcpx` alone starts the TUI; otherwise it prints help.
        None if is_interactive() => tui::run(&tui::TuiArgs::default(), ctx),
        None => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            let _ = cmd.print_help();
            0
        }
    }
}

/// A `--catalog` folder that is not there is a warning on stderr, not
/// silence (HCP.md §11.6): the run goes on without it.
fn warn_missing_catalogs(catalogs: &[std::path::PathBuf]) {
    use output::WARNING;
    for dir in catalogs.iter().filter(|d| !d.is_dir()) {
        let what = if dir.exists() {
            "is not a folder"
        } else {
            "does not exist"
        };
        let shown = dir.display().to_string();
        let mut stderr = anstream::stderr();
        let _ = writeln!(
            stderr,
            "{WARNING}warning{WARNING:#}: catalog {} {what}; it is skipped",
            output::one_line(&shown)
        );
    }
}

fn is_interactive() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// `hcpx exec ...`, `hcpx list ...` and `hcpx availability ...` parsed by
/// a command that has the root's flags and that subcommand alone: building
/// the arguments of every other subcommand took a sixth of what hcpx itself
/// does in an exec, and more instructions than `list` spends on the whole
/// store of a few packs. Only a command line that names one of them and
/// parses cleanly is taken; anything else (a usage error, `--help`,
/// `--version`) is `None`, and the whole command parses it, so what the
/// user sees is unchanged.
fn parse_alone(args: &[std::ffi::OsString]) -> Option<Cli> {
    use crate::command::args::{availability::AvailabilityArgs, list::ListArgs};
    use clap::{Args, FromArgMatches};
    let sub = match subcommand_word(args)? {
        "exec" => exec::ExecArgs::augment_args(clap::Command::new("exec")),
        "list" | "ls" => ListArgs::augment_args(clap::Command::new("list").alias("ls")),
        "availability" => AvailabilityArgs::augment_args(clap::Command::new("availability")),
        _ => return None,
    };
    let root = GlobalArgs::augment_args(clap::Command::new("hcpx")).subcommand(sub);
    let matches = root.try_get_matches_from(args).ok()?;
    let global = GlobalArgs::from_arg_matches(&matches).ok()?;
    let command = match matches.subcommand()? {
        ("exec", sub) => Command::Exec(exec::ExecArgs::from_arg_matches(sub).ok()?),
        ("list", sub) => Command::List(ListArgs::from_arg_matches(sub).ok()?),
        ("availability", sub) => {
            Command::Availability(AvailabilityArgs::from_arg_matches(sub).ok()?)
        }
        _ => return None,
    };
    Some(Cli {
        global,
        command: Some(command),
    })
}

/// Whether the command line names the `exec` subcommand.
fn is_exec(args: &[std::ffi::OsString]) -> bool {
    subcommand_word(args) == Some("exec")
}

/// The command line's first word that is neither a global flag nor a
/// global flag's value: the subcommand, when it names one.
fn subcommand_word(args: &[std::ffi::OsString]) -> Option<&str> {
    let mut words = args.iter().skip(1);
    while let Some(word) = words.next() {
        let word = word.to_str()?;
        match word {
            "--json" => {}
            "--principal" | "--catalog" => {
                words.next();
            }
            _ if word.starts_with("--principal=") || word.starts_with("--catalog=") => {}
            _ => return Some(word),
        }
    }
    None
}

/// Where `--help` or `-h` stands in `hcpx exec PACK_ID VERB --help`: after
/// the pack and the verb, before `--`. `hcpx exec --help` (fewer than two
/// words before it) stays clap's help of `exec` itself.
fn exec_help_at(args: &[std::ffi::OsString]) -> Option<usize> {
    if !is_exec(args) {
        return None;
    }
    let mut positional = 0;
    let mut i = 1;
    let mut seen_exec = false;
    while i < args.len() {
        let word = args[i].to_str()?;
        match word {
            "--" => return None,
            "--json" => {}
            "--principal" | "--catalog" => i += 1,
            _ if word.starts_with("--principal=") || word.starts_with("--catalog=") => {}
            "--help" | "-h" if positional >= 2 => return Some(i),
            "--help" | "-h" => return None,
            _ if word.starts_with('-') => {}
            "exec" if !seen_exec => seen_exec = true,
            _ => positional += 1,
        }
        i += 1;
    }
    None
}

/// A clap error: help and version print as usual (exit 0); anything else is
/// a usage error, also as a JSON document when `--json` was given. It exits
/// 2, or 125 for `hcpx exec`, whose own command line's usage errors exit
/// 125 so that they are not taken for the command's own 2 (HCP.md §10.3).
fn usage_error(err: clap::Error, json: bool, exec: bool) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let hint = if exec {
        kv_before_dashes(&err)
    } else {
        crate::command::line::closest_subcommand(&err)
    };
    let err = crate::command::line::with_closest_subcommand(err);
    if json {
        let mut error = crate::engine::error::Error::usage(usage_message(&err));
        if let Some(hint) = &hint {
            error = error.hint(hint.clone());
        }
        Output::new(true).error(&error);
    }
    let _ = err.print();
    if let Some(hint) = hint.filter(|_| exec) {
        use output::HINT;
        let mut stderr = anstream::stderr();
        let _ = writeln!(
            stderr,
            "  {HINT}hint{HINT:#}: {}",
            output::terminal_safe(&hint)
        );
    }
    ExitCode::from(if exec { 125 } else { 2 })
}

/// For `hcpx exec PACK_ID VERB tz=UTC`: a `k=v` word that clap did not
/// expect, which belongs after `--` (§6.2).
fn kv_before_dashes(err: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if err.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(word)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    if word.starts_with('-') || !word.contains('=') {
        return None;
    }
    Some(format!(
        "arguments go after `--`: hcpx exec PACK_ID VERB -- {word}"
    ))
}

/// The first line of clap's message, with the names of missing required
/// arguments, which clap lists on the lines after it.
fn usage_message(err: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = err.to_string();
    let first = text
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .to_string();
    if err.kind() != ErrorKind::MissingRequiredArgument {
        return first;
    }
    let missing = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::Strings(names)) => names.join(", "),
        Some(ContextValue::String(name)) => name.clone(),
        _ => return first,
    };
    format!("{}: {missing}", first.trim_end_matches(':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &str) -> Vec<std::ffi::OsString> {
        std::iter::once("hcpx")
            .chain(words.split(' '))
            .map(Into::into)
            .collect()
    }

    /// The subcommand-alone parser reads every command line it takes as
    /// the whole command does, and leaves the rest to it.
    #[test]
    fn alone_parses_as_the_whole_command() {
        for line in [
            "list",
            "list --json",
            "--json list --catalog /c",
            "list -g",
            "list --project",
            "ls",
            "ls --json -g",
            "availability",
            "availability p.q --json --principal me",
            "--principal agent availability --catalog=/d",
            "exec demo.clock now",
            "exec demo.clock now --json",
            "--json exec demo.clock now",
            "--principal agent --catalog /c exec p.q v --catalog /d -- a=1 b=x=y",
            "exec p.q v --principal=me -- --json --help",
            "exec p.q v --",
        ] {
            let args = argv(line);
            let alone = parse_alone(&args).unwrap_or_else(|| panic!("not taken: {line}"));
            let whole = Cli::try_parse_from(&args).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(format!("{alone:?}"), format!("{whole:?}"), "{line}");
        }
        for line in [
            "exec demo.clock",
            "exec",
            "exec p.q v --bogus",
            "exec p.q v --version",
            "exec p.q v -V",
            "exec --help",
            "exec p.q v extra",
            "list extra",
            "list --help",
            "list -V",
            "list -g --project",
            "availability p.q r.s",
            "availability --bogus",
            "help exec",
            "help list",
            "show p.q",
        ] {
            assert!(parse_alone(&argv(line)).is_none(), "{line}");
        }
    }

    /// Command lines of up to eight words from a set of awkward ones
    /// (flags in every place, values that look like flags or like `exec`,
    /// `--`, `=`, `-`): whenever the subcommand-alone parser takes one, the
    /// whole command takes it too and means the same.
    #[test]
    fn alone_agrees_with_the_whole_command_on_awkward_lines() {
        const WORDS: &[&str] = &[
            "exec",
            "--json",
            "--principal",
            "--catalog",
            "--principal=exec",
            "--catalog=",
            "p.q",
            "v",
            "--",
            "k=v",
            "-",
            "=",
            "--help",
            "-V",
            "list",
            "availability",
            "-g",
            "--project",
            "--bogus",
            "help",
            "-j",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut taken = 0;
        for _ in 0..20_000 {
            // Mostly `hcpx [a word or two] SUBCOMMAND WORDS...`, so that
            // many are taken.
            let mut args: Vec<std::ffi::OsString> = vec!["hcpx".into()];
            for at in 0..(next() % 9) {
                let word = match next() % 4 {
                    0 if at < 3 => ["exec", "list", "availability"][(next() % 3) as usize],
                    _ => WORDS[(next() % WORDS.len() as u64) as usize],
                };
                args.push(word.into());
            }
            let Some(alone) = parse_alone(&args) else {
                continue;
            };
            taken += 1;
            let whole = Cli::try_parse_from(&args)
                .unwrap_or_else(|e| panic!("{args:?}: taken alone, refused whole: {e}"));
            assert_eq!(format!("{alone:?}"), format!("{whole:?}"), "{args:?}");
        }
        assert!(taken > 100, "only {taken} lines were taken");
    }
}
