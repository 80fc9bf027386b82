//! The stores one run works on, for every front-end (HCP.md §15.1, §15.2,
//! §15.5): the project (if any, found once from the working directory),
//! why its `.hcp/` may not be used when it is not ours (§15.2), the
//! project store's [`Engine`] and the user store's (each opened on first
//! use, then kept), and the global flags (principal, catalogs, lock wait,
//! `-g`/`--project`). [`Workspace::holder`] is the one place that decides
//! which store holds a pack; [`Workspace::execute`] runs a request on the
//! store it belongs to, or on both inside a project (`command::both`), and
//! answers with an [`Answer`] whose `--json` document carries `"scope"`
//! (and `"project"` inside one). It never prints: a front-end says the
//! [`Workspace::warnings`] and renders the answer.

use crate::command::args::GlobalArgs;
use crate::command::both::{self, Both};
use crate::command::execute::{Interaction, execute_with};
use crate::command::{Outcome, Request};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::ops::{Engine, EngineOptions, FixLine};
use crate::engine::pack::id::PackId;
use crate::engine::policy::grants::DEFAULT_PRINCIPAL;
use crate::engine::project::{self, Project, Scope};
use crate::engine::store::{self, LockObserver, LockWait, Store};
use crate::fixline::FixFlags;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How long a writer waits for the store lock, in milliseconds.
pub const LOCK_TIMEOUT_VAR: &str = "HCPX_LOCK_TIMEOUT_MS";

/// The stores of one run (see the module doc).
#[derive(Clone)]
pub struct Workspace {
    /// The user store's folder (`$HCP_HOME`, else `~/.hcp`).
    home: Option<PathBuf>,
    /// `--principal`, as given.
    principal: Option<String>,
    /// `--catalog DIR`, each as given.
    catalogs: Vec<PathBuf>,
    /// The flags a fix's command line repeats.
    flags: FixFlags,
    /// The project (§15.1); its error (`--project` outside one, a refused
    /// `.hcp`) is the first opening's.
    project: std::result::Result<Option<Project>, Error>,
    /// Why the project's `.hcp/` may not be used, when it may not (§15.2).
    refused: Option<Error>,
    /// What finding the project said (an `hcp.yaml` passed over).
    warnings: Vec<String>,
    /// Told when a writer waits for the store lock.
    on_wait: LockObserver,
    project_engine: OnceLock<Engine>,
    user_engine: OnceLock<Engine>,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("home", &self.home)
            .field("project", &self.project)
            .field("refused", &self.refused)
            .finish_non_exhaustive()
    }
}

impl Workspace {
    /// Finds the project from the working directory and the global flags;
    /// opens no store yet.
    pub fn open(global: &GlobalArgs, on_wait: LockObserver) -> Workspace {
        let home = store::default_home();
        let mut warnings = Vec::new();
        let project = match (&home, std::env::current_dir()) {
            (Some(home), Ok(cwd)) => {
                project::resolve(global.scope_flag(), &cwd, home).map(|resolved| {
                    warnings.extend(resolved.warnings.iter().cloned());
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
        let flags = FixFlags {
            principal: global.principal.clone(),
            catalogs: global
                .catalogs
                .iter()
                .map(|d| d.display().to_string())
                .collect(),
            global: global.global,
        };
        Workspace {
            home,
            principal: global.principal.clone(),
            catalogs: global.catalogs.clone(),
            flags,
            project,
            refused,
            warnings,
            on_wait,
            project_engine: OnceLock::new(),
            user_engine: OnceLock::new(),
        }
    }

    /// This workspace with `on_wait` told when a writer waits for the
    /// store lock (a front-end that owns stdout says it elsewhere); its
    /// stores are opened anew.
    pub fn waiting(&self, on_wait: LockObserver) -> Workspace {
        Workspace {
            on_wait,
            project_engine: OnceLock::new(),
            user_engine: OnceLock::new(),
            ..self.clone()
        }
    }

    /// What finding the project said, for the front-end to say.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The flags a fix's command line repeats, as given.
    pub fn fix_flags(&self) -> &FixFlags {
        &self.flags
    }

    /// The project this run acts in, if any (§15.1).
    pub fn project(&self) -> Result<Option<&Project>> {
        match &self.project {
            Ok(project) => Ok(project.as_ref()),
            Err(err) => Err(err.clone()),
        }
    }

    /// Why the project's store may not be used, if it may not (§15.2).
    pub fn refused(&self) -> Option<&Error> {
        self.refused.as_ref()
    }

    /// This workspace once the project's store is ours (adopted, §15.2).
    pub fn without_refusal(&self) -> Workspace {
        Workspace {
            refused: None,
            ..self.clone()
        }
    }

    /// The user store's folder (`$HCP_HOME`, else `~/.hcp`).
    pub fn user_home(&self) -> Result<PathBuf> {
        self.home.clone().ok_or_else(|| {
            Error::new(ErrorCode::Io, "cannot find a home folder for the store")
                .hint("set HCP_HOME to the folder hcpx should use")
        })
    }

    /// `--principal`, else `$HCP_PRINCIPAL`, else `user` (§9.1).
    pub fn principal(&self) -> String {
        self.principal
            .clone()
            .or_else(|| {
                std::env::var("HCP_PRINCIPAL")
                    .ok()
                    .filter(|p| !p.is_empty())
            })
            .unwrap_or_else(|| DEFAULT_PRINCIPAL.to_string())
    }

    /// The flags a fix of a command run on `engine` repeats: `-g` too when
    /// it acts on the user store inside a project (§15.1).
    pub fn flags_for(&self, engine: &Engine) -> FixFlags {
        let mut flags = self.flags.clone();
        flags.global |= matches!(self.project, Ok(Some(_))) && engine.scope() == Scope::User;
        flags
    }

    /// The user store's engine, whatever the scope (the bootstrap pack,
    /// catalogs, `-g`).
    pub fn user(&self) -> Result<&Engine> {
        if let Some(engine) = self.user_engine.get() {
            return Ok(engine);
        }
        let engine = self.open_store(None, false)?;
        Ok(self.user_engine.get_or_init(|| engine))
    }

    /// The scope's engine: the project's inside one (refused when its
    /// store is not ours, §15.2), else the user store's.
    pub fn scoped(&self) -> Result<&Engine> {
        let Some(project) = self.project()? else {
            return self.user();
        };
        if let Some(refused) = &self.refused {
            return Err(refused.clone());
        }
        if let Some(engine) = self.project_engine.get() {
            return Ok(engine);
        }
        let engine = self.open_store(Some(project), false)?;
        Ok(self.project_engine.get_or_init(|| engine))
    }

    /// The scope's engine opened for `doctor` (a broken `config.yaml` or
    /// bootstrap pack is reported, not fatal); `user`: the user store's.
    pub fn for_doctor(&self, user: bool) -> Result<Engine> {
        let project = if user { None } else { self.project()? };
        if let (Some(_), Some(refused)) = (project, &self.refused) {
            return Err(refused.clone());
        }
        self.open_store(project, true)
    }

    /// The engines a server serves (§15.5): inside a project (unless `-g`)
    /// the project's, then the user store's; else the user store's; a
    /// project store that is not ours serves nothing (§15.2).
    pub fn engines(&self) -> Result<Vec<&Engine>> {
        if self.refused.is_some() {
            return Ok(vec![self.user()?]);
        }
        let mut engines = vec![self.scoped()?];
        if self.project()?.is_some() {
            engines.push(self.user()?);
        }
        Ok(engines)
    }

    /// The engine of the store that holds `pack_id`, and which one it is
    /// (§15.1): in a project, the project's when it holds the pack (a link
    /// on the way counts: the project's store then refuses the change,
    /// §15.6), else the user store.
    pub fn holder(&self, pack_id: &PackId) -> Result<(&Engine, Scope)> {
        let Some(project) = self.project()? else {
            return Ok((self.user()?, Scope::User));
        };
        if let Some(refused) = &self.refused {
            return Err(refused.clone());
        }
        if Store::holds_at(&project.store_dir(), pack_id, true) {
            Ok((self.scoped()?, Scope::Project))
        } else {
            Ok((self.user()?, Scope::User))
        }
    }

    /// [`Workspace::holder`] of a pack id as typed: one that does not
    /// parse is no project's.
    pub fn holder_of(&self, pack_id: &str) -> Result<(&Engine, Scope)> {
        if let Some(id) = PackId::parse(pack_id) {
            return self.holder(&id);
        }
        if let (Some(_), Some(refused)) = (self.project()?, &self.refused) {
            return Err(refused.clone());
        }
        Ok((self.user()?, Scope::User))
    }

    /// The engine of the store `request` runs on (§15.1, §15.5): the
    /// scope's; the one that holds the pack of a request on packs; the user
    /// store for catalog changes; the user store alone for a report when
    /// the project's store is not ours (§15.2); `doctor` opens as doctor
    /// does.
    pub fn engine_for(&self, request: &Request) -> Result<Engine> {
        let doctor = matches!(request, Request::Doctor { .. });
        if self.refused.is_some() && (!request.changes() || matches!(request, Request::Exec { .. }))
        {
            return match doctor {
                true => self.for_doctor(true),
                false => self.user().cloned(),
            };
        }
        let pack = match request {
            // A broken config.yaml or bootstrap pack does not stop doctor: it
            // is what doctor reports.
            Request::Doctor { .. } => return self.for_doctor(false),
            // The catalogs are the user's (§15.1).
            Request::CatalogAdd { .. } | Request::CatalogRemove { .. } => {
                return self.user().cloned();
            }
            Request::Show { pack }
            | Request::Why { pack, .. }
            | Request::Connect { pack }
            | Request::Exec { pack, .. }
            | Request::Availability { pack: Some(pack) }
            | Request::HarnessStatus { pack: Some(pack) } => Some(pack.as_str()),
            Request::Activate { packs }
            | Request::Deactivate { packs }
            | Request::Uninstall { packs }
            | Request::Remove { packs }
            | Request::Upgrade { packs, .. } => packs.first().map(|p| p.as_str()),
            _ => None,
        };
        match pack {
            Some(pack) => self.holder_of(pack).map(|(e, _)| e.clone()),
            None => self.scoped().cloned(),
        }
    }

    /// Runs `request` where it belongs (see [`Workspace::engine_for`]), or
    /// on both stores inside a project, lent `io` (one store only).
    pub fn execute(&self, request: &Request, io: Interaction<'_>) -> Result<Answer> {
        if self.runs_on_both(request) {
            return self.execute_both(request);
        }
        let engine = self.engine_for(request)?;
        self.execute_on(&engine, request, io)
    }

    /// Whether `request` runs on both stores: inside a project whose store
    /// is ours (see [`both::runs_on_both`]).
    pub fn runs_on_both(&self, request: &Request) -> bool {
        if self.refused.is_some() {
            return false;
        }
        match self.project() {
            Ok(Some(project)) => both::runs_on_both(request, &project.store_dir()),
            _ => false,
        }
    }

    /// Runs `request` on both stores (the caller checked
    /// [`Workspace::runs_on_both`]): each its part, `doctor` opening each
    /// store as doctor does.
    pub fn execute_both(&self, request: &Request) -> Result<Answer> {
        let project = self.project()?;
        let store = project.map(Project::store_dir).unwrap_or_default();
        let (ours, theirs) = both::split(request, &store);
        let doctor = matches!(request, Request::Doctor { .. });
        let side = |request: Option<Request>, user: bool| -> Result<Option<Outcome>> {
            let Some(request) = request else {
                return Ok(None);
            };
            let engine = match (doctor, user) {
                (true, _) => self.for_doctor(user)?,
                (false, true) => self.user()?.clone(),
                (false, false) => self.scoped()?.clone(),
            };
            execute_with(
                &engine,
                &request,
                &self.flags_for(&engine),
                Interaction::default(),
            )
            .map(Some)
        };
        let both = Both {
            ours: side(ours, false)?,
            theirs: side(theirs, true)?,
        };
        Ok(Answer::both(request, both, project))
    }

    /// Runs `request` on `engine` (one of this workspace's), lent `io`.
    pub fn execute_on(
        &self,
        engine: &Engine,
        request: &Request,
        io: Interaction<'_>,
    ) -> Result<Answer> {
        let outcome = execute_with(engine, request, &self.flags_for(engine), io)?;
        Ok(Answer::One {
            scope: engine.scope(),
            project: self.project_root(engine),
            outcome: Box::new(outcome),
        })
    }

    /// The project's folder in words, when `engine` is its store's.
    fn project_root(&self, engine: &Engine) -> Option<String> {
        match (engine.scope(), self.project()) {
            (Scope::Project, Ok(Some(project))) => Some(project.root().display().to_string()),
            _ => None,
        }
    }

    /// Opens the store of `project`, else the user store; a fix shown in
    /// a document the engine writes repeats the flags given.
    pub fn open_store(&self, project: Option<&Project>, diagnose: bool) -> Result<Engine> {
        let home = self.user_home()?;
        let options = EngineOptions {
            lock_wait: self.lock_wait()?,
            diagnose,
        };
        let mut engine = match project {
            Some(project) => {
                Engine::open_project(project, &home, &self.catalogs, &self.principal(), options)?
            }
            None => Engine::open_with(&home, &self.catalogs, &self.principal(), options)?,
        };
        let flags = self.flags_for(&engine);
        engine.set_fix_line(FixLine(Arc::new(move |fix| {
            crate::fixline::command_line(fix, &flags)
        })));
        Ok(engine)
    }

    /// How long to wait for the store lock: `$HCPX_LOCK_TIMEOUT_MS`, else
    /// [`LockWait::DEFAULT_TIMEOUT`].
    pub fn lock_wait(&self) -> Result<LockWait> {
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
            on_wait: Some(self.on_wait.clone()),
        })
    }
}

/// What a request answered, and on which store: its `--json` document is
/// the outcome's with `"scope"` (and `"project"` inside one, §15.1); inside
/// a project every pack and target in it says its store (§15.5).
#[derive(Debug, Clone)]
pub enum Answer {
    /// One store's outcome.
    One {
        scope: Scope,
        project: Option<String>,
        outcome: Box<Outcome>,
    },
    /// Both stores' outcomes, merged (`command::both`): the project's.
    Both {
        request: Box<Request>,
        both: Box<Both>,
        project: Option<String>,
    },
}

impl Answer {
    /// Both stores' answer to `request` inside `project`.
    pub fn both(request: &Request, both: Both, project: Option<&Project>) -> Answer {
        Answer::Both {
            request: Box::new(request.clone()),
            both: Box::new(both),
            project: project.map(|p| p.root().display().to_string()),
        }
    }

    /// The store the answer is from, and the project's folder inside one.
    pub fn scope(&self) -> (Scope, Option<&str>) {
        match self {
            Answer::One { scope, project, .. } => (*scope, project.as_deref()),
            Answer::Both { project, .. } => (Scope::Project, project.as_deref()),
        }
    }

    /// The outcomes: one, or the project's then the user store's.
    pub fn outcomes(&self) -> Vec<&Outcome> {
        match self {
            Answer::One { outcome, .. } => vec![&**outcome],
            Answer::Both { both, .. } => both.outcomes().collect(),
        }
    }

    /// The worse exit code of its outcomes.
    pub fn exit_code(&self) -> i32 {
        self.outcomes()
            .into_iter()
            .map(Outcome::exit_code)
            .max()
            .unwrap_or(0)
    }

    /// The words: the outcome's, or each store's under its name.
    pub fn words(&self) -> String {
        match self {
            Answer::One { outcome, .. } => outcome.to_string(),
            Answer::Both { both, project, .. } => both.words(project.as_deref().unwrap_or("")),
        }
    }

    /// The `--json` document (see the type's doc).
    pub fn document(&self) -> serde_json::Value {
        let mut doc = self.unscoped();
        self.scope_into(&mut doc);
        doc
    }

    /// The outcome's document, or both merged, each pack and target of a
    /// project's saying its store, without the answer's own `"scope"`.
    pub fn unscoped(&self) -> serde_json::Value {
        match self {
            Answer::One {
                scope,
                project,
                outcome,
            } => {
                let mut doc = serde_json::to_value(outcome).unwrap_or_default();
                if project.is_some() {
                    tag_items(&mut doc, *scope);
                }
                doc
            }
            Answer::Both { request, both, .. } => both.document(request),
        }
    }

    /// Adds `"scope"` (and `"project"`) to `doc` unless it says them.
    pub fn scope_into(&self, doc: &mut serde_json::Value) {
        let (scope, project) = self.scope();
        if let Some(map) = doc.as_object_mut() {
            map.entry("scope").or_insert(scope.as_str().into());
            if let Some(project) = project {
                map.entry("project").or_insert(project.into());
            }
        }
    }
}

impl Serialize for Answer {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        self.document().serialize(serializer)
    }
}

/// Each pack and target of `doc` with `"scope": scope` (§15.5).
fn tag_items(doc: &mut serde_json::Value, scope: Scope) {
    for key in ["packs", "targets"] {
        let items = doc.get_mut(key).and_then(|v| v.as_array_mut());
        for item in items.into_iter().flatten() {
            if let Some(map) = item.as_object_mut() {
                map.insert("scope".into(), scope.as_str().into());
            }
        }
    }
}
