//! `hcpx outdated` and `hcpx upgrade` (HCP.md §13.6–§13.7): the newest
//! version of each pack from the source the lock file records, and its
//! installation after the capability diff ([`capdiff`]).
//!
//! The newest version: for a `catalog` source, the pack of that id in the
//! catalog it was installed from, never another (through the catalog
//! index; see `own_catalog_pack`); for a `git` source, the highest
//! SemVer among the remote's tags `vX.Y.Z`/`X.Y.Z` (`git ls-remote`), else
//! the manifest version on the remote's default branch (a shallow fetch).
//! `dir` sources are not looked at (a folder has no "newer").
//!
//! Where the spec is silent:
//! - `outdated` looks at git sources in parallel, at most
//!   [`PARALLEL_FETCHES`] at a time; a source that cannot be reached fails
//!   the whole report with `source_unavailable`.
//! - `upgrade` first plans every pack (fetching git sources into a private
//!   temporary folder, outside the store, without holding the store lock),
//!   then, unless `--dry-run`, and only when no escalating change lacks
//!   `--yes`, installs them one by one (each like `hcpx install`, lint
//!   first, atomic, recorded in the lock with the tag as `ref`). Refused,
//!   nothing is changed and the document still carries every result
//!   (`applied: false`) so the diff can be shown. A pack whose newest
//!   version is not higher than the installed one is not listed.
//! - What is installed is what the diff was computed on: each candidate's
//!   digest (§13.4) is kept with its result (not in the `--json`
//!   document, whose keys §13.7 lists), and the staged copy of each pack
//!   must have it, else `confirmation_required` and that pack is not
//!   installed (packs upgraded before it stay upgraded). With
//!   [`UpgradeOptions::expect`] (`--expect`, the TUI's `y`), the new
//!   versions found must also be the ones the user saw the diff of, else
//!   `confirmation_required` before anything is installed, the new diff in
//!   the results. With any expectation given, a pack with a new version
//!   that none names is refused the same way: the user confirmed the diffs
//!   shown, and that pack had none to show then (it was up to date at the
//!   dry run, and a version published since would be installed unseen).
//! - A named pack that is not installed is `not_installed` (or `not_found`
//!   when no catalog has it either); one installed but not in the lock file
//!   is `not_found` (its source is unknown).

use super::{Engine, checked_id};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::exec::git;
use crate::engine::lint::{LintOptions, lint_pack};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::Manifest;
use crate::engine::policy::capdiff::{self, CapabilityChange};
use crate::engine::store::lockfile::{LockEntry, LockedSource, SourceKind};
use crate::engine::store::source::GitSource;
use crate::engine::store::{catalog_index, digest, step};
use serde::Serialize;
use std::path::PathBuf;

/// How many git sources `outdated` looks at at once.
pub const PARALLEL_FETCHES: usize = 4;

/// One pack with a newer version (`hcpx outdated`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutdatedPack {
    pub pack_id: String,
    pub installed: String,
    pub latest: String,
    pub source: LockedSource,
}

/// One pack's upgrade (`hcpx upgrade`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpgradeResult {
    pub pack_id: String,
    pub from: String,
    pub to: String,
    pub changes: Vec<CapabilityChange>,
    pub applied: bool,
    /// The digest (§13.4) of the new version the diff was computed on:
    /// what [`UpgradeOptions::expect`] names to install only that. Not in
    /// the `--json` document (§13.7 lists its keys).
    #[serde(skip)]
    pub digest: String,
}

/// The new version a diff was shown for: the upgrade installs this pack
/// only if its new version still has this digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    pub pack_id: String,
    /// `sha256:<hex>`, as in [`UpgradeResult::digest`].
    pub digest: String,
}

/// What `hcpx upgrade` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct UpgradeOptions {
    /// The packs (default: every locked pack with a catalog or git source).
    pub pack_ids: Vec<String>,
    /// Only report.
    pub dry_run: bool,
    /// Accept escalating changes.
    pub yes: bool,
    /// The new versions the user saw the diff of: when one differs now (or
    /// has no newer version any more), nothing is installed
    /// (`confirmation_required`).
    pub expect: Vec<Expected>,
}

/// Where the newest version is.
enum Newest {
    /// A catalog's pack folder.
    Folder(PathBuf),
    /// A git tag, with its version.
    Tag(semver::Version, String),
    /// The default branch of a git source (version known once fetched).
    DefaultBranch,
}

/// A fetched or found newer pack, ready to install.
struct Candidate {
    pack_id: PackId,
    dir: PathBuf,
    manifest: Manifest,
    recorded: LockedSource,
    /// The digest (§13.4) of `dir` when the diff was computed.
    digest: String,
    /// Keeps a fetched checkout until it is installed.
    _fetched: Option<tempfile::TempDir>,
}

impl Engine {
    /// Packs whose recorded source has a newer version (§13.6).
    pub fn outdated(&self) -> Result<Vec<OutdatedPack>> {
        self.outdated_of(|_| true)
    }

    /// [`Engine::outdated`] for the sources read without the network (a
    /// catalog's local folder or index): git sources are left out, since
    /// asking a remote for its tags goes over the network.
    pub fn outdated_offline(&self) -> Result<Vec<OutdatedPack>> {
        self.outdated_of(|entry| entry.source.kind != SourceKind::Git)
    }

    fn outdated_of(&self, keep: impl Fn(&LockEntry) -> bool) -> Result<Vec<OutdatedPack>> {
        let lock = self.store().read_lockfile()?;
        let entries: Vec<(PackId, LockEntry)> =
            lock.packs.into_iter().filter(|(_, e)| keep(e)).collect();
        let found = bounded_map(entries, PARALLEL_FETCHES, |(id, entry)| {
            let latest = self.newest_version(&id, &entry)?;
            Ok(latest
                .filter(|latest| is_newer(latest, &entry.version))
                .map(|latest| OutdatedPack {
                    pack_id: id.to_string(),
                    installed: entry.version.clone(),
                    latest,
                    source: entry.source.clone(),
                }))
        });
        let mut packs = Vec::new();
        for result in found {
            packs.extend(result?);
        }
        Ok(packs)
    }

    /// Upgrades packs to the newest version of their recorded source (§13.7).
    /// Returns every result so far, and the error that stopped it, if any.
    pub fn upgrade(&self, options: &UpgradeOptions) -> (Vec<UpgradeResult>, Option<Error>) {
        let plans = match self.plan_upgrades(options) {
            Ok(plans) => plans,
            Err(err) => return (Vec::new(), Some(err)),
        };
        let mut results: Vec<UpgradeResult> = plans.iter().map(|(r, _)| r.clone()).collect();
        if options.dry_run {
            return (results, None);
        }
        if let Err(err) = unmet_expectation(&options.expect, &results) {
            return (results, Some(err));
        }
        let escalating: Vec<&str> = results
            .iter()
            .filter(|r| capdiff::escalates(&r.changes))
            .map(|r| r.pack_id.as_str())
            .collect();
        if !escalating.is_empty() && !options.yes {
            let err = Error::new(
                ErrorCode::ConfirmationRequired,
                format!(
                    "upgrading {} grants more reach (see `changes`); nothing was changed",
                    escalating.join(", ")
                ),
            )
            .hint("review the changes, then run the upgrade again with --yes");
            return (results, Some(err));
        }
        if let Err(err) = step("upgrade.planned") {
            return (results, Some(err));
        }
        for (i, (_, candidate)) in plans.into_iter().enumerate() {
            let tx = match self.store().lock() {
                Ok(tx) => tx,
                Err(err) => return (results, Some(err)),
            };
            // What is swapped in is what the diff was computed on.
            let check = |actual: &str| changed_meanwhile(&candidate, actual);
            let installed = self.install_checked(
                tx,
                &candidate.dir,
                candidate.recorded.clone(),
                false,
                Some(&check),
            );
            match installed {
                Ok(_) => results[i].applied = true,
                Err(err) => return (results, Some(err.pack(candidate.pack_id.to_string()))),
            }
        }
        (results, None)
    }

    /// Each pack's newer candidate and its diff, without changing anything.
    fn plan_upgrades(&self, options: &UpgradeOptions) -> Result<Vec<(UpgradeResult, Candidate)>> {
        let lock = self.store().read_lockfile()?;
        let ids: Vec<PackId> = if options.pack_ids.is_empty() {
            lock.packs.keys().cloned().collect()
        } else {
            let mut ids = Vec::new();
            for text in &options.pack_ids {
                let id = checked_id(text)?;
                if !lock.packs.contains_key(&id) && !self.store().is_installed(&id) {
                    return Err(self.unknown_or_not_installed(text));
                }
                if !lock.packs.contains_key(&id) {
                    return Err(Error::new(
                        ErrorCode::NotFound,
                        format!("{id} is not recorded in hcp.lock, so its source is unknown"),
                    )
                    .pack(text.as_str())
                    .hint("install it again from its source (hcpx install --force SOURCE) to record it"));
                }
                ids.push(id);
            }
            ids
        };
        let mut plans = Vec::new();
        for id in ids {
            let Some(entry) = lock.packs.get(&id) else {
                continue;
            };
            let newest = self.newest(&id, entry)?;
            if let Some(Newest::Tag(version, _)) = &newest
                && !is_newer(&version.to_string(), &entry.version)
            {
                continue;
            }
            let Some(candidate) = self.candidate(&id, newest)? else {
                continue;
            };
            if !is_newer(&candidate.manifest.version, &entry.version) {
                continue;
            }
            let installed = lint_pack(&self.store().pack_dir(&id), LintOptions::default());
            let old = installed.manifest.unwrap_or_default();
            let result = UpgradeResult {
                pack_id: id.to_string(),
                from: entry.version.clone(),
                to: candidate.manifest.version.clone(),
                changes: capdiff::diff(&old, &candidate.manifest),
                applied: false,
                digest: candidate.digest.clone(),
            };
            plans.push((result, candidate));
        }
        Ok(plans)
    }

    /// Where the newest version of a locked pack is (None: not looked at).
    fn newest(&self, id: &PackId, entry: &LockEntry) -> Result<Option<Newest>> {
        match entry.source.kind {
            SourceKind::Dir => Ok(None),
            SourceKind::Catalog => Ok(self.own_catalog_pack(id, entry).map(Newest::Folder)),
            SourceKind::Git => {
                let source = git_source(entry)?;
                Ok(Some(
                    match git::highest_semver_tag(&git::remote_tags(&source)?) {
                        Some((version, tag)) => Newest::Tag(version, tag),
                        None => Newest::DefaultBranch,
                    },
                ))
            }
        }
    }

    /// The pack `id` in the catalog it was installed from: the catalogs
    /// given that hold the recorded folder are searched for the id (it may
    /// have moved within its catalog); when none of them does, the
    /// recorded folder itself. Never another catalog: one listed before it
    /// must not become the pack's source, as the Skill and scripts could
    /// change with no capability in the diff. With no folder recorded, the
    /// first catalog that has the id.
    fn own_catalog_pack(&self, id: &PackId, entry: &LockEntry) -> Option<PathBuf> {
        let index_dir = self.store().root().join("catalogs");
        let Some(recorded) = entry.source.folder_path() else {
            return catalog_index::find(&index_dir, self.catalogs(), id.as_str()).map(|p| p.dir);
        };
        let own: Vec<PathBuf> = self
            .catalogs()
            .iter()
            .filter(|c| std::path::absolute(c).is_ok_and(|c| recorded.starts_with(c)))
            .cloned()
            .collect();
        if own.is_empty() {
            return recorded.is_dir().then_some(recorded);
        }
        catalog_index::find(&index_dir, &own, id.as_str()).map(|p| p.dir)
    }

    /// The newest version's number (for `outdated`).
    fn newest_version(&self, id: &PackId, entry: &LockEntry) -> Result<Option<String>> {
        match self.newest(id, entry)? {
            None => Ok(None),
            Some(Newest::Tag(version, _)) => Ok(Some(version.to_string())),
            newest => Ok(self.candidate(id, newest)?.map(|c| c.manifest.version)),
        }
    }

    /// The newest version, found or fetched, linted.
    fn candidate(&self, id: &PackId, newest: Option<Newest>) -> Result<Option<Candidate>> {
        let (dir, recorded, fetched) = match newest {
            None => return Ok(None),
            Some(Newest::Folder(dir)) => {
                let recorded = LockedSource::folder(SourceKind::Catalog, &dir);
                (dir, recorded, None)
            }
            Some(Newest::Tag(_, tag)) => self.fetch_candidate(id, Some(tag))?,
            Some(Newest::DefaultBranch) => self.fetch_candidate(id, None)?,
        };
        let report = lint_pack(&dir, LintOptions::default());
        let Some(manifest) = report.manifest.filter(|m| report.ok && m.id == id.as_str()) else {
            return Ok(None);
        };
        let digest = digest::digest(&dir)?;
        Ok(Some(Candidate {
            pack_id: id.clone(),
            dir,
            manifest,
            recorded,
            digest,
            _fetched: fetched,
        }))
    }

    /// Fetches a git source at `reference` into a private temporary folder.
    fn fetch_candidate(
        &self,
        id: &PackId,
        reference: Option<String>,
    ) -> Result<(PathBuf, LockedSource, Option<tempfile::TempDir>)> {
        let lock = self.store().read_lockfile()?;
        let entry = lock.packs.get(id).ok_or_else(|| super::not_installed(id))?;
        let mut source = git_source(entry)?;
        source.reference = reference;
        let tmp = tempfile::Builder::new()
            .prefix("hcpx-upgrade-")
            .tempdir()
            .map_err(|err| {
                Error::io(
                    "cannot create a temporary folder in",
                    &std::env::temp_dir(),
                    &err,
                )
            })?;
        let fetched = super::fetch::fetch_to(&source, &tmp.path().join("checkout"))?;
        let recorded = LockedSource::git(
            &source.url,
            source.subdir.as_deref(),
            source.reference.as_deref(),
            &fetched.commit,
        );
        Ok((fetched.dir, recorded, Some(tmp)))
    }
}

/// `confirmation_required` when a new version the user saw the diff of is
/// not the one found now: another digest, or no newer version at all.
fn unmet_expectation(expect: &[Expected], results: &[UpgradeResult]) -> Result<()> {
    for expected in expect {
        let found = results.iter().find(|r| r.pack_id == expected.pack_id);
        let now = match found {
            Some(r) if r.digest == expected.digest => continue,
            Some(r) => format!("its new version is now {} ({})", r.to, r.digest),
            None => "it has no newer version now".to_string(),
        };
        return Err(Error::new(
            ErrorCode::ConfirmationRequired,
            format!(
                "the source of {} changed since its diff was shown (for {}): {now}; nothing was changed",
                expected.pack_id, expected.digest
            ),
        )
        .pack(expected.pack_id.as_str())
        .hint("review the new diff (`results`, or hcpx upgrade --dry-run), then confirm that one"));
    }
    // Confirming some diffs confirms those only: a pack with a new version
    // but no expectation had none to show when the user looked.
    if expect.is_empty() {
        return Ok(());
    }
    let unseen = results
        .iter()
        .find(|r| !expect.iter().any(|e| e.pack_id == r.pack_id));
    match unseen {
        None => Ok(()),
        Some(r) => Err(Error::new(
            ErrorCode::ConfirmationRequired,
            format!(
                "{} has a new version {} ({}) whose diff was not confirmed (no --expect names it); nothing was changed",
                r.pack_id, r.to, r.digest
            ),
        )
        .pack(r.pack_id.as_str())
        .hint("review the new diff (`results`, or hcpx upgrade --dry-run), then confirm that one")),
    }
}

/// `confirmation_required` when the staged copy of a candidate is not the
/// tree its diff was computed on (its folder changed meanwhile).
fn changed_meanwhile(candidate: &Candidate, actual: &str) -> Result<()> {
    if actual == candidate.digest {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::ConfirmationRequired,
        format!(
            "{} changed while it was being upgraded (its diff was computed on {}, the copy has {actual}); it was not installed",
            candidate.pack_id, candidate.digest
        ),
    )
    .pack(candidate.pack_id.as_str())
    .hint("run the upgrade again to see the new diff"))
}

/// The git source a lock entry records (at no ref).
fn git_source(entry: &LockEntry) -> Result<GitSource> {
    let url = entry.source.url.clone().ok_or_else(|| {
        Error::new(
            ErrorCode::StoreCorrupt,
            "a git source in hcp.lock has no url",
        )
        .hint("repair hcp.lock by hand, or reinstall the pack")
    })?;
    Ok(GitSource {
        url,
        subdir: entry.source.subdir.clone(),
        reference: entry.source.reference.clone(),
    })
}

/// Whether `latest` is a higher SemVer than `installed`.
fn is_newer(latest: &str, installed: &str) -> bool {
    match (
        semver::Version::parse(latest),
        semver::Version::parse(installed),
    ) {
        (Ok(latest), Ok(installed)) => latest > installed,
        _ => false,
    }
}

/// Maps `f` over `items` on at most `threads` threads; keeps the order.
fn bounded_map<T: Send, R: Send>(
    items: Vec<T>,
    threads: usize,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let mut results: Vec<Option<R>> = Vec::new();
    results.resize_with(items.len(), || None);
    let queue = std::sync::Mutex::new(items.into_iter().enumerate());
    let done = std::sync::Mutex::new(&mut results);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().map(|mut q| q.next()).ok().flatten();
                    let Some((i, item)) = next else { break };
                    let result = f(item);
                    if let Ok(mut done) = done.lock() {
                        done[i] = Some(result);
                    }
                }
            });
        }
    });
    results.into_iter().flatten().collect()
}
