//! A read-only view of the store and the catalogs at one moment: what the
//! availability function (§11.2) and the front-ends read.

use crate::engine::error::Result;
use crate::engine::lint::{LintOptions, LintReport, declared_id, lint_pack};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::{Manifest, PackKind};
use crate::engine::store::Store;
use crate::engine::store::catalog::{self, CatalogPack};
use crate::engine::store::lint_cache::LintCache;
use crate::engine::store::parallel::parallel_map;
use crate::engine::store::state::State;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The bootstrap pack's id (§11.4).
pub const BOOTSTRAP_ID: &str = "hcp-cli";

/// One pack as the runtime sees it: installed, in a catalog, or both.
#[derive(Debug, Clone)]
pub struct PackView {
    pub pack_id: String,
    /// The installed copy's lint report, when installed.
    pub installed: Option<LintReport>,
    /// The catalog copy, when one is found.
    pub catalog: Option<CatalogPack>,
    /// Whether `<store>/skills/<pack_id>/SKILL.md` exists (§5.4). Looked
    /// for only where it can matter: for one pack ([`load_pack`]), and in
    /// [`map_packs`] for an activated pack (a pack that is not activated
    /// has no active Skill, copy or not: one failing `stat` a pack saved).
    pub skill_copied: bool,
}

impl PackView {
    /// The manifest to show: the installed one, else the catalog's.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.installed
            .as_ref()
            .and_then(|r| r.manifest.as_ref())
            .or_else(|| {
                self.catalog
                    .as_ref()
                    .and_then(|c| c.report.manifest.as_ref())
            })
    }

    /// The folder the pack's files are in (installed copy first).
    pub fn dir(&self) -> Option<PathBuf> {
        self.installed
            .as_ref()
            .map(|r| r.root.clone())
            .or_else(|| self.catalog.as_ref().map(|c| c.dir.clone()))
    }

    /// A pack with a manifest, or a Skill pack (§2.6): as the report to
    /// show says.
    pub fn kind(&self) -> PackKind {
        self.report().map(|r| r.kind).unwrap_or_default()
    }

    /// The lint report to show: the installed one, else the catalog's.
    pub fn report(&self) -> Option<&LintReport> {
        self.installed
            .as_ref()
            .or(self.catalog.as_ref().map(|c| &c.report))
    }
}

/// Lints an installed pack's copy (the bootstrap pack may use its reserved
/// id and builtin adapters), or reads the report of its last lint from the
/// lint cache when its files have not changed since ([`LintCache`]).
pub fn lint_installed(store: &Store, pack_id: &PackId) -> LintReport {
    LintCache::open(store).lint_installed(store, pack_id, || lint_fresh(store, pack_id))
}

/// Lints an installed pack's copy, without the cache.
pub fn lint_fresh(store: &Store, pack_id: &PackId) -> LintReport {
    let options = LintOptions {
        bootstrap: *pack_id == BOOTSTRAP_ID,
        ..LintOptions::default()
    };
    let mut report = lint_pack(&store.pack_dir(pack_id), options);
    if report.pack_id.as_deref() != Some(pack_id.as_str()) && report.ok {
        // A folder renamed by hand: its manifest names another pack.
        report.ok = false;
    }
    report
}

/// Loads one pack's view; `None` when it is neither installed nor in a
/// catalog.
pub fn load_pack(store: &Store, catalogs: &[CatalogPack], pack_id: &str) -> Option<PackView> {
    let cache = LintCache::open(store);
    let catalog = catalog::find(catalogs, pack_id).cloned();
    view(store, &cache, pack_id, catalog, None, true)
}

/// A pack's view from its catalog copy, if any, and the store. Only a
/// valid id (§14.2) is looked up in the store; a catalog pack whose
/// manifest holds a bad id is shown from the catalog alone. `listed` is
/// whether the listing of `packs/` just now had the pack (the same test as
/// [`Store::is_installed`]), when the caller made one; `look_for_skill`
/// whether to look for the pack's Skill copy (see [`PackView::skill_copied`]).
fn view(
    store: &Store,
    cache: &LintCache,
    pack_id: &str,
    catalog: Option<CatalogPack>,
    listed: Option<bool>,
    look_for_skill: bool,
) -> Option<PackView> {
    let checked = PackId::parse(pack_id);
    let installed = checked
        .as_ref()
        .filter(|id| listed.unwrap_or_else(|| store.is_installed(id)))
        .map(|id| cache.lint_installed(store, id, || lint_fresh(store, id)));
    if installed.is_none() && catalog.is_none() {
        return None;
    }
    Some(PackView {
        pack_id: pack_id.to_string(),
        skill_copied: look_for_skill && checked.is_some_and(|id| store.skill_path(&id).is_file()),
        installed,
        catalog,
    })
}

/// Calls `f` with every pack's view (installed or in a catalog, sorted by
/// id) and the state, and returns what it made of each, in that order.
///
/// Views are built one at a time on each core and dropped once `f` has
/// seen them, so even 10,000 catalog packs never sit in memory at once
/// (the TUI keeps only a small row per pack). A catalog pack's id is read
/// from its manifest first ([`declared_id`]: the id lint would report,
/// without checking the rules or reading the Skill), then the pack is
/// linted with its view; the first catalog holding an id wins.
pub fn map_packs<R: Send>(
    store: &Store,
    catalog_dirs: &[PathBuf],
    f: impl Fn(&PackView, &State) -> R + Sync,
) -> Result<Vec<R>> {
    let state = store.read_state()?;
    let dirs = catalog::pack_dirs(catalog_dirs);
    let ids = parallel_map(dirs.iter().map(|(_, dir)| dir.clone()).collect(), |dir| {
        declared_id(&dir)
    });
    let mut by_id: BTreeMap<String, (PathBuf, PathBuf)> = BTreeMap::new();
    for (id, (catalog, dir)) in ids.into_iter().zip(dirs) {
        if let Some(id) = id {
            by_id.entry(id).or_insert((catalog, dir));
        }
    }
    let installed: BTreeSet<String> = store
        .installed_ids()?
        .into_iter()
        .map(|id| id.to_string())
        .collect();
    let mut all: Vec<String> = installed.iter().cloned().collect();
    all.extend(by_id.keys().cloned());
    all.sort();
    all.dedup();
    let jobs: Vec<(String, Option<(PathBuf, PathBuf)>)> = all
        .into_iter()
        .map(|id| {
            let catalog = by_id.remove(&id);
            (id, catalog)
        })
        .collect();
    let cache = LintCache::open(store);
    let results = parallel_map(jobs, |(id, catalog)| {
        let catalog = catalog.map(|(catalog, dir)| catalog::load(&catalog, dir));
        let listed = installed.contains(&id);
        let look_for_skill = listed && state.is_activated(&id);
        view(store, &cache, &id, catalog, Some(listed), look_for_skill).map(|v| f(&v, &state))
    });
    Ok(results.into_iter().flatten().collect())
}
