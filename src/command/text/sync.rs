//! `sync` in words (§13.8): what was done to each pack of the lock file.

use crate::engine::ops::sync::{SyncAction, SyncResult};
use crate::engine::pack::text::one_line;
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
            one_line(&r.pack_id),
            one_line(version)
        )?;
    }
    Ok(())
}
