//! What the TUI changes for the rest of its session, over what it was
//! started with: the principal it acts for (HCP.md §9.1, switched with
//! `P` or `:principal NAME`), the `env` Binding values typed in a masked
//! input (§8.3, `e`), and the catalogs `config.yaml` lists now (§13.2:
//! another process, or `:catalog add`, may change them). The runner
//! gives each job an engine set up from it ([`Session::apply`]); each
//! change bumps [`Session::generation`] so the engine is made again.
//!
//! Also what the principal may do beyond a command's availability
//! ([`Powers`], read with each snapshot, kept in the app's `Config`): change grants (`*`, §9.4) and
//! install (`pack.install` unscoped, §9.2), so the TUI never offers a fix
//! the principal would be refused.

use crate::engine::ops::{Engine, EnvOverrides};
use crate::engine::policy::grants::{self, GrantsFrom, InForce, Principal};
use std::path::PathBuf;

/// The session's changes; see the module docs.
#[derive(Debug, Default)]
pub struct Session {
    principal: Option<Principal>,
    env: EnvOverrides,
    catalogs: Option<Vec<PathBuf>>,
    generation: u64,
}

impl Session {
    /// Counts the changes: the runner makes its engine again when it moves.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn set_principal(&mut self, principal: Principal) {
        self.principal = Some(principal);
        self.generation += 1;
    }

    /// Sets `name` for `pack_id`'s `env` Binding, for this session only.
    pub fn set_env(&mut self, pack_id: &str, name: &str, value: &str) {
        self.env.set(pack_id, name, value);
        self.generation += 1;
    }

    pub fn env(&self) -> &EnvOverrides {
        &self.env
    }

    /// The catalogs read with the last snapshot; returns whether they
    /// changed.
    pub fn set_catalogs(&mut self, catalogs: Vec<PathBuf>) -> bool {
        if self.catalogs.as_ref() == Some(&catalogs) {
            return false;
        }
        self.catalogs = Some(catalogs);
        self.generation += 1;
        true
    }

    /// Sets `engine` up for the session (a copy of the one it started with).
    pub fn apply(&self, engine: &mut Engine) {
        if let Some(principal) = &self.principal {
            engine.set_principal(principal.clone());
        }
        engine.set_env_overrides(self.env.clone());
        if let Some(catalogs) = &self.catalogs {
            engine.set_catalogs(catalogs.clone());
        }
    }
}

/// What a principal may do that no command's availability says, and where
/// its grants come from (§9.3: the TUI shows it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Powers {
    /// Holds the unscoped `*`: may grant and revoke.
    pub admin: bool,
    /// Holds `pack.install` unscoped: may install, uninstall, upgrade.
    pub install: bool,
    /// Where the grants of the store that installs go to were read.
    pub from: GrantsFrom,
}

impl Default for Powers {
    /// `user`'s under the defaults, until the first snapshot says.
    fn default() -> Powers {
        Powers {
            admin: true,
            install: true,
            from: GrantsFrom::Default,
        }
    }
}

impl Powers {
    /// `principal`'s powers under the grants in force (§9.2–§9.4).
    pub fn of(in_force: &InForce, principal: &str) -> Powers {
        Powers {
            admin: grants::require_admin(in_force, principal).is_ok(),
            install: in_force.holds_unscoped(principal, grants::PACK_INSTALL),
            from: in_force.from(),
        }
    }

    /// `agent: read commands only (default grants)`, in a few words: what
    /// `principal` may do, and where its grants come from.
    pub fn words(&self, principal: &str) -> String {
        crate::command::text::grant::summary(principal, self.from, self.admin)
    }

    /// Where the grants come from, for the status line.
    pub fn source(&self, principal: &str) -> &'static str {
        crate::command::text::grant::short_source(principal, self.from)
    }
}
