//! `hcpx exec PACK_ID VERB [-- k=v ...]` (HCP.md §6). Without `--json` the
//! command's stdout and stderr pass through and hcpx exits with its code;
//! with `--json` one document of §6.7. Exit codes of §10.3; usage errors of
//! this command line itself exit 125 (see `cli::usage_error`). Interrupted,
//! hcpx ends the command's process group and exits 128 + the signal
//! (§14.6, `cli::signals`).

use crate::cli::context::Ctx;
use crate::engine::exec::OutputMode;
use std::io::Write;

pub use crate::command::args::exec::ExecArgs;

pub fn run(args: &ExecArgs, ctx: &Ctx) -> i32 {
    let engine = match ctx.engine_holding(&args.pack) {
        Ok(engine) => engine,
        Err(err) => {
            ctx.out.error(&err);
            return err.code.exec_exit_code();
        }
    };
    let mode = if ctx.out.json {
        OutputMode::Capture
    } else {
        OutputMode::Inherit
    };
    // An `http` body streams to our stdout as it arrives (§6.7).
    let mut stdout = std::io::stdout();
    let result = engine.exec_to(&args.pack, &args.verb, &args.words, mode, Some(&mut stdout));
    // A command sharing the terminal was handed a signal (§14.6).
    if let Some(signal) = crate::cli::signals::interrupted() {
        return 128 + signal;
    }
    match result {
        Ok(result) => {
            if ctx.out.json {
                ctx.out.json(&result);
            } else {
                // Builtin operations answer in captured text; the runtime's
                // own `hcpx:` lines come in `stderr`.
                let _ = stdout.write_all(result.stdout.as_bytes());
                let _ = stdout.flush();
                let _ = std::io::stderr().write_all(result.stderr.as_bytes());
            }
            result.exit_code
        }
        Err(err) => {
            ctx.out.error(&err);
            err.code.exec_exit_code()
        }
    }
}
