//! Every subcommand the command layer runs (the reports and the lifecycle:
//! HCP.md §10, §11): a [`Request`] parsed from the clap tree, run by the
//! command layer with what only a terminal lends it (an [`Interaction`]),
//! its [`Outcome`] printed as its `--json` document or its words on stdout
//! and its notes on stderr (§10.1), exiting with its code (§10.2).

use crate::cli::context::Ctx;
use crate::command::args::Command;
use crate::command::execute::{Interaction, execute_with, without_store};
use crate::command::{Outcome, Request};
use crate::engine::error::Error;
use std::io::Write;

/// Runs the subcommand `command` asks for.
pub fn command(command: &Command, ctx: &Ctx) -> i32 {
    command_with(command, ctx, Interaction::default())
}

/// [`command`] with what the front-end lends it. The store is opened
/// before the words are checked, so a store that cannot be opened is the
/// error, as it has always been.
pub fn command_with(command: &Command, ctx: &Ctx, io: Interaction<'_>) -> i32 {
    let Some(parsed) = Request::parse(command) else {
        return ctx.fail(&Error::usage(
            "this subcommand is not run by the command layer",
        ));
    };
    if let Ok(request) = &parsed
        && let Some(outcome) = without_store(request)
    {
        return print(&outcome, ctx);
    }
    let engine = match &parsed {
        Ok(Request::Doctor { .. }) => ctx.engine_for_doctor(),
        _ => ctx.engine(),
    };
    match engine.and_then(|engine| Ok((engine, parsed?))) {
        Ok((engine, request)) => match execute_with(&engine, &request, &ctx.out.flags, io) {
            Ok(outcome) => print(&outcome, ctx),
            Err(err) => ctx.fail(&err),
        },
        Err(err) => ctx.fail(&err),
    }
}

/// Runs a report `request` and prints its outcome.
pub fn run(request: &Request, ctx: &Ctx) -> i32 {
    // A broken config.yaml or bootstrap pack does not stop doctor: it is
    // what doctor reports.
    let engine = match request {
        Request::Doctor { .. } => ctx.engine_for_doctor(),
        _ => ctx.engine(),
    };
    let io = Interaction::default();
    match engine.and_then(|engine| execute_with(&engine, request, &ctx.out.flags, io)) {
        Ok(outcome) => print(&outcome, ctx),
        Err(err) => ctx.fail(&err),
    }
}

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

/// `outcome` on stdout; its notes, then its error, on stderr.
pub fn print(outcome: &Outcome, ctx: &Ctx) -> i32 {
    if ctx.out.json {
        ctx.out.json(outcome);
    } else {
        write_text(&outcome.to_string());
        let notes = outcome.notes();
        if !notes.is_empty() {
            let _ = write!(anstream::stderr().lock(), "{notes}");
        }
        if let Some(err) = outcome.error() {
            ctx.out.error(&err);
        }
    }
    outcome.exit_code()
}
