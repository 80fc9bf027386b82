//! `hcpx exec PACK_ID VERB [-- k=v ...]` (HCP.md §6), run by the command
//! layer. What only a terminal does is here: without `--json` the
//! command's stdout and stderr pass through (an `http` body streams to our
//! stdout as it arrives, §6.7) and hcpx exits with its code; with `--json`
//! one document of §6.7. Exit codes of §10.3; usage errors of this command
//! line itself exit 125 (see `cli::usage_error`). Interrupted, hcpx ends
//! the command's process group and exits 128 + the signal (§14.6,
//! `cli::signals`).

use crate::cli::context::Ctx;
use crate::command::Request;
use crate::command::args::Command;
use crate::command::execute::{Interaction, execute_with};
use crate::engine::error::Error;
use std::io::Write;

pub use crate::command::args::exec::ExecArgs;

pub fn run(command: &Command, ctx: &Ctx) -> i32 {
    let fail = |err: &Error| {
        ctx.out.error(err);
        err.code.exec_exit_code()
    };
    let request = match Request::parse(command) {
        Some(Ok(request)) => request,
        Some(Err(err)) => return fail(&err),
        None => return fail(&Error::usage("not an exec")),
    };
    // The store that holds the pack (HCP.md §15.1).
    let engine = match crate::cli::report::engine_for(&request, ctx) {
        Ok(engine) => engine,
        Err(err) => return fail(&err),
    };
    let mut stdout = std::io::stdout();
    let io = Interaction {
        passthrough: (!ctx.out.json).then_some(&mut stdout as &mut dyn Write),
        ..Interaction::default()
    };
    let flags = ctx.flags_for(&engine);
    let result = execute_with(&engine, &request, &flags, io);
    // A command sharing the terminal was handed a signal (§14.6).
    if let Some(signal) = crate::cli::signals::interrupted() {
        return 128 + signal;
    }
    match result {
        Ok(outcome) => {
            if ctx.out.json {
                ctx.out.json(&outcome);
            } else {
                // Builtin operations answer in captured text; the runtime's
                // own `hcpx:` lines come in `stderr`. Both as they are.
                let mut stdout = std::io::stdout();
                let _ = write!(stdout, "{outcome}");
                let _ = stdout.flush();
                let _ = std::io::stderr().write_all(outcome.notes().as_bytes());
            }
            outcome.exit_code()
        }
        Err(err) => {
            ctx.out.error_with(&err, &flags);
            err.code.exec_exit_code()
        }
    }
}
