//! `outdated` in words (§13.6): each pack, its installed and newest version.

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
        }
    }
    Ok(())
}

/// `sha256:` and the first 12 hex digits of a digest.
fn short(digest: &str) -> &str {
    digest.get(..19).unwrap_or(digest)
}
