//! `hcpx outdated [--offline]` (HCP.md §13.6): installed packs whose
//! recorded source has a newer version (`reason: version`) or, at the same
//! version, other content (`reason: content`), with both digests. The git
//! catalogs read are brought up to date first, unless `--offline`.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::ops::upgrade::{OutdatedPack, UpdateReason};
use serde::Serialize;

pub use crate::command::args::outdated::OutdatedArgs;
#[derive(Serialize)]
struct Doc {
    packs: Vec<OutdatedPack>,
}

pub fn run(args: &OutdatedArgs, ctx: &Ctx) -> i32 {
    let found = |engine: &crate::engine::Engine| match args.offline {
        true => engine.outdated_offline(),
        false => engine.outdated(),
    };
    ctx.with_engine(|engine| match found(engine) {
        Ok(packs) => ctx.success(Doc { packs }, |d| {
            if d.packs.is_empty() {
                println!("every pack is up to date");
            }
            for p in &d.packs {
                match p.reason {
                    UpdateReason::Version => println!(
                        "{}  {} -> {}",
                        terminal_safe(&p.pack_id),
                        terminal_safe(&p.installed),
                        terminal_safe(&p.latest)
                    ),
                    UpdateReason::Content => println!(
                        "{}  {} new content ({} -> {})",
                        terminal_safe(&p.pack_id),
                        terminal_safe(&p.installed),
                        short(&p.installed_digest),
                        short(&p.latest_digest)
                    ),
                }
            }
        }),
        Err(err) => ctx.fail(&err),
    })
}

/// `sha256:` and the first 12 hex digits of a digest.
fn short(digest: &str) -> &str {
    digest.get(..19).unwrap_or(digest)
}
