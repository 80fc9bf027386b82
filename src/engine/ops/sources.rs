//! `hcpx install SOURCE` as people type it (HCP.md §11.6, §13.1): the
//! install entry points ([`Engine::install`], [`Engine::install_with`],
//! [`InstallOptions`]), the one place a parsed [`InstallSource`] meets the
//! disk and the catalogs ([`Engine::resolve_install`]), and collections: a
//! source that is not itself a pack lists its packs
//! ([`collection::search`]), and [`Selection`] says which to take. Each
//! pack folder found is installed by `ops::install`, below this module.
//!
//! - A pack id is the pack of the first catalog holding it (a folder of
//!   that name in the working directory does not shadow it), else that
//!   folder. A word with a `/` is the folder when it exists, else the
//!   GitHub repository.
//! - A git source is fetched once, however many packs come from it; with
//!   `--skill` and no SUBDIR, only the chosen folders' files are fetched
//!   and written (§14.8, `ops::fetch::fetch_chosen`). Each
//!   pack is checked and staged as its own step of the change, undone
//!   alone when it fails, and the others stay installed. The staged packs
//!   are then put in place together (one flush, one state and one lock
//!   write); when that fails, they are put in place one by one, so again
//!   only the failing pack is undone.
//! - A pack from a folder collection is locked by its own folder; from a
//!   git collection by url, subdir and commit; from a git catalog the same
//!   way, with the catalog's url and commit (never a path in the store).
//!
//! Where the spec is silent: the chooser (the CLI's picker) is asked while
//! the store lock is held for a git source (its checkout lives under
//! `.tmp/`); a `--skill` word matches a pack id, a Skill's `name`, or the
//! pack's folder name; a `--skill` word with `/` or that is `.`/`..` is
//! `usage`, and so is one that names several packs (two folders declaring
//! one id), naming their paths; `--all` takes none of the packs whose id
//! another pack of the collection declares too; the `usage` error of a
//! collection of several packs with no selection names the first
//! [`SEVERAL_IDS_SHOWN`] ids and counts the others (`--list` shows all).

use super::Engine;
use super::fetch::NamedFolder;
use super::install::{
    InstallHow, InstallOutcome, InstallSource, Prepared, StagedInstall, is_skill_pack, lint_failed,
};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::lint::{LintOptions, LintReport, lint_pack};
use crate::engine::pack::id::PackId;
use crate::engine::pack::suggest;
use crate::engine::store::collection::{self, ROOT, SKILL_FILE};
use crate::engine::store::lockfile::{LockedSource, SourceKind};
use crate::engine::store::parallel::parallel_map;
use crate::engine::store::snapshot::BOOTSTRAP_ID;
use crate::engine::store::source::GitSource;
use crate::engine::store::{Transaction, catalog, catalog_index, config};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What to take from a source that is a collection (§13.1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Selection {
    /// A pack source, or a collection of one pack: that pack; several:
    /// ask the chooser, else `usage`.
    #[default]
    Default,
    /// List the packs, install nothing (`--list`).
    List,
    /// These packs, by pack id or Skill name (`--skill`).
    Skills(Vec<String>),
    /// Every pack that lints (`--all`).
    All,
}

/// Asked which packs to take: told the listing, answers the chosen pack
/// ids (`None`: the user gave up).
pub type Chooser = std::sync::Arc<dyn Fn(&[ListedPack]) -> Option<Vec<String>> + Send + Sync>;

/// Whether a listed pack has a manifest or is a Skill pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ListedKind {
    Pack,
    Skill,
}

/// One pack of a collection, as `install --list --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct ListedPack {
    /// The id it declares; for a pack whose id cannot be read, its Skill's
    /// name, else its folder's name.
    pub pack_id: String,
    pub kind: ListedKind,
    /// Relative to the collection; `.` for the collection itself.
    pub path: String,
    pub description: String,
    pub lint_ok: bool,
    #[serde(skip)]
    pub report: LintReport,
    /// The Skill's `name`, if it has one.
    #[serde(skip)]
    pub skill_name: Option<String>,
}

/// `install SOURCE --list`: `{"source", "packs"}`.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    pub source: String,
    pub packs: Vec<ListedPack>,
}

/// What one pack of an install came to.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum PackResult {
    Installed(Box<Installed>),
    Failed(Box<Failed>),
}

/// A pack installed (or already installed): `{"ok": true, ...outcome}`.
#[derive(Debug, Clone, Serialize)]
pub struct Installed {
    pub ok: bool,
    #[serde(flatten)]
    pub outcome: InstallOutcome,
}

/// A pack, or a whole source, that failed: `{"ok": false, "source",
/// "pack_id", "path", "error"}`.
#[derive(Debug, Clone, Serialize)]
pub struct Failed {
    pub ok: bool,
    pub source: String,
    pub pack_id: Option<String>,
    /// The pack's path in its collection, when it came from one.
    pub path: Option<String>,
    pub error: Error,
    /// The capability diff (§13.7) of a replacement refused for want of
    /// consent (§11.1), as an installed pack's result has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<serde_json::Value>,
}

impl PackResult {
    pub fn failed(
        source: String,
        pack_id: Option<String>,
        path: Option<String>,
        error: Error,
    ) -> Self {
        let changes = error
            .context
            .results
            .as_ref()
            .and_then(|results| Some(results.first()?.get("changes")?.clone()));
        PackResult::Failed(Box::new(Failed {
            ok: false,
            source,
            pack_id,
            path,
            error,
            changes,
        }))
    }

    /// The error, for a failure.
    pub fn error(&self) -> Option<&Error> {
        match self {
            PackResult::Failed(f) => Some(&f.error),
            PackResult::Installed(_) => None,
        }
    }
}

/// What an install of one source did.
#[derive(Debug, Clone)]
pub enum SourceRun {
    /// `--list`.
    Listed(Listing),
    /// A result per pack taken.
    Done(Vec<PackResult>),
}

/// A source with the disk and the catalogs looked at.
enum Resolved {
    Folder(PathBuf),
    Git(GitSource),
    CatalogPack(PathBuf, LockedSource),
}

/// Where the packs of a collection come from, for their lock records.
enum Origin<'a> {
    Folder,
    Git(&'a GitSource, &'a str),
}

/// Told when a git fetch starts, with the source as shown to the user.
pub type FetchObserver = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// What to install and how: shared by the CLI, the TUI and `sync`, so no
/// front-end passes source strings around.
#[derive(Clone)]
pub struct InstallOptions {
    pub source: InstallSource,
    /// Replace the installed copy even when it is the same version (and
    /// whatever its capability diff, §11.1).
    pub force: bool,
    /// Consent to a replacement whose capability diff escalates (§11.1).
    pub yes: bool,
    /// Told when a git fetch starts, with the source as shown to the user
    /// (no password): the front-end may say so (the engine never prints).
    pub on_fetch: Option<FetchObserver>,
    /// What to take from a collection (§13.1).
    pub selection: Selection,
    /// Asked which packs to take from a collection of several when no
    /// selection was given (the CLI's picker on a terminal); `None`: such a
    /// collection is a `usage` error listing its ids.
    pub chooser: Option<Chooser>,
}

impl InstallOptions {
    pub fn new(source: InstallSource) -> InstallOptions {
        InstallOptions {
            source,
            force: false,
            yes: false,
            on_fetch: None,
            selection: Selection::Default,
            chooser: None,
        }
    }
}

impl std::fmt::Debug for InstallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstallOptions")
            .field("source", &self.source)
            .field("force", &self.force)
            .field("yes", &self.yes)
            .field("on_fetch", &self.on_fetch.is_some())
            .field("selection", &self.selection)
            .field("chooser", &self.chooser.is_some())
            .finish()
    }
}

impl Engine {
    /// Installs a pack from a directory or, when `source` is not a path, a
    /// catalog pack by id, or from a git source (§13.1).
    pub fn install(&self, source: &str, force: bool) -> Result<InstallOutcome> {
        let mut options = InstallOptions::new(InstallSource::parse(source)?);
        options.force = force;
        self.install_with(&options)
    }

    /// Installs the one pack `options` names (§11.1, §13.1), recording it
    /// in the lock file (§13.3) as a step of the same change; a collection
    /// of several packs takes `options.selection` as
    /// [`Engine::install_source`] does, and this returns the first failure,
    /// else the first pack installed.
    pub fn install_with(&self, options: &InstallOptions) -> Result<InstallOutcome> {
        let results = match self.install_source(options)? {
            SourceRun::Done(results) => results,
            SourceRun::Listed(_) => {
                return Err(Error::usage("a listing installs nothing"));
            }
        };
        let mut first = None;
        for result in results {
            match result {
                PackResult::Failed(failed) => return Err(failed.error),
                PackResult::Installed(done) => {
                    first.get_or_insert(done.outcome);
                }
            }
        }
        first.ok_or_else(|| Error::usage("nothing was chosen to install"))
    }

    /// Installs (or, with [`Selection::List`], lists) what one SOURCE
    /// names. An error is the source's as a whole (not found, fetch
    /// failed, a selection that names nothing); a pack that fails is one
    /// of the results.
    /// In a project, a pack recorded from a folder outside it gets the
    /// warning that teammates need the same layout (§15.2), whichever
    /// front-end installed it.
    pub fn install_source(&self, options: &InstallOptions) -> Result<SourceRun> {
        let mut run = self.install_named(options)?;
        // A pack the user names needs no approval in a project (§15.6).
        self.approve_installed(&run)?;
        if let (Some(root), SourceRun::Done(results)) = (self.store().project(), &mut run) {
            for result in results {
                if let PackResult::Installed(done) = result {
                    let warning = super::project::leaving_warning(root, &done.outcome);
                    done.outcome.warnings.extend(warning);
                }
            }
        }
        Ok(run)
    }

    fn install_named(&self, options: &InstallOptions) -> Result<SourceRun> {
        match self.resolve_install(&options.source)? {
            Resolved::CatalogPack(dir, recorded) => {
                if options.selection != Selection::Default {
                    return self.run_collection(None, &dir, Origin::Folder, options);
                }
                let tx = self.store().lock()?;
                let outcome =
                    self.install_locked(tx, &dir, recorded, (options.force, options.yes))?;
                Ok(SourceRun::Done(vec![installed(outcome)]))
            }
            Resolved::Folder(dir) => self.run_collection(None, &dir, Origin::Folder, options),
            Resolved::Git(git)
                if options.chooser.is_some() && options.selection == Selection::Default =>
            {
                // The user may take minutes to choose: fetched into a
                // private folder outside the store, so no lock is held
                // meanwhile (a lock holder may clear `.tmp/`).
                let private = super::fetch::private_temp_dir("hcpx-fetch-")?;
                let checkout = private.path().join("fetch");
                if let Some(on_fetch) = &options.on_fetch {
                    on_fetch(&git.display());
                }
                let fetched = super::fetch::fetch_to(&git, &checkout)?;
                let origin = Origin::Git(&git, &fetched.commit);
                self.run_collection(None, &fetched.dir, origin, options)
                    .map_err(|err| super::fetch::name_source(err, &fetched.dir, &git))
            }
            Resolved::Git(git) => {
                // Fetched under the lock: every lock holder may clear `.tmp/`.
                let mut tx = self.store().lock()?;
                let fetched = match &options.selection {
                    // Only the chosen folders are fetched and written (§14.8).
                    Selection::Skills(words) if git.subdir.is_none() => {
                        let shown = options.source.display();
                        let pick =
                            |names: &[NamedFolder]| chosen_paths(names, &shown, &options.selection);
                        super::fetch::fetch_chosen_locked(&mut tx, &git, options, words, &pick)?
                    }
                    _ => super::fetch::fetch_locked(&mut tx, &git, options)?,
                };
                let origin = Origin::Git(&git, &fetched.commit);
                self.run_collection(Some(tx), &fetched.dir, origin, options)
                    .map_err(|err| super::fetch::name_source(err, &fetched.dir, &git))
            }
        }
    }

    /// Looks a source up on disk and in the catalogs (§11.6).
    fn resolve_install(&self, source: &InstallSource) -> Result<Resolved> {
        match source {
            InstallSource::Git(git) => Ok(Resolved::Git(git.clone())),
            InstallSource::Dir(path) => existing_folder(&expand_home(path)).map(Resolved::Folder),
            InstallSource::DirOrGithub(path, git) => match path.symlink_metadata() {
                Ok(_) => existing_folder(path).map(Resolved::Folder),
                Err(_) => Ok(Resolved::Git(git.clone())),
            },
            InstallSource::Catalog(id) => self.resolve_id(id),
        }
    }

    /// A pack id: the first catalog's pack, else the folder of that name.
    fn resolve_id(&self, id: &PackId) -> Result<Resolved> {
        let index_dir = self.store().root().join("catalogs");
        if let Some(pack) = catalog_index::find(&index_dir, self.catalogs(), id.as_str()) {
            let recorded = self.catalog_lock_source(&pack);
            return Ok(Resolved::CatalogPack(pack.dir, recorded));
        }
        let path = Path::new(id.as_str());
        if path.symlink_metadata().is_ok() {
            return existing_folder(path).map(Resolved::Folder);
        }
        if id.as_str() == BOOTSTRAP_ID {
            return Err(Error::new(
                ErrorCode::BootstrapProtected,
                "hcp-cli is built into hcpx and installed on first use",
            )
            .pack(id.as_str()));
        }
        if self.catalogs().is_empty() {
            return Err(super::not_found(id.as_str()).hint(
                "no catalogs are configured: pass --catalog DIR, or add catalogs: to config.yaml",
            ));
        }
        Err(self.not_found(id.as_str()))
    }

    /// The lock record of a catalog pack: a git catalog's as url, subdir
    /// and commit (§13.3), a folder catalog's as the pack's folder.
    fn catalog_lock_source(&self, pack: &catalog::CatalogPack) -> LockedSource {
        // In a project the catalogs are the user's (§15.1): their sources
        // are in the user store's config.yaml.
        let sources: Vec<_> = self
            .config_paths()
            .iter()
            .filter_map(|path| config::read(path).ok())
            .flat_map(|c| c.catalog_sources)
            .collect();
        let git_catalog = sources
            .iter()
            .find(|c| c.git.is_some() && c.path == pack.catalog);
        let Some((source, git)) = git_catalog.and_then(|c| Some((c, c.git.as_ref()?))) else {
            return LockedSource::folder(SourceKind::Catalog, &pack.dir);
        };
        let root = super::catalogs::source_root(source);
        let commit = super::catalogs::fetched_commit(&root);
        let subdir = pack
            .dir
            .strip_prefix(&root)
            .ok()
            .and_then(|rel| rel.to_str())
            .map(str::to_string)
            .filter(|rel| !rel.is_empty());
        match commit {
            Some(commit) => LockedSource::git(
                &git.url,
                subdir.as_deref(),
                git.reference.as_deref(),
                &commit,
            ),
            None => LockedSource::folder(SourceKind::Catalog, &pack.dir),
        }
    }

    /// Lists the packs below `root`, picks per `options.selection`, and
    /// installs each chosen one as its own step of one change.
    fn run_collection(
        &self,
        tx: Option<Transaction<'_>>,
        root: &Path,
        origin: Origin<'_>,
        options: &InstallOptions,
    ) -> Result<SourceRun> {
        let shown = options.source.display();
        let root_of_repo = matches!(origin, Origin::Git(git, _) if git.subdir.is_none());
        let listed = listed_packs(root, &shown, root_of_repo)?;
        let chosen = match &options.selection {
            Selection::List => {
                return Ok(SourceRun::Listed(Listing {
                    source: shown,
                    packs: listed,
                }));
            }
            selection => choose(&listed, selection, options.chooser.as_ref(), &shown)?,
        };
        let mut tx = match tx {
            Some(tx) => tx,
            None => self.store().lock()?,
        };
        let duplicated = match options.selection {
            Selection::All => duplicate_ids(&listed, &shown),
            _ => Default::default(),
        };
        // Each pack checked and staged as its own step (one failing is
        // undone alone); then every staged pack installed together, with
        // one flush, one state and one lock write.
        let mut results: Vec<Option<PackResult>> = Vec::new();
        let mut staged = Vec::new();
        let mut failing: Vec<Box<dyn Fn(Error) -> PackResult + '_>> = Vec::new();
        for at in chosen {
            let pack = &listed[at];
            let dir = pack_folder(root, &pack.path);
            let (recorded, named) = pack_source(&origin, &dir, &pack.path);
            let shown = &shown;
            let fail = move |err| {
                // An error about the checkout names the source instead.
                let err = match &named {
                    Some(git) => super::fetch::name_source(err, &dir, git),
                    None => err,
                };
                PackResult::failed(
                    shown.clone(),
                    Some(pack.pack_id.clone()),
                    Some(pack.path.clone()),
                    err,
                )
            };
            if let Some(err) = duplicated.get(&at) {
                results.push(Some(fail(err.clone())));
                continue;
            }
            if options.selection == Selection::All && !pack.lint_ok {
                results.push(Some(fail(lint_failed(&pack.report))));
                continue;
            }
            let mark = tx.mark();
            let (dir, how) = (
                pack_folder(root, &pack.path),
                pack_how(pack, options, root_of_repo),
            );
            match self.prepare_install(&mut tx, &dir, recorded, &how) {
                Ok(Prepared::Unchanged(outcome)) => results.push(Some(installed(*outcome))),
                Ok(Prepared::Staged(ready)) => {
                    results.push(None);
                    staged.push(*ready);
                    failing.push(Box::new(fail));
                }
                Err(err) => {
                    tx.rollback_to(mark);
                    results.push(Some(fail(err)));
                }
            }
        }
        let mut finished = self
            .finish_each(&mut tx, staged)
            .into_iter()
            .zip(failing)
            .map(|(result, fail)| result.map_or_else(fail, installed));
        tx.commit()?;
        let results = results
            .into_iter()
            .filter_map(|result| result.or_else(|| finished.next()))
            .collect();
        Ok(SourceRun::Done(results))
    }

    /// Installs the packs `staged` together ([`Engine::finish_installs`]);
    /// when that fails, rolls it back and installs them one by one, so a
    /// pack that fails leaves the others done (§13.1). Each pack's result,
    /// in order.
    fn finish_each(
        &self,
        tx: &mut Transaction<'_>,
        staged: Vec<StagedInstall>,
    ) -> Vec<Result<InstallOutcome>> {
        if staged.is_empty() {
            return Vec::new();
        }
        let mark = tx.mark();
        match self.finish_installs(tx, staged.clone()) {
            Ok(outcomes) => return outcomes.into_iter().map(Ok).collect(),
            Err(_) => tx.rollback_to(mark),
        }
        let mut results = Vec::new();
        for pack in staged {
            let mark = tx.mark();
            let result = self.finish_installs(tx, vec![pack]);
            if result.is_err() {
                tx.rollback_to(mark);
            }
            results.push(result.map(|mut outcomes| outcomes.remove(0)));
        }
        results
    }
}

/// The pack `id` of the git source `git` fetched at `commit` into `root`
/// (its SUBDIR): the source's own pack, or the pack of the collection there
/// that `id` names as `--skill ID` would (§13.1) — for a project's `sync`
/// of an `hcp.yaml` entry the lock lacks (§15.3). Returns its folder, its
/// lock record and the git source of that very pack.
pub(super) fn pack_named(
    root: &Path,
    git: &GitSource,
    commit: &str,
    id: &str,
) -> Result<(PathBuf, LockedSource, Option<GitSource>)> {
    let shown = git.display();
    let listed = listed_packs(root, &shown, git.subdir.is_none())?;
    let pack = &listed[find_listed(&listed, id, &shown)?];
    let dir = pack_folder(root, &pack.path);
    let (recorded, named) = pack_source(&Origin::Git(git, commit), &dir, &pack.path);
    Ok((dir, recorded, named))
}

/// The pack `id` of the folder `root` (a project's folder source): the
/// folder's own pack, or the pack of the collection there that `id` names
/// (§13.1). Returns its folder and its lock record.
pub(super) fn folder_pack_named(root: &Path, id: &str) -> Result<(PathBuf, LockedSource)> {
    let shown = root.display().to_string();
    let listed = listed_packs(root, &shown, false)?;
    let pack = &listed[find_listed(&listed, id, &shown)?];
    let dir = pack_folder(root, &pack.path);
    let (recorded, _) = pack_source(&Origin::Folder, &dir, &pack.path);
    Ok((dir, recorded))
}

/// The packs a search of the collection at `root` (shown as `shown`)
/// finds (§13.1), or `not_found` when it finds none. `root_of_repo`: the
/// root is a repository's root, so a pack found there is the repository's
/// own.
fn listed_packs(root: &Path, shown: &str, root_of_repo: bool) -> Result<Vec<ListedPack>> {
    let found = collection::search(root);
    if found.packs.is_empty() {
        return Err(no_pack(shown));
    }
    // Each found folder linted on every core (many Skills: a repository's
    // worth), in order.
    Ok(parallel_map(found.packs, |rel| {
        list_pack(root, &rel, rel == ROOT && root_of_repo)
    }))
}

/// The paths of the packs `selection` takes from the collection at the
/// root of a repository, `root` (a `--skill` word's refusals as
/// [`choose`] has them).
fn chosen_paths(
    folders: &[NamedFolder],
    shown: &str,
    selection: &Selection,
) -> Result<Vec<String>> {
    if folders.is_empty() {
        return Err(no_pack(shown));
    }
    let listed: Vec<ListedPack> = folders.iter().map(named_pack).collect();
    let chosen = choose(&listed, selection, None, shown)?;
    Ok(chosen.into_iter().map(|i| listed[i].path.clone()).collect())
}

/// The `not_found` of a collection that holds no pack.
fn no_pack(shown: &str) -> Error {
    Error::new(
        ErrorCode::NotFound,
        format!("{shown} holds no pack: {}", catalog::NO_PACK),
    )
    .path(shown.to_string())
}

/// A pack of a collection known by its names alone — the id it declares
/// (read as lint reads it, [`crate::engine::lint::declared_id_of`]), its
/// Skill's `name`, its folder — from the bytes of its manifests and
/// `SKILL.md` fetched from git (nothing written), not linted: what a
/// `--skill` word is matched against ([`find_listed`]) before the chosen
/// folders are fetched. The rest of the listing is left empty.
fn named_pack(folder: &NamedFolder) -> ListedPack {
    let rel = folder.path.as_str();
    let dir = PathBuf::from(rel);
    let skill = folder
        .file(SKILL_FILE)
        .and_then(skill_text)
        .and_then(|text| crate::engine::pack::skill::parse(&text));
    let skill_name = skill.and_then(|s| s.name);
    let name = (rel != ROOT)
        .then(|| rel.rsplit('/').next())
        .flatten()
        .map(str::to_string);
    let pack_id = crate::engine::lint::declared_id_of(|name| folder.file(name))
        .or_else(|| skill_name.clone())
        .or(name)
        .unwrap_or_else(|| rel.to_string());
    let report = LintReport {
        ok: true,
        pack_id: None,
        path: dir.display().to_string(),
        kind: Default::default(),
        diagnostics: Vec::new(),
        manifest: None,
        root: dir,
    };
    ListedPack {
        pack_id,
        kind: ListedKind::Pack,
        path: rel.to_string(),
        description: String::new(),
        lint_ok: true,
        report,
        skill_name,
    }
}

/// A collection pack's lock record, and for a git one the git source of
/// that very pack (for messages).
fn pack_source(origin: &Origin<'_>, dir: &Path, rel: &str) -> (LockedSource, Option<GitSource>) {
    match origin {
        Origin::Folder => (LockedSource::folder(SourceKind::Dir, dir), None),
        Origin::Git(git, commit) => {
            let subdir = join_subdir(git.subdir.as_deref(), rel);
            let recorded = LockedSource::git(
                &git.url,
                subdir.as_deref(),
                git.reference.as_deref(),
                commit,
            );
            let named = GitSource {
                subdir,
                ..(*git).clone()
            };
            (recorded, Some(named))
        }
    }
}

/// How the collection's pack `pack` is installed.
fn pack_how<'a>(
    pack: &'a ListedPack,
    options: &InstallOptions,
    root_of_repo: bool,
) -> InstallHow<'a> {
    InstallHow {
        force: options.force,
        check: None,
        lint: LintOptions {
            folder_name_free: pack.path == ROOT && root_of_repo,
            ..LintOptions::default()
        },
        yes: options.yes,
        linted: Some(&pack.report),
    }
}

fn installed(outcome: InstallOutcome) -> PackResult {
    PackResult::Installed(Box::new(Installed { ok: true, outcome }))
}

/// `~` and `~/x` are the user's home.
fn expand_home(path: &Path) -> PathBuf {
    let text = path.to_string_lossy();
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    match (text.as_ref(), text.strip_prefix("~/")) {
        ("~", _) => home().unwrap_or_else(|| path.to_path_buf()),
        (_, Some(rest)) => home().map_or_else(|| path.to_path_buf(), |h| h.join(rest)),
        _ => path.to_path_buf(),
    }
}

/// The folder a path names: what a link there points to (the user may
/// name a link to the pack folder), or `not_found`.
fn existing_folder(path: &Path) -> Result<PathBuf> {
    let shown = path.display().to_string();
    let missing = || {
        Error::new(
            ErrorCode::NotFound,
            format!("no such pack directory: {shown}"),
        )
        .path(shown.clone())
    };
    let meta = path.symlink_metadata().map_err(|_| missing())?;
    if meta.file_type().is_symlink() {
        return path.canonicalize().map_err(|_| missing());
    }
    Ok(path.to_path_buf())
}

fn pack_folder(root: &Path, rel: &str) -> PathBuf {
    match rel {
        ROOT => root.to_path_buf(),
        _ => root.join(rel),
    }
}

/// A git source's SUBDIR joined with a pack's path in it.
fn join_subdir(subdir: Option<&str>, rel: &str) -> Option<String> {
    match (subdir, rel) {
        (None, ROOT) => None,
        (Some(s), ROOT) => Some(s.to_string()),
        (None, rel) => Some(rel.to_string()),
        (Some(s), rel) => Some(format!("{s}/{rel}")),
    }
}

/// One pack of a collection, linted.
fn list_pack(root: &Path, rel: &str, folder_name_free: bool) -> ListedPack {
    let dir = pack_folder(root, rel);
    let lint = LintOptions {
        folder_name_free,
        ..LintOptions::default()
    };
    let report = lint_pack(&dir, lint);
    let skill =
        read_skill(&dir.join(SKILL_FILE)).and_then(|text| crate::engine::pack::skill::parse(&text));
    let skill_name = skill.as_ref().and_then(|s| s.name.clone());
    let folder = match rel {
        ROOT => dir.file_name(),
        _ => Path::new(rel).file_name(),
    };
    let folder = folder.map(|n| n.to_string_lossy().into_owned());
    let pack_id = report
        .pack_id
        .clone()
        .or_else(|| skill_name.clone())
        .or(folder)
        .unwrap_or_else(|| rel.to_string());
    let description = report
        .manifest
        .as_ref()
        .map(|m| m.description.clone())
        .filter(|d| !d.is_empty())
        .or_else(|| skill.and_then(|s| s.description))
        .unwrap_or_default();
    ListedPack {
        pack_id,
        kind: if is_skill_pack(&dir) {
            ListedKind::Skill
        } else {
            ListedKind::Pack
        },
        path: rel.to_string(),
        description,
        lint_ok: report.ok,
        report,
        skill_name,
    }
}

/// A listed pack's `SKILL.md`, read as lint reads it: a regular file only
/// (a link to a file of the user's is not read through, a FIFO does not
/// hang the listing) and no more than §2.3's limit.
fn read_skill(path: &Path) -> Option<String> {
    use crate::engine::lint::files::{MAX_SKILL_BYTES, open_regular};
    use std::io::Read;
    let mut text = String::new();
    open_regular(path)
        .ok()?
        .take(MAX_SKILL_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// A `SKILL.md`'s text as [`read_skill`] reads it: its first §2.3-limit
/// bytes, when they are UTF-8.
fn skill_text(bytes: &[u8]) -> Option<String> {
    use crate::engine::lint::files::MAX_SKILL_BYTES;
    let cut = usize::try_from(MAX_SKILL_BYTES).map_or(bytes.len(), |max| bytes.len().min(max));
    String::from_utf8(bytes[..cut].to_vec()).ok()
}

/// Which packs of `listed` a selection takes, as indexes.
fn choose(
    listed: &[ListedPack],
    selection: &Selection,
    chooser: Option<&Chooser>,
    shown: &str,
) -> Result<Vec<usize>> {
    match selection {
        Selection::All => Ok((0..listed.len()).collect()),
        Selection::Skills(words) => words
            .iter()
            .map(|w| find_listed(listed, w, shown))
            .collect(),
        _ if listed.len() == 1 => Ok(vec![0]),
        _ => {
            let Some(chooser) = chooser else {
                return Err(several(listed, shown));
            };
            let ids = chooser(listed).unwrap_or_default();
            if ids.is_empty() {
                return Err(Error::usage("nothing was chosen: nothing is installed"));
            }
            ids.iter().map(|w| find_listed(listed, w, shown)).collect()
        }
    }
}

/// The `usage` error of a collection of several packs and no selection.
fn several(listed: &[ListedPack], shown: &str) -> Error {
    let ids: Vec<&str> = listed.iter().map(|p| p.pack_id.as_str()).collect();
    let named = ids_cut(&ids, SEVERAL_IDS_SHOWN);
    Error::usage(format!(
        "{shown} is a collection of {} packs: {named}",
        listed.len()
    ))
    .hint(
        "choose with --skill ID (repeatable), take every pack with --all, or see them all with --list",
    )
}

/// How many ids the `usage` error of a collection of several names: a
/// repository of hundreds of Skills gives a message that still fits a
/// screen, the rest counted (`--list` shows them all).
const SEVERAL_IDS_SHOWN: usize = 20;

/// `a, b, c` for at most `max` ids, then `and N more (see --list)`.
fn ids_cut(ids: &[&str], max: usize) -> String {
    if ids.len() <= max {
        return ids.join(", ");
    }
    format!(
        "{}, and {} more (see --list)",
        ids[..max].join(", "),
        ids.len() - max
    )
}

/// The pack a `--skill` word names: its id, else its Skill's name, else
/// its folder's name. A word that names several packs at the first of these
/// that matches (two folders declaring one id) is `usage`, naming their
/// paths: which one is taken never depends on how the folders sort.
fn find_listed(listed: &[ListedPack], word: &str, shown: &str) -> Result<usize> {
    if word.contains('/') || word == "." || word == ".." || word.is_empty() {
        return Err(Error::usage(format!(
            "--skill takes a pack id or a Skill name, not a path: `{}`",
            word.escape_default()
        ))
        .hint("`--list` shows the ids"));
    }
    let folder_name = |p: &ListedPack| {
        p.path != ROOT && Path::new(&p.path).file_name().is_some_and(|n| n == word)
    };
    let tiers: [&dyn Fn(&ListedPack) -> bool; 3] = [
        &|p| p.pack_id == word,
        &|p| p.skill_name.as_deref() == Some(word),
        &folder_name,
    ];
    for tier in tiers {
        let hits: Vec<usize> = (0..listed.len()).filter(|&i| tier(&listed[i])).collect();
        match hits.as_slice() {
            [] => continue,
            [one] => return Ok(*one),
            _ => return Err(ambiguous(listed, &hits, word, shown)),
        }
    }
    let err = Error::new(
        ErrorCode::NotFound,
        format!("{shown} has no pack `{}`", word.escape_default()),
    );
    let ids = listed.iter().map(|p| p.pack_id.as_str());
    Err(match suggest::did_you_mean(word, ids) {
        Some(hint) => err.hint(hint),
        None => err.hint("`--list` shows the ids"),
    })
}

/// The `usage` error of a word (or an id, for `--all`) that several packs
/// of one collection answer to, naming their paths.
fn ambiguous(listed: &[ListedPack], hits: &[usize], word: &str, shown: &str) -> Error {
    let paths: Vec<&str> = hits.iter().map(|&i| listed[i].path.as_str()).collect();
    Error::usage(format!(
        "`{}` names {} packs of {shown}: {}",
        word.escape_default(),
        hits.len(),
        paths.join(", ")
    ))
    .hint("install the one you mean from its own folder (the source with that path added)")
}

/// For `--all`: the error of each pack whose id another pack of the
/// collection declares too (none of them is taken), by index.
fn duplicate_ids(listed: &[ListedPack], shown: &str) -> std::collections::BTreeMap<usize, Error> {
    let mut by_id: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
    for (i, pack) in listed.iter().enumerate() {
        by_id.entry(pack.pack_id.as_str()).or_default().push(i);
    }
    by_id
        .into_iter()
        .filter(|(_, hits)| hits.len() > 1)
        .flat_map(|(id, hits)| {
            let err = ambiguous(listed, &hits, id, shown);
            hits.into_iter().map(move |i| (i, err.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdirs_join() {
        assert_eq!(join_subdir(None, ROOT), None);
        assert_eq!(join_subdir(Some("a"), ROOT).as_deref(), Some("a"));
        assert_eq!(join_subdir(None, "s/pdf").as_deref(), Some("s/pdf"));
        assert_eq!(join_subdir(Some("a"), "s").as_deref(), Some("a/s"));
    }
}
