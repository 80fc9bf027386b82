//! The lint cache of installed packs (HCP.md §11.2, §11.5): an installed
//! pack whose files have not changed since its last lint is not linted
//! again. `list`, `availability`, `show` and `exec` read the report from
//! `<store>/.cache/lint/<pack_id>.json` instead.
//!
//! An entry holds the report (ok, diagnostics, the parsed manifest) and the
//! key of the pack's tree as it was just before that lint: a digest of the
//! metadata — relative path, mode, size, modification and change times in
//! nanoseconds, inode, device, owner, link count — of the pack folder and
//! of every entry the lint walk visits (the same walk: no link followed,
//! the root's `.git/` left out), with the pack's path and the hcpx version
//! (another version's rules may differ).
//! An entry is used only when
//!
//! - the tree's key now is the entry's key (one `lstat` per entry, no file
//!   read: the walk lint does anyway, without its reads and parsing);
//! - it is not racily clean (git's rule): every time in the tree is more
//!   than [`RACY_MARGIN`] older than the moment the entry's key was taken,
//!   since two writes within one tick of the file system's clock can leave
//!   the same times; and that moment is not in the future;
//! - the file is ours, a regular file (opened without following a link or
//!   waiting on a FIFO), at most [`MAX_ENTRY_BYTES`], not writable by
//!   group or others, in folders `.cache/` and `.cache/lint/` that are ours
//!   and real folders; it parses, names the pack it is read for, and its
//!   report is consistent (`ok` exactly when there is no error).
//!
//! Anything else is a miss, never an error: the pack is linted, as without
//! a cache. No write leaves a file's change time as it was, and the change
//! time cannot be set back, so a pack changed on disk is always seen.
//!
//! Who writes: whoever lints an installed pack on a miss (install, list,
//! availability, show, exec, activate, doctor) writes its entry, without
//! the store lock: a temporary file in `.cache/lint/` (mode 0600, folders
//! 0700) renamed over the entry, so a reader sees the old entry or the new
//! one, never a mix, and two writers of one entry each write one that is
//! true of the tree they saw. A write that fails (a read-only store, a full
//! disk) is skipped. An entry is written only when it reads back equal to
//! the report it holds.

use crate::engine::lint::LintReport;
use crate::engine::lint::diagnostic::Diagnostic;
use crate::engine::lint::files::{self, MAX_FILES};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::{Manifest, PackKind};
use crate::engine::store::Store;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The cache's format; an entry of another format is a miss.
const FORMAT: u32 = 1;

/// How much older than the moment its key was taken every time in a
/// pack's tree must be for its entry to be trusted (racily clean).
pub const RACY_MARGIN: Duration = Duration::from_secs(2);

/// The largest entry read (or written).
pub const MAX_ENTRY_BYTES: u64 = 4 * 1024 * 1024;

/// Entries the key walk visits at most (as lint's walk): a larger tree is
/// never cached.
const MAX_ENTRIES: usize = 10 * MAX_FILES;

/// The key of a pack's tree at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeKey {
    /// SHA-256 of the metadata of every entry, hex.
    pub digest: String,
    /// The newest modification or change time in the tree, ns since the
    /// epoch.
    pub newest_ns: i128,
}

/// One cache file.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    format: u32,
    pack_id: String,
    key: String,
    /// When the key was taken (before the lint), ns since the epoch.
    keyed_ns: i64,
    report: CachedReport,
}

/// A [`LintReport`] with its manifest, as the cache holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct CachedReport {
    ok: bool,
    pack_id: Option<String>,
    path: String,
    kind: PackKind,
    diagnostics: Vec<Diagnostic>,
    manifest: Option<Manifest>,
}

impl CachedReport {
    fn of(report: &LintReport) -> CachedReport {
        CachedReport {
            ok: report.ok,
            pack_id: report.pack_id.clone(),
            path: report.path.clone(),
            kind: report.kind,
            diagnostics: report.diagnostics.clone(),
            manifest: report.manifest.clone(),
        }
    }

    fn into_report(self, root: PathBuf) -> LintReport {
        LintReport {
            ok: self.ok,
            pack_id: self.pack_id,
            path: self.path,
            kind: self.kind,
            diagnostics: self.diagnostics,
            manifest: self.manifest,
            root,
        }
    }
}

/// The store's cache folder, checked: `None` when it is not there or not
/// ours (then nothing is read from it).
#[derive(Debug, Clone)]
pub struct LintCache {
    dir: PathBuf,
    usable: bool,
}

impl LintCache {
    /// The cache of `store`, its folders checked once.
    pub fn open(store: &Store) -> LintCache {
        let root = store.root().join(".cache");
        let dir = root.join("lint");
        let usable = private_dir(&root) && private_dir(&dir);
        LintCache { dir, usable }
    }

    /// The lint report of an installed pack: the cached one when the cache
    /// holds a trusted entry for the pack's tree as it is now, else
    /// `lint()`'s, written to the cache (best effort).
    pub fn lint_installed(
        &self,
        store: &Store,
        pack_id: &PackId,
        lint: impl FnOnce() -> LintReport,
    ) -> LintReport {
        let root = store.pack_dir(pack_id);
        let keyed_ns = now_ns();
        let key = tree_key(&root);
        if let Some(key) = &key
            && let Some(report) = self.read(pack_id, key, &root)
        {
            return report;
        }
        let report = lint();
        if let Some(key) = key {
            self.write(pack_id, &key, keyed_ns, &report);
        }
        report
    }

    /// Whether the cache holds an entry for `pack_id` that a lint of the
    /// pack now would use (for tests and diagnostics).
    pub fn trusted(&self, store: &Store, pack_id: &PackId) -> bool {
        let root = store.pack_dir(pack_id);
        tree_key(&root).is_some_and(|key| self.read(pack_id, &key, &root).is_some())
    }

    /// Where the entry of `pack_id` is.
    pub fn entry_path(&self, pack_id: &PackId) -> PathBuf {
        self.dir.join(format!("{}.json", pack_id.as_str()))
    }

    /// The cached report for `pack_id` when its entry is trusted for `key`.
    fn read(&self, pack_id: &PackId, key: &TreeKey, root: &Path) -> Option<LintReport> {
        if !self.usable {
            return None;
        }
        let bytes = read_entry(&self.entry_path(pack_id))?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        let trusted = entry.format == FORMAT
            && entry.pack_id == pack_id.as_str()
            && entry.key == key.digest
            && !racy(key.newest_ns, i128::from(entry.keyed_ns), now_ns())
            && consistent(&entry.report, pack_id, root);
        trusted.then(|| entry.report.into_report(root.to_path_buf()))
    }

    /// Writes the entry of `pack_id`; any failure leaves the cache as it
    /// was (or without the entry).
    fn write(&self, pack_id: &PackId, key: &TreeKey, keyed_ns: i128, report: &LintReport) {
        let Ok(keyed_ns) = i64::try_from(keyed_ns) else {
            return;
        };
        let entry = Entry {
            format: FORMAT,
            pack_id: pack_id.as_str().to_string(),
            key: key.digest.clone(),
            keyed_ns,
            report: CachedReport::of(report),
        };
        let Ok(bytes) = serde_json::to_vec(&entry) else {
            return;
        };
        if bytes.len() as u64 > MAX_ENTRY_BYTES || !reads_back(&bytes, &entry.report) {
            return;
        }
        if !self.usable && !self.create_dir() {
            return;
        }
        let _ = write_entry(&self.dir, &self.entry_path(pack_id), &bytes);
    }

    /// Makes `.cache/lint/` (0700) when missing; whether it is usable now.
    fn create_dir(&self) -> bool {
        let _ = fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir);
        self.dir.parent().is_some_and(private_dir) && private_dir(&self.dir)
    }
}

/// Whether `path` is a real folder (not a link) of ours that group and
/// others cannot write.
fn private_dir(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_dir() && ours_and_private(&m))
}

fn ours_and_private(meta: &fs::Metadata) -> bool {
    meta.uid() == rustix::process::geteuid().as_raw() && meta.mode() & 0o022 == 0
}

/// An entry's bytes: a regular file of ours, not group or world writable,
/// of at most [`MAX_ENTRY_BYTES`], opened without following a link or
/// waiting for a FIFO's writer.
fn read_entry(path: &Path) -> Option<Vec<u8>> {
    let file = files::open_regular(path).ok()?;
    let meta = file.metadata().ok()?;
    if !ours_and_private(&meta) || meta.len() > MAX_ENTRY_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len() + 1).unwrap_or(0));
    file.take(MAX_ENTRY_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= MAX_ENTRY_BYTES).then_some(bytes)
}

/// A temporary file (0600) in `dir`, renamed over `path`.
fn write_entry(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .suffix(".json")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Whether `bytes` read back as `report`: what a cache hit would return is
/// what was linted (a value serde cannot carry exactly is never cached).
fn reads_back(bytes: &[u8], report: &CachedReport) -> bool {
    serde_json::from_slice::<Entry>(bytes).is_ok_and(|e| e.report == *report)
}

/// Whether an entry whose key was taken at `keyed_ns` is racily clean for
/// a tree whose newest time is `newest_ns`, at `now_ns`.
pub fn racy(newest_ns: i128, keyed_ns: i128, now_ns: i128) -> bool {
    let margin = i128::try_from(RACY_MARGIN.as_nanos()).unwrap_or(i128::MAX);
    keyed_ns > now_ns || newest_ns.saturating_add(margin) >= keyed_ns
}

/// Whether a cached report could be lint's for `pack_id` at `root`.
fn consistent(report: &CachedReport, pack_id: &PackId, root: &Path) -> bool {
    let has_error = report.diagnostics.iter().any(Diagnostic::is_error);
    let own_id = report.pack_id.as_deref() == Some(pack_id.as_str());
    report.ok == (!has_error && own_id) && report.path == root.display().to_string()
}

fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

/// The key of the tree at `root` as lint walks it; `None` when the walk
/// meets an error or more than [`MAX_ENTRIES`] entries (never cached).
pub fn tree_key(root: &Path) -> Option<TreeKey> {
    let mut hash = Sha256::new();
    hash.update(FORMAT.to_le_bytes());
    hash_bytes(&mut hash, env!("CARGO_PKG_VERSION").as_bytes());
    hash_bytes(&mut hash, root.as_os_str().as_bytes());
    let mut newest = i128::MIN;
    let meta = fs::metadata(root).ok()?;
    hash_meta(&mut hash, b".", &meta, &mut newest);
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !files::is_root_git_dir(e));
    for (seen, entry) in walk.enumerate() {
        if seen == MAX_ENTRIES {
            return None;
        }
        let entry = entry.ok()?;
        let meta = entry.metadata().ok()?;
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        hash_meta(&mut hash, rel.as_os_str().as_bytes(), &meta, &mut newest);
    }
    Some(TreeKey {
        digest: hex(&hash.finalize()),
        newest_ns: newest,
    })
}

fn hash_bytes(hash: &mut Sha256, bytes: &[u8]) {
    hash.update((bytes.len() as u64).to_le_bytes());
    hash.update(bytes);
}

/// One entry's part of a key; `newest` is raised to its times.
fn hash_meta(hash: &mut Sha256, rel: &[u8], meta: &fs::Metadata, newest: &mut i128) {
    hash_bytes(hash, rel);
    let mtime = i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
    let ctime = i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec());
    *newest = (*newest).max(mtime).max(ctime);
    for n in [
        u64::from(meta.mode()),
        meta.size(),
        meta.ino(),
        meta.dev(),
        meta.nlink(),
        u64::from(meta.uid()),
        u64::from(meta.gid()),
    ] {
        hash.update(n.to_le_bytes());
    }
    hash.update(mtime.to_le_bytes());
    hash.update(ctime.to_le_bytes());
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i128 = 1_000_000_000;

    #[test]
    fn an_entry_is_trusted_only_past_the_racy_margin() {
        let now = 1_000 * S;
        // Keyed 3 s after the newest file time, read now: trusted.
        assert!(!racy(900 * S, 903 * S, now));
        // Keyed 2 s or less after it: racily clean, not trusted.
        assert!(racy(900 * S, 902 * S, now));
        assert!(racy(900 * S, 901 * S, now));
        assert!(racy(900 * S, 900 * S, now));
        // A time in the future (a clock set back since): not trusted.
        assert!(racy(900 * S, now + 1, now));
    }

    #[test]
    fn the_key_changes_with_a_file_and_not_by_itself() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("pack.yaml");
        fs::write(&file, "a").unwrap_or_else(|e| panic!("{e}"));
        let first = tree_key(dir.path());
        assert!(first.is_some());
        assert_eq!(first, tree_key(dir.path()));
        fs::write(dir.path().join("other"), "").unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(first, tree_key(dir.path()));
        assert_eq!(tree_key(&dir.path().join("gone")), None);
    }
}
