//! `catalog` in words (§13.2): the catalogs, or what `add`/`remove` changed.

use crate::engine::ops::catalogs::{CatalogChange, CatalogInfo, CatalogKind};
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write_change(w: &mut impl Write, change: &CatalogChange, verb: &str) -> Result {
    let source = one_line(&change.catalog.source);
    if change.changed {
        writeln!(
            w,
            "{verb} catalog {source} ({})",
            packs_line(&change.catalog)
        )?;
        write_ids(w, &change.pack_ids)
    } else {
        writeln!(w, "catalog {source} is already listed")
    }
}

/// The ids a catalog added holds, a few to a line: what `hcpx install ID`
/// now takes.
fn write_ids(w: &mut impl Write, ids: &[String]) -> Result {
    const SHOWN: usize = 40;
    for line in ids.iter().take(SHOWN).collect::<Vec<_>>().chunks(6) {
        let words: Vec<String> = line.iter().map(|id| one_line(id).into_owned()).collect();
        writeln!(w, "  {}", words.join("  "))?;
    }
    if ids.len() > SHOWN {
        writeln!(
            w,
            "  … and {} more (hcpx list shows them all)",
            ids.len() - SHOWN
        )?;
    }
    Ok(())
}

pub fn write_list(w: &mut impl Write, all: &[CatalogInfo]) -> Result {
    if all.is_empty() {
        writeln!(w, "no catalogs: add one with `hcpx catalog add SOURCE`")?;
    }
    for c in all {
        let kind = match c.kind {
            CatalogKind::Dir => "dir",
            CatalogKind::Git => "git",
        };
        let commit = c
            .commit
            .as_deref()
            .map(|s| format!(" @ {}", one_line(s.get(..12).unwrap_or(s))));
        writeln!(
            w,
            "{kind:<4} {}{}  {}  ({})",
            one_line(&c.source),
            commit.unwrap_or_default(),
            packs_line(c),
            one_line(&c.path)
        )?;
    }
    Ok(())
}

/// `3 packs`, or `0 packs: WHY` (HCP.md §13.2).
fn packs_line(c: &CatalogInfo) -> String {
    match &c.reason {
        Some(why) => format!("{}: {}", packs(c.packs), one_line(why)),
        None => packs(c.packs),
    }
}

/// `1 pack`, `N packs`.
fn packs(n: usize) -> String {
    match n {
        1 => "1 pack".to_string(),
        n => format!("{n} packs"),
    }
}
