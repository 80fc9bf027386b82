//! Catalogs (HCP.md §11.6, §13.2): collections of packs (§13.1: every pack
//! folder below the catalog's folder, Skill packs included). A pack found in
//! a catalog and not installed is `available`; with several catalogs
//! holding one id, the first in order wins.

use super::collection;
use crate::engine::lint::{LintOptions, LintReport, lint_pack};
use std::path::{Path, PathBuf};

/// A pack found in a catalog, linted.
#[derive(Debug, Clone)]
pub struct CatalogPack {
    pub catalog: PathBuf,
    pub dir: PathBuf,
    pub report: LintReport,
}

impl CatalogPack {
    pub fn pack_id(&self) -> Option<&str> {
        self.report.pack_id.as_deref()
    }
}

/// Lists the packs of each catalog, in catalog order, then by path.
/// Missing catalogs are skipped (`hcpx doctor` reports them).
pub fn scan(catalogs: &[PathBuf]) -> Vec<CatalogPack> {
    crate::engine::store::parallel::parallel_map(pack_dirs(catalogs), |(catalog, dir)| {
        load(&catalog, dir)
    })
}

/// The pack folders of each catalog, as `(catalog, pack folder)`, in
/// catalog order, then by path: a catalog is a collection (§13.1, see
/// [`collection::search`]).
pub fn pack_dirs(catalogs: &[PathBuf]) -> Vec<(PathBuf, PathBuf)> {
    let mut all = Vec::new();
    for catalog in catalogs {
        let found = collection::search(catalog);
        all.extend(found.packs.iter().map(|rel| {
            let dir = if rel == collection::ROOT {
                catalog.clone()
            } else {
                catalog.join(rel)
            };
            (catalog.clone(), dir)
        }));
    }
    all
}

/// Why a catalog that yields no pack is empty, said the same way by
/// `catalog add` and `catalog list` (§13.2).
pub const NO_PACK: &str = "no folder below it holds pack.yaml, pack.json or SKILL.md";

/// One catalog pack, linted: the pack folder `dir` of the catalog folder
/// `catalog` (what [`scan`] lists for each of its packs).
pub fn load(catalog: &Path, dir: PathBuf) -> CatalogPack {
    CatalogPack {
        catalog: catalog.to_path_buf(),
        report: lint_pack(&dir, LintOptions::default()),
        dir,
    }
}

/// Finds a catalog pack by id; the first catalog wins.
pub fn find<'c>(packs: &'c [CatalogPack], pack_id: &str) -> Option<&'c CatalogPack> {
    packs.iter().find(|p| p.pack_id() == Some(pack_id))
}
