//! `hcpx sync LOCKFILE [--frozen] [--prune] [--yes]` (HCP.md §13.8), and in
//! a project `hcpx sync [--frozen]` (§15.3: `.hcp/` and the project's
//! targets made to match `hcp.yaml` and `hcp.lock`; `sync LOCKFILE` there
//! needs `-g`): an
//! entry whose source holds another pack or version is refused
//! (`integrity`); replacing an installed pack with more reach needs `--yes`
//! (else `confirmation_required`, exit 3). JSON:
//! `{"ok": bool, "results": [{"pack_id", "action", "version"}]}`, with
//! `error` beside it on failure.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::error::Error;
use crate::engine::ops::sync::{SyncAction, SyncOptions, SyncResult};

pub use crate::command::args::sync::SyncArgs;

pub fn run(args: &SyncArgs, ctx: &Ctx) -> i32 {
    let in_project = match ctx.project() {
        Ok(project) => project.is_some(),
        Err(err) => return ctx.fail(&err),
    };
    let Some(lockfile) = args.lockfile.clone() else {
        if !in_project {
            return ctx.fail(
                &Error::usage("sync needs a LOCKFILE outside a project (no hcp.yaml here or above)")
                    .hint("pass another machine's hcp.lock, or run `hcpx init` to make this folder a project"),
            );
        }
        // The project's sync (HCP.md §15.3).
        return ctx.with_engine(|engine| {
            let (results, error) = engine.sync_project(args.frozen, args.yes);
            ctx.results(&results, error, print)
        });
    };
    if in_project {
        return ctx.fail(
            &Error::usage("sync LOCKFILE inside a project needs -g (it acts on the user store)")
                .hint("run `hcpx sync` to sync the project to its hcp.yaml and hcp.lock, or `hcpx -g sync LOCKFILE`"),
        );
    }
    let options = SyncOptions {
        lockfile,
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
