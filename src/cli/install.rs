//! `hcpx install SOURCE [--force]` (11-lifecycle.md §11.1, HCP.md §11.1).

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::ops::{InstallAction, InstallOutcome};

/// Install a pack from a directory, or from a catalog by id
#[derive(Debug, clap::Args)]
#[command(after_help = crate::cli::help::INSTALL)]
pub struct InstallArgs {
    /// A pack directory (a path with a `/`), or the id of a pack in a catalog
    #[arg(value_name = "DIR|PACK_ID", add = crate::cli::complete::pack_ids_or_dirs())]
    pub source: String,

    /// Replace the installed copy even when it is the same version
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub json: crate::cli::JsonArg,
    #[command(flatten)]
    pub principal: crate::cli::PrincipalArg,
    #[command(flatten)]
    pub catalog: crate::cli::CatalogArg,
}

pub fn run(args: &InstallArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match engine.install(&args.source, args.force) {
        Ok(outcome) => ctx.success(outcome, print),
        Err(err) => ctx.fail(&err),
    })
}

fn print(o: &InstallOutcome) {
    let pack_id = terminal_safe(&o.pack_id);
    println!("{}", terminal_safe(&o.to_string()));
    crate::cli::harness::warn_lines(&o.harnesses, &o.pack_id);
    if o.disconnected {
        println!("its binding changed: run `hcpx connect {pack_id}` again");
    }
    if !o.activated && o.action != InstallAction::Unchanged {
        println!("next: hcpx activate {pack_id}");
    }
}
