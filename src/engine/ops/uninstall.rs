//! uninstall (11-lifecycle.md §11.1 rule 5; HCP.md §8.4, §11.4): removes the
//! pack, its Skill copy and its secret, and forgets its state. The bootstrap
//! pack is refused (`bootstrap_protected`).
//!
//! Steps that go together (HCP.md §14.7), in an order where every moment is
//! safe: (1) the Skill copy is moved aside (a harness stops loading it);
//! (2) the state forgets the pack and is written; (3) the pack folder and
//! (4) its secret are moved aside; (5) what was moved aside is deleted. A
//! failure undoes what was done; a crash before (2) leaves an activated pack
//! without its copy, after it an installed pack that is not activated, and
//! after (3) a secret without its pack and a lock file entry of a pack that
//! is gone (the entry is dropped last, (6)) — each named by `doctor` and repaired
//! by `doctor --fix` (or by running uninstall again). The state never lists a
//! pack that is gone.

use super::Engine;
use super::activate::remove_skill;
use crate::engine::error::{Error, ErrorCode, Fix, Result};
use crate::engine::pack::id::PackId;
use crate::engine::policy::grants::PACK_INSTALL;
use crate::engine::store::lint_cache::LintCache;
use crate::engine::store::snapshot::BOOTSTRAP_ID;
use crate::engine::store::step;
use serde::Serialize;

/// The result of an uninstall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UninstallOutcome {
    pub pack_id: String,
    pub removed_secret: bool,
    /// What is left of the pack's Skill in the enabled harness targets: an
    /// edited copy released to the user (`modified`), or nothing (§12.7).
    pub harnesses: Vec<crate::engine::harness::HarnessLine>,
}

impl Engine {
    /// The error of an uninstall of `word`, a word that is not a pack id:
    /// as in [`Engine::uninstall`], the lock and the state it reads come
    /// first (a store that cannot be read is the error), then `not_found`
    /// naming the closest known id.
    pub fn uninstall_not_an_id(&self, word: &str) -> Error {
        match self.store().lock() {
            Err(err) => err,
            Ok(_) => self.not_found(word),
        }
    }

    pub fn uninstall(&self, id: &PackId) -> Result<UninstallOutcome> {
        let pack_id = id.as_str();
        if pack_id == BOOTSTRAP_ID {
            return Err(Error::new(
                ErrorCode::BootstrapProtected,
                "hcp-cli is the runtime's bootstrap pack and cannot be uninstalled",
            )
            .pack(pack_id)
            .fix(Fix::Deactivate {
                pack: pack_id.to_string(),
            }));
        }
        let mut tx = self.store().lock()?;
        if !self.store().is_installed(id) {
            return Err(self.unknown_or_not_installed(pack_id));
        }
        self.require_grant(&tx.state, PACK_INSTALL, pack_id)?;
        remove_skill(&mut tx, id)?;
        step("uninstall.after_skill")?;
        tx.state.forget(id);
        // The harness copies go before the state says so: a crash between
        // leaves an activated pack without them (`harness sync` repairs),
        // never a marked copy of a pack that is gone (§14.7).
        let harnesses = self.harness_step(&mut tx, id)?;
        tx.save()?;
        step("uninstall.after_state")?;
        tx.move_aside(&self.store().pack_dir(id))?;
        step("uninstall.after_pack")?;
        let removed_secret = tx.move_aside(&self.store().secret_path(id))?;
        step("uninstall.after_secret")?;
        tx.record_lock(id, None)?;
        tx.commit()?;
        // Its lint report is of a tree that is gone.
        LintCache::open(self.store()).forget(id);
        Ok(UninstallOutcome {
            pack_id: pack_id.to_string(),
            removed_secret,
            harnesses,
        })
    }
}
