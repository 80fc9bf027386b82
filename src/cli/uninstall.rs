//! `hcpx uninstall PACK_ID` (11-lifecycle.md §11.1, §11.4).

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;

/// Remove an installed pack, its Skill copy and its stored secret
#[derive(Debug, clap::Args)]
#[command(after_help = crate::cli::help::UNINSTALL)]
pub struct UninstallArgs {
    /// The installed pack to remove
    #[arg(value_name = "PACK_ID", add = crate::cli::complete::pack_ids())]
    pub pack: String,
    #[command(flatten)]
    pub flags: crate::cli::EngineFlags,
}

pub fn run(args: &UninstallArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match engine.uninstall(&args.pack) {
        Ok(outcome) => ctx.success(outcome, |o| {
            println!("uninstalled {}", terminal_safe(&o.pack_id));
            crate::cli::harness::warn_lines(&o.harnesses, &o.pack_id);
        }),
        Err(err) => ctx.fail(&err),
    })
}
