//! `hcpx upgrade [PACK_ID...] [--dry-run] [--yes] [--offline]` (HCP.md
//! §13.7): the newest version (or, at the same version, the newest content)
//! from each pack's recorded source, after its capability diff; an escalating change needs `--yes` (else `confirmation_required`,
//! exit 3, nothing changed). JSON: `{"ok": bool, "results": [..]}`, with
//! `error` beside it on failure.
//!
//! Where the spec is silent: `--expect PACK_ID=DIGEST` installs a pack only
//! if its new version is still the tree (§13.4 digest) whose diff was
//! shown; otherwise `confirmation_required`, nothing changed. The refusal of
//! an escalating upgrade, or of an unmet expectation, shows the digests in
//! its hint, as the command line that confirms exactly the diff shown; the
//! text of `--dry-run` shows them too.

use crate::cli::context::Ctx;
use crate::cli::output::{ERROR, terminal_safe};
use crate::engine::error::{Error, ErrorCode};
use crate::engine::ops::upgrade::{UpdateReason, UpgradeOptions, UpgradeResult};
use crate::fixline::shell_quote;
use std::io::Write;

pub use crate::command::args::upgrade::UpgradeArgs;

pub fn run(args: &UpgradeArgs, ctx: &Ctx) -> i32 {
    let options = UpgradeOptions {
        pack_ids: args.packs.clone(),
        dry_run: args.dry_run,
        yes: args.yes,
        expect: args.expect.clone(),
        offline: args.offline,
    };
    ctx.with_engine_holding(args.packs.first(), |engine| {
        let (results, error) = engine.upgrade(&options);
        let error = error.map(|err| confirm_hint(ctx, &results, err));
        ctx.results(&results, error, |r| print(r, args.dry_run))
    })
}

/// A refusal that shows a diff (an escalating upgrade, or a new version
/// that is not the one expected), with the command line that confirms
/// exactly that diff as its hint.
fn confirm_hint(ctx: &Ctx, results: &[UpgradeResult], err: Error) -> Error {
    let shown = !results.is_empty() && results.iter().all(|r| !r.applied);
    if err.code != ErrorCode::ConfirmationRequired || !shown {
        return err;
    }
    let mut line = String::from("hcpx upgrade");
    let mut push = |word: &str| {
        line.push(' ');
        line.push_str(&shell_quote(word));
    };
    for r in results {
        push(&r.pack_id);
    }
    push("--yes");
    for r in results {
        push("--expect");
        push(&format!("{}={}", r.pack_id, r.to_digest));
    }
    for catalog in &ctx.out.flags.catalogs {
        push("--catalog");
        push(catalog);
    }
    err.hint(format!(
        "review the changes, then install exactly these versions: {line}"
    ))
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
        let content = match r.reason {
            UpdateReason::Content => " (new content)",
            UpdateReason::Version => "",
        };
        let _ = writeln!(
            w,
            "{state} {} {} -> {}{content}{}",
            terminal_safe(&r.pack_id),
            terminal_safe(&r.from),
            terminal_safe(&r.to),
            if dry_run {
                format!(" ({})", r.to_digest)
            } else {
                String::new()
            }
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
