//! Keeping a project's `hcp.yaml` in step with its store (HCP.md §15.3):
//! every change of a project's store — install, uninstall, activate,
//! deactivate, upgrade, sync, doctor's repairs — records in `hcp.yaml`,
//! as a step of the same change under the same lock, the packs it added
//! to the lock (an entry with a portable `source`), the packs it dropped
//! from the lock (their entry goes), and the activations it changed
//! (`activate:`). So a failed change leaves `hcp.yaml` as it was
//! (§14.7), and two changes in one project never lose each other's
//! entries: each edits the file as it is under the lock. The store calls
//! [`hook`] through its `CommitHook` (`store::project_file`).
//!
//! Only what the change itself did is written: an entry the lock does not
//! list yet (a teammate's new entry, before `sync`) is left alone, and an
//! entry's `source` is never rewritten (a `#REF` stays as written: a
//! branch is followed, a tag or commit stays pinned).

use super::{Project, file};
use crate::engine::error::{Error, Result};
use crate::engine::pack::id::PackId;
use crate::engine::store::lockfile::{LockFile, LockedSource, SourceKind};
use crate::engine::store::project_file::{CommitHook, Start};
use crate::engine::store::{Transaction, step};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// The portable `source` of `hcp.yaml` for a recorded source: a git
/// source as `git+URL[//SUBDIR][#REF]`, a folder relative to the project
/// (§15.2). `None` for a source nobody knows.
pub fn portable_source(source: &LockedSource, project: &Path) -> Option<String> {
    match source.kind {
        SourceKind::Git => {
            let mut text = format!("git+{}", source.url.as_deref()?);
            if let Some(subdir) = &source.subdir {
                text.push_str("//");
                text.push_str(subdir);
            }
            if let Some(reference) = &source.reference {
                text.push('#');
                text.push_str(reference);
            }
            Some(text)
        }
        SourceKind::Dir | SourceKind::Catalog => {
            let path = source.path.as_deref()?;
            Some(super::portable_path(project, Path::new(path)))
        }
    }
}

/// The hook a project's store is opened with.
pub fn hook(project: &Project) -> CommitHook {
    let project = project.clone();
    CommitHook(Arc::new(move |tx, start| keep(&project, tx, start)))
}

/// Edits `hcp.yaml` for what the change `tx` did (see the module doc).
fn keep(project: &Project, tx: &mut Transaction<'_>, start: &Start) -> Result<()> {
    let lock = tx.store().read_lockfile()?;
    let text = project.read_text()?;
    let named = |err: Error| project.named(err);
    let listed: BTreeSet<String> = file::parse(&text)
        .map_err(named)?
        .packs
        .into_iter()
        .map(|e| e.id)
        .collect();
    let mut edited = text.clone();
    for id in start
        .locked
        .iter()
        .filter(|id| !lock.packs.contains_key(*id))
    {
        edited = file::without_entry(&edited, id.as_str()).map_err(named)?;
    }
    for (id, entry) in &lock.packs {
        let activated = tx.state.is_activated(id);
        if !start.locked.contains(id) && !listed.contains(id.as_str()) {
            let Some(source) = portable_source(&entry.source, project.root()) else {
                continue;
            };
            let entry = file::Entry {
                id: id.to_string(),
                source,
                activate: activated,
            };
            edited = file::with_entry(&edited, &entry).map_err(named)?;
        } else if activated != start.activated.contains(id) && listed.contains(id.as_str()) {
            edited = file::with_activate(&edited, id.as_str(), activated).map_err(named)?;
        }
    }
    if edited == text {
        return Ok(());
    }
    step("project.write")?;
    tx.replace_file(&project.file_path(), edited.as_bytes(), 0o644)
}

/// The packs `hcp.lock` records that `hcp.yaml` does not name: what a
/// change killed between writing the one and the other leaves (§14.7);
/// `doctor` names them.
pub fn unlisted(project: &Project, lock: &LockFile) -> Result<Vec<PackId>> {
    let text = project.read_text()?;
    let listed: BTreeSet<String> = file::parse(&text)
        .map_err(|err| project.named(err))?
        .packs
        .into_iter()
        .map(|e| e.id)
        .collect();
    Ok(lock
        .packs
        .keys()
        .filter(|id| !listed.contains(id.as_str()))
        .cloned()
        .collect())
}

/// `doctor --fix`: gives each pack [`unlisted`] finds its entry in
/// `hcp.yaml` (its recorded source, `activate` as the state says), as a
/// step of `tx`. Returns the packs it listed.
pub fn list_unlisted(project: &Project, tx: &mut Transaction<'_>) -> Result<Vec<PackId>> {
    let lock = tx.store().read_lockfile()?;
    let missing = unlisted(project, &lock)?;
    if missing.is_empty() {
        return Ok(missing);
    }
    let mut text = project.read_text()?;
    let mut listed = Vec::new();
    for id in missing {
        let Some(source) = lock
            .packs
            .get(&id)
            .and_then(|e| portable_source(&e.source, project.root()))
        else {
            continue;
        };
        let entry = file::Entry {
            id: id.to_string(),
            source,
            activate: tx.state.is_activated(&id),
        };
        text = file::with_entry(&text, &entry).map_err(|err| project.named(err))?;
        listed.push(id);
    }
    tx.replace_file(&project.file_path(), text.as_bytes(), 0o644)?;
    Ok(listed)
}
