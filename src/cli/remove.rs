//! `hcpx remove PACK_ID...` (HCP.md §15.3): deactivate and uninstall; in a
//! project, the packs' entries of `hcp.yaml` and `hcp.lock` go too. JSON:
//! `{"ok": bool, "results": [{"pack_id", "uninstalled"}], "error"?}`.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::ops::project::RemoveOutcome;

pub use crate::command::args::remove::RemoveArgs;

pub fn run(args: &RemoveArgs, ctx: &Ctx) -> i32 {
    let mut results = Vec::new();
    let mut error = None;
    for id in &args.packs {
        match ctx.engine_holding(id).and_then(|engine| engine.remove(id)) {
            Ok(done) => results.push(done),
            Err(err) => {
                error = Some(err);
                break;
            }
        }
    }
    let code = ctx.results(&results, error, print);
    crate::cli::init::say_scope(ctx);
    code
}

fn print(results: &[RemoveOutcome]) {
    for r in results {
        let what = if r.uninstalled {
            "removed"
        } else {
            "removed the entry of"
        };
        println!("{what} {}", terminal_safe(&r.pack_id));
    }
}
