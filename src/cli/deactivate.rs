//! `hcpx deactivate PACK_ID...` (HCP.md §11.1, §5.4).

use crate::cli::activate::report;
use crate::cli::context::Ctx;

/// Deactivate packs: drops activation, connection and the Skill copy
#[derive(Debug, clap::Args)]
#[command(after_help = crate::cli::help::DEACTIVATE)]
pub struct DeactivateArgs {
    /// The packs to deactivate
    #[arg(required = true, value_name = "PACK_ID", add = crate::cli::complete::pack_ids())]
    pub packs: Vec<String>,
    #[command(flatten)]
    pub json: crate::cli::JsonArg,
    #[command(flatten)]
    pub catalog: crate::cli::CatalogArg,
}

pub fn deactivate(args: &DeactivateArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| {
        let (done, err) = engine.deactivate(&args.packs);
        report(ctx, &done, err, "deactivated", "was not activated")
    })
}
