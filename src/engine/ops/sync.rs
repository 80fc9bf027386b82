//! `hcpx sync LOCKFILE [--frozen] [--prune] [--yes]` (HCP.md §13.8): makes the
//! store hold the packs of a lock file (another machine's `hcp.lock`). Each
//! pack that is missing, or whose installed version or digest differs, is
//! installed from its recorded source — a git source at its recorded
//! commit, a `dir` or `catalog` source from its recorded folder — like
//! `hcpx install --force` (lint first, atomic, recorded in the store's lock
//! with the lock file's `ref`). With `--frozen`, a pack whose digest
//! (§13.4) differs from the lock file's fails with `integrity` before
//! anything of that pack is installed; without it the new digest is
//! accepted and recorded. The digest checked is that of the staged copy
//! under `.tmp/` — the exact tree then swapped in — not of the source
//! folder, which could change between a check and the copy. `--prune` then uninstalls installed packs the lock
//! file does not name (never the bootstrap pack).
//!
//! A `dir` or `catalog` entry naming a path inside a store (see
//! [`lockfile::store_holding`]: a folder named `.hcp`, or one holding
//! `state.json` beside `packs/`) is refused (`usage`) before anything of it
//! is installed (§13.3).
//!
//! A lock file is input from someone else: the pack found for the entry
//! `"<pack_id>"` must declare that id and the entry's `version`, else the
//! entry is refused (`integrity`) and nothing of it is installed (an
//! entry `acme.notes` whose source holds `acme.github` must not replace the
//! installed, connected `acme.github`); a pack sync would replace gets the
//! capability diff of §13.7 against the installed copy, and an escalating
//! replacement needs [`SyncOptions::yes`] (else `confirmation_required`,
//! naming the escalating changes). What was checked is what is installed:
//! the staged copy must have the digest of the tree checked.
//!
//! Where the spec is silent: packs are handled in id order and the first
//! failure stops the sync (what was done stays done and is reported); a lock
//! file that cannot be read or parsed is a `usage` error naming it; ids in
//! it are checked (§14.2); it may be a pipe, but one of more than
//! [`MAX_STORE_FILE_BYTES`](crate::engine::store::MAX_STORE_FILE_BYTES) is
//! an `io` error.

use super::Engine;
use super::content::{Content, private_copy};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::id::PackId;
use crate::engine::store::digest;
use crate::engine::store::lockfile::{self, LockEntry, LockedSource, SourceKind};
use crate::engine::store::source::GitSource;
use crate::engine::store::step;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What sync did to one pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SyncAction {
    Installed,
    Upgraded,
    Reinstalled,
    Unchanged,
    Removed,
}

/// One pack's line of `hcpx sync --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncResult {
    pub pack_id: String,
    pub action: SyncAction,
    /// The version now installed (`null` once removed).
    pub version: Option<String>,
}

/// What `hcpx sync` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct SyncOptions {
    pub lockfile: PathBuf,
    pub frozen: bool,
    pub prune: bool,
    /// Accept a replacement whose capability diff escalates (§13.7).
    pub yes: bool,
}

impl Engine {
    /// Syncs the store to a lock file. Returns what was done, and the error
    /// that stopped it, if any.
    pub fn sync(&self, options: &SyncOptions) -> (Vec<SyncResult>, Option<Error>) {
        let mut results = Vec::new();
        let error = self.sync_into(options, &mut results).err();
        (results, error)
    }

    fn sync_into(&self, options: &SyncOptions, results: &mut Vec<SyncResult>) -> Result<()> {
        // Refused before anything is read from a source (§9.2).
        self.require_install_grant()?;
        let wanted = read_wanted(&options.lockfile)?;
        self.sync_wanted(&wanted, options, results)
    }

    /// Syncs the store to `wanted` (a lock file read, or a project's
    /// `hcp.lock` for the packs its `hcp.yaml` names, §15.3).
    pub(super) fn sync_wanted(
        &self,
        wanted: &lockfile::LockFile,
        options: &SyncOptions,
        results: &mut Vec<SyncResult>,
    ) -> Result<()> {
        let have = self.store().read_lockfile()?;
        let same = |id: &PackId, entry: &LockEntry| {
            have.packs
                .get(id)
                .is_some_and(|h| h.version == entry.version && h.digest == entry.digest)
                && self.store().is_installed(id)
                && digest::digest(&self.store().pack_dir(id)).is_ok_and(|d| d == entry.digest)
        };
        let shared = Shared::fetch(wanted, &same)?;
        for (id, entry) in &wanted.packs {
            if same(id, entry) {
                results.push(SyncResult {
                    pack_id: id.to_string(),
                    action: SyncAction::Unchanged,
                    version: Some(entry.version.clone()),
                });
                continue;
            }
            let outcome =
                self.sync_one(id, entry, options, Some(&shared))
                    .map_err(|err| match err.context.pack_id {
                        Some(_) => err,
                        None => err.pack(id.as_str()),
                    })?;
            let action = match outcome.action {
                super::InstallAction::Installed => SyncAction::Installed,
                super::InstallAction::Upgraded => SyncAction::Upgraded,
                super::InstallAction::Reinstalled | super::InstallAction::Unchanged => {
                    SyncAction::Reinstalled
                }
            };
            results.push(SyncResult {
                pack_id: id.to_string(),
                action,
                version: Some(outcome.version),
            });
        }
        if options.prune {
            for id in self.store().installed_ids()? {
                if id == PackId::bootstrap() || wanted.packs.contains_key(&id) {
                    continue;
                }
                self.uninstall(&id)?;
                results.push(SyncResult {
                    pack_id: id.to_string(),
                    action: SyncAction::Removed,
                    version: None,
                });
            }
        }
        Ok(())
    }

    /// Installs one pack from its recorded source (always replacing), once
    /// [`Engine::sync_checked`] accepts what was found; with `frozen`, only
    /// if the staged copy has the lock file's digest.
    fn sync_one(
        &self,
        id: &PackId,
        entry: &LockEntry,
        options: &SyncOptions,
        shared: Option<&Shared>,
    ) -> Result<super::InstallOutcome> {
        let source = &entry.source;
        match source.kind {
            SourceKind::Git => {
                let (Some(url), Some(commit)) = (&source.url, &source.commit) else {
                    return Err(bad_entry(id, "a git source needs `url` and `commit`"));
                };
                let git = GitSource {
                    url: url.clone(),
                    subdir: source.subdir.clone(),
                    reference: Some(commit.clone()),
                };
                let mut tx = self.store().lock()?;
                let fetched = match shared.and_then(|s| s.checkout(url, commit)) {
                    Some(root) => super::fetch::FetchedPack {
                        dir: subdir_of(root, source.subdir.as_deref(), &git)?,
                        commit: commit.clone(),
                    },
                    None => {
                        let install =
                            super::InstallOptions::new(super::InstallSource::Git(git.clone()));
                        super::fetch::fetch_locked(&mut tx, &git, &install)?
                    }
                };
                step("sync.found")?;
                let recorded = LockedSource::git(
                    url,
                    source.subdir.as_deref(),
                    source.reference.as_deref(),
                    &fetched.commit,
                );
                let found = self.sync_checked(id, entry, &fetched.dir, options)?;
                let check = |actual: &str| staged_check(id, entry, &found, options.frozen, actual);
                self.install_checked(tx, &fetched.dir, recorded, true, Some(&check))
                    .map_err(|err| super::fetch::name_source(err, &fetched.dir, &git))
            }
            SourceKind::Dir | SourceKind::Catalog => {
                let Some(dir) = source.folder_path() else {
                    return Err(bad_entry(id, "a dir or catalog source needs `path`").hint(
                        "its source is unknown (doctor --fix records a pack so when it cannot tell): install it from its source here",
                    ));
                };
                if let Some(store) = lockfile::store_holding(&dir) {
                    return Err(Error::usage(format!(
                        "the lock file's entry for {id} names a path inside an hcpx store ({}): {} is no source another machine can install from",
                        store.display(),
                        dir.display()
                    ))
                    .pack(id.as_str())
                    .path(dir.display().to_string())
                    .hint("install the pack from its catalog or git source, then copy the new hcp.lock"));
                }
                if !dir.is_dir() {
                    return Err(Error::new(
                        ErrorCode::NotFound,
                        format!("the recorded folder of {id} is missing: {}", dir.display()),
                    )
                    .pack(id.as_str())
                    .path(dir.display().to_string()));
                }
                let tx = self.store().lock()?;
                step("sync.found")?;
                let recorded = LockedSource::folder(source.kind, &dir);
                // Checked and installed from a copy of its own.
                let (_tmp, copy) = private_copy(&dir)?;
                let found = self.sync_checked(id, entry, &copy, options)?;
                let check = |actual: &str| staged_check(id, entry, &found, options.frozen, actual);
                self.install_checked(tx, &copy, recorded, true, Some(&check))
            }
        }
    }

    /// What the entry's source holds, once accepted (§13.8): a pack that
    /// lints and declares the entry's id and version (else `integrity`),
    /// and, when it replaces an installed pack, a capability diff that does
    /// not escalate unless `yes` (else `confirmation_required`). Its digest
    /// is what the staged copy must have.
    fn sync_checked(
        &self,
        id: &PackId,
        entry: &LockEntry,
        dir: &Path,
        options: &SyncOptions,
    ) -> Result<String> {
        let found = Content::read(dir)?;
        let Some(manifest) = &found.manifest else {
            // Lint's own error, from the install that follows.
            return Ok(found.digest().to_string());
        };
        if manifest.id != id.as_str() || manifest.version != entry.version {
            return Err(Error::new(
                ErrorCode::Integrity,
                format!(
                    "the lock file's entry {id} {} was refused: its source holds {} {}; nothing of it was installed",
                    entry.version, manifest.id, manifest.version
                ),
            )
            .pack(id.as_str())
            .hint("a lock entry must name the pack its source declares; ask for a lock file made by hcpx"));
        }
        if !self.store().is_installed(id) || options.yes {
            return Ok(found.digest().to_string());
        }
        let installed = Content::read(&self.store().pack_dir(id))?;
        let changes = installed.diff_to(&found, manifest);
        let escalating: Vec<String> = changes
            .iter()
            .filter(|c| c.escalates)
            .map(|c| serde_json::to_value(c).map_or_else(|_| String::new(), |v| v.to_string()))
            .collect();
        if escalating.is_empty() {
            return Ok(found.digest().to_string());
        }
        Err(Error::new(
            ErrorCode::ConfirmationRequired,
            format!(
                "replacing the installed {id} with the lock file's grants more reach: {}; nothing of it was installed",
                escalating.join(", ")
            ),
        )
        .pack(id.as_str())
        .hint("review the changes, then sync again with --yes"))
    }
}

/// Checkouts shared by the entries of one repository at one commit: a
/// lock naming several packs of one repository (a skill collection, a
/// project's `hcp.yaml`) fetches it once per sync, not once per pack
/// (§13.1: once per source per command). Fetched, before the lock is
/// taken, into a private folder outside the store, whole (no sparse
/// checkout: several folders are wanted), within the same bound on what a
/// fetch may write.
struct Shared {
    checkouts: Vec<(String, String, tempfile::TempDir, PathBuf)>,
}

impl Shared {
    /// Fetches each repository and commit that two or more git entries of
    /// `wanted` still to install share.
    fn fetch(
        wanted: &lockfile::LockFile,
        same: &dyn Fn(&PackId, &LockEntry) -> bool,
    ) -> Result<Shared> {
        let mut counts: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
        for (id, entry) in &wanted.packs {
            let source = &entry.source;
            let synced = same(id, entry);
            if let (SourceKind::Git, Some(url), Some(commit), false) =
                (source.kind, &source.url, &source.commit, synced)
            {
                *counts.entry((url.as_str(), commit.as_str())).or_default() += 1;
            }
        }
        let mut checkouts = Vec::new();
        for ((url, commit), n) in counts {
            if n < 2 {
                continue;
            }
            let git = GitSource {
                url: url.to_string(),
                subdir: None,
                reference: Some(commit.to_string()),
            };
            let private = super::fetch::private_temp_dir("hcpx-sync-")?;
            let fetched = super::fetch::fetch_to(&git, &private.path().join("fetch"))?;
            checkouts.push((url.to_string(), commit.to_string(), private, fetched.dir));
        }
        Ok(Shared { checkouts })
    }

    fn checkout(&self, url: &str, commit: &str) -> Option<&Path> {
        self.checkouts
            .iter()
            .find(|(u, c, _, _)| u == url && c == commit)
            .map(|(_, _, _, root)| root.as_path())
    }
}

/// The folder `subdir` of a shared checkout (`not_found` when it is not a
/// folder there, every step checked: no link is followed out of it).
fn subdir_of(root: &Path, subdir: Option<&str>, git: &GitSource) -> Result<PathBuf> {
    let Some(subdir) = subdir else {
        return Ok(root.to_path_buf());
    };
    let mut walked = root.to_path_buf();
    for part in subdir.split('/') {
        walked.push(part);
        let inside = !(part.is_empty() || part == "." || part == "..");
        if !inside || !std::fs::symlink_metadata(&walked).is_ok_and(|m| m.is_dir()) {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("{} has no folder `{subdir}`", git.display()),
            ));
        }
    }
    Ok(walked)
}

/// The staged copy must be the tree [`Engine::sync_checked`] accepted
/// (`confirmation_required` otherwise: the source changed meanwhile) and,
/// with `frozen`, have the lock file's digest.
fn staged_check(
    id: &PackId,
    entry: &LockEntry,
    accepted: &str,
    frozen: bool,
    actual: &str,
) -> Result<()> {
    if frozen {
        frozen_check(id, &entry.digest, actual)?;
    }
    if actual == accepted {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::ConfirmationRequired,
        format!(
            "the source of {id} changed while it was being synced (it was checked as {accepted}, the copy has {actual}); it was not installed"
        ),
    )
    .pack(id.as_str())
    .hint("run the sync again"))
}

/// Reads the lock file to sync to, which may be a pipe (`<(curl ...)`), but
/// no more than a store file may hold: `/dev/zero` or an endless pipe is an
/// error, not all of memory.
fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let limit = crate::engine::store::MAX_STORE_FILE_BYTES;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "it is over the limit of {limit} bytes"
        )));
    }
    Ok(bytes)
}

/// `--frozen`: the staged copy's digest must be the lock file's.
fn frozen_check(id: &PackId, expected: &str, actual: &str) -> Result<()> {
    if actual == expected {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::Integrity,
        format!("the source of {id} has digest {actual}, but the lock file says {expected}"),
    )
    .pack(id.as_str())
    .hint("the source changed since the lock file was made; sync without --frozen to accept it"))
}

fn bad_entry(id: &PackId, why: &str) -> Error {
    Error::usage(format!(
        "the lock file's entry for {id} is incomplete: {why}"
    ))
    .pack(id.as_str())
}

/// Reads the lock file to sync to; a file that does not read or parse is a
/// `usage` error naming it.
fn read_wanted(path: &Path) -> Result<lockfile::LockFile> {
    let bytes = read_capped(path).map_err(|err| {
        let code = match err.kind() {
            std::io::ErrorKind::NotFound => ErrorCode::NotFound,
            _ => ErrorCode::Io,
        };
        Error::new(code, format!("cannot read {}: {err}", path.display()))
            .path(path.display().to_string())
    })?;
    lockfile::parse(&bytes).map_err(|why| {
        Error::usage(format!("{} is not a valid hcp.lock: {why}", path.display()))
            .path(path.display().to_string())
    })
}
