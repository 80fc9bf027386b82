//! `hcpx sync LOCKFILE [--frozen] [--prune] [--yes]` (HCP.md §13.8): an
//! entry whose source holds another pack or version is refused
//! (`integrity`); replacing an installed pack with more reach needs `--yes`
//! (else `confirmation_required`, exit 3). JSON:
//! `{"ok": bool, "results": [{"pack_id", "action", "version"}]}`, with
//! `error` beside it on failure.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::ops::sync::{SyncAction, SyncOptions, SyncResult};

pub use crate::command::args::sync::SyncArgs;

pub fn run(args: &SyncArgs, ctx: &Ctx) -> i32 {
    let options = SyncOptions {
        lockfile: args.lockfile.clone(),
        frozen: args.frozen,
        prune: args.prune,
        yes: args.yes,
    };
    ctx.with_engine(|engine| {
        let (results, error) = engine.sync(&options);
        ctx.results(&results, error, print)
    })
}

fn print(results: &[SyncResult]) {
    for r in results {
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
}
