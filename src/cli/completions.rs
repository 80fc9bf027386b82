//! `hcpx completions SHELL`: a shell completion script generated from the
//! clap definitions, so it never drifts from the CLI (HCP.md §11.3).

use crate::cli::Cli;
use crate::cli::output::Output;
use clap::CommandFactory;
use std::io::Write;

/// Print a shell completion script (bash, zsh, fish, elvish, powershell)
#[derive(Debug, clap::Args)]
#[command(after_help = crate::cli::help::COMPLETIONS)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
    #[command(flatten)]
    pub json: crate::cli::JsonArg,
}

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

/// Prints the generated text, or with `--json` a document holding it.
pub(crate) fn emit(out: &Output, text: &[u8], mut doc: serde_json::Value, key: &str) -> i32 {
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
