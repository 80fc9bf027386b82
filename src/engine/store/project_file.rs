//! Keeping a project's `hcp.yaml` in step with its store (HCP.md §15.3):
//! every change of a project's store — install, uninstall, activate,
//! deactivate, upgrade, sync, doctor's repairs — records in `hcp.yaml`,
//! as a step of the same change under the same lock, the packs it added
//! to the lock (an entry with a portable `source`), the packs it dropped
//! from the lock (their entry goes), and the activations it changed
//! (`activate:`). So a failed change leaves `hcp.yaml` as it was
//! (§14.7), and two changes in one project never lose each other's
//! entries: each edits the file as it is under the lock.
//!
//! Only what the change itself did is written: an entry the lock does not
//! list yet (a teammate's new entry, before `sync`) is left alone, and an
//! entry's `source` is never rewritten (a `#REF` stays as written: a
//! branch is followed, a tag or commit stays pinned).

use super::lockfile::{LockedSource, SourceKind};
use super::{Store, Transaction, state::State, step};
use crate::engine::error::{Error, Result};
use crate::engine::pack::id::PackId;
use crate::engine::project::{self, file};
use std::collections::BTreeSet;
use std::path::Path;

/// What a project's lock and activations were when a change began.
#[derive(Debug, Clone)]
pub struct Start {
    locked: BTreeSet<PackId>,
    activated: BTreeSet<PackId>,
}

impl Start {
    /// `None` outside a project, and when the lock does not read (the
    /// change then leaves `hcp.yaml` alone; `doctor` reports the lock).
    pub fn read(store: &Store, state: &State) -> Result<Option<Start>> {
        if store.project().is_none() {
            return Ok(None);
        }
        let Ok(lock) = store.read_lockfile() else {
            return Ok(None);
        };
        Ok(Some(Start {
            locked: lock.packs.into_keys().collect(),
            activated: state.activated.iter().cloned().collect(),
        }))
    }
}

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
            Some(project::portable_path(project, Path::new(path)))
        }
    }
}

impl Transaction<'_> {
    /// Edits `hcp.yaml` for what this change did (see the module doc), as a
    /// step of the change; nothing outside a project.
    pub(super) fn keep_project_file(&mut self) -> Result<()> {
        let (Some(root), Some(start)) = (self.store.project(), self.project_start.clone()) else {
            return Ok(());
        };
        let root = root.to_path_buf();
        let lock = self.store.read_lockfile()?;
        let project = project::Project::at(&root)?;
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
            let activated = self.state.is_activated(id);
            if !start.locked.contains(id) && !listed.contains(id.as_str()) {
                let Some(source) = portable_source(&entry.source, &root) else {
                    continue;
                };
                let entry = file::Entry {
                    id: id.to_string(),
                    source,
                    activate: activated,
                };
                edited = file::with_entry(&edited, &entry).map_err(named)?;
            } else if activated != start.activated.contains(id) {
                edited = file::with_activate(&edited, id.as_str(), activated).map_err(named)?;
            }
        }
        if edited == text {
            return Ok(());
        }
        step("project.write")?;
        self.replace_file(&project.file_path(), edited.as_bytes(), 0o644)
    }
}
