//! activate and deactivate (11-lifecycle.md §11.1; HCP.md §5.4): activation
//! records the pack for the session and copies its `SKILL.md` byte for byte
//! to `<store>/skills/<pack_id>/SKILL.md`; deactivation removes the copy and
//! drops both activation and connection (§11.1 rule 4).
//!
//! Steps that go together (HCP.md §14.7): activation writes the Skill copy
//! first and records the activation last; deactivation moves the copy aside
//! first, records the state, and only then deletes the copy. A step that
//! fails undoes the ones before it (the transaction's undo log), so no Skill
//! copy outlives a failed activation and no activation outlives a missing
//! copy. A crash between two steps leaves an inconsistency `doctor` names.
//! The Skill copies are not flushed (only the state is): a power loss may
//! leave one short, which `doctor` names and `doctor --fix` re-copies.
//!
//! Harness targets (§12.6) are kept in step once per call, after every
//! pack's own steps, so activating many packs at once stays linear; when a
//! target cannot be written, the call is redone pack by pack so the packs
//! before the failing one stay done. [`Engine::activate_each`] (`add`,
//! HCP.md §15.3) does the same for a whole collection but goes on past a
//! pack that fails, each pack undone alone.

use super::{Engine, not_installed};
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::harness::HarnessLine;
use crate::engine::lint::LintReport;
use crate::engine::pack::grammar;
use crate::engine::pack::id::PackId;
use crate::engine::store::parallel::parallel_map;
use crate::engine::store::snapshot::lint_installed;
use crate::engine::store::{Transaction, step};
use serde::Serialize;
use std::collections::HashMap;
use std::fs;

/// The result for one pack of activate / deactivate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Toggle {
    pub pack_id: String,
    /// False when the pack was already in the requested state.
    pub changed: bool,
    /// Where the pack's Skill stands in each enabled harness target (§12.8).
    pub harnesses: Vec<HarnessLine>,
}

impl Engine {
    /// Activates each pack; stops at the first that cannot be (the ones
    /// before it stay activated) and returns what was done so far with the
    /// error.
    pub fn activate(&self, pack_ids: &[PackId]) -> (Vec<Toggle>, Option<Error>) {
        // Every pack linted on every core, once the change holds the lock
        // (its first pack's turn), rather than one by one in its turn.
        let linted = std::cell::OnceCell::new();
        self.toggle(pack_ids, |engine, tx, id| {
            let reports = linted.get_or_init(|| engine.lint_installed_all(pack_ids));
            engine.activate_one(tx, id, reports.get(id))
        })
    }

    /// Activates every pack of `pack_ids` as its own step of one change,
    /// going on past a pack that cannot be (its steps undone alone, the
    /// others stay): `add` of a whole collection (§15.3). Every pack is
    /// linted on every core, the targets are read, planned and written once
    /// for all of them (§12.6), and the state (in a project, `hcp.yaml`) is
    /// written once — not once per pack, which made the targets' reads grow
    /// with the square of the packs. When the targets cannot be brought in
    /// step, the change is redone with each pack keeping them in step
    /// itself, so only the pack that fails is undone. Each pack's result,
    /// in order; the error is the change's own (the lock, the commit).
    pub fn activate_each(&self, pack_ids: &[PackId]) -> Result<Vec<Result<Toggle>>> {
        let mut tx = self.store().lock()?;
        tx.leave_skills_unflushed();
        let reports = self.lint_installed_all(pack_ids);
        let one = |engine: &Engine, tx: &mut Transaction<'_>, id: &PackId| {
            engine.activate_one(tx, id, reports.get(id))
        };
        let start = tx.mark();
        let mut results: Vec<Result<Toggle>> = pack_ids
            .iter()
            .map(|id| self.toggle_step(&mut tx, id, &one, false))
            .collect();
        let done: Vec<PackId> = pack_ids
            .iter()
            .zip(&results)
            .filter(|(_, result)| result.is_ok())
            .map(|(id, _)| id.clone())
            .collect();
        match self.harness_steps(&mut tx, &done) {
            Ok(lines) => {
                for (toggle, lines) in results.iter_mut().flatten().zip(lines) {
                    toggle.harnesses = lines;
                }
            }
            Err(_) => {
                tx.rollback_to(start);
                results = pack_ids
                    .iter()
                    .map(|id| self.toggle_step(&mut tx, id, &one, true))
                    .collect();
            }
        }
        tx.commit()?;
        Ok(results)
    }

    /// The lint report of each installed pack of `pack_ids`, read on every
    /// core.
    fn lint_installed_all(&self, pack_ids: &[PackId]) -> HashMap<PackId, LintReport> {
        let installed: Vec<PackId> = pack_ids
            .iter()
            .filter(|id| self.store().is_installed(id))
            .cloned()
            .collect();
        parallel_map(installed, |id| {
            let report = lint_installed(self.store(), &id);
            (id, report)
        })
        .into_iter()
        .collect()
    }

    /// Deactivates each pack (no precondition besides being known).
    pub fn deactivate(&self, pack_ids: &[PackId]) -> (Vec<Toggle>, Option<Error>) {
        self.toggle(pack_ids, |engine, tx, id| engine.deactivate_one(tx, id))
    }

    /// Runs `one` for each pack, each its own step of one change, then
    /// keeps the harness targets in step once for all of them (reading and
    /// planning every target once, not once per pack: activating many packs
    /// stays linear). When the targets cannot be brought in step, the change
    /// is redone pack by pack, so the packs before the one that fails stay
    /// done, as without targets.
    fn toggle(
        &self,
        pack_ids: &[PackId],
        one: impl Fn(&Engine, &mut Transaction<'_>, &PackId) -> Result<bool>,
    ) -> (Vec<Toggle>, Option<Error>) {
        let mut tx = match self.store().lock() {
            Ok(tx) => tx,
            Err(err) => return (Vec::new(), Some(err)),
        };
        // The Skill copies are renamed into place unflushed (derived from
        // the packs: after a power loss `doctor --fix` re-copies one left
        // short): only the state waits on the disk.
        tx.leave_skills_unflushed();
        let start = tx.mark();
        let (mut done, mut failure) = self.toggle_each(&mut tx, pack_ids, &one, false);
        // `done` is the packs before the one that failed, in order.
        let ids = &pack_ids[..done.len()];
        match self.harness_steps(&mut tx, ids) {
            Ok(lines) => {
                for (toggle, lines) in done.iter_mut().zip(lines) {
                    toggle.harnesses = lines;
                }
            }
            Err(_) => {
                tx.rollback_to(start);
                (done, failure) = self.toggle_each(&mut tx, pack_ids, &one, true);
            }
        }
        if let Err(err) = tx.commit() {
            return (Vec::new(), Some(err));
        }
        (done, failure)
    }

    /// The packs of [`Engine::toggle`] one by one, stopping at the first
    /// that fails (its steps undone); with `harness`, each pack's change
    /// also keeps the targets in step.
    fn toggle_each(
        &self,
        tx: &mut Transaction<'_>,
        pack_ids: &[PackId],
        one: &impl Fn(&Engine, &mut Transaction<'_>, &PackId) -> Result<bool>,
        harness: bool,
    ) -> (Vec<Toggle>, Option<Error>) {
        let mut done = Vec::new();
        for id in pack_ids {
            match self.toggle_step(tx, id, one, harness) {
                Ok(toggle) => done.push(toggle),
                Err(err) => return (done, Some(err)),
            }
        }
        (done, None)
    }

    /// One pack's steps of a toggle (with `harness`, the targets kept in
    /// step too); when they fail, they are undone and the steps before
    /// them stay.
    fn toggle_step(
        &self,
        tx: &mut Transaction<'_>,
        id: &PackId,
        one: &impl Fn(&Engine, &mut Transaction<'_>, &PackId) -> Result<bool>,
        harness: bool,
    ) -> Result<Toggle> {
        let mark = tx.mark();
        let result = one(self, tx, id).and_then(|changed| {
            let lines = if harness {
                self.harness_step(tx, id)?
            } else {
                Vec::new()
            };
            Ok((changed, lines))
        });
        match result {
            Ok((changed, harnesses)) => Ok(Toggle {
                pack_id: id.to_string(),
                changed,
                harnesses,
            }),
            Err(err) => {
                // Undo this pack's steps; the ones before it stay.
                tx.rollback_to(mark);
                Err(err)
            }
        }
    }

    /// Activates one pack as a step of `tx`; `linted` is its lint report
    /// if it was read already in this change.
    pub(super) fn activate_one(
        &self,
        tx: &mut Transaction<'_>,
        id: &PackId,
        linted: Option<&LintReport>,
    ) -> Result<bool> {
        let pack_id = id.as_str();
        if !self.store().is_installed(id) {
            return Err(self.unknown_or_not_installed(pack_id));
        }
        let report = match linted {
            Some(report) => report.clone(),
            None => lint_installed(self.store(), id),
        };
        if !report.ok {
            return Err(Error::new(
                ErrorCode::LintFailed,
                format!("the installed copy of `{pack_id}` fails lint, so it cannot be activated"),
            )
            .pack(pack_id)
            .hint(
                Hint::from("run `")
                    .cmd(Fix::Lint {
                        path: report.path.clone(),
                    })
                    .say("`, then reinstall the pack with `")
                    .cmd(Fix::Install {
                        pack: "DIR".into(),
                        force: true,
                    })
                    .say("`"),
            ));
        }
        copy_skill(tx, id)?;
        step("activate.after_copy")?;
        Ok(tx.state.activate(id))
    }

    pub(super) fn deactivate_one(&self, tx: &mut Transaction<'_>, id: &PackId) -> Result<bool> {
        let known =
            tx.state.is_activated(id) || tx.state.is_connected(id) || self.store().is_installed(id);
        if !known {
            return Err(self.unknown_or_not_installed(id));
        }
        remove_skill(tx, id)?;
        step("deactivate.after_skill")?;
        Ok(tx.state.deactivate(id))
    }

    /// `not_installed` for a catalog pack, else `not_found`.
    pub(super) fn unknown_or_not_installed(&self, pack_id: &str) -> Error {
        let in_catalog = grammar::is_pack_id(pack_id)
            && crate::engine::store::catalog::find(&self.catalog_packs(), pack_id).is_some();
        if in_catalog {
            not_installed(pack_id)
        } else {
            self.not_found(pack_id)
        }
    }
}

/// Copies the installed pack's `SKILL.md` into `skills/<pack_id>/` (§5.4),
/// recording how to undo it.
pub fn copy_skill(tx: &mut Transaction<'_>, pack_id: &PackId) -> Result<()> {
    let from = tx.store().pack_dir(pack_id).join("SKILL.md");
    let bytes = fs::read(&from).map_err(|err| Error::io("cannot read", &from, &err))?;
    write_skill(tx, pack_id, &bytes)
}

/// Writes `bytes` as the Skill copy of `pack_id`, recording how to undo it.
pub fn write_skill(tx: &mut Transaction<'_>, pack_id: &PackId, bytes: &[u8]) -> Result<()> {
    let to = tx.store().skill_path(pack_id);
    if let Some(dir) = to.parent() {
        tx.create_dir(dir)?;
    }
    step("skill.write")?;
    tx.replace_file(&to, bytes, 0o644)
}

/// Removes `skills/<pack_id>/` (§5.4): moved aside now (undone if the
/// change fails), deleted when the change is over.
pub fn remove_skill(tx: &mut Transaction<'_>, pack_id: &PackId) -> Result<()> {
    let dir = tx.store().skill_dir(pack_id);
    tx.move_aside(&dir).map(|_| ())
}
