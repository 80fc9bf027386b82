//! `upgrade` in words (§13.7): each pack's versions, and its capability
//! changes, an escalating one marked `+`; with `--dry-run` the digest of
//! each new version, as `--expect` takes it. Beside them (stderr on the
//! CLI), a warning for each harness copy an upgrade left at the old
//! content because someone edited it (§12.7), with its fix.

use crate::command::style::{ERROR, WARNING};
use crate::engine::error::Fix;
use crate::engine::harness::plan::SkillState;
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
    let values: Vec<serde_json::Value> = changes
        .iter()
        .map(|c| serde_json::to_value(c).unwrap_or_default())
        .collect();
    write_change_values(w, &values)
}

/// [`write_changes`] of changes as their JSON (an error's `results`).
pub fn write_change_values(w: &mut impl Write, changes: &[serde_json::Value]) -> Result {
    for text in changes {
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
        if text["escalates"] == true {
            writeln!(w, "  {ERROR}+{ERROR:#} {line}")?;
        } else {
            writeln!(w, "    {line}")?;
        }
    }
    Ok(())
}

/// A warning for each edited (`modified`) harness copy of an applied
/// upgrade: it keeps the old content until `harness sync --force`.
pub fn write_notes(w: &mut impl Write, results: &[UpgradeResult]) -> Result {
    let fix = Fix::HarnessSync { force: true };
    let fix = crate::fixline::command_line(&fix, &crate::fixline::FixFlags::default());
    for r in results.iter().filter(|r| r.applied) {
        for line in &r.harnesses {
            if line.state != SkillState::Modified {
                continue;
            }
            writeln!(
                w,
                "{WARNING}warning{WARNING:#}: {}: {} was edited, so it keeps the content of {} from before this upgrade; `{fix}` replaces it with the new one",
                line.target.as_str(),
                one_line(&line.path.display().to_string()),
                one_line(&r.pack_id),
            )?;
        }
    }
    Ok(())
}
