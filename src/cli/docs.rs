//! `hcpx completions SHELL` and `hcpx man`: shell completions and a man page
//! generated from the clap definitions, so they never drift from the CLI.

use crate::cli::Cli;
use crate::cli::output::Output;
use crate::engine::error::{Error, ErrorCode};
use clap::CommandFactory;
use std::io::Write;

/// Print a shell completion script (bash, zsh, fish, elvish, powershell)
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Print the man page (roff) on stdout
#[derive(Debug, clap::Args)]
pub struct ManArgs {}

pub fn completions(args: &CompletionsArgs, out: &Output) -> i32 {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "hcpx", &mut script);
    emit(
        out,
        &script,
        serde_json::json!({"ok": true, "shell": args.shell.to_string()}),
        "script",
    )
}

pub fn man(_args: &ManArgs, out: &Output) -> i32 {
    let mut page = Vec::new();
    if let Err(err) = clap_mangen::Man::new(Cli::command()).render(&mut page) {
        out.error(&Error::new(
            ErrorCode::Io,
            format!("cannot render the man page: {err}"),
        ));
        return 1;
    }
    emit(out, &page, serde_json::json!({"ok": true}), "roff")
}

/// Prints the generated text, or with `--json` a document holding it.
fn emit(out: &Output, text: &[u8], mut doc: serde_json::Value, key: &str) -> i32 {
    if out.json {
        doc[key] = String::from_utf8_lossy(text).into_owned().into();
        out.json(&doc);
        return 0;
    }
    match std::io::stdout().write_all(text) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}
