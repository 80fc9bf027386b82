//! What every subcommand shares: the output mode and the stores it works on
//! (a `command::workspace::Workspace`: the project, the principal, the
//! catalogs, HCP.md §15.1–§15.2), each [`Engine`] recorded in the output
//! as the store acted on; and printing its
//! answer: a success document or text, per-pack results that may end in
//! an error (`upgrade`, `sync`), an error with its exit code (HCP.md §10).

use crate::cli::GlobalArgs;
use crate::cli::fix::FixFlags;
use crate::cli::output::{Output, ScopeTag};
use crate::command::workspace::Workspace;
use crate::engine::error::{Error, Result};
use crate::engine::ops::Engine;
use crate::engine::project::{Project, Scope};
use crate::engine::store::LockObserver;
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;

pub use crate::command::workspace::LOCK_TIMEOUT_VAR;

/// One invocation's settings: the output mode, and the stores it works on
/// (a [`Workspace`], the command layer's).
#[derive(Debug, Clone)]
pub struct Ctx {
    pub out: Output,
    pub global: GlobalArgs,
    /// The project (HCP.md §15.1), whether its store may be used (§15.2),
    /// and the stores, opened on first use.
    ws: Workspace,
}

/// A success document: `{"ok": true, ...fields}` (the engine's, which the
/// builtin operations write too).
pub use crate::engine::ops::docs::Success;

impl Ctx {
    pub fn new(global: GlobalArgs) -> Self {
        let ws = Workspace::open(&global, Arc::new(say_waiting));
        let mut out = Output::new(global.json);
        out.flags = ws.fix_flags().clone();
        for warning in ws.warnings() {
            out.warn(warning);
        }
        Ctx { out, global, ws }
    }

    /// The stores this run works on.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// Why the project's store may not be used, if it may not (§15.2).
    pub fn store_refused(&self) -> Option<&Error> {
        self.ws.refused()
    }

    /// This context once the project's store is ours (adopted, §15.2).
    pub fn without_refusal(&self) -> Ctx {
        Ctx {
            ws: self.ws.without_refusal(),
            ..self.clone()
        }
    }

    /// Says, once, that the project's store is not used and why: a report
    /// goes on with the user store (§15.2).
    pub fn warn_store_refused(&self) {
        if let Some(err) = self.ws.refused() {
            self.out
                .warn(&format!("{} (showing the user store only)", err.message));
        }
    }

    /// The project this run acts in, if any (§15.1).
    pub fn project(&self) -> Result<Option<&Project>> {
        self.ws.project()
    }

    /// The user store's folder (`$HCP_HOME`, else `~/.hcp`).
    pub fn user_home(&self) -> Result<std::path::PathBuf> {
        self.ws.user_home()
    }

    /// Opens the user store, whatever the scope (the bootstrap pack,
    /// catalogs, `-g`).
    pub fn user_engine(&self) -> Result<Engine> {
        self.ws.user().map(|e| self.tagged(e.clone()))
    }

    /// [`Ctx::user_engine`] with `on_wait` told when a writer waits for
    /// the store lock.
    pub fn user_engine_waiting(&self, on_wait: LockObserver) -> Result<Engine> {
        self.ws
            .waiting(on_wait)
            .user()
            .map(|e| self.tagged(e.clone()))
    }

    /// The engine of the store that holds `pack_id` (§15.1, see
    /// [`Workspace::holder`]).
    pub fn engine_holding(&self, pack_id: &str) -> Result<Engine> {
        self.ws
            .holder_of(pack_id)
            .map(|(e, _)| self.tagged(e.clone()))
    }

    /// The flags a fix of a command run on `engine` repeats: `-g` too when
    /// it acts on the user store inside a project (§15.1).
    pub fn flags_for(&self, engine: &Engine) -> FixFlags {
        self.ws.flags_for(engine)
    }

    /// `--principal`, else `$HCP_PRINCIPAL`, else `user` (§9.1).
    pub fn principal(&self) -> String {
        self.ws.principal()
    }

    /// Opens the scope's store (the project's inside one); a writer that
    /// has to wait for the store lock says so on stderr.
    pub fn engine(&self) -> Result<Engine> {
        self.ws.scoped().map(|e| self.tagged(e.clone()))
    }

    /// [`Ctx::engine`] with `on_wait` told when a writer waits for the
    /// store lock (the TUI and `hcpx mcp` own stdout, so they say it
    /// elsewhere).
    pub fn engine_waiting(&self, on_wait: LockObserver) -> Result<Engine> {
        self.ws
            .waiting(on_wait)
            .scoped()
            .map(|e| self.tagged(e.clone()))
    }

    /// [`Ctx::engine`] for `doctor`: opens a store whose `config.yaml` or
    /// bootstrap pack is broken, so that doctor can report it.
    pub fn engine_for_doctor(&self) -> Result<Engine> {
        self.ws.for_doctor(false).map(|e| self.tagged(e))
    }

    /// [`Ctx::engine_for_doctor`] of the user store, whatever the scope
    /// (doctor inside a project checks both stores, §15.5).
    pub fn user_engine_for_doctor(&self) -> Result<Engine> {
        self.ws.for_doctor(true).map(|e| self.tagged(e))
    }

    /// `engine`, recorded in the output as the store acted on.
    pub fn tagged(&self, engine: Engine) -> Engine {
        let project = match (engine.scope(), self.ws.project()) {
            (Scope::Project, Ok(Some(project))) => Some(project.root().display().to_string()),
            _ => None,
        };
        self.out.set_scope(ScopeTag {
            scope: engine.scope(),
            project,
        });
        engine
    }

    /// Prints a success document (JSON) or runs `text` to print text.
    pub fn success<T: Serialize>(&self, body: T, text: impl FnOnce(&T)) -> i32 {
        if self.out.json {
            self.out.json(&Success { ok: true, body });
        } else {
            text(&body);
        }
        0
    }

    /// Reports an error; returns the exit code of §10.2.
    pub fn fail(&self, err: &Error) -> i32 {
        self.out.error(err);
        err.code.exit_code()
    }
}

/// Tells the user on stderr that this hcpx waits for another one.
fn say_waiting(lock: &Path) {
    eprintln!(
        "hcpx: waiting for the store lock {} (held by another hcpx)",
        lock.display()
    );
}
