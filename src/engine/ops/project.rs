//! The project commands (HCP.md §15.3): `init`, `add`, `remove` and the
//! project's `sync`, on an [`Engine`] opened on a project's store
//! ([`Engine::open_project`]) — `add` also on the user store, where it
//! installs and activates.
//!
//! Every change here goes through the store's changes (install, activate,
//! deactivate, uninstall), each of which keeps `hcp.yaml` and `hcp.lock`
//! in step under the store lock (`store::project_file`), so `add` and
//! `remove` only choose what to change. `add` of a collection installs its
//! packs in one change and activates them in one more
//! (`Engine::activate_each`), so the state, `hcp.lock` and `hcp.yaml` are
//! written, and the targets planned, a fixed number of times however many
//! packs it takes (§12.6).
//!
//! `sync` (no LOCKFILE) reads `hcp.yaml` and `hcp.lock`: an entry the lock
//! lacks is installed from its `source` (and so recorded), the lock's
//! entries `hcp.yaml` names are synced as `sync LOCKFILE` does (§13.8),
//! packs `hcp.yaml` does not name are uninstalled (their lock entries go
//! with them), activations follow `activate:`, and the targets are brought
//! in step. The locked packs, the entries the lock lacks whose source is
//! git (and whose pack is not installed), the activations and the targets
//! are one change (`sync::sync_change`, `install_batch`): every repository
//! fetched once per commit or REF, every pack staged and checked, then all
//! installed with one flush, the state and `hcp.lock` written once; any
//! other entry the lock lacks (a folder, an installed pack) is installed
//! from its source first, as `install` does. With `frozen`, an
//! entry the lock lacks, a lock entry `hcp.yaml` does not name, and a
//! folder source whose digest is not the lock's fail with `integrity`
//! before anything is fetched; a git source whose content at the locked
//! commit has another digest fails the same way once fetched and staged,
//! before any pack is installed.
//!
//! Where the spec is silent: a project's `hcp.lock` that records a folder
//! by an absolute path (hcpx writes them relative) is refused (`usage`)
//! before anything is installed: such a path names a folder of the
//! machine that wrote it.

use super::sources::{PackResult, Selection, SourceRun};
use super::sync::{SyncAction, SyncOptions, SyncResult};
use super::{Engine, InstallOptions};
use crate::engine::error::{Error, ErrorCode, Fix, Result};
use crate::engine::harness::{HarnessEnv, TargetName};
use crate::engine::pack::id::PackId;
use crate::engine::project::{self, Project, file};
use crate::engine::store::lockfile::{self, LockFile, SourceKind};
use crate::engine::store::{Store, Transaction, digest};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;

/// What `hcpx init` wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InitOutcome {
    /// The project folder.
    pub project: String,
    /// The `hcp.yaml` written.
    pub file: String,
    /// The project targets it enables.
    pub harnesses: Vec<TargetName>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// `hcpx init [DIR]` (§15.3): writes `DIR/hcp.yaml` (`harnesses` from the
/// targets detected on this machine, as project targets, `agents` always)
/// and the project store `DIR/.hcp/` with its `.gitignore`. An existing
/// `hcp.yaml` is `already_exists`; inside another project, the new one is
/// nested, with a warning naming the outer one.
pub fn init(dir: &Path, user_home: &Path, env: &HarnessEnv) -> Result<InitOutcome> {
    std::fs::create_dir_all(dir).map_err(|err| Error::io("cannot create", dir, &err))?;
    let project = Project::at(dir)?;
    let path = project.file_path();
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(Error::new(
            ErrorCode::AlreadyExists,
            format!(
                "{} exists already; hcpx does not overwrite it",
                path.display()
            ),
        )
        .path(path.display().to_string())
        .hint("edit it, or add packs to the project with the add subcommand"));
    }
    if project::ours::check(&project, user_home)? == project::ours::StoreState::Absent {
        project::ours::create(&project, user_home)?;
    }
    let mut warnings = Vec::new();
    if let Some(outer) = project
        .root()
        .parent()
        .and_then(|up| project::find(up, user_home))
    {
        warnings.push(format!(
            "{} is inside the project {}; commands here act on the new, nested project",
            project.root().display(),
            outer.display()
        ));
    }
    let user = HarnessEnv {
        project: None,
        ..env.clone()
    };
    let harnesses: Vec<TargetName> = TargetName::PROJECT
        .into_iter()
        .filter(|p| {
            TargetName::ALL
                .into_iter()
                .any(|t| t.in_project() == *p && user.locate(t).detected())
        })
        .collect();
    let names: Vec<String> = harnesses.iter().map(|t| t.as_str().to_string()).collect();
    write_new(&path, file::initial(&names).as_bytes())?;
    Store::open_project(
        project.root(),
        crate::engine::store::LockWait::default(),
        None,
    )?;
    Ok(InitOutcome {
        project: project.root().display().to_string(),
        file: path.display().to_string(),
        harnesses,
        warnings,
    })
}

/// Writes a new file atomically, never over an existing one.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|err| Error::io("cannot write", path, &err))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|err| Error::io("cannot write", path, &err))?;
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.persist_noclobber(path).map_err(|err| {
        Error::new(
            ErrorCode::AlreadyExists,
            format!("{} exists already: {}", path.display(), err.error),
        )
        .path(path.display().to_string())
    })?;
    Ok(())
}

/// What `hcpx remove` did to one pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoveOutcome {
    pub pack_id: String,
    /// Whether an installed copy was uninstalled (else only the entry of
    /// `hcp.yaml` went).
    pub uninstalled: bool,
}

impl Engine {
    /// `hcpx add SOURCE` (§15.3): installs what the source names (with the
    /// selection of `options`, as `install` does) and activates each pack
    /// installed; in a project, each change records the pack in `hcp.yaml`
    /// and `hcp.lock`. A folder source outside the project gets a warning
    /// (`install_source`'s): teammates need the same layout (§15.2).
    pub fn add(&self, options: &InstallOptions) -> Result<Vec<PackResult>> {
        if options.selection == Selection::List {
            return Err(Error::usage(
                "add installs packs; list a source with `install SOURCE --list`",
            ));
        }
        let results = match self.install_source(options)? {
            SourceRun::Done(results) => results,
            SourceRun::Listed(_) => return Err(Error::usage("a listing installs nothing")),
        };
        // Every pack installed is activated in one change (`activate_each`):
        // the targets planned and the state and hcp.yaml written once.
        let ids: Vec<Option<Result<PackId>>> = results
            .iter()
            .map(|result| match result {
                PackResult::Installed(done) => Some(self.pack_id(&done.outcome.pack_id)),
                PackResult::Failed(_) => None,
            })
            .collect();
        let wanted: Vec<PackId> = ids.iter().flatten().flatten().cloned().collect();
        let mut toggles = match self.activate_each(&wanted) {
            Ok(toggles) => toggles,
            Err(err) => vec![Err(err); wanted.len()],
        }
        .into_iter();
        Ok(results
            .into_iter()
            .zip(ids)
            .map(|(result, id)| match (result, id) {
                (PackResult::Installed(done), Some(id)) => {
                    let toggle = id.and_then(|_| {
                        toggles
                            .next()
                            .unwrap_or_else(|| Err(Error::usage("the pack was not activated")))
                    });
                    activated(*done, toggle)
                }
                (other, _) => other,
            })
            .collect())
    }

    /// `hcpx remove ID` (§15.3): deactivates and uninstalls the pack (its
    /// entries of `hcp.yaml` and `hcp.lock` go with the change); a pack
    /// `hcp.yaml` names that is not installed here only loses its entry.
    pub fn remove(&self, pack_id: &str) -> Result<RemoveOutcome> {
        let installed = PackId::parse(pack_id).filter(|id| self.store().is_installed(id));
        if let Some(id) = installed {
            let (_, error) = self.deactivate(std::slice::from_ref(&id));
            if let Some(err) = error {
                return Err(err);
            }
            self.uninstall(&id)?;
            return Ok(RemoveOutcome {
                pack_id: pack_id.to_string(),
                uninstalled: true,
            });
        }
        let Some(project) = self.project() else {
            return Err(self.unknown_or_not_installed(pack_id));
        };
        let mut tx = self.store().lock()?;
        let text = project.read_text()?;
        let listed = file::parse(&text).map_err(|e| project.named(e))?;
        if !listed.packs.iter().any(|e| e.id == pack_id) {
            return Err(self.unknown_or_not_installed(pack_id));
        }
        let edited = file::without_entry(&text, pack_id).map_err(|e| project.named(e))?;
        tx.replace_file(&project.file_path(), edited.as_bytes(), 0o644)?;
        if let Some(id) = PackId::parse(pack_id) {
            tx.record_lock(&id, None)?;
        }
        tx.commit()?;
        Ok(RemoveOutcome {
            pack_id: pack_id.to_string(),
            uninstalled: false,
        })
    }

    /// `hcpx sync [--frozen]` in a project (§15.3, §15.6; see the module
    /// doc). Returns what was done (refused, each pack's diff) and the
    /// error that stopped it, if any.
    pub fn sync_project(&self, options: &SyncOptions) -> (Vec<SyncResult>, Option<Error>) {
        let mut results = Vec::new();
        let error = self.sync_project_into(options, &mut results).err();
        (results, error)
    }

    fn sync_project_into(&self, asked: &SyncOptions, results: &mut Vec<SyncResult>) -> Result<()> {
        self.require_install_grant()?;
        let project = self
            .project()
            .ok_or_else(|| Error::usage("sync without a LOCKFILE needs a project (hcp.yaml)"))?;
        let wanted = project.read_file()?;
        let ids = entry_ids(&project, &wanted)?;
        refuse_absolute_paths(&project)?;
        let sources = super::project_tie::entry_sources(&project, &wanted)?;
        let mut lock = self.store().read_lockfile()?;
        if asked.frozen {
            frozen_checks(&ids, &lock)?;
        }
        lock.packs.retain(|id, _| ids.contains(id));
        // A lock entry not tied to its hcp.yaml entry is one the lock
        // lacks; --frozen fails on it.
        let untied = self.untied_entries(&sources, &lock)?;
        if let Some((id, why)) = untied.first().filter(|_| asked.frozen) {
            return Err(Error::new(
                ErrorCode::Integrity,
                format!("hcp.lock is stale: its entry for {id} is not hcp.yaml's ({why}); nothing was installed"),
            )
            .pack(id.as_str())
            .fix(Fix::Sync)
            .hint("sync without --frozen to resolve it again from hcp.yaml (it shows the diff), and commit hcp.lock"));
        }
        lock.packs
            .retain(|id, _| !untied.iter().any(|(u, _)| u == id));
        let resolving: Vec<_> = sources
            .into_iter()
            .filter(|(id, _)| !lock.packs.contains_key(id))
            .collect();
        let options = SyncOptions {
            approved: Some(self.approved_packs(ids.iter())?),
            ..asked.clone()
        };
        // One change: every pack installed, activations as hcp.yaml says,
        // the targets in step; flushed once, the state and lock written once.
        let plan = self.plan_sync(&lock, resolving)?;
        let mut tx = self.store().lock()?;
        tx.defer_flush();
        let activated: BTreeSet<PackId> = wanted
            .packs
            .iter()
            .filter(|e| e.activate)
            .filter_map(|e| PackId::parse(&e.id))
            .collect();
        let done = self.sync_change(
            &mut tx,
            &plan,
            &options,
            &|id| activated.contains(id),
            results,
        )?;
        self.follow_activation(&mut tx, &wanted)?;
        self.harness_in_step(&mut tx)?;
        tx.commit()?;
        // Every pack this sync installed is approved for the project.
        let approved: Vec<(PackId, String)> = done
            .iter()
            .filter_map(|r| {
                Some((
                    PackId::parse(&r.pack_id)?,
                    r.diff.as_ref()?.to_digest.clone(),
                ))
            })
            .collect();
        results.extend(done);
        self.record_approved(&approved)?;
        if self.drop_unnamed(&ids, results)? {
            self.harness_sync(false)?;
        }
        Ok(())
    }

    /// Uninstalls the packs `hcp.yaml` does not name, and drops the lock
    /// entries of packs it does not name that are not installed. Returns
    /// whether it uninstalled any.
    fn drop_unnamed(&self, ids: &BTreeSet<PackId>, results: &mut Vec<SyncResult>) -> Result<bool> {
        let mut removed = false;
        for id in self.store().installed_ids()? {
            if ids.contains(&id) {
                continue;
            }
            self.remove(id.as_str())?;
            removed = true;
            results.push(SyncResult {
                pack_id: id.to_string(),
                action: Some(SyncAction::Removed),
                version: None,
                diff: None,
            });
        }
        let lock = self.store().read_lockfile()?;
        if lock.packs.keys().any(|id| !ids.contains(id)) {
            let mut tx = self.store().lock()?;
            for id in lock.packs.keys().filter(|id| !ids.contains(*id)) {
                tx.record_lock(id, None)?;
            }
            tx.commit()?;
        }
        Ok(removed)
    }

    /// Activates and deactivates as `hcp.yaml`'s `activate:` says, as steps
    /// of the change `tx` (whose caller brings the targets in step).
    fn follow_activation(
        &self,
        tx: &mut Transaction<'_>,
        wanted: &file::ProjectFile,
    ) -> Result<()> {
        // hcp.yaml's ids were checked when it was read.
        let changes: Vec<(PackId, bool)> = wanted
            .packs
            .iter()
            .filter(|e| e.activate != tx.state.is_activated(&e.id))
            .filter_map(|e| Some((PackId::parse(&e.id)?, e.activate)))
            .collect();
        for (id, activate) in changes {
            if activate {
                self.activate_one(tx, &id, None)?;
            } else {
                self.deactivate_one(tx, &id)?;
            }
        }
        Ok(())
    }
}

/// The result of `add` for a pack installed, once its activation `toggle`
/// was tried: activated (with where its Skill stands in each target), or
/// failed with the activation's error. (The `../` warning of a project is
/// the install's, `Engine::install_source`.)
fn activated(mut done: super::sources::Installed, toggle: Result<super::Toggle>) -> PackResult {
    let toggle = match toggle {
        Ok(toggle) => toggle,
        Err(err) => {
            let id = done.outcome.pack_id;
            return PackResult::failed(id.clone(), Some(id), None, err);
        }
    };
    done.outcome.activated = true;
    if !toggle.harnesses.is_empty() {
        done.outcome.harnesses = toggle.harnesses;
    }
    PackResult::Installed(Box::new(done))
}

/// The `../` warning of a pack recorded from a folder outside the project.
pub(super) fn leaving_warning(root: &Path, outcome: &super::InstallOutcome) -> Option<String> {
    let source = &outcome.source;
    if source.kind == SourceKind::Git {
        return None;
    }
    let path = source.path.as_deref()?;
    let recorded = project::portable_path(root, Path::new(path));
    project::leaves_project(&recorded).then(|| {
        format!(
            "{} is recorded as {recorded}, outside the project: teammates need the same folder layout",
            outcome.pack_id
        )
    })
}

/// The ids `hcp.yaml` names, checked (§14.2); a bad one is `usage`.
fn entry_ids(project: &Project, wanted: &file::ProjectFile) -> Result<BTreeSet<PackId>> {
    wanted
        .packs
        .iter()
        .map(|e| {
            PackId::parse(&e.id).ok_or_else(|| {
                project.named(Error::usage(format!(
                    "hcp.yaml: `{}` is not a pack id",
                    e.id.escape_default()
                )))
            })
        })
        .collect()
}

/// A project's lock records folders relative to the project; an absolute
/// path names a folder of another machine and is refused.
fn refuse_absolute_paths(project: &Project) -> Result<()> {
    let raw = lockfile::read(&project.lock_path())?;
    for (id, entry) in &raw.packs {
        let absolute = entry.source.kind != SourceKind::Git
            && entry
                .source
                .path
                .as_deref()
                .is_some_and(|p| Path::new(p).is_absolute());
        if absolute {
            return Err(Error::usage(format!(
                "{}: the entry for {id} records the absolute path {}; a project's lock records folders relative to the project, and nothing was installed",
                project.lock_path().display(),
                entry.source.path.as_deref().unwrap_or_default()
            ))
            .pack(id.as_str())
            .path(project.lock_path().display().to_string())
            .fix(Fix::Sync)
            .hint("give the pack a source inside the project (or a git source) in hcp.yaml, then sync to record it"));
        }
    }
    Ok(())
}

/// `--frozen`: `hcp.yaml` and `hcp.lock` name the same packs, and every
/// folder source has the lock's digest now; else `integrity`, before
/// anything is installed.
fn frozen_checks(ids: &BTreeSet<PackId>, lock: &LockFile) -> Result<()> {
    let stale = |message: String, id: &PackId| {
        Err(Error::new(ErrorCode::Integrity, message)
            .pack(id.as_str())
            .fix(Fix::Sync)
            .hint("sync without --frozen to update hcp.lock, and commit it"))
    };
    if let Some(id) = ids.iter().find(|id| !lock.packs.contains_key(*id)) {
        return stale(
            format!(
                "hcp.lock is stale: hcp.yaml names {id}, which it does not record; nothing was installed"
            ),
            id,
        );
    }
    if let Some(id) = lock.packs.keys().find(|id| !ids.contains(*id)) {
        return stale(
            format!(
                "hcp.lock is stale: it records {id}, which hcp.yaml does not name; nothing was installed"
            ),
            id,
        );
    }
    for (id, entry) in &lock.packs {
        let Some(dir) = entry.source.folder_path() else {
            continue;
        };
        let actual = digest::digest(&dir).ok();
        if actual.as_deref() != Some(entry.digest.as_str()) {
            return stale(
                format!(
                    "the source of {id} ({}) has digest {}, but hcp.lock says {}; nothing was installed",
                    dir.display(),
                    actual.as_deref().unwrap_or("none (it does not read)"),
                    entry.digest
                ),
                id,
            );
        }
    }
    Ok(())
}
