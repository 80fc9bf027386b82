//! `hcpx outdated` and `hcpx upgrade` (HCP.md §13.6–§13.7): the update of
//! each pack from the source the lock file records — a higher version
//! (`reason: version`), or the same version with another digest (§13.4;
//! `reason: content`, how an unversioned Skill pack is updated upstream) —
//! and its installation after the capability diff ([`capdiff`]) of the
//! installed pack and the new one (manifest, files, Skill; see
//! `ops::content`). Both first bring the git catalogs involved up to date
//! (`catalog update`), unless offline.
//!
//! Where the newest is: for a `catalog` source, the pack of that id in the
//! catalog it was installed from, never another (through the catalog
//! index; see `own_catalog_pack`); for a `git` source, what it follows
//! (its branch's head, a higher SemVer tag, or nothing when pinned), each
//! repository asked once (`ops::follow`); for a `dir` source, its recorded
//! folder, compared by digest. A pack that cannot be compared is reported
//! (`missing`, `lint_failed`, `renamed`, `not_checked`) beside the others.
//!
//! Where the spec is silent:
//! - Offline, git sources are `not_checked` (asking a remote goes over the
//!   network); the git catalogs involved — one whose local copy holds a
//!   recorded folder, or whose url a git entry records — are refreshed all
//!   at once by `catalog update` otherwise.
//! - A git source is fetched when the commit it follows is not the locked
//!   one, even when no version is newer, as its content digest is needed.
//! - To upgrade, a folder source (catalog, `dir`) is copied to a private
//!   folder first, and that copy is diffed and installed
//!   (`content::private_copy`).
//! - `outdated` looks at repositories in parallel, at most
//!   [`PARALLEL_FETCHES`] at a time; a source that cannot be reached makes
//!   its packs `not_checked` (and the exit code 1), not the whole report.
//! - `upgrade` first plans every pack (fetching git sources into a private
//!   temporary folder, outside the store, without holding the store lock),
//!   then, unless `--dry-run`, and only when no escalating change lacks
//!   `--yes`, installs them one by one (each like `hcpx install`, lint
//!   first, atomic, recorded in the lock with the tag as `ref`). Refused,
//!   nothing is changed and the document still carries every result
//!   (`applied: false`) so the diff can be shown. A pack whose newest
//!   version is lower than the installed one, or the same with the same
//!   digest, is not listed.
//! - What is installed is what the diff was computed on: each candidate's
//!   digest (§13.4) is kept with its result (`to_digest`), and the staged
//!   copy of each pack
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

use super::Engine;
use super::content::Content;
use super::follow::{Candidate, Finding, Found};
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::pack::id::PackId;
use crate::engine::policy::capdiff::{self, CapabilityChange};
use crate::engine::store::lockfile::{LockEntry, LockFile, LockedSource, SourceKind};
use crate::engine::store::source::redact_url;
use crate::engine::store::{catalog_index, config, step};
use serde::Serialize;
use std::path::PathBuf;

pub use super::follow::PARALLEL_FETCHES;

/// Why a pack is outdated (§13.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UpdateReason {
    /// A higher version at the source.
    Version,
    /// The same version, other content (how a Skill pack is updated).
    Content,
    /// The pack's folder is gone at the source (renamed, moved, deleted),
    /// or the ref it follows is.
    Missing,
    /// The pack at the source no longer lints.
    #[serde(rename = "lint_failed")]
    LintFailed,
    /// The Skill at the source has another `name` (`latest` says it).
    Renamed,
    /// Not looked at: offline, or its repository could not be reached.
    #[serde(rename = "not_checked")]
    NotChecked,
}

impl UpdateReason {
    /// An update that can be installed (`version`, `content`).
    pub fn is_update(self) -> bool {
        matches!(self, UpdateReason::Version | UpdateReason::Content)
    }
}

/// One pack with a newer version or newer content (`hcpx outdated`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutdatedPack {
    pub pack_id: String,
    pub installed: String,
    pub latest: String,
    /// The digest (§13.4) the lock file records for the installed copy.
    pub installed_digest: String,
    /// The digest of the pack at the source.
    pub latest_digest: String,
    pub reason: UpdateReason,
    /// What to do about a pack that was not compared (every reason but
    /// `version` and `content`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub source: LockedSource,
    /// Its source could not be reached (online): a failure, unlike
    /// `--offline`'s `not_checked`. Not in the `--json` document.
    #[serde(skip)]
    pub unreachable: bool,
}

impl OutdatedPack {
    /// Whether this makes `outdated` (and `upgrade`) exit 1 (§13.6):
    /// `missing`, `lint_failed`, `renamed`, or a source not reached.
    pub fn fails(&self) -> bool {
        matches!(
            self.reason,
            UpdateReason::Missing | UpdateReason::LintFailed | UpdateReason::Renamed
        ) || self.unreachable
    }
}

/// What `upgrade` did: each result, the packs it could not compare
/// (`missing`, `lint_failed`, `renamed`, `not_checked`), and the error
/// that stopped it or that names those.
#[derive(Debug, Default)]
pub struct UpgradeRun {
    pub results: Vec<UpgradeResult>,
    pub problems: Vec<OutdatedPack>,
    pub error: Option<Error>,
}

/// One pack's upgrade (`hcpx upgrade`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpgradeResult {
    pub pack_id: String,
    pub from: String,
    pub to: String,
    /// The digest the lock file records for the installed copy.
    pub from_digest: String,
    /// The digest (§13.4) of the new version the diff was computed on:
    /// what [`UpgradeOptions::expect`] names to install only that.
    pub to_digest: String,
    pub changes: Vec<CapabilityChange>,
    pub applied: bool,
    /// Why: a higher version, or new content at the same version. Not in
    /// the `--json` document (§13.7 lists its keys).
    #[serde(skip)]
    pub reason: UpdateReason,
    /// Once applied, where the pack's Skill stands in each enabled harness
    /// target (§12.8): a `modified` copy was left at the old content. Not
    /// in the `--json` document.
    #[serde(skip)]
    pub harnesses: Vec<crate::engine::harness::HarnessLine>,
}

/// The new version a diff was shown for: the upgrade installs this pack
/// only if its new version still has this digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    pub pack_id: String,
    /// `sha256:<hex>`, as in [`UpgradeResult::to_digest`].
    pub digest: String,
}

/// What `hcpx upgrade` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct UpgradeOptions {
    /// The packs (default: every locked pack with a catalog or git source).
    pub pack_ids: Vec<PackId>,
    /// Only report.
    pub dry_run: bool,
    /// Accept escalating changes.
    pub yes: bool,
    /// The new versions the user saw the diff of: when one differs now (or
    /// has no newer version any more), nothing is installed
    /// (`confirmation_required`).
    pub expect: Vec<Expected>,
    /// Do not bring the git catalogs read up to date first, and leave out
    /// git sources (asking a remote goes over the network).
    pub offline: bool,
}

/// One planned upgrade: its result (diff) and what it installs.
type Plan = (UpgradeResult, Candidate);

impl UpgradeRun {
    fn failed(error: Error) -> UpgradeRun {
        UpgradeRun {
            error: Some(error),
            ..UpgradeRun::default()
        }
    }
}

/// The line of `outdated` for a finding (none: up to date).
fn reported(finding: Finding) -> Option<OutdatedPack> {
    let Finding { id, entry, found } = finding;
    let (reason, latest, latest_digest, hint, unreachable) = match found {
        Found::UpToDate => return None,
        Found::Update(reason, c) => (
            reason,
            c.manifest.version.clone(),
            c.digest.clone(),
            None,
            false,
        ),
        Found::Problem(p) => (
            p.reason,
            p.latest,
            p.latest_digest,
            Some(p.hint),
            p.unreachable,
        ),
    };
    Some(OutdatedPack {
        pack_id: id.to_string(),
        installed: entry.version,
        latest,
        installed_digest: entry.digest,
        latest_digest,
        reason,
        hint,
        source: entry.source,
        unreachable,
    })
}

/// The error that names the packs `outdated` or `upgrade` (`upgrading`)
/// could not compare (exit 1, §13.6): `lint_failed` when one no longer
/// lints, else `source_unavailable`. None when every one is only
/// `not_checked` offline, or an update.
pub fn problems_error(problems: &[OutdatedPack], upgrading: bool) -> Option<Error> {
    let failed: Vec<&OutdatedPack> = problems.iter().filter(|p| p.fails()).collect();
    let first = failed.first()?;
    let code = if failed.iter().any(|p| p.reason == UpdateReason::LintFailed) {
        ErrorCode::LintFailed
    } else {
        ErrorCode::SourceUnavailable
    };
    let named: Vec<String> = failed
        .iter()
        .map(|p| format!("{} ({})", p.pack_id, reason_word(p.reason)))
        .collect();
    let mut err = Error::new(
        code,
        format!(
            "{}{} could not be compared with its source: {}",
            if upgrading { "not upgraded: " } else { "" },
            count(failed.len()),
            named.join(", ")
        ),
    );
    if let Some(hint) = &first.hint {
        err = err.hint(format!("{}: {hint}", first.pack_id));
    }
    Some(err)
}

/// `1 pack`, `N packs`.
fn count(n: usize) -> String {
    if n == 1 {
        "1 pack".into()
    } else {
        format!("{n} packs")
    }
}

/// The reason as the JSON says it.
pub fn reason_word(reason: UpdateReason) -> &'static str {
    match reason {
        UpdateReason::Version => "version",
        UpdateReason::Content => "content",
        UpdateReason::Missing => "missing",
        UpdateReason::LintFailed => "lint_failed",
        UpdateReason::Renamed => "renamed",
        UpdateReason::NotChecked => "not_checked",
    }
}

impl Engine {
    /// Packs whose recorded source has a newer version or, at the same
    /// version, other content (§13.6), after bringing the git catalogs read
    /// up to date.
    pub fn outdated(&self) -> Result<Vec<OutdatedPack>> {
        self.outdated_with(false)
    }

    /// [`Engine::outdated`] without the network: the git catalogs are read
    /// as they are, and git sources are left out, since asking a remote for
    /// its tags goes over the network.
    pub fn outdated_offline(&self) -> Result<Vec<OutdatedPack>> {
        self.outdated_with(true)
    }

    fn outdated_with(&self, offline: bool) -> Result<Vec<OutdatedPack>> {
        let lock = self.store().read_lockfile()?;
        let entries: Vec<(PackId, LockEntry)> = lock.packs.into_iter().collect();
        if !offline {
            self.refresh_catalogs_of(entries.iter().map(|(_, e)| e))?;
        }
        let findings = self.check_sources(entries, offline, false);
        Ok(findings.into_iter().filter_map(reported).collect())
    }

    /// Brings the git catalogs up to date (`catalog update`) when one of
    /// `entries` comes from one: its recorded folder is in a git catalog's
    /// local copy, or its git url is a git catalog's.
    fn refresh_catalogs_of<'e>(&self, entries: impl Iterator<Item = &'e LockEntry>) -> Result<()> {
        let config = config::read(&self.store().config_path())?;
        let git_catalogs: Vec<(&PathBuf, String)> = config
            .catalog_sources
            .iter()
            .filter_map(|c| Some((&c.path, redact_url(&c.git.as_ref()?.url))))
            .collect();
        let root = self.store().root().join("catalogs");
        let involved = |e: &LockEntry| match e.source.kind {
            SourceKind::Catalog => e.source.folder_path().is_some_and(|dir| {
                dir.starts_with(&root) && git_catalogs.iter().any(|(path, _)| dir.starts_with(path))
            }),
            SourceKind::Git => git_catalogs
                .iter()
                .any(|(_, url)| e.source.url.as_ref() == Some(url)),
            SourceKind::Dir => false,
        };
        let mut entries = entries;
        if entries.any(involved) {
            self.catalog_update()?;
        }
        Ok(())
    }

    /// Upgrades packs to the newest version (or content) of their recorded
    /// source (§13.7): applies what it can, then fails naming the packs it
    /// could not compare. Returns every result so far, those packs, and the
    /// error that stopped it or names them, if any.
    pub fn upgrade(&self, options: &UpgradeOptions) -> UpgradeRun {
        // A principal that may not install is refused before anything is
        // fetched (§9.2); a dry run changes nothing and needs no grant.
        if !options.dry_run
            && let Err(err) = self.require_install_grant()
        {
            return UpgradeRun::failed(err);
        }
        let (plans, problems) = match self.plan_upgrades(options) {
            Ok(planned) => planned,
            Err(err) => return UpgradeRun::failed(err),
        };
        let mut run = UpgradeRun {
            results: plans.iter().map(|(r, _)| r.clone()).collect(),
            problems,
            error: None,
        };
        run.error = self.apply(options, plans, &mut run.results).err();
        if run.error.is_none() {
            run.error = problems_error(&run.problems, true);
        }
        run
    }

    /// Installs the planned candidates (none with `--dry-run`), after the
    /// checks of expectation and confirmation; marks each result applied.
    fn apply(
        &self,
        options: &UpgradeOptions,
        plans: Vec<(UpgradeResult, Candidate)>,
        results: &mut [UpgradeResult],
    ) -> Result<()> {
        if options.dry_run {
            return Ok(());
        }
        unmet_expectation(&options.expect, results)?;
        confirmed(results, options.yes)?;
        step("upgrade.planned")?;
        for (i, (_, candidate)) in plans.into_iter().enumerate() {
            let tx = self.store().lock()?;
            // What is swapped in is what the diff was computed on.
            let check = |actual: &str| changed_meanwhile(&candidate, actual);
            let outcome = self
                .install_checked(
                    tx,
                    &candidate.dir,
                    candidate.recorded.clone(),
                    false,
                    Some(&check),
                )
                .map_err(|err| err.pack(candidate.pack_id.to_string()))?;
            results[i].applied = true;
            results[i].harnesses = outcome.harnesses;
        }
        Ok(())
    }

    /// Each pack's newer candidate and its diff, without changing anything,
    /// and the packs that could not be compared.
    fn plan_upgrades(&self, options: &UpgradeOptions) -> Result<(Vec<Plan>, Vec<OutdatedPack>)> {
        let lock = self.store().read_lockfile()?;
        let ids = self.upgrade_ids(&lock, &options.pack_ids)?;
        let entries: Vec<(PackId, LockEntry)> = ids
            .iter()
            .filter_map(|id| Some((id.clone(), lock.packs.get(id)?.clone())))
            .collect();
        if !options.offline {
            self.refresh_catalogs_of(entries.iter().map(|(_, e)| e))?;
        }
        let mut plans = Vec::new();
        let mut problems = Vec::new();
        for finding in self.check_sources(entries, options.offline, true) {
            let (id, entry) = (&finding.id, &finding.entry);
            let candidate = match finding.found {
                Found::Update(reason, candidate) => (reason, candidate),
                Found::UpToDate => continue,
                Found::Problem(_) => {
                    problems.extend(reported(finding));
                    continue;
                }
            };
            let (reason, candidate) = candidate;
            let installed = Content::read(&self.store().pack_dir(id))?;
            let result = UpgradeResult {
                pack_id: id.to_string(),
                from: entry.version.clone(),
                to: candidate.manifest.version.clone(),
                from_digest: entry.digest.clone(),
                to_digest: candidate.digest.clone(),
                changes: installed.diff_to(&candidate.content, &candidate.manifest),
                applied: false,
                reason,
                harnesses: Vec::new(),
            };
            plans.push((result, *candidate));
        }
        Ok((plans, problems))
    }

    /// The packs to look at: those named (each installed and locked), or
    /// every locked pack.
    fn upgrade_ids(&self, lock: &LockFile, named: &[PackId]) -> Result<Vec<PackId>> {
        if named.is_empty() {
            return Ok(lock.packs.keys().cloned().collect());
        }
        let mut ids = Vec::new();
        for id in named {
            let id = id.clone();
            let text = id.as_str();
            if !lock.packs.contains_key(&id) && !self.store().is_installed(&id) {
                return Err(self.unknown_or_not_installed(text));
            }
            if !lock.packs.contains_key(&id) {
                return Err(Error::new(
                    ErrorCode::NotFound,
                    format!("{id} is not recorded in hcp.lock, so its source is unknown"),
                )
                .pack(text)
                .hint(
                    Hint::from("install it again from its source (")
                        .cmd(Fix::Install {
                            pack: "SOURCE".into(),
                            force: true,
                        })
                        .say(") to record it"),
                ));
            }
            ids.push(id);
        }
        Ok(ids)
    }

    /// The folder of a `dir` or `catalog` pack's source now (None: gone).
    pub(super) fn newest_folder(
        &self,
        id: &PackId,
        entry: &LockEntry,
    ) -> Option<(PathBuf, SourceKind)> {
        match entry.source.kind {
            SourceKind::Dir => entry
                .source
                .folder_path()
                .filter(|dir| dir.is_dir())
                .map(|dir| (dir, SourceKind::Dir)),
            SourceKind::Catalog => self
                .own_catalog_pack(id, entry)
                .map(|dir| (dir, SourceKind::Catalog)),
            SourceKind::Git => None,
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
}

/// `confirmation_required` when a change escalates and `yes` is not given.
fn confirmed(results: &[UpgradeResult], yes: bool) -> Result<()> {
    let escalating: Vec<&str> = results
        .iter()
        .filter(|r| capdiff::escalates(&r.changes))
        .map(|r| r.pack_id.as_str())
        .collect();
    if escalating.is_empty() || yes {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::ConfirmationRequired,
        format!(
            "upgrading {} grants more reach (see `changes`); nothing was changed",
            escalating.join(", ")
        ),
    )
    .hint("review the changes, then run the upgrade again with --yes"))
}

/// `confirmation_required` when a new version the user saw the diff of is
/// not the one found now: another digest, or no newer version at all.
fn unmet_expectation(expect: &[Expected], results: &[UpgradeResult]) -> Result<()> {
    for expected in expect {
        let found = results.iter().find(|r| r.pack_id == expected.pack_id);
        let now = match found {
            Some(r) if r.to_digest == expected.digest => continue,
            Some(r) => format!("its new version is now {} ({})", r.to, r.to_digest),
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
        .hint(review_again()));
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
                r.pack_id, r.to, r.to_digest
            ),
        )
        .pack(r.pack_id.as_str())
        .hint(review_again())),
    }
}

/// What to do when a confirmed diff is not the one upgrade would install.
fn review_again() -> Hint {
    Hint::from("review the new diff (`results`, or ")
        .cmd(Fix::Upgrade { dry_run: true })
        .say("), then confirm that one")
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

/// Whether `latest` is a higher SemVer than `installed`.
pub(super) fn is_newer(latest: &str, installed: &str) -> bool {
    match (
        semver::Version::parse(latest),
        semver::Version::parse(installed),
    ) {
        (Ok(latest), Ok(installed)) => latest > installed,
        _ => false,
    }
}

/// Whether two versions are the same (as SemVer where both parse).
pub(super) fn same_version(a: &str, b: &str) -> bool {
    match (semver::Version::parse(a), semver::Version::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Maps `f` over `items` on at most `threads` threads; keeps the order.
pub(super) fn bounded_map<T: Send, R: Send>(
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
