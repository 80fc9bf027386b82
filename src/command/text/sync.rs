//! `sync` in words (§13.8): what was done to each pack of the lock file.

use crate::engine::ops::sync::{SyncAction, SyncResult};
use crate::engine::pack::text::terminal_safe;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, results: &[SyncResult]) -> Result {
    for r in results {
        let action = match r.action {
            SyncAction::Installed => "installed",
            SyncAction::Upgraded => "upgraded",
            SyncAction::Reinstalled => "reinstalled",
            SyncAction::Unchanged => "unchanged",
            SyncAction::Removed => "removed",
        };
        let version = r.version.as_deref().unwrap_or("");
        writeln!(
            w,
            "{action:<11} {} {}",
            terminal_safe(&r.pack_id),
            terminal_safe(version)
        )?;
    }
    Ok(())
}
