//! `hcpx uninstall PACK_ID...` (11-lifecycle.md §11.1, §11.4; HCP.md
//! §13.1): each pack is its own change, one failing leaves the others
//! done. One id prints its result as before; several print `{"ok",
//! "results": [...], "error"?}` (a failed pack as `{"ok": false, "pack_id",
//! "error"}`), the exit code that of the first failure.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::error::Error;
use crate::engine::ops::UninstallOutcome;
use serde::Serialize;

pub use crate::command::args::uninstall::UninstallArgs;

/// One pack's line of several.
#[derive(Serialize)]
#[serde(untagged)]
enum Line {
    Done {
        ok: bool,
        #[serde(flatten)]
        outcome: UninstallOutcome,
    },
    Failed {
        ok: bool,
        pack_id: String,
        error: Error,
    },
}

pub fn run(args: &UninstallArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine_holding(args.packs.first(), |engine| {
        if let [pack] = args.packs.as_slice() {
            return match engine.uninstall(pack) {
                Ok(outcome) => ctx.success(outcome, print),
                Err(err) => ctx.fail(&err),
            };
        }
        let lines: Vec<Line> = args
            .packs
            .iter()
            .map(|pack| match engine.uninstall(pack) {
                Ok(outcome) => Line::Done { ok: true, outcome },
                Err(error) => Line::Failed {
                    ok: false,
                    pack_id: pack.clone(),
                    error,
                },
            })
            .collect();
        let first = lines.iter().find_map(|l| match l {
            Line::Failed { error, .. } => Some(error.clone()),
            Line::Done { .. } => None,
        });
        ctx.results(&lines, first, |lines| {
            for line in lines {
                match line {
                    Line::Done { outcome, .. } => print(outcome),
                    Line::Failed { pack_id, error, .. } => eprintln!(
                        "error: {}: {}",
                        terminal_safe(pack_id),
                        terminal_safe(&error.message)
                    ),
                }
            }
        })
    })
}

fn print(o: &UninstallOutcome) {
    println!("uninstalled {}", terminal_safe(&o.pack_id));
    crate::cli::harness::warn_lines(&o.harnesses, &o.pack_id);
}
