//! Installing several pack folders as one change (HCP.md §13.8 and §15.3:
//! `sync`; §14.7). Each pack is first staged ([`Engine::stage_pack`]):
//! linted at its source, copied into the change's scratch folder under
//! `.tmp/` without a flush, linted again as staged and read (manifest,
//! files, digest), so the caller checks exactly the tree that is then
//! swapped in. Once every pack is staged and checked,
//! [`Engine::install_staged`] flushes the copies together (one `syncfs` of
//! the store's file system instead of one per pack), writes the state once
//! (a changed Binding drops `connected`, before any copy is swapped in),
//! the lock once (in a project, `hcp.lock`), swaps each copy into
//! `packs/<pack_id>/`, and re-copies the Skills of activated packs, whose
//! harness copies are brought in step once for all. A pack the caller
//! activates in the same change (a project's sync) has its Skill copy
//! written from its staged copy before the flush, and is recorded as
//! activated once it is swapped in.
//!
//! A failure at any step undoes the whole change (the transaction's undo
//! log): nothing of it is installed. A crash between the lock and the last
//! swap leaves lock entries ahead of the installed copies, which `verify`
//! and `doctor` name (as a crash in a single install's same window does);
//! after the swaps, an outdated Skill copy that `doctor --fix` re-copies.
//!
//! `install SOURCE` of several packs batches the same way with the checks
//! of a single install (`Engine::prepare_install`, then
//! `Engine::finish_installs` in `ops::install`), falling back to one pack
//! at a time when the batch fails, so one failing leaves the others done
//! (§13.1); `sync` is all-or-nothing and installs through this module.

use super::Engine;
use super::activate::{copy_skill, write_skill};
use super::content::Content;
use super::install::{InstallAction, InstallOutcome, installable, lint_failed, lint_options};
use crate::engine::error::{Error, Result};
use crate::engine::lint::{LintOptions, lint_pack};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::Manifest;
use crate::engine::policy::grants::PACK_INSTALL;
use crate::engine::store::copy::{CopyOptions, copy_tree_digested, move_tree};
use crate::engine::store::lockfile::{LockEntry, LockedSource};
use crate::engine::store::{Transaction, step, sync_dir};
use std::path::{Path, PathBuf};

/// A pack staged in a change's scratch folder, not installed yet.
pub(super) struct Staged {
    pub pack_id: PackId,
    pub manifest: Manifest,
    /// The staged copy as read: its digest is what the lock records.
    pub content: Content,
    /// Where the copy is staged.
    path: PathBuf,
    /// Its source, as the lock records it.
    recorded: LockedSource,
}

impl Engine {
    /// Stages the pack folder `dir` as a step of `tx` (see the module doc):
    /// lint at the source (`lint_failed`), a copy into the scratch folder
    /// left for the change's one flush, lint of the copy (the pack must not
    /// have changed between the two), and the copy read. With `take`, `dir`
    /// is a folder of a private checkout hcpx wrote itself, used once: it
    /// is moved rather than copied where one rename can (the same file
    /// system), so its files are neither written twice nor deleted after.
    pub(super) fn stage_pack(
        &self,
        tx: &mut Transaction<'_>,
        dir: &Path,
        recorded: LockedSource,
        take: bool,
    ) -> Result<Staged> {
        let (_, pack_id) = installable(dir, self.store().root(), lint_options(&recorded))?;
        let path = tx.scratch_path("pack")?;
        // A copy's tree comes from the bytes it wrote; a moved folder is
        // read for it below.
        let copied = match take && move_tree(dir, &path)? {
            true => None,
            false => Some(copy_tree_digested(dir, &path, CopyOptions::default())?),
        };
        tx.wrote_unflushed();
        // The staged folder's name is ours, not the pack's.
        let lint = LintOptions {
            folder_name_free: true,
            ..LintOptions::default()
        };
        let report = lint_pack(&path, lint);
        let manifest = match (&report.manifest, report.ok) {
            (Some(m), true) if m.id == pack_id.as_str() => m.clone(),
            _ => {
                return Err(lint_failed(&report)
                    .hint("the pack changed while it was being installed; try again"));
            }
        };
        let content = Content::with_manifest(&path, Some(manifest.clone()), copied)?;
        Ok(Staged {
            pack_id,
            manifest,
            content,
            path,
            recorded,
        })
    }

    /// Installs the packs `staged` (each replacing an installed copy) as
    /// steps of `tx`: one flush, the state, the lock, the swaps, the Skill
    /// copies and the harness targets (see the module doc). Returns each
    /// pack's outcome, in order.
    ///
    /// The packs `activate` names that are not activated yet are activated
    /// in the same change (a project's `hcp.yaml`, §15.3): their Skill
    /// copies are written from the staged copies before the one flush, so
    /// they are flushed with them, and the state records the activation
    /// once the packs are swapped in.
    pub(super) fn install_staged(
        &self,
        tx: &mut Transaction<'_>,
        staged: &[Staged],
        activate: &dyn Fn(&PackId) -> bool,
    ) -> Result<Vec<InstallOutcome>> {
        if staged.is_empty() {
            return Ok(Vec::new());
        }
        for pack in staged {
            self.require_grant(&tx.state, PACK_INSTALL, &pack.pack_id)?;
        }
        let activating: Vec<&Staged> = staged
            .iter()
            .filter(|pack| !tx.state.is_activated(&pack.pack_id) && activate(&pack.pack_id))
            .collect();
        for pack in &activating {
            let skill = pack.path.join("SKILL.md");
            let bytes =
                std::fs::read(&skill).map_err(|err| Error::io("cannot read", &skill, &err))?;
            write_skill(tx, &pack.pack_id, &bytes)?;
        }
        tx.flush()?;
        let mut outcomes: Vec<InstallOutcome> = staged
            .iter()
            .map(|pack| self.staged_outcome(tx, pack))
            .collect();
        tx.save()?;
        step("sync.after_state")?;
        let locked = staged
            .iter()
            .map(|pack| {
                let entry = LockEntry {
                    digest: pack.content.digest().to_string(),
                    source: pack.recorded.clone(),
                    version: pack.manifest.version.clone(),
                };
                (pack.pack_id.clone(), Some(entry))
            })
            .collect();
        tx.record_locks(locked)?;
        for pack in staged {
            tx.exchange(&pack.path, &self.store().pack_dir(&pack.pack_id))?;
        }
        sync_dir(&self.store().packs_dir());
        step("sync.after_swap")?;
        self.activate_swapped(tx, staged, &activating, &mut outcomes)?;
        step("sync.after_skill")?;
        Ok(outcomes)
    }

    /// Once `staged` is swapped in: the Skill copies of its packs activated
    /// before (another version's), the packs of `activating` recorded as
    /// activated, and the harness targets brought in step for all of them
    /// (another version's Skill replaces the placed copies, §12.6).
    fn activate_swapped(
        &self,
        tx: &mut Transaction<'_>,
        staged: &[Staged],
        activating: &[&Staged],
        outcomes: &mut [InstallOutcome],
    ) -> Result<()> {
        for pack in staged {
            if tx.state.is_activated(&pack.pack_id) {
                copy_skill(tx, &pack.pack_id)?;
            }
        }
        for pack in activating {
            tx.state.activate(&pack.pack_id);
        }
        let activated: Vec<PackId> = staged
            .iter()
            .map(|pack| pack.pack_id.clone())
            .filter(|id| tx.state.is_activated(id))
            .collect();
        let lines = self.harness_steps(tx, &activated)?;
        for (id, lines) in activated.iter().zip(lines) {
            if let Some(outcome) = outcomes.iter_mut().find(|o| o.pack_id == id.as_str()) {
                outcome.activated = true;
                outcome.harnesses = lines;
            }
        }
        Ok(())
    }

    /// What installing `pack` does, told before anything is swapped in;
    /// drops `connected` from `tx`'s state when the Binding changes.
    fn staged_outcome(&self, tx: &mut Transaction<'_>, pack: &Staged) -> InstallOutcome {
        let pack_id = &pack.pack_id;
        let target = self.store().pack_dir(pack_id);
        let previous = self
            .store()
            .is_installed(pack_id)
            .then(|| lint_pack(&target, LintOptions::default()).manifest)
            .flatten();
        let binding_kept = previous
            .as_ref()
            .is_some_and(|old| old.binding == pack.manifest.binding);
        let disconnected = !binding_kept && tx.state.disconnect(pack_id);
        let previous_version = previous.map(|m| m.version);
        let action = match &previous_version {
            None => InstallAction::Installed,
            Some(old) if *old == pack.manifest.version => InstallAction::Reinstalled,
            Some(_) => InstallAction::Upgraded,
        };
        InstallOutcome {
            pack_id: pack_id.to_string(),
            version: pack.manifest.version.clone(),
            action,
            previous_version,
            path: target.display().to_string(),
            activated: tx.state.is_activated(pack_id),
            disconnected,
            harnesses: Vec::new(),
            source: pack.recorded.clone(),
            // sync reports its diffs in its own results (§13.8).
            changes: None,
            warnings: Vec::new(),
        }
    }
}
