//! `hcpx deactivate PACK_ID...` (HCP.md §11.1, §5.4).

use crate::cli::activate::report;
use crate::cli::context::Ctx;

pub use crate::command::args::deactivate::DeactivateArgs;

pub fn deactivate(args: &DeactivateArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine_holding(args.packs.first(), |engine| {
        let (done, err) = engine.deactivate(&args.packs);
        report(ctx, &done, err, "deactivated", "was not activated")
    })
}
