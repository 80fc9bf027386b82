//! `hcpx uninstall PACK_ID` (11-lifecycle.md §11.1, §11.4).

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;

/// Remove an installed pack, its Skill copy and its stored secret
#[derive(Debug, clap::Args)]
pub struct UninstallArgs {
    #[arg(value_name = "PACK_ID")]
    pub pack: String,
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
