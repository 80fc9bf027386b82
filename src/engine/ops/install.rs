//! install of one pack folder (11-lifecycle.md §11.1; HCP.md §11.1; what a
//! `SOURCE` names is found by `ops::sources`, which calls this): lint
//! first, then copy the pack (without `.git/`) into `<store>/packs/<pack_id>/` atomically: staged
//! under `.tmp/`, linted again as staged, then renamed into place. The same
//! version is a no-op; another version or `--force` replaces it atomically,
//! keeping activation (re-copying the Skill) and dropping `connected` when
//! the Binding changed.
//!
//! A replacement gets the capability diff of §13.7 of the installed copy →
//! the staged one (`changes` in the result, [`InstallOutcome::changes`]);
//! when it escalates — the same Skill name from another repository brings
//! an executable script, a catalog pack replaced by a folder with a new
//! `write` command — it needs `--yes` or `--force` (§11.1), else
//! `confirmation_required` with the diff as `results` (§13.7's shape,
//! `applied: false`) and nothing changes. `upgrade` and `sync` check the
//! staged digest against the diff they showed instead
//! ([`DigestCheck`]). Where the spec is silent: a replacement of a pack
//! recorded from another source also warns, naming both sources.
//!
//! Modes (§14.1): regular files are written 0644, or 0755 where the source
//! has an execute bit; folders 0755; no setuid, setgid or sticky bit and no
//! group/other write is kept, whatever the source or the umask. The path the
//! user names may be a symbolic link to the pack folder; nothing inside the
//! pack is followed (lint refuses links there). A pack folder that holds the
//! store itself is refused before anything is copied.
//!
//! Steps that go together (HCP.md §14.7), in two halves so that several
//! packs can be installed with one wait on the disk
//! ([`Engine::prepare_install`], [`Engine::finish_installs`]): the pack is
//! staged and linted in the change's scratch folder, its digest taken from
//! the bytes copied; the staged copies are flushed at once; a dropped
//! `connected` (Binding changed) is
//! written before the new copy is swapped in, so no moment has a changed
//! Binding marked connected; then the lock file entry (§13.3), the swap,
//! then the Skill re-copy. A failure
//! at any step swaps the old copy back, restores the old Skill copy and the
//! old state.

use super::content::Content;
use super::upgrade::{UpdateReason, UpgradeResult};
use super::{Engine, RUNTIME_VERSION};
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::lint::{LintOptions, LintReport, MANIFEST_JSON, MANIFEST_YAML, lint_pack};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::Manifest;
use crate::engine::policy::capdiff::{self, CapabilityChange};
use crate::engine::policy::grants::PACK_INSTALL;
use crate::engine::store::copy::{CopyOptions, copy_tree_digested};
use crate::engine::store::digest::{self, Tree};
use crate::engine::store::lockfile::{LockEntry, LockedSource, SourceKind};
pub use crate::engine::store::source::InstallSource;
use crate::engine::store::{Transaction, step, sync_dir};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Told the digest of a staged pack before it is installed; an error stops
/// the install with the store unchanged.
pub(super) type DigestCheck<'a> = &'a dyn Fn(&str) -> Result<()>;

/// How one pack is installed.
pub(super) struct InstallHow<'a> {
    /// Replace the installed copy even when it is the same version.
    pub force: bool,
    pub check: Option<DigestCheck<'a>>,
    /// How the pack folder is linted (a Skill at a git repository's root
    /// has no meaningful folder name).
    pub lint: LintOptions,
    /// Consent to a replacement whose capability diff escalates (`--yes`,
    /// §11.1); `force` consents too.
    pub yes: bool,
    /// The report of a lint of the pack folder this command just made,
    /// with the same options (a collection's listing): not linted again
    /// before the copy (the copy is linted as staged either way).
    pub linted: Option<&'a LintReport>,
}

/// What install did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InstallAction {
    /// Newly installed.
    Installed,
    /// Replaced another version.
    Upgraded,
    /// Replaced the same version (`--force`).
    Reinstalled,
    /// The same version was installed already.
    Unchanged,
}

/// The result of an install, as `hcpx install --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstallOutcome {
    pub pack_id: String,
    pub version: String,
    pub action: InstallAction,
    /// The version that was replaced, if any.
    pub previous_version: Option<String>,
    pub path: String,
    /// Whether the pack is activated (kept across upgrades).
    pub activated: bool,
    /// True when an upgrade changed the Binding and `connected` was dropped.
    pub disconnected: bool,
    /// Where the pack's Skill stands in each enabled harness target (§12.8).
    pub harnesses: Vec<crate::engine::harness::HarnessLine>,
    /// Where the pack came from: its lock file source (§11.6, §13.3).
    pub source: LockedSource,
    /// The capability diff (§13.7) of the copy this replaced → this one;
    /// absent when nothing was replaced (§11.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Vec<CapabilityChange>>,
    /// What the user should know (a Skill pack replaced by other content,
    /// §11.1), one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl std::fmt::Display for InstallOutcome {
    /// One line saying what happened, e.g. `upgraded acme.x 1.0.0 -> 1.1.0`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (id, version) = (&self.pack_id, &self.version);
        match self.action {
            InstallAction::Installed => write!(f, "installed {id} {version}"),
            InstallAction::Upgraded => write!(
                f,
                "upgraded {id} {} -> {version}",
                self.previous_version.as_deref().unwrap_or("?")
            ),
            InstallAction::Reinstalled => write!(f, "reinstalled {id} {version}"),
            InstallAction::Unchanged => write!(f, "{id} {version} is already installed"),
        }
    }
}

impl Engine {
    /// Installs the pack folder `dir` under the lock `tx` holds, recording
    /// `recorded` as its source in the lock file; `(force, yes)` as in
    /// [`InstallHow`].
    pub(super) fn install_locked(
        &self,
        mut tx: Transaction<'_>,
        dir: &Path,
        recorded: LockedSource,
        (force, yes): (bool, bool),
    ) -> Result<InstallOutcome> {
        let how = InstallHow {
            force,
            check: None,
            lint: lint_options(&recorded),
            yes,
            linted: None,
        };
        let outcome = self.install_in(&mut tx, dir, recorded, &how)?;
        tx.commit()?;
        Ok(outcome)
    }

    /// [`Engine::install_locked`], with `check` told the digest (§13.4) of
    /// the staged copy — the exact tree that is then swapped in — before
    /// anything in the store changes: an error from it leaves the store as
    /// it was (`sync --frozen`, an upgrade approved on its diff).
    pub(super) fn install_checked(
        &self,
        mut tx: Transaction<'_>,
        dir: &Path,
        recorded: LockedSource,
        force: bool,
        check: Option<DigestCheck<'_>>,
    ) -> Result<InstallOutcome> {
        let how = InstallHow {
            force,
            check,
            lint: lint_options(&recorded),
            yes: false,
            linted: None,
        };
        let outcome = self.install_in(&mut tx, dir, recorded, &how)?;
        tx.commit()?;
        Ok(outcome)
    }

    /// Installs the pack folder `dir` as one step of the change `tx` (the
    /// caller commits, or rolls back to a mark taken before).
    pub(super) fn install_in(
        &self,
        tx: &mut Transaction<'_>,
        dir: &Path,
        recorded: LockedSource,
        how: &InstallHow<'_>,
    ) -> Result<InstallOutcome> {
        match self.prepare_install(tx, dir, recorded, how)? {
            Prepared::Unchanged(outcome) => Ok(*outcome),
            Prepared::Staged(staged) => {
                let mut outcomes = self.finish_installs(tx, vec![*staged])?;
                Ok(outcomes.remove(0))
            }
        }
    }

    /// The first half of [`Engine::install_in`], as a step of `tx`: the
    /// checks (lint, grant, the same version, another source's reach), the
    /// copy staged in the change's scratch folder (not flushed yet), linted
    /// again and digested. Nothing the store's readers see has changed.
    pub(super) fn prepare_install(
        &self,
        tx: &mut Transaction<'_>,
        dir: &Path,
        recorded: LockedSource,
        how: &InstallHow<'_>,
    ) -> Result<Prepared> {
        let (force, check) = (how.force, how.check);
        let (manifest, pack_id) = match how.linted {
            Some(report) => {
                refuse_store_inside(dir, self.store().root())?;
                installable_as(report)?
            }
            None => installable(dir, self.store().root(), how.lint)?,
        };

        self.require_grant(&tx.state, PACK_INSTALL, &pack_id)?;
        let target = self.store().pack_dir(&pack_id);
        let previous = self
            .store()
            .is_installed(&pack_id)
            .then(|| lint_pack(&target, LintOptions::default()));
        let previous_version = previous
            .as_ref()
            .and_then(|r| r.manifest.as_ref())
            .map(|m| m.version.clone());
        let same_version = previous_version.as_deref() == Some(manifest.version.as_str());
        let previous_ok = previous.as_ref().is_some_and(|r| r.ok);
        let action = match (&previous_version, same_version) {
            (None, _) => InstallAction::Installed,
            (Some(_), true) => InstallAction::Reinstalled,
            (Some(_), false) => InstallAction::Upgraded,
        };
        let mut outcome = InstallOutcome {
            pack_id: pack_id.to_string(),
            version: manifest.version.clone(),
            action,
            previous_version,
            path: target.display().to_string(),
            activated: tx.state.is_activated(&pack_id),
            disconnected: false,
            harnesses: Vec::new(),
            source: recorded.clone(),
            changes: None,
            warnings: Vec::new(),
        };
        if same_version && previous_ok && !force && check.is_none() {
            match skill_content_changed(tx, &pack_id, dir, &recorded)? {
                None => {
                    lock_unrecorded(tx, &pack_id, &manifest.version, recorded)?;
                    outcome.action = InstallAction::Unchanged;
                    return Ok(Prepared::Unchanged(Box::new(outcome)));
                }
                Some(warning) => outcome.warnings.push(warning),
            }
        }

        let (staged, tree) = stage(tx, dir, &pack_id)?;
        let digest = tree.digest.clone();
        // upgrade and sync showed their diff and check the digest instead.
        if previous.is_some() && check.is_none() {
            let new = Content::with_manifest(&staged, Some(manifest.clone()), Some(tree))?;
            let what = (&pack_id, &new, &manifest, &recorded);
            consented(tx, what, force || how.yes, &mut outcome)?;
        }
        let locked = LockEntry {
            digest,
            source: recorded,
            version: manifest.version.clone(),
        };
        if let Some(check) = check {
            check(&locked.digest)?;
        }
        let binding_kept = previous
            .and_then(|r| r.manifest)
            .is_some_and(|old| old.binding == manifest.binding);
        Ok(Prepared::Staged(Box::new(StagedInstall {
            pack_id,
            staged,
            locked,
            binding_kept,
            outcome,
        })))
    }

    /// The second half of [`Engine::install_in`] for every pack of
    /// `staged` at once, as steps of `tx`: one flush of the staged copies,
    /// a dropped `connected` (Binding changed) written before any copy is
    /// swapped in, the lock entries (§13.3) just before the swaps, then the
    /// Skill re-copies of activated packs, whose harness targets are
    /// brought in step once for all (§12.6). Returns each pack's outcome,
    /// in order.
    pub(super) fn finish_installs(
        &self,
        tx: &mut Transaction<'_>,
        staged: Vec<StagedInstall>,
    ) -> Result<Vec<InstallOutcome>> {
        // The copies are on disk before anything names them.
        tx.flush()?;
        let mut staged = staged;
        for pack in &mut staged {
            pack.outcome.disconnected = !pack.binding_kept && tx.state.disconnect(&pack.pack_id);
        }
        tx.save()?;
        step("install.after_state")?;
        // Recorded just before the swaps: a crash at any named step leaves
        // the lock agreeing with the installed copies.
        let locks = staged
            .iter()
            .map(|pack| (pack.pack_id.clone(), Some(pack.locked.clone())))
            .collect();
        tx.record_locks(locks)?;
        for pack in &staged {
            tx.exchange(&pack.staged, &self.store().pack_dir(&pack.pack_id))?;
        }
        sync_dir(&self.store().packs_dir());
        step("install.after_swap")?;
        let activated: Vec<PackId> = staged
            .iter()
            .filter(|pack| pack.outcome.activated)
            .map(|pack| pack.pack_id.clone())
            .collect();
        for id in &activated {
            super::activate::copy_skill(tx, id)?;
        }
        // Another version's Skill replaces the placed copies (§12.6).
        let mut lines = self.harness_steps(tx, &activated)?.into_iter();
        step("install.after_skill")?;
        Ok(staged
            .into_iter()
            .map(|pack| {
                let harnesses = if pack.outcome.activated {
                    lines.next().unwrap_or_default()
                } else {
                    Vec::new()
                };
                InstallOutcome {
                    harnesses,
                    ..pack.outcome
                }
            })
            .collect())
    }
}

/// What [`Engine::prepare_install`] came to.
pub(super) enum Prepared {
    /// The same version is installed with the same content: nothing to do.
    Unchanged(Box<InstallOutcome>),
    /// Checked and staged; [`Engine::finish_installs`] installs it.
    Staged(Box<StagedInstall>),
}

/// A pack checked and staged in the change's scratch folder, not installed
/// yet.
#[derive(Clone)]
pub(super) struct StagedInstall {
    pack_id: PackId,
    /// Where the copy is staged (after the swap: the replaced copy).
    staged: PathBuf,
    locked: LockEntry,
    /// Whether the installed copy it replaces has the same Binding.
    binding_kept: bool,
    /// What installing it does, told before it is done.
    outcome: InstallOutcome,
}
/// Whether two recorded sources are the same place (a git source at
/// another commit or ref is the same repository folder).
fn same_origin(a: &LockedSource, b: &LockedSource) -> bool {
    a.path.is_some() == b.path.is_some()
        && (a.path.is_some() || a.url.is_some())
        && (a.path.as_ref(), a.url.as_ref(), a.subdir.as_ref())
            == (b.path.as_ref(), b.url.as_ref(), b.subdir.as_ref())
}

/// For an install that replaces a pack recorded from another source (or
/// from none): the warning naming both (§11.1).
fn from_elsewhere(
    tx: &Transaction<'_>,
    pack_id: &PackId,
    manifest: &Manifest,
    recorded: &LockedSource,
) -> Result<Option<String>> {
    let lock = tx.store().read_lockfile()?;
    let old = lock.packs.get(pack_id).map(|e| &e.source);
    if old.is_some_and(|old| same_origin(old, recorded)) {
        return Ok(None);
    }
    let old = old.map_or_else(|| "an unknown source".to_string(), LockedSource::display);
    let (version, new_source) = (&manifest.version, recorded.display());
    Ok(Some(format!(
        "{pack_id} from {old} is replaced by {version} from {new_source}"
    )))
}

/// For an install over an installed copy (§11.1): the diff of the
/// replacement into `outcome.changes`, the warning of another source; a
/// diff that escalates without `consent` is refused.
fn consented(
    tx: &Transaction<'_>,
    (pack_id, new, manifest, recorded): (&PackId, &Content, &Manifest, &LockedSource),
    consent: bool,
    outcome: &mut InstallOutcome,
) -> Result<()> {
    let result = replacement(tx, pack_id, new, manifest)?;
    if outcome.warnings.is_empty() {
        outcome
            .warnings
            .extend(from_elsewhere(tx, pack_id, manifest, recorded)?);
    }
    if capdiff::escalates(&result.changes) && !consent {
        return Err(refused(tx, pack_id, result, recorded)?);
    }
    outcome.changes = Some(result.changes);
    Ok(())
}

/// The capability diff (§13.7) of the installed copy of `pack_id` → `new`,
/// as `upgrade` reports one (`applied: false` until it is installed).
fn replacement(
    tx: &Transaction<'_>,
    pack_id: &PackId,
    new: &Content,
    manifest: &Manifest,
) -> Result<UpgradeResult> {
    let installed = Content::read(&tx.store().pack_dir(pack_id))?;
    let lock = tx.store().read_lockfile()?;
    let entry = lock.packs.get(pack_id);
    let from = entry.map(|e| e.version.clone()).or_else(|| {
        let old = installed.manifest.as_ref()?;
        Some(old.version.clone())
    });
    Ok(UpgradeResult {
        pack_id: pack_id.to_string(),
        from: from.unwrap_or_default(),
        to: manifest.version.clone(),
        from_digest: entry.map_or_else(|| installed.digest().to_string(), |e| e.digest.clone()),
        to_digest: new.digest().to_string(),
        changes: installed.diff_to(new, manifest),
        applied: false,
        reason: UpdateReason::Version,
        harnesses: Vec::new(),
    })
}

/// `confirmation_required` for a replacement whose diff escalates and that
/// has no consent (§11.1): the diff goes with the error as `results`.
fn refused(
    tx: &Transaction<'_>,
    pack_id: &PackId,
    result: UpgradeResult,
    recorded: &LockedSource,
) -> Result<Error> {
    let lock = tx.store().read_lockfile()?;
    let old = lock
        .packs
        .get(pack_id)
        .map_or_else(|| "an unknown source".to_string(), |e| e.source.display());
    let (id, new) = (&result.pack_id, recorded.display());
    let message = if result.from == result.to {
        format!("replacing {id} from {old} with the one from {new}")
    } else {
        format!(
            "replacing {id} {} from {old} with {} from {new}",
            result.from, result.to
        )
    };
    let mut err = Error::new(
        ErrorCode::ConfirmationRequired,
        format!("{message} grants more reach (see `changes`); nothing was installed"),
    )
    .pack(id.clone())
    .hint("review the changes, then install again with --yes");
    err.context.results = Some(vec![serde_json::to_value(&result).map_err(|e| {
        Error::new(
            ErrorCode::Io,
            format!("cannot encode the diff of {id}: {e}"),
        )
    })?]);
    Ok(err)
}

/// Records an installed pack the lock file does not list yet (installed
/// before hcpx kept one), with the digest of its installed copy.
fn lock_unrecorded(
    tx: &mut Transaction<'_>,
    pack_id: &PackId,
    version: &str,
    recorded: LockedSource,
) -> Result<()> {
    if tx.store().read_lockfile()?.packs.contains_key(pack_id) {
        return Ok(());
    }
    let entry = LockEntry {
        digest: digest::digest(&tx.store().pack_dir(pack_id))?,
        source: recorded,
        version: version.to_string(),
    };
    tx.record_lock(pack_id, Some(entry))
}

/// For a Skill pack, whose identity is its content (§11.1), the warning
/// of an install over the same version with other content; `None` when the
/// content is the same, and for a pack with a manifest (the version says).
fn skill_content_changed(
    tx: &mut Transaction<'_>,
    pack_id: &PackId,
    dir: &Path,
    recorded: &LockedSource,
) -> Result<Option<String>> {
    if !is_skill_pack(dir) {
        return Ok(None);
    }
    skill_replaced(tx, pack_id, dir, recorded)
}

/// Whether a pack folder is a Skill pack: a `SKILL.md` and no manifest.
pub fn is_skill_pack(dir: &Path) -> bool {
    use crate::engine::lint::has_root_file;
    !has_root_file(dir, MANIFEST_YAML) && !has_root_file(dir, MANIFEST_JSON)
}

/// For a Skill pack installed at the same version (§11.1): `None` when the
/// installed copy has the same content (a no-op), else the warning naming
/// both sources.
fn skill_replaced(
    tx: &Transaction<'_>,
    pack_id: &PackId,
    dir: &Path,
    recorded: &LockedSource,
) -> Result<Option<String>> {
    let installed = tx.store().pack_dir(pack_id);
    if digest::digest(dir)? == digest::digest(&installed)? {
        return Ok(None);
    }
    let lock = tx.store().read_lockfile()?;
    let old = lock
        .packs
        .get(pack_id)
        .map_or_else(|| "an unknown source".to_string(), |e| e.source.display());
    Ok(Some(format!(
        "{pack_id} from {old} is replaced by different content from {}",
        recorded.display()
    )))
}

/// How a pack from `source` is linted: the root of a git checkout has no
/// folder name of its own, so a Skill there is not held to it (§2.6).
pub(super) fn lint_options(source: &LockedSource) -> LintOptions {
    LintOptions {
        folder_name_free: source.kind == SourceKind::Git && source.subdir.is_none(),
        ..LintOptions::default()
    }
}

/// The manifest and checked id of the pack folder `dir`, when it is not
/// the store `store` or inside it, lints clean and suits this runtime.
pub(super) fn installable(
    dir: &Path,
    store: &Path,
    lint: LintOptions,
) -> Result<(Manifest, PackId)> {
    refuse_store_inside(dir, store)?;
    installable_as(&lint_pack(dir, lint))
}

/// [`installable`], with the folder's lint `report` given.
fn installable_as(report: &LintReport) -> Result<(Manifest, PackId)> {
    let manifest = match (&report.manifest, report.ok) {
        (Some(m), true) => m.clone(),
        _ => return Err(lint_failed(report)),
    };
    check_runtime_version(&manifest.id, manifest.requires.hcpx.as_deref())?;
    // Lint checked the id; a PackId is what store paths are built from.
    let pack_id = PackId::parse(&manifest.id).ok_or_else(|| lint_failed(report))?;
    Ok((manifest, pack_id))
}

/// Copies `dir` into the change's scratch folder and lints the copy again:
/// the pack must not have changed between the check and the copy. The copy
/// is left for the change's one flush ([`Transaction::flush`]), so packs
/// installed together wait on the disk once.
fn stage(tx: &mut Transaction<'_>, dir: &Path, pack_id: &PackId) -> Result<(PathBuf, Tree)> {
    let staged = tx.scratch_path("pack")?;
    let tree = copy_tree_digested(dir, &staged, CopyOptions::default())?;
    tx.wrote_unflushed();
    // The staged folder's name is ours, not the pack's.
    let lint = LintOptions {
        folder_name_free: true,
        ..LintOptions::default()
    };
    let staged_report = lint_pack(&staged, lint);
    if !staged_report.ok || staged_report.pack_id.as_deref() != Some(pack_id.as_str()) {
        return Err(lint_failed(&staged_report)
            .hint("the pack changed while it was being installed; try again"));
    }
    Ok((staged, tree))
}

/// `lint_failed`, carrying the errors.
pub(super) fn lint_failed(report: &LintReport) -> Error {
    let errors: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    let first = errors
        .first()
        .map(|d| format!(": {} [{}] {}", d.file, d.rule, d.message))
        .unwrap_or_default();
    let mut err = Error::new(
        ErrorCode::LintFailed,
        format!(
            "{} fails lint with {}{first}",
            report.path,
            crate::engine::lint::counted(errors.len(), "error")
        ),
    )
    .path(report.path.clone())
    .hint(
        Hint::from("run `")
            .cmd(Fix::Lint {
                path: report.path.clone(),
            })
            .say("` for every finding"),
    );
    if let Some(id) = &report.pack_id {
        err = err.pack(id.clone());
    }
    err.context.diagnostics = Some(errors);
    err
}

/// Refuses a pack whose `requires.hcpx` this runtime does not satisfy.
fn check_runtime_version(pack_id: &str, requirement: Option<&str>) -> Result<()> {
    let Some(requirement) = requirement else {
        return Ok(());
    };
    let (Ok(req), Ok(version)) = (
        semver::VersionReq::parse(requirement),
        semver::Version::parse(RUNTIME_VERSION),
    ) else {
        return Ok(());
    };
    if req.matches(&version) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::LintFailed,
        format!("{pack_id} requires hcpx {requirement}, but this is hcpx {RUNTIME_VERSION}"),
    )
    .pack(pack_id)
    .hint("upgrade hcpx, or install an older version of the pack"))
}

/// Refuses a pack folder that contains the store: copying it would copy the
/// staging folder into itself until paths grow too long.
fn refuse_store_inside(pack: &Path, store: &Path) -> Result<()> {
    let (Ok(pack), Ok(store)) = (pack.canonicalize(), store.canonicalize()) else {
        return Ok(());
    };
    if !store.starts_with(&pack) {
        return Ok(());
    }
    Err(Error::usage(format!(
        "the pack folder {} contains the store {}; hcpx cannot install a folder into itself",
        pack.display(),
        store.display()
    ))
    .path(pack.display().to_string())
    .hint("set HCP_HOME to a folder outside the pack, or move the pack out of the store"))
}

/// Moves a staged pack folder to `packs/<pack_id>` atomically. An existing
/// copy is swapped out in one step (see [`Transaction::exchange`]) and stays
/// at `staged` until the change is over, so a later failure swaps it back.
pub fn place(tx: &mut Transaction<'_>, staged: &Path, pack_id: &PackId) -> Result<()> {
    let target = tx.store().pack_dir(pack_id);
    tx.exchange(staged, &target)?;
    sync_dir(&tx.store().packs_dir());
    Ok(())
}
