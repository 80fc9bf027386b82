//! uninstall (11-lifecycle.md §11.1 rule 5; HCP.md §8.4, §11.4): removes the
//! pack, its Skill copy and its secret, and forgets its state. The bootstrap
//! pack is refused (`bootstrap_protected`).

use super::Engine;
use super::activate::remove_skill;
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::id::PackId;
use crate::engine::policy::grants::PACK_INSTALL;
use crate::engine::store::snapshot::BOOTSTRAP_ID;
use serde::Serialize;
use std::fs;

/// The result of an uninstall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UninstallOutcome {
    pub pack_id: String,
    pub removed_secret: bool,
}

impl Engine {
    pub fn uninstall(&self, pack_id: &str) -> Result<UninstallOutcome> {
        if pack_id == BOOTSTRAP_ID {
            return Err(Error::new(
                ErrorCode::BootstrapProtected,
                "hcp-cli is the runtime's bootstrap pack and cannot be uninstalled",
            )
            .pack(pack_id)
            .hint("deactivate it instead: hcpx deactivate hcp-cli"));
        }
        let mut tx = self.store().lock()?;
        let Some(id) = PackId::parse(pack_id).filter(|id| self.store().is_installed(id)) else {
            return Err(self.unknown_or_not_installed(pack_id));
        };
        self.require_grant(&tx.state, PACK_INSTALL, pack_id)?;
        // Move the folder out of packs/ in one step, then delete it.
        let dir = self.store().pack_dir(&id);
        let staging = tx.staging_dir()?;
        let aside = staging.path().join("removed");
        fs::rename(&dir, &aside).map_err(|err| Error::io("cannot remove", &dir, &err))?;
        remove_skill(&tx, &id)?;
        let secret = self.store().secret_path(&id);
        let removed_secret = match fs::remove_file(&secret) {
            Ok(()) => true,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => false,
            Err(err) => return Err(Error::io("cannot remove", &secret, &err)),
        };
        tx.state.forget(&id);
        tx.commit()?;
        drop(staging);
        Ok(UninstallOutcome {
            pack_id: pack_id.to_string(),
            removed_secret,
        })
    }
}
