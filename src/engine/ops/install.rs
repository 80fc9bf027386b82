//! install (11-lifecycle.md §11.1; HCP.md §11.1): lint first, then copy the
//! pack (without `.git/`) into `<store>/packs/<pack_id>/` atomically: staged
//! under `.tmp/`, linted again as staged, then renamed into place. The same
//! version is a no-op; another version or `--force` replaces it atomically,
//! keeping activation (re-copying the Skill) and dropping `connected` when
//! the Binding changed.
//!
//! Steps that go together (HCP.md §14.7): the pack is staged and linted in
//! the change's scratch folder; a dropped `connected` (Binding changed) is
//! written before the new copy is swapped in, so no moment has a changed
//! Binding marked connected; then the swap, then the Skill re-copy. A failure
//! at any step swaps the old copy back, restores the old Skill copy and the
//! old state.

use super::{Engine, RUNTIME_VERSION, not_found};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::lint::files::is_root_git_dir;
use crate::engine::lint::{LintOptions, LintReport, lint_pack};
use crate::engine::pack::grammar;
use crate::engine::policy::grants::PACK_INSTALL;
use crate::engine::store::catalog;
use crate::engine::store::snapshot::BOOTSTRAP_ID;
use crate::engine::store::{Transaction, step, sync_dir};
use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};

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
    /// Installs a pack from a directory or, when `source` is not a path, a
    /// catalog pack by id.
    pub fn install(&self, source: &str, force: bool) -> Result<InstallOutcome> {
        let dir = self.resolve_source(source)?;
        let report = lint_pack(&dir, LintOptions::default());
        let manifest = match (&report.manifest, report.ok) {
            (Some(m), true) => m.clone(),
            _ => return Err(lint_failed(&report)),
        };
        check_runtime_version(&manifest.id, manifest.requires.hcpx.as_deref())?;
        let pack_id = manifest.id.clone();

        let mut tx = self.store().lock()?;
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
        let activated = tx.state.is_activated(&pack_id);
        let outcome = |action, disconnected| InstallOutcome {
            pack_id: pack_id.clone(),
            version: manifest.version.clone(),
            action,
            previous_version: previous_version.clone(),
            path: target.display().to_string(),
            activated,
            disconnected,
        };
        let same_version = previous_version.as_deref() == Some(manifest.version.as_str());
        let previous_ok = previous.as_ref().is_some_and(|r| r.ok);
        if same_version && previous_ok && !force {
            return Ok(outcome(InstallAction::Unchanged, false));
        }

        let staged = tx.scratch_path("pack")?;
        copy_pack(&dir, &staged)?;
        let staged_report = lint_pack(&staged, LintOptions::default());
        if !staged_report.ok || staged_report.pack_id.as_deref() != Some(&pack_id) {
            return Err(lint_failed(&staged_report)
                .hint("the pack changed while it was being installed; try again"));
        }

        let binding_kept = previous
            .and_then(|r| r.manifest)
            .is_some_and(|old| old.binding == manifest.binding);
        let disconnected = !binding_kept && tx.state.disconnect(&pack_id);
        tx.save()?;
        step("install.after_state")?;
        place(&mut tx, &staged, &pack_id)?;
        step("install.after_swap")?;
        if activated {
            super::activate::copy_skill(&mut tx, &pack_id)?;
        }
        step("install.after_skill")?;
        tx.commit()?;
        let action = match (&previous_version, same_version) {
            (None, _) => InstallAction::Installed,
            (Some(_), true) => InstallAction::Reinstalled,
            (Some(_), false) => InstallAction::Upgraded,
        };
        Ok(outcome(action, disconnected))
    }

    fn resolve_source(&self, source: &str) -> Result<PathBuf> {
        let path = Path::new(source);
        if path.symlink_metadata().is_ok() {
            return Ok(path.to_path_buf());
        }
        if source.contains('/') {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("no such pack directory: {source}"),
            )
            .path(source));
        }
        if !grammar::is_pack_id(source) {
            return Err(not_found(source));
        }
        if source == BOOTSTRAP_ID {
            return Err(Error::new(
                ErrorCode::BootstrapProtected,
                "hcp-cli is built into hcpx and installed on first use",
            )
            .pack(source));
        }
        let packs = self.catalog_packs();
        match catalog::find(&packs, source) {
            Some(pack) => Ok(pack.dir.clone()),
            None if self.catalogs().is_empty() => Err(not_found(source).hint(
                "no catalogs are configured: pass --catalog DIR, or add catalogs: to config.yaml",
            )),
            None => Err(not_found(source)),
        }
    }
}

/// `lint_failed`, carrying the errors.
fn lint_failed(report: &LintReport) -> Error {
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
            "{} fails lint with {} error(s){first}",
            report.path,
            errors.len()
        ),
    )
    .path(report.path.clone())
    .hint(format!("run `hcpx lint {}` for every finding", report.path));
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

/// Copies a pack's files (no links, no `.git/`), keeping permissions, and
/// flushes them to disk.
pub fn copy_pack(from: &Path, to: &Path) -> Result<()> {
    let walk = walkdir::WalkDir::new(from)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| !is_root_git_dir(e));
    for entry in walk {
        let entry = entry.map_err(|err| {
            Error::new(
                ErrorCode::Io,
                format!("cannot read {}: {err}", from.display()),
            )
        })?;
        let rel = entry.path().strip_prefix(from).unwrap_or(entry.path());
        let dest = to.join(rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            fs::create_dir_all(&dest).map_err(|err| Error::io("cannot create", &dest, &err))?;
        } else if kind.is_file() {
            fs::copy(entry.path(), &dest)
                .map_err(|err| Error::io("cannot copy to", &dest, &err))?;
            if let Ok(f) = fs::File::open(&dest) {
                let _ = f.sync_all();
            }
        }
        // Links and special files fail lint and never reach here.
    }
    sync_dir(to);
    Ok(())
}

/// Moves a staged pack folder to `packs/<pack_id>` atomically. An existing
/// copy is swapped out in one step (see [`Transaction::exchange`]) and stays
/// at `staged` until the change is over, so a later failure swaps it back.
pub fn place(tx: &mut Transaction<'_>, staged: &Path, pack_id: &str) -> Result<()> {
    let target = tx.store().pack_dir(pack_id);
    tx.exchange(staged, &target)?;
    sync_dir(&tx.store().packs_dir());
    Ok(())
}
