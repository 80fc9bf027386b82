//! The requests of both stores inside a project, printed by the CLI
//! (HCP.md §15.5, §15.1): which ones, how each store is opened and how
//! their outcomes merge is the command layer's (`Workspace::execute_both`,
//! `command::both`); here the merged document, or each store's words
//! under its name, is printed, then the notes and errors of both on
//! stderr. The exit code is the worse of the two.

use crate::cli::context::Ctx;
use crate::cli::output::write_text;
use crate::command::Request;
use crate::command::both::Both;
use crate::command::workspace::Answer;
use std::io::Write;

/// Runs `request` on both stores and prints the merged report.
pub fn run(request: &Request, ctx: &Ctx) -> i32 {
    match ctx.workspace().execute_both(request) {
        Ok(answer) => print_answer(&answer, ctx),
        Err(err) => ctx.fail(&err),
    }
}

/// Prints what both stores answered to `request` (see [`print_answer`]).
pub fn print(request: &Request, both: &Both, ctx: &Ctx) -> i32 {
    let project = ctx.project().ok().flatten();
    print_answer(&Answer::both(request, both.clone(), project), ctx)
}

/// Prints both stores' answer: the merged document (the project's, §15.1),
/// or each store's words under its name, then the notes and errors of both
/// on stderr; returns the worse exit code.
fn print_answer(answer: &Answer, ctx: &Ctx) -> i32 {
    if ctx.out.json {
        ctx.out.json_answer(answer);
    } else {
        write_text(&answer.words());
        for outcome in answer.outcomes() {
            let notes = outcome.notes();
            if !notes.is_empty() {
                let _ = write!(anstream::stderr().lock(), "{notes}");
            }
            if let Some(err) = outcome.error() {
                ctx.out.error(&err);
            }
        }
    }
    answer.exit_code()
}
