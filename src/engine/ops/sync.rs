//! `hcpx sync LOCKFILE [--frozen] [--prune] [--yes]` (HCP.md §13.8): makes the
//! store hold the packs of a lock file (another machine's `hcp.lock`). Each
//! pack that is missing, or whose installed version or digest differs, is
//! installed from its recorded source — a git source at its recorded
//! commit, a `dir` or `catalog` source from its recorded folder — like
//! `hcpx install --force` (lint first, atomic, recorded in the store's lock
//! with the lock file's `ref`). With `--frozen`, a pack whose digest
//! (§13.4) differs from the lock file's fails with `integrity`; without it
//! the new digest is accepted and recorded. The digest checked is that of
//! the staged copy under `.tmp/` — the exact tree then swapped in — not of
//! the source folder, which could change between a check and the copy.
//! `--prune` then uninstalls installed packs the lock file does not name
//! (never the bootstrap pack).
//!
//! One sync is one change, in two phases. First everything is found and
//! checked (`Engine::plan_sync`, `Engine::sync_change`): every entry's
//! source is checked, every repository is fetched once per commit however
//! many packs come from it (§13.1; one partial fetch of just their
//! folders, §14.8, before the store lock is taken), and every pack is
//! staged and checked as staged. Only then are they installed together
//! (`install_batch`: one flush for all the copies, the state and the lock
//! written once). So a pack that fails any check — `--frozen`'s digest
//! included — stops the sync before anything is installed.
//!
//! A `dir` or `catalog` entry naming a path inside a store (see
//! [`lockfile::store_holding`]: a folder named `.hcp`, or one holding
//! `state.json` beside `packs/`) is refused (`usage`) before anything is
//! fetched or installed (§13.3).
//!
//! A lock file is input from someone else: the pack found for the entry
//! `"<pack_id>"` must declare that id and the entry's `version`, else the
//! entry is refused (`integrity`) and nothing is installed (an entry
//! `acme.notes` whose source holds `acme.github` must not replace the
//! installed, connected `acme.github`); a pack sync would replace gets the
//! capability diff of §13.7 against the installed copy, and an escalating
//! replacement needs [`SyncOptions::yes`] (else `confirmation_required`,
//! naming the escalating changes). What was checked is what is installed:
//! the checks read the staged copy itself.
//!
//! Where the spec is silent: packs are checked in id order and the first
//! failure stops the sync with nothing installed (the whole change is
//! undone); a lock file that cannot be read or parsed is a `usage` error
//! naming it; ids in it are checked (§14.2); it may be a pipe, but one of
//! more than
//! [`MAX_STORE_FILE_BYTES`](crate::engine::store::MAX_STORE_FILE_BYTES) is
//! an `io` error.

use super::Engine;
use super::approval::{self, Approved, Reviewed};
use super::install_batch::Staged;
use super::upgrade::Expected;
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::pack::id::PackId;
use crate::engine::policy::capdiff::CapabilityChange;
use crate::engine::store::lockfile::{self, LockEntry, LockedSource, SourceKind};
use crate::engine::store::source::GitSource;
use crate::engine::store::{Transaction, digest, step};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
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

/// One pack's line of `hcpx sync --json`: what was done (none when the
/// sync was refused) and, for a pack it installed or would install, the
/// capability diff of §13.7 as `upgrade`'s `results` hold it (§13.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncResult {
    pub pack_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<SyncAction>,
    /// The version now installed (`null` once removed); refused, the one
    /// it would have installed.
    pub version: Option<String>,
    #[serde(flatten)]
    pub diff: Option<SyncDiff>,
}

impl SyncResult {
    fn done(pack_id: String, action: SyncAction, version: Option<String>) -> SyncResult {
        SyncResult {
            pack_id,
            action: Some(action),
            version,
            diff: None,
        }
    }
}

/// The capability diff of a pack a sync installs (§13.7): `from` and
/// `from_digest` are those of the copy it is diffed against (`null`:
/// against nothing, §15.6), `applied` whether it was installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncDiff {
    pub from: Option<String>,
    pub to: String,
    pub from_digest: Option<String>,
    pub to_digest: String,
    pub changes: Vec<CapabilityChange>,
    pub applied: bool,
}

/// What `hcpx sync` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct SyncOptions {
    pub lockfile: PathBuf,
    pub frozen: bool,
    pub prune: bool,
    /// Accept a replacement whose capability diff escalates (§13.7).
    pub yes: bool,
    /// With `yes`: only these new digests (the diffs a question showed).
    pub expect: Vec<Expected>,
    /// A project's sync (§15.3, §15.6): what the user approved for the
    /// project. Every pack is then reviewed ([`Engine::review_staged`]) and
    /// a locked digest that differs is refused even without `frozen`.
    pub approved: Option<Approved>,
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
        let plan = self.plan_sync(&wanted, Vec::new())?;
        let mut tx = self.store().lock()?;
        tx.defer_flush();
        let done = self.sync_change(&mut tx, &plan, options, &|_| false, results)?;
        tx.commit()?;
        results.extend(done);
        if options.prune {
            for id in self.store().installed_ids()? {
                if id == PackId::bootstrap() || wanted.packs.contains_key(&id) {
                    continue;
                }
                self.uninstall(&id)?;
                results.push(SyncResult::done(id.to_string(), SyncAction::Removed, None));
            }
        }
        Ok(())
    }

    /// What a sync to `wanted` (a lock file read, or a project's `hcp.lock`
    /// for the packs its `hcp.yaml` names, §15.3) must install, with every
    /// source found first: each entry checked, each repository fetched once
    /// per commit (see [`Checkouts`]), each folder found. `resolving`: the
    /// git sources of a project's `hcp.yaml` entries the lock lacks, taken
    /// at their REFs from the same fetches (a pack of each is installed
    /// and recorded). Nothing in the store changes, and no store lock is
    /// held while git runs.
    pub(super) fn plan_sync(
        &self,
        wanted: &lockfile::LockFile,
        resolving: Vec<(PackId, Resolve)>,
    ) -> Result<SyncPlan> {
        let have = self.store().read_lockfile()?;
        let same = |id: &PackId, entry: &LockEntry| {
            have.packs
                .get(id)
                .is_some_and(|h| h.version == entry.version && h.digest == entry.digest)
                && self.store().is_installed(id)
                && digest::digest(&self.store().pack_dir(id)).is_ok_and(|d| d == entry.digest)
        };
        let mut entries = Vec::new();
        for (id, entry) in &wanted.packs {
            let todo = !same(id, entry);
            if todo {
                check_entry(id, entry).map_err(|err| named(err, id))?;
            }
            entries.push(Planned {
                id: id.clone(),
                entry: entry.clone(),
                todo,
            });
        }
        let resolving: Vec<Resolving> = resolving
            .into_iter()
            .map(|(id, from)| Resolving { id, from })
            .collect();
        let checkouts = Checkouts::fetch(Checkouts::wants(&entries, &resolving))?;
        Ok(SyncPlan {
            resolving,
            entries,
            checkouts,
        })
    }

    /// Stages every pack `plan` installs and checks it
    /// ([`Engine::sync_checked`]), then installs them all as steps of `tx`
    /// (`install_batch`): the first entry that fails stops the sync before
    /// anything is installed. Returns each entry's result, in id order.
    ///
    /// The packs `activate` names are activated in the same change
    /// ([`Engine::install_staged`]). Each staged pack is reviewed
    /// ([`Engine::review_staged`]) before anything is installed; when one
    /// lacks the consent it needs, `refused` gets every pack's diff
    /// (`applied: false`) and the error is `confirmation_required`.
    pub(super) fn sync_change(
        &self,
        tx: &mut Transaction<'_>,
        plan: &SyncPlan,
        options: &SyncOptions,
        activate: &dyn Fn(&PackId) -> bool,
        refused: &mut Vec<SyncResult>,
    ) -> Result<Vec<SyncResult>> {
        step("sync.found")?;
        let mut staged = Vec::new();
        for resolving in &plan.resolving {
            staged.push(self.stage_resolved(tx, plan, resolving)?);
        }
        for planned in plan.entries.iter().filter(|p| p.todo) {
            let id = &planned.id;
            let Found {
                dir,
                recorded,
                git,
                take,
            } = plan.checkouts.found(planned)?;
            let pack = self
                .stage_pack(tx, &dir, recorded, take)
                .and_then(|pack| {
                    self.sync_checked(id, &planned.entry, &pack, options)?;
                    Ok(pack)
                })
                .map_err(|err| match &git {
                    Some(git) => super::fetch::name_source(err, &dir, git),
                    None => err,
                })
                .map_err(|err| named(err, id))?;
            staged.push(pack);
        }
        let reviewed = staged
            .iter()
            .map(|pack| Ok((pack.pack_id.clone(), self.review_staged(pack, options)?)))
            .collect::<Result<Vec<(PackId, Reviewed)>>>()?;
        if let Err(err) = approval::consented(&reviewed, options) {
            refused.extend(reviewed.into_iter().map(|(id, r)| SyncResult {
                pack_id: id.to_string(),
                action: None,
                version: r.diff.as_ref().map(|d| d.to.clone()),
                diff: r.diff,
            }));
            return Err(err);
        }
        let mut diffs = reviewed
            .into_iter()
            .map(|(_, r)| r.diff.map(|d| SyncDiff { applied: true, ..d }));
        let mut outcomes = self.install_staged(tx, &staged, activate)?.into_iter();
        let mut synced_one = |outcome| SyncResult {
            diff: diffs.next().flatten(),
            ..synced(outcome)
        };
        let mut results: Vec<SyncResult> = outcomes
            .by_ref()
            .take(plan.resolving.len())
            .map(&mut synced_one)
            .collect();
        for planned in &plan.entries {
            let outcome = planned.todo.then(|| outcomes.next()).flatten();
            results.push(match outcome {
                Some(outcome) => synced_one(outcome),
                None => SyncResult::done(
                    planned.id.to_string(),
                    SyncAction::Unchanged,
                    Some(planned.entry.version.clone()),
                ),
            });
        }
        Ok(results)
    }

    /// Stages the pack of an `hcp.yaml` entry the lock lacks, found in its
    /// checkout; it must declare the entry's id (else `not_found`).
    fn stage_resolved(
        &self,
        tx: &mut Transaction<'_>,
        plan: &SyncPlan,
        resolving: &Resolving,
    ) -> Result<Staged> {
        let id = &resolving.id;
        let (pack, shown) = match &resolving.from {
            Resolve::Git(source) => {
                let (dir, recorded, git) = plan
                    .checkouts
                    .resolved(id, source)
                    .map_err(|err| named(err, id))?;
                let pack = self
                    .stage_pack(tx, &dir, recorded, false)
                    .map_err(|err| super::fetch::name_source(err, &dir, &git))
                    .map_err(|err| named(err, id))?;
                (pack, source.display())
            }
            Resolve::Folder(root) => {
                let (dir, recorded) = super::sources::folder_pack_named(root, id.as_str())
                    .map_err(|err| named(err, id))?;
                let pack = self
                    .stage_pack(tx, &dir, recorded, false)
                    .map_err(|err| named(err, id))?;
                (pack, root.display().to_string())
            }
        };
        if pack.pack_id != *id {
            return Err(
                Error::new(ErrorCode::NotFound, format!("{shown} holds no pack {id}"))
                    .pack(id.as_str()),
            );
        }
        Ok(pack)
    }

    /// Whether the staged copy of the entry `id` may be installed (§13.8):
    /// a pack that declares the entry's id and version (else `integrity`),
    /// with `frozen` the lock file's digest (else `integrity`), and, when
    /// it replaces an installed pack, a capability diff that does not
    /// escalate unless `yes` (else `confirmation_required`). The staged copy
    /// is the tree then swapped in: what was checked is what is installed.
    fn sync_checked(
        &self,
        id: &PackId,
        entry: &LockEntry,
        pack: &Staged,
        options: &SyncOptions,
    ) -> Result<()> {
        let manifest = &pack.manifest;
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
        match (&options.approved, options.frozen) {
            (Some(_), _) => locked_digest_check(id, &entry.digest, pack.content.digest()),
            (None, true) => frozen_check(id, &entry.digest, pack.content.digest()),
            (None, false) => Ok(()),
        }
    }
}

/// What a sync installs ([`Engine::plan_sync`]): the entries to resolve,
/// each wanted entry in id order, and the checkouts its git entries are
/// taken from.
pub(super) struct SyncPlan {
    resolving: Vec<Resolving>,
    entries: Vec<Planned>,
    checkouts: Checkouts,
}

/// An `hcp.yaml` entry the lock lacks (or whose lock entry is not tied to
/// it, §15.3), to install from its source.
struct Resolving {
    id: PackId,
    from: Resolve,
}

/// Where an entry to resolve is installed from: a git source at its REF,
/// or a folder of the project.
#[derive(Debug, Clone)]
pub(super) enum Resolve {
    Git(GitSource),
    Folder(PathBuf),
}

/// One entry of a [`SyncPlan`].
struct Planned {
    id: PackId,
    entry: LockEntry,
    /// False when the installed copy is the entry's already.
    todo: bool,
}

/// The result line of a pack installed by a sync.
fn synced(outcome: super::InstallOutcome) -> SyncResult {
    let action = match outcome.action {
        super::InstallAction::Installed => SyncAction::Installed,
        super::InstallAction::Upgraded => SyncAction::Upgraded,
        super::InstallAction::Reinstalled | super::InstallAction::Unchanged => {
            SyncAction::Reinstalled
        }
    };
    SyncResult::done(outcome.pack_id, action, Some(outcome.version))
}

/// An error about the entry `id` names it, unless it names a pack already.
fn named(err: Error, id: &PackId) -> Error {
    match err.context.pack_id {
        Some(_) => err,
        None => err.pack(id.as_str()),
    }
}

/// Refuses an entry no machine can install from (before anything is
/// fetched): a git source without `url` and `commit`; a `dir` or `catalog`
/// source without `path`, naming a path inside a store (§13.3), or whose
/// folder is missing.
fn check_entry(id: &PackId, entry: &LockEntry) -> Result<()> {
    let source = &entry.source;
    if source.kind == SourceKind::Git {
        if source.url.is_none() || source.commit.is_none() {
            return Err(bad_entry(id, "a git source needs `url` and `commit`"));
        }
        return Ok(());
    }
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
    Ok(())
}

/// The checkouts of a sync: each repository its git entries name fetched
/// once per ref (a locked commit; for an `hcp.yaml` entry the lock lacks,
/// its REF), however many of its packs the sync installs (§13.1: once per
/// source per command), with only those packs' folders (a partial fetch,
/// §14.8; the whole tree when an entry takes the repository's root).
/// Fetched before the store lock is taken, into private folders outside
/// the store, each within the bound on what a fetch may write.
struct Checkouts {
    fetched: Vec<Checkout>,
}

/// One repository at one ref.
struct Checkout {
    url: String,
    /// The ref asked for (`None`: the remote's default branch).
    reference: Option<String>,
    /// The commit it resolved to.
    commit: String,
    root: PathBuf,
    /// The folders that one entry alone takes, none inside another: each
    /// may be moved out of the checkout instead of copied.
    takeable: BTreeSet<String>,
    _private: tempfile::TempDir,
}

/// Where an entry's pack is found: its folder, its source as the lock
/// records it, for a git entry its git source (for messages), and whether
/// the folder may be moved out of its checkout ([`Checkout::takeable`]).
struct Found {
    dir: PathBuf,
    recorded: LockedSource,
    git: Option<GitSource>,
    take: bool,
}

/// The folders of `folders` (one per entry wanting a checkout; `None`: its
/// root) that one entry alone wants and that hold no other and are held
/// by none.
fn takeable(folders: &[Option<String>]) -> BTreeSet<String> {
    let inside = |a: &str, b: &str| a.strip_prefix(b).is_some_and(|rest| rest.starts_with('/'));
    let mut out = BTreeSet::new();
    if folders.contains(&None) {
        return out;
    }
    let all: Vec<&str> = folders.iter().flatten().map(String::as_str).collect();
    for folder in &all {
        let alone = all.iter().filter(|f| *f == folder).count() == 1;
        let apart = all
            .iter()
            .all(|other| !inside(other, folder) && !inside(folder, other));
        if alone && apart {
            out.insert((*folder).to_string());
        }
    }
    out
}

/// A repository and a ref to fetch it at.
type RepoRef = (String, Option<String>);

/// One pack a sync takes from a repository: where (the repository and
/// ref), its folder there (`None`: the root), and its id (a failed fetch
/// names the first pack that wanted it).
type Want = (RepoRef, Option<String>, PackId);

impl Checkouts {
    /// The wants of `plan`: its git entries to install at their locked
    /// commits, and the entries to resolve at their REFs.
    fn wants(entries: &[Planned], resolving: &[Resolving]) -> Vec<Want> {
        let locked = entries.iter().filter(|p| p.todo).filter_map(|planned| {
            let source = &planned.entry.source;
            let (SourceKind::Git, Some(url), Some(commit)) =
                (source.kind, &source.url, &source.commit)
            else {
                return None;
            };
            let at = (url.clone(), Some(commit.clone()));
            Some((at, source.subdir.clone(), planned.id.clone()))
        });
        let resolved = resolving.iter().filter_map(|r| match &r.from {
            Resolve::Git(git) => {
                let at = (git.url.clone(), git.reference.clone());
                Some((at, git.subdir.clone(), r.id.clone()))
            }
            Resolve::Folder(_) => None,
        });
        locked.chain(resolved).collect()
    }

    /// Fetches each repository at each ref `wants` names, once, with the
    /// folders wanted of it.
    fn fetch(wants: Vec<Want>) -> Result<Checkouts> {
        let mut grouped: BTreeMap<RepoRef, (Vec<Option<String>>, PackId)> = BTreeMap::new();
        for (at, subdir, id) in wants {
            grouped
                .entry(at)
                .or_insert_with(|| (Vec::new(), id))
                .0
                .push(subdir);
        }
        let mut fetched = Vec::new();
        for ((url, reference), (folders, first)) in grouped {
            let git = GitSource {
                url: url.clone(),
                subdir: None,
                reference: reference.clone(),
            };
            // An entry taking the repository's root needs the whole tree.
            let mut subdirs: Vec<&str> = if folders.contains(&None) {
                Vec::new()
            } else {
                folders.iter().flatten().map(String::as_str).collect()
            };
            subdirs.sort_unstable();
            subdirs.dedup();
            let private = super::fetch::private_temp_dir("hcpx-sync-")?;
            let checkout = private.path().join("fetch");
            let done = super::fetch::fetch_folders_to(&git, &subdirs, &checkout)
                .map_err(|err| named(err, &first))?;
            fetched.push(Checkout {
                url,
                reference,
                commit: done.commit,
                root: done.root,
                takeable: takeable(&folders),
                _private: private,
            });
        }
        Ok(Checkouts { fetched })
    }

    /// The checkout of `url` at `reference`.
    fn at(&self, url: &str, reference: Option<&str>) -> Option<&Checkout> {
        self.fetched
            .iter()
            .find(|c| c.url == url && c.reference.as_deref() == reference)
    }

    /// Where the entry `planned` is found: its folder, its source as the
    /// lock records it, and for a git entry its git source (for messages).
    fn found(&self, planned: &Planned) -> Result<Found> {
        let source = &planned.entry.source;
        if source.kind != SourceKind::Git {
            let dir = source.folder_path().unwrap_or_default();
            let recorded = LockedSource::folder(source.kind, &dir);
            return Ok(Found {
                dir,
                recorded,
                git: None,
                take: false,
            });
        }
        let (url, commit) = (
            source.url.as_deref().unwrap_or_default(),
            source.commit.as_deref().unwrap_or_default(),
        );
        let git = GitSource {
            url: url.to_string(),
            subdir: source.subdir.clone(),
            reference: Some(commit.to_string()),
        };
        let Some(checkout) = self.at(url, Some(commit)) else {
            return Err(bad_entry(&planned.id, "its repository was not fetched"));
        };
        let dir = super::fetch::subdir_of(&checkout.root, source.subdir.as_deref(), &git)
            .map_err(|err| named(err, &planned.id))?;
        let recorded = LockedSource::git(
            url,
            source.subdir.as_deref(),
            source.reference.as_deref(),
            commit,
        );
        let take = source
            .subdir
            .as_ref()
            .is_some_and(|s| checkout.takeable.contains(s));
        Ok(Found {
            dir,
            recorded,
            git: Some(git),
            take,
        })
    }

    /// Where the pack of the entry `resolving` is found in its checkout:
    /// the source's own pack, or the pack of its collection that the
    /// entry's id names (as `--skill ID`, §13.1); its folder, its lock
    /// record (at the commit the REF resolved to) and its git source.
    fn resolved(&self, id: &PackId, git: &GitSource) -> Result<(PathBuf, LockedSource, GitSource)> {
        let Some(checkout) = self.at(&git.url, git.reference.as_deref()) else {
            return Err(bad_entry(id, "its repository was not fetched"));
        };
        let root = super::fetch::subdir_of(&checkout.root, git.subdir.as_deref(), git)?;
        let (dir, recorded, named) =
            super::sources::pack_named(&root, git, &checkout.commit, id.as_str())?;
        Ok((dir, recorded, named.unwrap_or_else(|| git.clone())))
    }
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

/// A project's sync (§15.3): the staged copy's digest must be the one
/// `hcp.lock` records; plain `sync` never rewrites an entry tied to its
/// `hcp.yaml` entry.
fn locked_digest_check(id: &PackId, expected: &str, actual: &str) -> Result<()> {
    if actual == expected {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::Integrity,
        format!(
            "the source of {id} has digest {actual} at its locked commit, but hcp.lock says {expected}; nothing was installed and hcp.lock was left as it is"
        ),
    )
    .pack(id.as_str())
    .hint(
        Hint::from("if the change is meant, record it with `")
            .cmd(Fix::Upgrade { dry_run: false })
            .say(format!(
                " {id}` where it is installed (it shows the diff), or drop its entry from hcp.lock and sync"
            )),
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_folders_one_entry_takes_alone_and_apart_are_takeable() {
        let some = |s: &str| Some(s.to_string());
        let folders = [
            some("packs/a"),
            some("packs/b"),
            some("packs/b"),
            some("skills"),
            some("skills/x"),
            some("packs/ab"),
        ];
        let taken: Vec<String> = takeable(&folders).into_iter().collect();
        assert_eq!(taken, ["packs/a", "packs/ab"]);
        assert!(takeable(&[some("packs/a"), None]).is_empty());
    }
}
