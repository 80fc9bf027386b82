//! What every subcommand shares: the output mode, the principal, the store
//! location and the catalogs, turned into an [`Engine`]; and printing its
//! answer: a success document or text, per-pack results that may end in
//! an error (`upgrade`, `sync`), an error with its exit code (HCP.md §10).

use crate::cli::GlobalArgs;
use crate::cli::fix::FixFlags;
use crate::cli::output::{Output, ScopeTag};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::ops::{Engine, EngineOptions, FixLine};
use crate::engine::policy::grants::DEFAULT_PRINCIPAL;
use crate::engine::project::{self, Project};
use crate::engine::store::{self, LockObserver, LockWait};
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// How long a writer waits for the store lock, in milliseconds.
pub const LOCK_TIMEOUT_VAR: &str = "HCPX_LOCK_TIMEOUT_MS";

/// One invocation's settings.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub out: Output,
    pub global: GlobalArgs,
    /// The project this run is in (HCP.md §15.1), found once at the start;
    /// its error (`--project` outside one, a refused `.hcp`) is reported
    /// by the first command that opens a store.
    project: std::result::Result<Option<Project>, Error>,
    /// Why the project's `.hcp/` may not be used, when it may not (it is
    /// not ours, HCP.md §15.2): a command that would change it fails with
    /// this; a report goes on with the user store, saying so.
    refused: Option<Error>,
}

/// A success document: `{"ok": true, ...fields}` (the engine's, which the
/// builtin operations write too).
pub use crate::engine::ops::docs::Success;

impl Ctx {
    pub fn new(global: GlobalArgs) -> Self {
        let mut out = Output::new(global.json);
        out.flags = FixFlags {
            principal: global.principal.clone(),
            catalogs: global
                .catalogs
                .iter()
                .map(|d| d.display().to_string())
                .collect(),
            global: global.global,
        };
        let home = store::default_home();
        let project = match (&home, std::env::current_dir()) {
            (Some(home), Ok(cwd)) => {
                project::resolve(global.scope_flag(), &cwd, home).map(|resolved| {
                    for warning in &resolved.warnings {
                        out.warn(warning);
                    }
                    resolved.project
                })
            }
            _ if global.project => Err(Error::usage(
                "--project: the working directory or the user store cannot be found",
            )),
            _ => Ok(None),
        };
        // A store that is not ours is refused (store_corrupt); any other
        // problem (`.hcp` is the user store) stops the run (§15.2).
        let mut refused = None;
        let project = match (project, &home) {
            (Ok(Some(found)), Some(home)) => match project::ours::check(&found, home) {
                Err(err) if err.code == ErrorCode::StoreCorrupt => {
                    refused = Some(err);
                    Ok(Some(found))
                }
                Err(err) => Err(err),
                Ok(_) => Ok(Some(found)),
            },
            (project, _) => project,
        };
        Ctx {
            out,
            global,
            project,
            refused,
        }
    }

    /// Why the project's store may not be used, if it may not (§15.2).
    pub fn store_refused(&self) -> Option<&Error> {
        self.refused.as_ref()
    }

    /// This context once the project's store is ours (adopted, §15.2).
    pub fn without_refusal(&self) -> Ctx {
        Ctx {
            refused: None,
            ..self.clone()
        }
    }

    /// Says, once, that the project's store is not used and why: a report
    /// goes on with the user store (§15.2).
    pub fn warn_store_refused(&self) {
        if let Some(err) = &self.refused {
            self.out
                .warn(&format!("{} (showing the user store only)", err.message));
        }
    }

    /// The project this run acts in, if any (§15.1).
    pub fn project(&self) -> Result<Option<&Project>> {
        match &self.project {
            Ok(project) => Ok(project.as_ref()),
            Err(err) => Err(err.clone()),
        }
    }

    /// The user store's folder (`$HCP_HOME`, else `~/.hcp`).
    pub fn user_home(&self) -> Result<std::path::PathBuf> {
        store::default_home().ok_or_else(|| {
            Error::new(ErrorCode::Io, "cannot find a home folder for the store")
                .hint("set HCP_HOME to the folder hcpx should use")
        })
    }

    /// Opens the user store, whatever the scope (the bootstrap pack,
    /// catalogs, `-g`).
    pub fn user_engine(&self) -> Result<Engine> {
        self.user_engine_waiting(Arc::new(say_waiting))
    }

    /// [`Ctx::user_engine`] with `on_wait` told when a writer waits for
    /// the store lock.
    pub fn user_engine_waiting(&self, on_wait: LockObserver) -> Result<Engine> {
        let options = EngineOptions {
            lock_wait: self.lock_wait(on_wait)?,
            diagnose: false,
        };
        self.open(None, options)
    }

    /// The engine of the store that holds `pack_id` (§15.1): in a project,
    /// the project's when it has the pack installed, else the user store.
    pub fn engine_holding(&self, pack_id: &str) -> Result<Engine> {
        let options = EngineOptions {
            lock_wait: self.lock_wait(Arc::new(say_waiting))?,
            diagnose: false,
        };
        let Some(project) = self.project()? else {
            return self.open(None, options);
        };
        if let Some(refused) = &self.refused {
            return Err(refused.clone());
        }
        // A link on the way counts as held: the project's store then
        // refuses the change, never the user store takes it (§15.6).
        let held = crate::engine::pack::id::PackId::parse(pack_id).is_some_and(|id| {
            let dir = project.store_dir().join("packs").join(id.as_str());
            dir.is_dir()
                || crate::engine::store::remove::first_unreal(&project.store_dir(), &dir, true)
                    .is_some()
        });
        if held {
            self.open(Some(project), options)
        } else {
            self.open(None, options)
        }
    }

    /// The flags a fix of a command run on `engine` repeats: `-g` too when
    /// it acts on the user store inside a project (§15.1).
    pub fn flags_for(&self, engine: &Engine) -> FixFlags {
        let mut flags = self.out.flags.clone();
        flags.global |= matches!(self.project(), Ok(Some(_)))
            && engine.scope() == crate::engine::project::Scope::User;
        flags
    }

    /// `--principal`, else `$HCP_PRINCIPAL`, else `user` (§9.1).
    pub fn principal(&self) -> String {
        self.global
            .principal
            .clone()
            .or_else(|| {
                std::env::var("HCP_PRINCIPAL")
                    .ok()
                    .filter(|p| !p.is_empty())
            })
            .unwrap_or_else(|| DEFAULT_PRINCIPAL.to_string())
    }

    /// Opens the store (`$HCP_HOME`, else `~/.hcp`); a writer that has to
    /// wait for the store lock says so on stderr.
    pub fn engine(&self) -> Result<Engine> {
        self.engine_waiting(Arc::new(say_waiting))
    }

    /// [`Ctx::engine`] with `on_wait` told when a writer waits for the
    /// store lock (the TUI and `hcpx mcp` own stdout, so they say it
    /// elsewhere).
    pub fn engine_waiting(&self, on_wait: LockObserver) -> Result<Engine> {
        self.engine_with(EngineOptions {
            lock_wait: self.lock_wait(on_wait)?,
            diagnose: false,
        })
    }

    /// [`Ctx::engine`] for `doctor`: opens a store whose `config.yaml` or
    /// bootstrap pack is broken, so that doctor can report it.
    pub fn engine_for_doctor(&self) -> Result<Engine> {
        self.engine_with(EngineOptions {
            lock_wait: self.lock_wait(Arc::new(say_waiting))?,
            diagnose: true,
        })
    }

    /// [`Ctx::engine_for_doctor`] of the user store, whatever the scope
    /// (doctor inside a project checks both stores, §15.5).
    pub fn user_engine_for_doctor(&self) -> Result<Engine> {
        let options = EngineOptions {
            lock_wait: self.lock_wait(Arc::new(say_waiting))?,
            diagnose: true,
        };
        self.open(None, options)
    }

    /// Opens the store with `options`.
    pub fn engine_with(&self, options: EngineOptions) -> Result<Engine> {
        let project = self.project()?;
        if let (Some(_), Some(refused)) = (project, &self.refused) {
            return Err(refused.clone());
        }
        self.open(project, options)
    }

    /// Opens the store of `project`, else the user store, and records in
    /// the output which one it is.
    fn open(&self, project: Option<&Project>, options: EngineOptions) -> Result<Engine> {
        let home = self.user_home()?;
        let mut engine = match project {
            Some(project) => Engine::open_project(
                project,
                &home,
                &self.global.catalogs,
                &self.principal(),
                options,
            )?,
            None => Engine::open_with(&home, &self.global.catalogs, &self.principal(), options)?,
        };
        self.out.set_scope(ScopeTag {
            scope: engine.scope(),
            project: project.map(|p| p.root().display().to_string()),
        });
        let flags = self.flags_for(&engine);
        engine.set_fix_line(FixLine(Arc::new(move |fix| {
            crate::cli::fix::command_line(fix, &flags)
        })));
        Ok(engine)
    }

    /// How long to wait for the store lock: `$HCPX_LOCK_TIMEOUT_MS`, else
    /// [`LockWait::DEFAULT_TIMEOUT`]; `on_wait` is told when waiting starts.
    pub fn lock_wait(&self, on_wait: LockObserver) -> Result<LockWait> {
        let timeout = match std::env::var(LOCK_TIMEOUT_VAR) {
            Err(_) => LockWait::DEFAULT_TIMEOUT,
            Ok(text) => text
                .trim()
                .parse::<u64>()
                .map(Duration::from_millis)
                .map_err(|_| {
                    Error::usage(format!(
                        "{LOCK_TIMEOUT_VAR} must be a number of milliseconds, not `{}`",
                        text.escape_default()
                    ))
                    .hint(format!("unset {LOCK_TIMEOUT_VAR} to wait 30 s"))
                })?,
        };
        Ok(LockWait {
            timeout,
            on_wait: Some(on_wait),
        })
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
