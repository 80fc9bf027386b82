//! `sync` in words (§13.8, §15.6): what was done to each pack of the lock
//! file, and the capability diff of each pack it installed or, refused,
//! would have installed (as `upgrade --dry-run` shows it, an escalating
//! change marked `+`).

use crate::engine::ops::sync::{SyncAction, SyncResult};
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, results: &[SyncResult]) -> Result {
    for r in results {
        let action = match r.action {
            Some(SyncAction::Installed) => "installed",
            Some(SyncAction::Upgraded) => "upgraded",
            Some(SyncAction::Reinstalled) => "reinstalled",
            Some(SyncAction::Unchanged) => "unchanged",
            Some(SyncAction::Removed) => "removed",
            None => "not installed",
        };
        let version = match &r.diff {
            Some(d) if r.action.is_none() => match &d.from {
                Some(from) => format!("{from} -> {} ({})", d.to, d.to_digest),
                None => format!("{} ({}), new here: what it can do", d.to, d.to_digest),
            },
            _ => r.version.clone().unwrap_or_default(),
        };
        writeln!(
            w,
            "{action:<11} {} {}",
            one_line(&r.pack_id),
            one_line(&version)
        )?;
        if let Some(diff) = &r.diff {
            super::upgrade::write_changes(w, &diff.changes)?;
        }
    }
    Ok(())
}
