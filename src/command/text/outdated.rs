//! `outdated` in words (§13.6): each pack, its installed and newest version;
//! a pack that could not be compared (`missing`, `lint_failed`, `renamed`,
//! `not_checked`) with what to do. "up to date" is said only when every
//! pack was compared.

use crate::engine::ops::upgrade::{OutdatedPack, UpdateReason};
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, packs: &[OutdatedPack]) -> Result {
    if packs.is_empty() {
        writeln!(w, "every pack is up to date")?;
    }
    for p in packs {
        match p.reason {
            UpdateReason::Version => writeln!(
                w,
                "{}  {} -> {}",
                one_line(&p.pack_id),
                one_line(&p.installed),
                one_line(&p.latest)
            )?,
            UpdateReason::Content => writeln!(
                w,
                "{}  {} new content ({} -> {})",
                one_line(&p.pack_id),
                one_line(&p.installed),
                short(&p.installed_digest),
                short(&p.latest_digest)
            )?,
            other => writeln!(
                w,
                "{}  {}: {}",
                one_line(&p.pack_id),
                problem_words(other, &p.latest),
                one_line(p.hint.as_deref().unwrap_or_default())
            )?,
        }
    }
    Ok(())
}

/// What a pack that was not compared is, in words.
pub fn problem_words(reason: UpdateReason, latest: &str) -> String {
    match reason {
        UpdateReason::Missing => "missing at its source".into(),
        UpdateReason::LintFailed => "no longer lints at its source".into(),
        UpdateReason::Renamed => format!("renamed to `{}` at its source", one_line(latest)),
        UpdateReason::NotChecked => "not checked".into(),
        UpdateReason::Version | UpdateReason::Content => "updated".into(),
    }
}

/// `sha256:` and the first 12 hex digits of a digest.
fn short(digest: &str) -> &str {
    digest.get(..19).unwrap_or(digest)
}
