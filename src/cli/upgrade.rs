//! `hcpx upgrade [PACK_ID...] [--dry-run] [--yes]` (HCP.md §13.7): the
//! newest version from each pack's recorded source, after its capability
//! diff; an escalating change needs `--yes` (else `confirmation_required`,
//! exit 3, nothing changed). JSON: `{"ok": bool, "results": [..]}`, with
//! `error` beside it on failure.

use crate::cli::context::Ctx;
use crate::cli::output::{ERROR, terminal_safe};
use crate::engine::ops::upgrade::{UpgradeOptions, UpgradeResult};
use std::io::Write;

/// Upgrade packs to the newest version of their recorded source, showing what they gain
#[derive(Debug, clap::Args)]
#[command(after_help = crate::cli::help::UPGRADE)]
pub struct UpgradeArgs {
    /// The packs to upgrade (default: every pack from a catalog or git)
    /// Only these packs (default: every pack with a newer version)
    #[arg(value_name = "PACK_ID", add = crate::cli::complete::pack_ids())]
    pub packs: Vec<String>,
    #[command(flatten)]
    pub flags: crate::cli::EngineFlags,
    /// Only report what would change
    #[arg(long)]
    pub dry_run: bool,
    /// Accept changes that give a pack more reach
    #[arg(long)]
    pub yes: bool,
}

pub fn run(args: &UpgradeArgs, ctx: &Ctx) -> i32 {
    let options = UpgradeOptions {
        pack_ids: args.packs.clone(),
        dry_run: args.dry_run,
        yes: args.yes,
    };
    ctx.with_engine(|engine| {
        let (results, error) = engine.upgrade(&options);
        ctx.results(&results, error, |r| print(r, args.dry_run))
    })
}

fn print(results: &[UpgradeResult], dry_run: bool) {
    let mut w = anstream::stdout().lock();
    if results.is_empty() {
        let _ = writeln!(w, "every pack is up to date");
    }
    for r in results {
        let state = if r.applied {
            "upgraded"
        } else if dry_run {
            "would upgrade"
        } else {
            "not upgraded"
        };
        let _ = writeln!(
            w,
            "{state} {} {} -> {}",
            terminal_safe(&r.pack_id),
            terminal_safe(&r.from),
            terminal_safe(&r.to)
        );
        for c in &r.changes {
            let text = serde_json::to_value(c).unwrap_or_default();
            let mut fields: Vec<String> = text
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| *k != "kind" && *k != "escalates")
                .map(|(k, v)| {
                    format!(
                        "{k}={}",
                        v.as_str().map_or_else(|| v.to_string(), str::to_string)
                    )
                })
                .collect();
            fields.sort();
            let kind = text["kind"].as_str().unwrap_or("?");
            let line = terminal_safe(&format!("{kind} {}", fields.join(" "))).into_owned();
            if c.escalates {
                let _ = writeln!(w, "  {ERROR}+{ERROR:#} {line}");
            } else {
                let _ = writeln!(w, "    {line}");
            }
        }
    }
}
