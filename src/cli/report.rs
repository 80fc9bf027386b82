//! The report subcommands (`doctor`, `verify`, `show`, `availability`,
//! `why`, `list`, `catalog list|update`, `harness list|status`,
//! `outdated`): a [`Request`] run by the command layer, its [`Outcome`]
//! printed as its `--json` document or its words (HCP.md §10.1), exiting
//! with its code (§10.2).

use crate::cli::context::Ctx;
use crate::command::args::Command;
use crate::command::{Outcome, Request, execute};
use crate::engine::error::Error;
use std::io::Write;

/// Runs the report `command` asks for.
pub fn command(command: &Command, ctx: &Ctx) -> i32 {
    match Request::from_command(command) {
        Some(request) => run(&request, ctx),
        None => ctx.fail(&Error::usage("this subcommand is not a report")),
    }
}

/// Runs `request` and prints its outcome.
pub fn run(request: &Request, ctx: &Ctx) -> i32 {
    // A broken config.yaml or bootstrap pack does not stop doctor: it is
    // what doctor reports.
    let engine = match request {
        Request::Doctor { .. } => ctx.engine_for_doctor(),
        _ => ctx.engine(),
    };
    match engine.and_then(|engine| execute(&engine, request, &ctx.out.flags)) {
        Ok(outcome) => print(&outcome, ctx),
        Err(err) => ctx.fail(&err),
    }
}

/// `outcome` on stdout; its error (verify's) after its words on stderr.
/// Writes a report's words to stdout in one write: styled on a terminal,
/// plain elsewhere (a long list is not written line by line).
fn write_text(text: &str) {
    let stdout = anstream::stdout();
    if stdout.current_choice() == anstream::ColorChoice::Never {
        let plain = crate::command::style::plain(text);
        let _ = std::io::stdout().lock().write_all(plain.as_bytes());
    } else {
        let _ = write!(stdout.lock(), "{text}");
    }
}

pub fn print(outcome: &Outcome, ctx: &Ctx) -> i32 {
    if ctx.out.json {
        ctx.out.json(outcome);
    } else {
        write_text(&outcome.to_string());
        if let Some(err) = outcome.error() {
            ctx.out.error(&err);
        }
    }
    outcome.exit_code()
}
