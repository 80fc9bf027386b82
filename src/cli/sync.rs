//! `hcpx sync LOCKFILE [--frozen] [--prune]` (HCP.md §13.8). JSON:
//! `{"ok": bool, "results": [{"pack_id", "action", "version"}]}`, with
//! `error` beside it on failure.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::error::Error;
use crate::engine::ops::sync::{SyncAction, SyncOptions, SyncResult};
use serde::Serialize;

/// Make the store hold exactly the packs of a lock file (another machine's hcp.lock)
#[derive(Debug, clap::Args)]
#[command(after_help = crate::cli::help::SYNC)]
pub struct SyncArgs {
    /// The lock file to follow
    /// Another machine's hcp.lock
    #[arg(value_name = "LOCKFILE", value_hint = clap::ValueHint::FilePath)]
    pub lockfile: std::path::PathBuf,
    #[command(flatten)]
    pub json: crate::cli::JsonArg,
    #[command(flatten)]
    pub principal: crate::cli::PrincipalArg,
    #[command(flatten)]
    pub catalog: crate::cli::CatalogArg,
    /// Fail (integrity) when a source's digest differs from the lock file's
    #[arg(long)]
    pub frozen: bool,
    /// Also uninstall packs the lock file does not name
    #[arg(long)]
    pub prune: bool,
}

#[derive(Serialize)]
struct Doc<'a> {
    ok: bool,
    results: &'a [SyncResult],
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a Error>,
}

pub fn run(args: &SyncArgs, ctx: &Ctx) -> i32 {
    let options = SyncOptions {
        lockfile: args.lockfile.clone(),
        frozen: args.frozen,
        prune: args.prune,
    };
    ctx.with_engine(|engine| {
        let (results, error) = engine.sync(&options);
        if ctx.out.json {
            ctx.out.json(&Doc {
                ok: error.is_none(),
                results: &results,
                error: error.as_ref(),
            });
        } else {
            for r in &results {
                let action = match r.action {
                    SyncAction::Installed => "installed",
                    SyncAction::Upgraded => "upgraded",
                    SyncAction::Reinstalled => "reinstalled",
                    SyncAction::Unchanged => "unchanged",
                    SyncAction::Removed => "removed",
                };
                let version = r.version.as_deref().unwrap_or("");
                println!(
                    "{action:<11} {} {}",
                    terminal_safe(&r.pack_id),
                    terminal_safe(version)
                );
            }
            if let Some(err) = &error {
                ctx.out.error(err);
            }
        }
        error.map_or(0, |e| e.code.exit_code())
    })
}
