//! `hcpx activate PACK_ID...` (HCP.md §11.1, §5.4), and the report both
//! `activate` and `deactivate` print.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::error::Error;
use crate::engine::ops::Toggle;
use crate::engine::ops::docs::Toggled;

pub use crate::command::args::activate::ActivateArgs;

pub fn activate(args: &ActivateArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine_holding(args.packs.first(), |engine| {
        let (done, err) = engine.activate(&args.packs);
        report(ctx, &done, err, "activated", "already activated")
    })
}

/// Prints what changed per pack, then the error that stopped the run, if any;
/// returns the exit code.
pub(crate) fn report(
    ctx: &Ctx,
    done: &[Toggle],
    err: Option<Error>,
    changed: &str,
    same: &str,
) -> i32 {
    if ctx.out.json {
        let shown = err
            .as_ref()
            .map(|e| crate::cli::fix::with_hint(e, &ctx.out.flags));
        ctx.out.json(&Toggled {
            ok: err.is_none(),
            results: done,
            error: shown.as_ref(),
        });
    } else {
        for t in done {
            let pack_id = terminal_safe(&t.pack_id);
            println!("{pack_id}: {}", if t.changed { changed } else { same });
            crate::cli::harness::warn_lines(&t.harnesses, &t.pack_id);
        }
        if let Some(err) = &err {
            ctx.out.error(err);
        }
    }
    err.map_or(0, |e| e.code.exit_code())
}
