//! `hcpx outdated` (HCP.md §13.6): installed packs whose recorded source
//! has a newer version.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::ops::upgrade::OutdatedPack;
use serde::Serialize;

/// List installed packs whose catalog or git source has a newer version
#[derive(Debug, clap::Args)]
#[command(after_help = crate::cli::help::OUTDATED)]
pub struct OutdatedArgs {
    #[command(flatten)]
    pub json: crate::cli::JsonArg,
    #[command(flatten)]
    pub catalog: crate::cli::CatalogArg,
}

#[derive(Serialize)]
struct Doc {
    packs: Vec<OutdatedPack>,
}

pub fn run(_args: &OutdatedArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match engine.outdated() {
        Ok(packs) => ctx.success(Doc { packs }, |d| {
            if d.packs.is_empty() {
                println!("every pack is up to date");
            }
            for p in &d.packs {
                println!(
                    "{}  {} -> {}",
                    terminal_safe(&p.pack_id),
                    terminal_safe(&p.installed),
                    terminal_safe(&p.latest)
                );
            }
        }),
        Err(err) => ctx.fail(&err),
    })
}
