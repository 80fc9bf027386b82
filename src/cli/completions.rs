//! `hcpx completions SHELL`: the shell code that completes hcpx. It is the
//! registration of clap_complete's dynamic completion (`cli::complete`):
//! on TAB the shell asks hcpx itself, so subcommands and flags come from
//! the clap definitions (never drifting from the CLI) and pack ids and
//! verbs from the store and the catalogs (HCP.md §11.3, §11.6).

use crate::cli::complete;
use crate::cli::output::Output;
use crate::engine::error::{Error, ErrorCode};
use std::io::Write;

pub use crate::command::args::completions::CompletionsArgs;

pub fn completions(args: &CompletionsArgs, out: &Output) -> i32 {
    let name = args.shell.to_string();
    let shells = clap_complete::env::Shells::builtins();
    let mut script = Vec::new();
    let written = match shells.completer(&name) {
        Some(shell) => shell
            .write_registration(complete::VAR, "hcpx", "hcpx", &completer(), &mut script)
            .map_err(|err| err.to_string()),
        None => Err(format!("no completion for {name}")),
    };
    if let Err(message) = written {
        out.error(&Error::new(
            ErrorCode::Io,
            format!("cannot write the completion script: {message}"),
        ));
        return 1;
    }
    emit(
        out,
        &script,
        serde_json::json!({"ok": true, "shell": name}),
        "script",
    )
}

/// The program the shell runs on TAB: `hcpx` when hcpx was found on PATH,
/// else this executable's own path (e.g. `./target/debug/hcpx`).
fn completer() -> String {
    let argv0 = std::env::args_os().next().unwrap_or_default();
    if std::path::Path::new(&argv0).components().count() > 1
        && let Ok(exe) = std::env::current_exe()
        && let Some(path) = exe.to_str()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        // Only a path that needs no quoting: the zsh script writes it
        // unquoted, and the shell sources the script.
        return path.to_string();
    }
    "hcpx".to_string()
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
