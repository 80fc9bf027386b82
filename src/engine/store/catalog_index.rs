//! An index per catalog (HCP.md §11.6, §13.2), so `hcpx install ID` finds a
//! catalog pack without linting every pack of every catalog:
//! `<store>/catalogs/index-<hash of the catalog's path>.json` maps each
//! pack folder (its path in the collection, §13.1) to the id its manifest
//! declares and the signature (size, modification time, inode) of its
//! manifest or `SKILL.md`, and records the modification time of every
//! folder the collection search walked.
//!
//! A lookup first trusts the index of each catalog whose walked folders
//! have not changed since the index was written (a folder added, removed or
//! renamed below one of them changes its time), so a hit costs one `stat`
//! per walked folder. A hit in a later catalog is taken only once every
//! earlier catalog, brought up to date, is known not to hold the id: an
//! earlier index whose manifests changed in place (which no folder time
//! shows) must not hand the id to a later catalog that a fresh scan would
//! not pick. Otherwise, and on a miss, it searches the catalog again and
//! looks at each pack's signature (one `stat` each); only packs that are
//! new or whose signature changed are read again, and the index is
//! rewritten when anything changed. The pack found is linted again before
//! it is used and must still declare the id, and its path is followed only
//! inside the catalog and through no link, so a stale or tampered index can
//! only make a lookup miss, never install another pack. Writing the index
//! is best effort (a read-only store still installs).

use super::catalog::{self, CatalogPack};
use super::collection::{self, FolderTime, SKILL_FILE};
use crate::engine::lint::{LintOptions, MANIFEST_JSON, MANIFEST_YAML, lint_pack};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const INDEX_VERSION: u32 = 2;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Index {
    version: u32,
    /// Pack path in the collection → entry.
    packs: BTreeMap<String, Entry>,
    /// Each folder walked (`""`: the catalog's), with its modification
    /// time when the index was written.
    folders: BTreeMap<String, Option<FolderTime>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    signature: (u64, i64, i64, u64),
    id: Option<String>,
}

/// Where a catalog's index lives.
pub fn index_path(index_dir: &Path, catalog: &Path) -> PathBuf {
    let hash = Sha256::digest(catalog.as_os_str().as_encoded_bytes());
    let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    index_dir.join(format!("index-{hex}.json"))
}

/// The first pack of `catalogs` (in order, then by path) whose manifest
/// declares `pack_id`, linted; as [`catalog::find`] over [`catalog::scan`],
/// without linting the others.
pub fn find(index_dir: &Path, catalogs: &[PathBuf], pack_id: &str) -> Option<CatalogPack> {
    // Fast: the indexes of unchanged catalogs, in order.
    for (at, dir) in catalogs.iter().enumerate() {
        let Some(index) = read(index_dir, dir).filter(|i| unchanged(dir, i)) else {
            break;
        };
        if let Some(pack) = lookup(dir, &index, pack_id) {
            let earlier = &catalogs[..at];
            if earlier
                .iter()
                .all(|d| lookup(d, &refresh(index_dir, d), pack_id).is_none())
            {
                return Some(pack);
            }
            break;
        }
    }
    // Every catalog brought up to date.
    catalogs
        .iter()
        .find_map(|dir| lookup(dir, &refresh(index_dir, dir), pack_id))
}

/// Whether every folder the index's search walked has its recorded time.
fn unchanged(dir: &Path, index: &Index) -> bool {
    !index.folders.is_empty()
        && index
            .folders
            .iter()
            .all(|(rel, time)| folder_time(dir, rel) == *time)
}

fn folder_time(dir: &Path, rel: &str) -> Option<FolderTime> {
    match rel {
        "" => collection::folder_time(dir),
        _ => collection::resolve(dir, rel).and_then(|p| collection::folder_time(&p)),
    }
}

/// The pack `index` says declares `pack_id` in `dir`, linted, if it still
/// does (reached inside `dir`, through no link).
fn lookup(dir: &Path, index: &Index, pack_id: &str) -> Option<CatalogPack> {
    index
        .packs
        .iter()
        .filter(|(_, entry)| entry.id.as_deref() == Some(pack_id))
        .filter_map(|(rel, _)| collection::resolve(dir, rel))
        .map(|pack_dir| catalog::load(dir, pack_dir))
        .find(|pack| pack.pack_id() == Some(pack_id))
}

/// The saved index of `dir`, if there is one of this version.
fn read(index_dir: &Path, dir: &Path) -> Option<Index> {
    std::fs::read(index_path(index_dir, dir))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .filter(|i: &Index| i.version == INDEX_VERSION)
}

/// The catalog's index, brought up to date (and saved when it changed).
fn refresh(index_dir: &Path, dir: &Path) -> Index {
    let path = index_path(index_dir, dir);
    let old = read(index_dir, dir).unwrap_or_default();
    // Folder times are taken as the search walks: a folder added meanwhile
    // makes the next lookup search the catalog again.
    let found = collection::search(dir);
    let mut folders: BTreeMap<String, Option<FolderTime>> = found.folders.into_iter().collect();
    if folders.is_empty() {
        // The catalog is a pack itself: its own folder's time is watched.
        folders.insert(String::new(), collection::folder_time(dir));
    }
    let mut new = Index {
        version: INDEX_VERSION,
        packs: BTreeMap::new(),
        folders,
    };
    for rel in found.packs {
        let pack_dir = if rel == collection::ROOT {
            dir.to_path_buf()
        } else {
            dir.join(&rel)
        };
        let Some(signature) = signature(&pack_dir) else {
            continue;
        };
        let entry = match old.packs.get(&rel) {
            Some(entry) if entry.signature == signature => entry.clone(),
            _ => Entry {
                signature,
                id: lint_pack(&pack_dir, LintOptions::default()).pack_id,
            },
        };
        new.packs.insert(rel, entry);
    }
    if new != old {
        save(index_dir, &path, &new);
    }
    new
}

/// The size, modification time (s, ns) and inode of the manifest, else of
/// `SKILL.md` (what a Skill pack's id is read from).
fn signature(pack_dir: &Path) -> Option<(u64, i64, i64, u64)> {
    [MANIFEST_YAML, MANIFEST_JSON, SKILL_FILE]
        .iter()
        .find_map(|name| {
            let meta = std::fs::symlink_metadata(pack_dir.join(name)).ok()?;
            Some((meta.size(), meta.mtime(), meta.mtime_nsec(), meta.ino()))
        })
}

/// Writes the index atomically (a temporary file beside it, then rename);
/// best effort.
fn save(index_dir: &Path, path: &Path, index: &Index) {
    if super::create_dir(index_dir).is_err() {
        return;
    }
    let Ok(bytes) = serde_json::to_vec(index) else {
        return;
    };
    let Ok(mut file) = tempfile::NamedTempFile::new_in(index_dir) else {
        return;
    };
    use std::io::Write;
    if file.write_all(&bytes).is_ok() {
        let _ = file.persist(path);
    }
}
