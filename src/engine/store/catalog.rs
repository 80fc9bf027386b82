//! Catalogs (HCP.md §11.6): folders whose sub-folders are packs. A pack found
//! in a catalog and not installed is `available`.

use crate::engine::lint::{
    LintOptions, LintReport, MANIFEST_JSON, MANIFEST_YAML, has_root_file, lint_pack,
};
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

/// Lists the packs of each catalog folder, in folder order, then by name.
/// Sub-folders without a manifest, hidden ones and missing catalogs are
/// skipped (`hcpx doctor` reports missing catalogs).
pub fn scan(catalogs: &[PathBuf]) -> Vec<CatalogPack> {
    crate::engine::store::parallel::parallel_map(pack_dirs(catalogs), |(catalog, dir)| {
        load(&catalog, dir)
    })
}

/// The pack folders of each catalog, as `(catalog, pack folder)`, in
/// catalog order, then by name (see [`scan`] for what is skipped).
pub fn pack_dirs(catalogs: &[PathBuf]) -> Vec<(PathBuf, PathBuf)> {
    let mut all = Vec::new();
    for catalog in catalogs {
        let Ok(entries) = std::fs::read_dir(catalog) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .filter(|p| has_manifest(p))
            .collect();
        dirs.sort();
        all.extend(dirs.into_iter().map(|dir| (catalog.clone(), dir)));
    }
    all
}

/// One catalog pack, linted: the pack folder `dir` of the catalog folder
/// `catalog` (what [`scan`] lists for each of its packs).
pub fn load(catalog: &Path, dir: PathBuf) -> CatalogPack {
    CatalogPack {
        catalog: catalog.to_path_buf(),
        report: lint_pack(&dir, LintOptions::default()),
        dir,
    }
}

fn has_manifest(dir: &Path) -> bool {
    has_root_file(dir, MANIFEST_YAML) || has_root_file(dir, MANIFEST_JSON)
}

/// Finds a catalog pack by id; the first catalog wins.
pub fn find<'c>(packs: &'c [CatalogPack], pack_id: &str) -> Option<&'c CatalogPack> {
    packs.iter().find(|p| p.pack_id() == Some(pack_id))
}
