//! The lifecycle (11-lifecycle.md §11.1, HCP.md §11, §13): install,
//! activate, connect, exec, deactivate, uninstall, grants, on one store,
//! and around them list, show, doctor, harness targets, verify, catalogs,
//! outdated/upgrade and sync; one file each. Each stage checks its
//! precondition and capability, changes the store under its lock, and
//! returns plain data the front-ends print. `install_batch` installs the
//! packs of a `sync` as one change (staged and checked first, flushed
//! once). `bootstrap` and `builtin` are
//! the `hcp-cli` pack and its operations, `fetch` brings git sources in
//! under the lock, `follow` finds what each locked pack's source holds now
//! for outdated/upgrade (what a git pack follows, one `ls-remote` and one
//! fetch per repository, §13.6), `docs` holds the `--json` documents the CLI and the
//! builtin operations share. Every grant check (`require_*`, availability,
//! `grant`/`revoke`) uses the grants in force in the store
//! ([`Engine::grants_in_force`], HCP.md §9.3): its own `grants`, else in a
//! project the user store's, else the defaults.

mod activate;
mod approval;
pub mod bootstrap;
mod builtin;
pub mod catalogs;
mod connect;
mod content;
pub mod context;
pub mod docs;
pub mod doctor;
mod envset;
mod exec;
mod fetch;
mod follow;
pub mod harness;
mod install;
mod install_batch;
pub mod list;
pub mod project;
mod project_tie;
pub mod show;
pub mod sources;
pub mod sync;
mod uninstall;
pub mod upgrade;
mod verify;

pub use activate::Toggle;
pub use builtin::BuiltinOp;
pub use connect::{ConnectOutcome, ProbeRun, SecretInput};
pub use envset::EnvOverrides;
pub use exec::{ExecResult, Prepare, redact};
pub use install::{InstallAction, InstallOutcome, InstallSource};
pub use sources::{FetchObserver, InstallOptions};
pub use uninstall::UninstallOutcome;
pub use verify::{VerifyPack, VerifyReport};

use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::pack::grammar;
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::Adapter;
use crate::engine::pack::suggest;
use crate::engine::policy::availability::{self, PackAvailability, Refusal};
use crate::engine::policy::grants;
use crate::engine::store::Store;
use crate::engine::store::catalog::{self, CatalogPack};
use crate::engine::store::config;
use crate::engine::store::snapshot::{self, PackView};
use crate::engine::store::state::State;
use std::path::{Path, PathBuf};

/// The runtime's version, checked against `requires.hcpx` (§3.1).
pub const RUNTIME_VERSION: &str = env!("CARGO_PKG_VERSION");

/// How [`Engine::open_with`] opens the store.
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// How a writer waits for the store lock (§11.5).
    pub lock_wait: crate::engine::store::LockWait,
    /// Open for `doctor`: a `config.yaml` that does not read (its catalogs
    /// are then left out) or a bootstrap pack that cannot be set up does not
    /// stop it, since `doctor` reports them as failed checks.
    pub diagnose: bool,
}

/// How the front-end shows a [`Fix`] as a line (the engine never formats
/// a command line): used where the engine itself writes a `--json`
/// document, the bootstrap pack's builtin operations (§11.4).
#[derive(Clone)]
pub struct FixLine(pub std::sync::Arc<dyn Fn(&Fix) -> String + Send + Sync>);

impl std::fmt::Debug for FixLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FixLine")
    }
}

/// One store, its catalogs, and the principal acting on it.
#[derive(Debug, Clone)]
pub struct Engine {
    store: Store,
    catalogs: Vec<PathBuf>,
    /// The catalogs given on the command line (`--catalog`), kept after
    /// `config.yaml`'s when the catalogs are read again.
    extra_catalogs: Vec<PathBuf>,
    principal: grants::Principal,
    /// `env` Binding values set for this session (the TUI's), over the
    /// process environment.
    env: EnvOverrides,
    fix_line: Option<FixLine>,
    /// The user store's `config.yaml` when this is a project's engine: its
    /// catalogs are the user's (§15.1), and their git sources are what a
    /// catalog pack is locked by (§13.3).
    user_config: Option<PathBuf>,
    /// The harness targets' environment when set by the caller (tests, the
    /// TUI's tests); else read from the process (§12.4).
    harness_env: Option<crate::engine::harness::HarnessEnv>,
}

impl Engine {
    /// Opens the store at `home` (creating it on first use, with the
    /// bootstrap pack installed, activated and connected, §11.4), reads its
    /// `config.yaml` catalogs and adds `extra_catalogs` after them.
    pub fn open(home: &Path, extra_catalogs: &[PathBuf], principal: &str) -> Result<Engine> {
        Engine::open_with(home, extra_catalogs, principal, EngineOptions::default())
    }

    /// [`Engine::open`] with options: how to wait for the store lock, and
    /// whether a broken store may still be opened for `doctor`.
    pub fn open_with(
        home: &Path,
        extra_catalogs: &[PathBuf],
        principal: &str,
        options: EngineOptions,
    ) -> Result<Engine> {
        let principal = grants::Principal::parse(principal)?;
        let store = Store::open_with(home, options.lock_wait)?;
        // Nothing is read through a link at the store's own paths (§15.6);
        // doctor opens it to name them.
        if !options.diagnose {
            store.check_links()?;
        }
        let mut catalogs = match config::read(&store.config_path()) {
            Ok(config) => config.catalogs,
            Err(_) if options.diagnose => Vec::new(),
            Err(err) => return Err(err),
        };
        catalogs.extend(extra_catalogs.iter().cloned());
        let engine = Engine::of(store, catalogs, extra_catalogs, principal);
        match bootstrap::ensure(&engine.store) {
            Err(_) if options.diagnose => {}
            result => result?,
        }
        Ok(engine)
    }

    /// An engine over `store` with no session state yet (no env values,
    /// fix renderer or harness environment).
    fn of(
        store: Store,
        catalogs: Vec<PathBuf>,
        extra_catalogs: &[PathBuf],
        principal: grants::Principal,
    ) -> Engine {
        Engine {
            store,
            catalogs,
            extra_catalogs: extra_catalogs.to_vec(),
            principal,
            env: EnvOverrides::default(),
            fix_line: None,
            user_config: None,
            harness_env: None,
        }
    }

    /// The `config.yaml` files this engine's catalogs come from: the user
    /// store's first in a project, then the store's own.
    pub(crate) fn config_paths(&self) -> Vec<PathBuf> {
        self.user_config
            .iter()
            .cloned()
            .chain([self.store.config_path()])
            .collect()
    }

    /// Opens the store of `project` (`<project>/.hcp`, HCP.md §15.2),
    /// creating it on first use. It holds no bootstrap pack (that lives in
    /// the user store only, §15.1); its catalogs are the user store's
    /// (`user_home`'s `config.yaml`, when it reads), its own, then
    /// `extra_catalogs`.
    pub fn open_project(
        project: &crate::engine::project::Project,
        user_home: &Path,
        extra_catalogs: &[PathBuf],
        principal: &str,
        options: EngineOptions,
    ) -> Result<Engine> {
        let principal = grants::Principal::parse(principal)?;
        // The project's store is ours, or made now (§15.2).
        use crate::engine::project::ours;
        if ours::check(project, user_home)? == ours::StoreState::Absent {
            ours::create(project, user_home)?;
            ours::check(project, user_home)?;
        }
        let hook = crate::engine::project::keep::hook(project);
        let store = Store::open_project(project.root(), options.lock_wait, Some(hook))?;
        if !options.diagnose {
            store.check_links()?;
        }
        let user_config = user_home.join(crate::engine::store::CONFIG_FILE);
        let mut catalogs = match config::read(&user_config) {
            Ok(config) => config.catalogs,
            Err(_) => Vec::new(),
        };
        match config::read(&store.config_path()) {
            Ok(config) => catalogs.extend(config.catalogs),
            Err(_) if options.diagnose => {}
            Err(err) => return Err(err),
        }
        catalogs.extend(extra_catalogs.iter().cloned());
        // The project file is read by every command in the project: a
        // malformed one stops it here (§15.2).
        project.read_file()?;
        let mut engine = Engine::of(store, catalogs, extra_catalogs, principal);
        engine.user_config = Some(user_config);
        Ok(engine)
    }

    /// The user store's root when this is a project's engine (the folder
    /// of its `config.yaml`): where `projects.json` records what the user
    /// approved (§15.6).
    pub fn user_home(&self) -> Option<&Path> {
        self.user_config.as_deref().and_then(Path::parent)
    }

    /// The project whose store this engine acts on, if any.
    pub fn project(&self) -> Option<crate::engine::project::Project> {
        self.store
            .project()
            .map(crate::engine::project::Project::at)
            .and_then(std::result::Result::ok)
    }

    /// Which store this engine acts on (§15.1).
    pub fn scope(&self) -> crate::engine::project::Scope {
        match self.store.project() {
            Some(_) => crate::engine::project::Scope::Project,
            None => crate::engine::project::Scope::User,
        }
    }

    /// Sets how a [`Fix`] shows as the `hint` of an error in the documents
    /// the engine writes itself (builtin operations); without it such an
    /// error keeps only its words.
    pub fn set_fix_line(&mut self, fix_line: FixLine) {
        self.fix_line = Some(fix_line);
    }

    /// `err` with its fix shown as its `hint`, or the commands its hint
    /// names rendered (see [`Engine::set_fix_line`]).
    pub(super) fn shown(&self, mut err: Error) -> Error {
        if let Some(line) = &self.fix_line {
            let hint = match (&err.context.fix, &err.context.hint) {
                (Some(fix), _) => Some((line.0)(fix).into()),
                (None, Some(hint)) => Some(hint.rendered(&*line.0)),
                (None, None) => None,
            };
            err.context.hint = hint;
        }
        err
    }

    /// Reads the harness targets' folders from `env` instead of the
    /// process environment (§12.4): a test gives a fake home this way
    /// without changing `HOME` for the other tests of its process.
    pub fn set_harness_env(&mut self, env: crate::engine::harness::HarnessEnv) {
        self.harness_env = Some(env);
    }

    /// This engine acting for `principal` (when given), with
    /// `extra_catalogs` searched after its own (§9.1, §11.6): one
    /// command's `--principal` and `--catalog` in a front-end that keeps an
    /// engine open.
    pub fn scoped(
        &self,
        principal: Option<&grants::Principal>,
        extra_catalogs: &[PathBuf],
    ) -> Engine {
        let mut engine = self.clone();
        if let Some(principal) = principal {
            engine.principal = principal.clone();
        }
        for dir in extra_catalogs {
            if !engine.catalogs.contains(dir) {
                engine.catalogs.push(dir.clone());
            }
        }
        engine
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Acts for `principal` from now on (a front-end switching it at
    /// runtime; the name was checked when it was parsed, §9.1).
    pub fn set_principal(&mut self, principal: grants::Principal) {
        self.principal = principal;
    }

    /// Sets the session's `env` Binding values (see [`EnvOverrides`]).
    pub fn set_env_overrides(&mut self, env: EnvOverrides) {
        self.env = env;
    }

    /// The catalogs as `config.yaml` lists them now, then the extra ones
    /// the engine was opened with: a catalog another process added or
    /// removed shows in the answer.
    pub fn read_catalogs(&self) -> Result<Vec<PathBuf>> {
        let mut catalogs = config::read(&self.store.config_path())?.catalogs;
        catalogs.extend(self.extra_catalogs.iter().cloned());
        Ok(catalogs)
    }

    /// Uses `catalogs` from now on (from [`Engine::read_catalogs`]).
    pub fn set_catalogs(&mut self, catalogs: Vec<PathBuf>) {
        self.catalogs = catalogs;
    }

    pub fn principal(&self) -> &str {
        self.principal.as_str()
    }

    pub fn catalogs(&self) -> &[PathBuf] {
        &self.catalogs
    }

    /// Calls `f` with every pack's view and the state, read now (see
    /// [`snapshot::map_packs`]).
    pub fn map_packs<R: Send>(&self, f: impl Fn(&PackView, &State) -> R + Sync) -> Result<Vec<R>> {
        snapshot::map_packs(&self.store, &self.catalogs, f)
    }

    /// The catalog packs (linted).
    pub fn catalog_packs(&self) -> Vec<CatalogPack> {
        catalog::scan(&self.catalogs)
    }

    /// Availability of every pack, or of one (`not_found` if unknown).
    pub fn availability(&self, pack_id: Option<&PackId>) -> Result<Vec<PackAvailability>> {
        let mut packs = match pack_id {
            Some(id) => {
                let view = self.pack_view(id)?;
                let state = self.store.read_state()?;
                let in_force = self.grants_in_force(&state)?;
                vec![self.pack_availability(&view, &state, &in_force)]
            }
            None => {
                let check = runnable_memo();
                let inherited = self.inherited_grants()?;
                self.map_packs(|view, state| {
                    let in_force =
                        grants::InForce::resolve(state.grants.as_ref(), inherited.as_ref());
                    self.pack_availability_with(view, state, &in_force, &check)
                })?
            }
        };
        self.add_placed_harnesses(&mut packs)?;
        Ok(packs)
    }

    /// The grants in force in the user store, read now, when this is a
    /// project's engine (`None` for the user store's own): what a project
    /// store without `grants` gives each principal (§9.3).
    pub fn inherited_grants(&self) -> Result<Option<grants::InForce>> {
        let Some(user_home) = self.user_config.as_deref().and_then(Path::parent) else {
            return Ok(None);
        };
        let state = match Store::open_existing(user_home) {
            Some(user) => user.read_state()?,
            None => State::default(),
        };
        Ok(Some(grants::InForce::resolve(state.grants.as_ref(), None)))
    }

    /// The grants in force in this store whose state is `state` (§9.3): its
    /// own, else (in a project) the user store's, else the defaults.
    pub fn grants_in_force(&self, state: &State) -> Result<grants::InForce> {
        let inherited = match state.grants {
            // A store with grants of its own reads nothing else: a project
            // store's own are `project_store` whatever the user store says
            // (`resolve` only asks whether there is a user store above).
            Some(_) => self
                .user_config
                .as_ref()
                .map(|_| grants::InForce::default()),
            None => self.inherited_grants()?,
        };
        Ok(grants::InForce::resolve(
            state.grants.as_ref(),
            inherited.as_ref(),
        ))
    }

    /// The availability function with this runtime's adapter check, under
    /// the grants in force (from [`Engine::grants_in_force`]).
    pub fn pack_availability(
        &self,
        view: &PackView,
        state: &State,
        in_force: &grants::InForce,
    ) -> PackAvailability {
        availability::pack_availability(view, state, in_force, self.principal(), &runnable)
    }

    /// The availability function with a given adapter check (see
    /// [`runnable_memo`] for many packs at once).
    pub fn pack_availability_with(
        &self,
        view: &PackView,
        state: &State,
        in_force: &grants::InForce,
        check: &dyn Fn(&Adapter, &Path) -> Option<Refusal>,
    ) -> PackAvailability {
        availability::pack_availability(view, state, in_force, self.principal(), check)
    }

    /// One pack's view: installed copy (linted) and catalog copy; a pack
    /// in neither is `not_found`. (A word that is not a pack id never gets
    /// here: [`checked_id`] refuses it first, §14.2.)
    pub fn pack_view(&self, id: &PackId) -> Result<PackView> {
        let pack_id = id.as_str();
        let catalogs = if self.store.is_installed(id) {
            // Only the installed copy matters; skip linting the catalogs.
            Vec::new()
        } else {
            self.catalog_packs()
        };
        snapshot::load_pack(&self.store, &catalogs, pack_id).ok_or_else(|| self.not_found(pack_id))
    }

    /// Every pack id hcpx knows: the installed ones, then the catalogs'.
    pub fn known_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .store
            .installed_ids()
            .unwrap_or_default()
            .iter()
            .map(|id| id.as_str().to_string())
            .collect();
        ids.extend(
            self.catalog_packs()
                .iter()
                .filter_map(|p| p.pack_id())
                .filter(|id| grammar::is_pack_id(id))
                .map(str::to_string),
        );
        ids
    }

    /// A pack id as a user typed it, checked (§3.2): `not_found` naming
    /// the known id closest to it when it is not one ([`Engine::not_found`]).
    pub fn pack_id(&self, word: &str) -> Result<PackId> {
        PackId::parse(word).ok_or_else(|| self.not_found(word))
    }

    /// [`not_found`] with a did-you-mean hint naming the known pack id
    /// closest to `pack_id`, when one is close.
    pub fn not_found(&self, pack_id: &str) -> Error {
        let err = not_found(pack_id);
        let ids = self.known_ids();
        match suggest::did_you_mean(pack_id, ids.iter().map(String::as_str)) {
            Some(hint) => err.hint(hint),
            None => err,
        }
    }

    /// Refuses unless the principal holds `capability` for `pack_id`; for
    /// `pack.install` (install, uninstall, and so upgrade and sync), only
    /// the unscoped grant counts (§9.2).
    fn require_grant(
        &self,
        state: &State,
        capability: grants::Capability,
        pack_id: &str,
    ) -> Result<()> {
        if capability == grants::PACK_INSTALL {
            return self
                .require_unscoped(state, capability)
                .map_err(|err| err.pack(pack_id));
        }
        if self
            .grants_in_force(state)?
            .holds(self.principal(), capability, pack_id)
        {
            return Ok(());
        }
        let scoped = format!("{capability}:{pack_id}");
        Err(Error::new(
            ErrorCode::GrantMissing,
            format!(
                "principal `{}` does not hold `{capability}` for `{pack_id}`",
                self.principal
            ),
        )
        .pack(pack_id)
        .grant(capability.as_str())
        .fix(Fix::Grant {
            principal: self.principal().to_string(),
            grant: scoped,
        }))
    }

    /// Refuses, from the state as it is now, a principal that does not hold
    /// `pack.install` unscoped: for changes that fetch before they take the
    /// lock (upgrade, sync), so nothing is fetched for a principal that could
    /// not install it. The install under the lock checks again.
    pub(super) fn require_install_grant(&self) -> Result<()> {
        let state = self.store().read_state()?;
        self.require_unscoped(&state, grants::PACK_INSTALL)
    }

    /// Refuses unless the principal holds `capability` unscoped (§9.2:
    /// `pack.install` guards `catalog add|remove|update` and `harness
    /// enable|disable|sync` as it does install), with `grant_missing`
    /// naming it.
    pub(super) fn require_unscoped(
        &self,
        state: &State,
        capability: grants::Capability,
    ) -> Result<()> {
        if self
            .grants_in_force(state)?
            .holds_unscoped(self.principal(), capability)
        {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::GrantMissing,
            format!(
                "principal `{}` does not hold `{capability}` (unscoped), which this change needs",
                self.principal
            ),
        )
        .grant(capability.as_str())
        .fix(Fix::Grant {
            principal: self.principal().to_string(),
            grant: capability.as_str().to_string(),
        }))
    }

    /// Adds a grant to this store's `grants` (§9.4); returns what changed.
    /// Only a principal holding the unscoped `*` in the grants in force
    /// may; the first grant writes what held until then.
    pub fn grant(
        &self,
        principal: &grants::Principal,
        grant: &grants::Grant,
    ) -> Result<grants::GrantChange> {
        let mut tx = self.store.lock()?;
        let in_force = self.grants_in_force(&tx.state)?;
        grants::require_admin(&in_force, self.principal())?;
        let change = grants::grant(&mut tx.state, &in_force, principal, grant);
        tx.commit()?;
        Ok(change)
    }

    /// Removes a grant (§9.4); returns whether the state changed. Only a
    /// principal holding the unscoped `*` in the grants in force may.
    /// `grant` is the entry as written: also one of the file that is no
    /// grant, to remove it (`doctor` reports those).
    pub fn revoke(&self, principal: &grants::Principal, grant: &str) -> Result<bool> {
        let mut tx = self.store.lock()?;
        let in_force = self.grants_in_force(&tx.state)?;
        grants::require_admin(&in_force, self.principal())?;
        let changed = grants::revoke(&mut tx.state, &in_force, principal, grant)?;
        tx.commit()?;
        Ok(changed)
    }
}

/// The id a front-end passed, checked against §3.2 before any path is
/// built from it (§14.2); `not_found` when it is not a pack id.
pub fn checked_id(pack_id: &str) -> Result<PackId> {
    PackId::parse(pack_id).ok_or_else(|| not_found(pack_id))
}

/// `not_found` for a pack that is neither installed nor in a catalog.
pub fn not_found(pack_id: &str) -> Error {
    let shown = pack_id.escape_default().to_string();
    let mut err = Error::new(
        ErrorCode::NotFound,
        format!("no pack `{shown}` is installed or in a catalog"),
    )
    .pack(pack_id);
    if !grammar::is_pack_id(pack_id) {
        err = err.hint(
            Hint::from("pack ids look like acme.notes; `")
                .cmd(Fix::List)
                .say("` shows them"),
        );
    } else {
        err = err.hint(
            Hint::from("`")
                .cmd(Fix::List)
                .say("` shows the packs hcpx knows; add a catalog with --catalog DIR"),
        );
    }
    err
}

/// `not_found` for a verb the pack does not have, with a did-you-mean hint
/// and the verbs it has.
pub fn no_such_verb<'k>(
    pack_id: &str,
    verb_key: &str,
    keys: impl Iterator<Item = &'k str>,
) -> Error {
    let keys: Vec<&str> = keys.collect();
    let err = Error::new(
        ErrorCode::NotFound,
        format!("{pack_id} has no command `{verb_key}`"),
    )
    .pack(pack_id)
    .verb(verb_key);
    if keys.is_empty() {
        return err.hint(format!("{pack_id} has no commands"));
    }
    let mean = suggest::did_you_mean(verb_key, keys.iter().copied())
        .map(|s| format!("{s} "))
        .unwrap_or_default();
    err.hint(format!("{mean}its commands: {}", keys.join(", ")))
}

/// `not_installed` for a catalog pack.
pub fn not_installed(pack_id: &str) -> Error {
    Error::new(
        ErrorCode::NotInstalled,
        format!("pack `{pack_id}` is not installed"),
    )
    .pack(pack_id)
    .fix(Fix::Install {
        pack: pack_id.to_string(),
        force: false,
    })
}

/// [`runnable`] that looks each bare program name up on PATH only once: for
/// reports over many packs, where most commands run the same few programs.
/// Shared by the threads of [`snapshot::map_packs`].
pub fn runnable_memo() -> impl Fn(&Adapter, &Path) -> Option<Refusal> + Sync {
    let seen: std::sync::Mutex<std::collections::HashMap<String, Option<Refusal>>> =
        Default::default();
    move |adapter, dir| match adapter {
        Adapter::Process { program, .. } if !program.contains('/') => {
            let known = seen.lock().ok().and_then(|m| m.get(program).cloned());
            if let Some(known) = known {
                return known;
            }
            let result = runnable(adapter, dir);
            if let Ok(mut m) = seen.lock() {
                m.insert(program.clone(), result.clone());
            }
            result
        }
        _ => runnable(adapter, dir),
    }
}

/// Whether an adapter can run in this runtime (§6.3–§6.6), as the refusal
/// availability reports when it cannot. Exec uses the same check.
pub fn runnable(adapter: &Adapter, pack_dir: &Path) -> Option<Refusal> {
    crate::engine::exec::runnable(adapter, pack_dir).err()
}
