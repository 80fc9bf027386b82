//! activate and deactivate (11-lifecycle.md §11.1; HCP.md §5.4): activation
//! records the pack for the session and copies its `SKILL.md` byte for byte
//! to `<store>/skills/<pack_id>/SKILL.md`; deactivation removes the copy and
//! drops both activation and connection (§11.1 rule 4).

use super::{Engine, not_found, not_installed};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::grammar;
use crate::engine::pack::id::PackId;
use crate::engine::store::snapshot::lint_installed;
use crate::engine::store::{Transaction, create_dir};
use serde::Serialize;
use std::fs;

/// The result for one pack of activate / deactivate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Toggle {
    pub pack_id: String,
    /// False when the pack was already in the requested state.
    pub changed: bool,
}

impl Engine {
    /// Activates each pack; stops at the first that cannot be (the ones
    /// before it stay activated) and returns what was done so far with the
    /// error.
    pub fn activate(&self, pack_ids: &[String]) -> (Vec<Toggle>, Option<Error>) {
        self.toggle(pack_ids, |engine, tx, id| engine.activate_one(tx, id))
    }

    /// Deactivates each pack (no precondition besides being known).
    pub fn deactivate(&self, pack_ids: &[String]) -> (Vec<Toggle>, Option<Error>) {
        self.toggle(pack_ids, |engine, tx, id| engine.deactivate_one(tx, id))
    }

    fn toggle(
        &self,
        pack_ids: &[String],
        one: impl Fn(&Engine, &mut Transaction<'_>, &str) -> Result<bool>,
    ) -> (Vec<Toggle>, Option<Error>) {
        let mut tx = match self.store().lock() {
            Ok(tx) => tx,
            Err(err) => return (Vec::new(), Some(err)),
        };
        let mut done = Vec::new();
        let mut failure = None;
        for id in pack_ids {
            match one(self, &mut tx, id) {
                Ok(changed) => done.push(Toggle {
                    pack_id: id.clone(),
                    changed,
                }),
                Err(err) => {
                    failure = Some(err);
                    break;
                }
            }
        }
        if let Err(err) = tx.commit() {
            return (Vec::new(), Some(err));
        }
        (done, failure)
    }

    fn activate_one(&self, tx: &mut Transaction<'_>, pack_id: &str) -> Result<bool> {
        let Some(id) = PackId::parse(pack_id).filter(|id| self.store().is_installed(id)) else {
            return Err(self.unknown_or_not_installed(pack_id));
        };
        let report = lint_installed(self.store(), &id);
        if !report.ok {
            return Err(Error::new(
                ErrorCode::LintFailed,
                format!("the installed copy of `{pack_id}` fails lint, so it cannot be activated"),
            )
            .pack(pack_id)
            .hint(format!(
                "run `hcpx lint {}`, then reinstall the pack with `hcpx install DIR --force`",
                report.path
            )));
        }
        let changed = tx.state.activate(&id);
        copy_skill(tx, &id)?;
        Ok(changed)
    }

    fn deactivate_one(&self, tx: &mut Transaction<'_>, pack_id: &str) -> Result<bool> {
        let Some(id) = PackId::parse(pack_id) else {
            return Err(not_found(pack_id));
        };
        let known = tx.state.is_activated(&id)
            || tx.state.is_connected(&id)
            || self.store().is_installed(&id);
        if !known {
            return Err(self.unknown_or_not_installed(pack_id));
        }
        let changed = tx.state.deactivate(&id);
        remove_skill(tx, &id)?;
        Ok(changed)
    }

    /// `not_installed` for a catalog pack, else `not_found`.
    pub(super) fn unknown_or_not_installed(&self, pack_id: &str) -> Error {
        let in_catalog = grammar::is_pack_id(pack_id)
            && crate::engine::store::catalog::find(&self.catalog_packs(), pack_id).is_some();
        if in_catalog {
            not_installed(pack_id)
        } else {
            not_found(pack_id)
        }
    }
}

/// Copies the installed pack's `SKILL.md` into `skills/<pack_id>/` (§5.4).
pub fn copy_skill(tx: &Transaction<'_>, pack_id: &PackId) -> Result<()> {
    let store = tx.store();
    let from = store.pack_dir(pack_id).join("SKILL.md");
    let bytes = fs::read(&from).map_err(|err| Error::io("cannot read", &from, &err))?;
    create_dir(&store.skill_dir(pack_id))?;
    tx.write_file(&store.skill_path(pack_id), &bytes, 0o644)
}

/// Removes `skills/<pack_id>/` (§5.4).
pub fn remove_skill(tx: &Transaction<'_>, pack_id: &PackId) -> Result<()> {
    let dir = tx.store().skill_dir(pack_id);
    match fs::remove_dir_all(&dir) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(Error::io("cannot remove", &dir, &err)),
    }
}
