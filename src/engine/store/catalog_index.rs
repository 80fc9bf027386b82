//! An index per catalog (HCP.md §11.6, §13.2), so `hcpx install ID` finds a
//! catalog pack without linting every pack of every catalog:
//! `<store>/catalogs/index-<hash of the catalog's path>.json` maps each
//! pack folder's name to the id its manifest declares and the manifest's
//! signature (size, modification time, inode).
//!
//! A lookup first trusts the index of each catalog whose folder has not
//! changed since the index was written (its modification time: a folder
//! added, removed or renamed changes it), so a hit costs one `stat` per
//! catalog. Otherwise, and on a miss, it lists the catalog's folders and
//! looks at each manifest's signature (one `stat` each); only folders that
//! are new or whose signature changed are read again, and the index is
//! rewritten when anything changed. The pack found is linted again before it is used, and
//! must still declare the id, so a stale or tampered index can only make a
//! lookup miss, never install another pack. Writing the index is best
//! effort (a read-only store still installs).

use super::catalog::{self, CatalogPack};
use crate::engine::lint::{LintOptions, MANIFEST_JSON, MANIFEST_YAML, lint_pack};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const INDEX_VERSION: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Index {
    version: u32,
    /// Folder name → entry.
    packs: BTreeMap<String, Entry>,
    /// The catalog folder's modification time when the index was written.
    #[serde(default)]
    folder: Option<(i64, i64)>,
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

/// The first pack of `catalogs` (in order, then by folder name) whose
/// manifest declares `pack_id`, linted; as [`catalog::find`] over
/// [`catalog::scan`], without linting the others.
pub fn find(index_dir: &Path, catalogs: &[PathBuf], pack_id: &str) -> Option<CatalogPack> {
    // Fast: the indexes of unchanged catalog folders, in order.
    for dir in catalogs {
        let Some(index) = read(index_dir, dir).filter(|i| i.folder == folder_time(dir)) else {
            break;
        };
        if let Some(pack) = lookup(dir, &index, pack_id) {
            return Some(pack);
        }
    }
    // Every catalog brought up to date.
    catalogs
        .iter()
        .find_map(|dir| lookup(dir, &refresh(index_dir, dir), pack_id))
}

/// The pack `index` says declares `pack_id` in `dir`, linted, if it still
/// does.
fn lookup(dir: &Path, index: &Index, pack_id: &str) -> Option<CatalogPack> {
    index
        .packs
        .iter()
        .filter(|(name, entry)| entry.id.as_deref() == Some(pack_id) && !name.contains('/'))
        .map(|(name, _)| catalog::load(dir, dir.join(name)))
        .find(|pack| pack.pack_id() == Some(pack_id))
}

/// The saved index of `dir`, if there is one of this version.
fn read(index_dir: &Path, dir: &Path) -> Option<Index> {
    std::fs::read(index_path(index_dir, dir))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .filter(|i: &Index| i.version == INDEX_VERSION)
}

/// A folder's modification time (s, ns).
fn folder_time(dir: &Path) -> Option<(i64, i64)> {
    std::fs::metadata(dir)
        .ok()
        .map(|m| (m.mtime(), m.mtime_nsec()))
}

/// The catalog's index, brought up to date (and saved when it changed).
fn refresh(index_dir: &Path, dir: &Path) -> Index {
    let path = index_path(index_dir, dir);
    let old = read(index_dir, dir).unwrap_or_default();
    // Taken before listing: a folder added meanwhile makes the next lookup
    // list the catalog again.
    let folder = folder_time(dir);
    let mut new = Index {
        version: INDEX_VERSION,
        packs: BTreeMap::new(),
        folder,
    };
    for (_, pack_dir) in catalog::pack_dirs(std::slice::from_ref(&dir.to_path_buf())) {
        let Some(name) = pack_dir.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(signature) = signature(&pack_dir) else {
            continue;
        };
        let entry = match old.packs.get(name) {
            Some(entry) if entry.signature == signature => entry.clone(),
            _ => Entry {
                signature,
                id: lint_pack(&pack_dir, LintOptions::default()).pack_id,
            },
        };
        new.packs.insert(name.to_string(), entry);
    }
    if new != old {
        save(index_dir, &path, &new);
    }
    new
}

/// The manifest's size, modification time (s, ns) and inode.
fn signature(pack_dir: &Path) -> Option<(u64, i64, i64, u64)> {
    [MANIFEST_YAML, MANIFEST_JSON].iter().find_map(|name| {
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
