//! `upgrade` in words (§13.7): each pack's versions, and its capability
//! changes, an escalating one marked `+`; with `--dry-run` the digest of
//! each new version, as `--expect` takes it.

use crate::command::style::ERROR;
use crate::engine::ops::upgrade::{OutdatedPack, UpdateReason, UpgradeResult};
use crate::engine::pack::text::one_line;
use crate::engine::policy::capdiff::CapabilityChange;
use std::fmt::{Result, Write};

/// The results, then each pack that was not compared (§13.6); "every pack
/// is up to date" only when every pack was compared and none is newer.
pub fn write(
    w: &mut impl Write,
    results: &[UpgradeResult],
    problems: &[OutdatedPack],
    dry_run: bool,
) -> Result {
    if results.is_empty() && problems.is_empty() {
        writeln!(w, "every pack is up to date")?;
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
            _ => "",
        };
        writeln!(
            w,
            "{state} {} {} -> {}{content}{}",
            one_line(&r.pack_id),
            one_line(&r.from),
            one_line(&r.to),
            if dry_run {
                format!(" ({})", r.to_digest)
            } else {
                String::new()
            }
        )?;
        write_changes(w, &r.changes)?;
    }
    for p in problems {
        writeln!(
            w,
            "not upgraded {}: {}: {}",
            one_line(&p.pack_id),
            super::outdated::problem_words(p.reason, &p.latest),
            one_line(p.hint.as_deref().unwrap_or_default())
        )?;
    }
    Ok(())
}

/// One line per capability change: its kind, then its fields sorted (also
/// `sync`'s, §13.8).
pub fn write_changes(w: &mut impl Write, changes: &[CapabilityChange]) -> Result {
    for c in changes {
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
        let line = one_line(&format!("{kind} {}", fields.join(" "))).into_owned();
        if c.escalates {
            writeln!(w, "  {ERROR}+{ERROR:#} {line}")?;
        } else {
            writeln!(w, "    {line}")?;
        }
    }
    Ok(())
}
