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
//! (another version's rules may differ), and the paths that walk visited.
//! An entry is used only when
//!
//! - the tree's key now is the entry's key (one `lstat` per entry, no file
//!   read). The key is first taken over the entry's paths, no folder
//!   listed: while every folder's metadata (its change time with it) is
//!   as it was, each folder holds what the walk listed in it, and when one
//!   is not the key differs and the tree is walked as lint walks it;
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
//!
//! Who removes: `uninstall` its pack's entry ([`LintCache::forget`]), and
//! `doctor --fix` the entries of packs not installed and the temporary
//! files of writes that never ended ([`LintCache::sweep`]).

use crate::engine::lint::LintReport;
use crate::engine::lint::diagnostic::Diagnostic;
use crate::engine::lint::files::MAX_FILES;
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
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The cache's format; an entry of another format is a miss (2: entries
/// record the paths of their walk).
const FORMAT: u32 = 2;

/// How much older than the moment its key was taken every time in a
/// pack's tree must be for its entry to be trusted (racily clean).
pub const RACY_MARGIN: Duration = Duration::from_secs(2);

/// The largest entry read (or written).
pub const MAX_ENTRY_BYTES: u64 = 4 * 1024 * 1024;

/// Entries the key walk visits at most (as lint's walk): a larger tree is
/// never cached.
const MAX_ENTRIES: usize = 10 * MAX_FILES;

/// The buffer a folder's entries are read into (`getdents64`): room for
/// dozens of the longest names at a time.
const DIRENT_BUF: usize = 16 * 1024;

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
    /// The paths the key's walk visited, in its order (see
    /// [`replayed_key`]); absent in an entry of an older hcpx, or when a
    /// name is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    paths: Option<Vec<String>>,
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

/// The store's cache folder, checked: its entries are read only when it
/// and `.cache/` are real folders of ours that others cannot write (then
/// it is held open, and entries are opened in it).
#[derive(Debug)]
pub struct LintCache {
    dir: PathBuf,
    fd: Option<std::os::fd::OwnedFd>,
}

impl LintCache {
    /// The cache of `store`, its folders checked once.
    pub fn open(store: &Store) -> LintCache {
        let dir = store.root().join(".cache").join("lint");
        LintCache {
            fd: open_private_dir(&dir),
            dir,
        }
    }

    /// The lint report of an installed pack: the cached one when the cache
    /// holds a trusted entry for the pack's tree as it is now, else
    /// `lint()`'s, written to the cache (best effort).
    ///
    /// The tree's key is first taken over the paths the entry recorded
    /// ([`replayed_key`]: one `stat` each, no folder listed); only when that
    /// does not match is the tree walked ([`tree_key`]).
    pub fn lint_installed(
        &self,
        store: &Store,
        pack_id: &PackId,
        lint: impl FnOnce() -> LintReport,
    ) -> LintReport {
        let root = store.pack_dir(pack_id);
        let keyed_ns = now_ns();
        let entry = self.load(pack_id);
        let holds = |key: &TreeKey| {
            entry
                .as_ref()
                .is_some_and(|e| trusts(e, key, pack_id, &root))
        };
        let replayed = entry
            .as_ref()
            .and_then(|e| replayed_key(&root, e.paths.as_ref()?));
        if replayed.as_ref().is_some_and(holds)
            && let Some(entry) = entry
        {
            return entry.report.into_report(root);
        }
        let walked = walk(&root);
        if walked.as_ref().is_some_and(|(key, _)| holds(key))
            && let Some(entry) = entry
        {
            return entry.report.into_report(root);
        }
        let report = lint();
        if let Some((key, paths)) = walked {
            self.write(pack_id, &key, paths, keyed_ns, &report);
        }
        report
    }

    /// Whether the cache holds an entry for `pack_id` that a lint of the
    /// pack now would use (for tests and diagnostics).
    pub fn trusted(&self, store: &Store, pack_id: &PackId) -> bool {
        let root = store.pack_dir(pack_id);
        let Some(entry) = self.load(pack_id) else {
            return false;
        };
        let replayed = entry.paths.as_ref().and_then(|p| replayed_key(&root, p));
        [replayed, tree_key(&root)]
            .iter()
            .flatten()
            .any(|key| trusts(&entry, key, pack_id, &root))
    }

    /// Where the entry of `pack_id` is.
    pub fn entry_path(&self, pack_id: &PackId) -> PathBuf {
        self.dir.join(format!("{}.json", pack_id.as_str()))
    }

    /// The entry of `pack_id`, when there is one of this format that parses
    /// and names the pack (whether its key holds is [`trusts`]'s to say).
    fn load(&self, pack_id: &PackId) -> Option<Entry> {
        let fd = self.fd.as_ref()?;
        let bytes = read_entry(fd, &format!("{}.json", pack_id.as_str()))?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        (entry.format == FORMAT && entry.pack_id == pack_id.as_str()).then_some(entry)
    }

    /// Writes the entry of `pack_id`; any failure leaves the cache as it
    /// was (or without the entry).
    fn write(
        &self,
        pack_id: &PackId,
        key: &TreeKey,
        paths: Option<Vec<String>>,
        keyed_ns: i128,
        report: &LintReport,
    ) {
        // An entry keyed within the racy margin of the tree's newest time
        // can never be trusted (its key time stays what it is): writing it
        // would only cost every read right after a change a write per pack.
        if racy(key.newest_ns, keyed_ns, keyed_ns) {
            return;
        }
        let Ok(keyed_ns) = i64::try_from(keyed_ns) else {
            return;
        };
        let entry = Entry {
            format: FORMAT,
            pack_id: pack_id.as_str().to_string(),
            key: key.digest.clone(),
            keyed_ns,
            report: CachedReport::of(report),
            paths,
        };
        let Ok(bytes) = serde_json::to_vec(&entry) else {
            return;
        };
        if bytes.len() as u64 > MAX_ENTRY_BYTES || !reads_back(&bytes, &entry.report) {
            return;
        }
        if self.fd.is_none() && !self.create_dir() {
            return;
        }
        let _ = write_entry(&self.dir, &self.entry_path(pack_id), &bytes);
    }

    /// Removes the entry of `pack_id` (its pack was uninstalled); best
    /// effort, and only in a cache folder of ours.
    pub fn forget(&self, pack_id: &PackId) {
        if let Some(fd) = &self.fd {
            let _ = rustix::fs::unlinkat(
                fd,
                format!("{}.json", pack_id.as_str()),
                rustix::fs::AtFlags::empty(),
            );
        }
    }

    /// Removes what no read will use again: the entries of packs that are
    /// not installed, and the temporary files of writes that never ended
    /// (older than [`LEFTOVER_AGE`], so a writer at work now keeps its
    /// own). Only names the cache writes are touched, in a cache folder of
    /// ours, never through a link. Returns how many were removed.
    pub fn sweep(&self, installed: &dyn Fn(&PackId) -> bool) -> usize {
        let Some(fd) = &self.fd else { return 0 };
        let Ok(dir) = rustix::fs::Dir::read_from(fd) else {
            return 0;
        };
        let now = SystemTime::now();
        let mut removed = 0;
        for entry in dir.flatten() {
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            let stale = match name.strip_suffix(".json") {
                Some(tmp) if tmp.starts_with(".tmp-") => {
                    leftover_age(fd, name).is_some_and(|age| age_since(age, now) > LEFTOVER_AGE)
                }
                Some(id) => PackId::parse(id).is_some_and(|id| !installed(&id)),
                None => false,
            };
            if stale && rustix::fs::unlinkat(fd, name, rustix::fs::AtFlags::empty()).is_ok() {
                removed += 1;
            }
        }
        removed
    }

    /// Makes `.cache/lint/` (0700) when missing; whether it is usable now.
    fn create_dir(&self) -> bool {
        let _ = fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir);
        open_private_dir(&self.dir).is_some()
    }
}

/// `dir` opened, when it and its parent are real folders (not links) of
/// ours that group and others cannot write.
fn open_private_dir(dir: &Path) -> Option<std::os::fd::OwnedFd> {
    use rustix::fs::{CWD, Mode, OFlags};
    let parent = dir.parent()?;
    if !fs::symlink_metadata(parent).is_ok_and(|m| m.is_dir() && ours_and_private(&m)) {
        return None;
    }
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(CWD, dir, flags, Mode::empty()).ok()?;
    let stat = rustix::fs::fstat(&fd).ok()?;
    private_stat(&stat).then_some(fd)
}

/// How old a temporary file of the cache must be before [`LintCache::sweep`]
/// takes it for the leftover of a write that never ended.
pub const LEFTOVER_AGE: Duration = Duration::from_secs(3600);

/// When the regular file `name` in `dir` was last changed, not following a
/// link.
fn leftover_age(dir: &std::os::fd::OwnedFd, name: &str) -> Option<SystemTime> {
    let stat = rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
    let secs = u64::try_from(stat.st_mtime).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(secs))
}

fn age_since(then: SystemTime, now: SystemTime) -> Duration {
    now.duration_since(then).unwrap_or_default()
}

fn euid() -> u32 {
    static EUID: OnceLock<u32> = OnceLock::new();
    *EUID.get_or_init(|| rustix::process::geteuid().as_raw())
}

fn ours_and_private(meta: &fs::Metadata) -> bool {
    meta.uid() == euid() && meta.mode() & 0o022 == 0
}

fn private_stat(stat: &rustix::fs::Stat) -> bool {
    stat.st_uid == euid() && stat.st_mode & 0o022 == 0
}

/// The bytes of the entry `name` in the cache folder `dir`: a regular file
/// of ours, not group or world writable, of at most [`MAX_ENTRY_BYTES`],
/// opened without following a link or waiting for a FIFO's writer.
fn read_entry(dir: &std::os::fd::OwnedFd, name: &str) -> Option<Vec<u8>> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, name, flags, Mode::empty()).ok()?;
    let stat = rustix::fs::fstat(&fd).ok()?;
    let regular =
        rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile;
    let len = u64::try_from(stat.st_size).ok()?;
    if !regular || !private_stat(&stat) || len > MAX_ENTRY_BYTES {
        return None;
    }
    // The size `fstat` gave, read at once: an entry is only ever replaced
    // by a rename, never written in place, so no read to the end is needed
    // (a file that shrank since fails here; one that grew fails to parse).
    let mut bytes = vec![0; usize::try_from(len).ok()?];
    fs::File::from(fd).read_exact(&mut bytes).ok()?;
    Some(bytes)
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

/// Whether `entry` holds for the tree of `pack_id` at `root` whose key is
/// `key` now: the same key, not racily clean, a consistent report.
fn trusts(entry: &Entry, key: &TreeKey, pack_id: &PackId, root: &Path) -> bool {
    entry.key == key.digest
        && !racy(key.newest_ns, i128::from(entry.keyed_ns), now_ns())
        && consistent(&entry.report, pack_id, root)
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

/// Which lint wrote an entry: a digest of lint's own source (the rules in
/// `engine/lint/` and the pack model they read in `engine/pack/`), taken
/// when hcpx is compiled (FNV-1a, nothing done at run time). A build whose
/// lint differs at the same version (a development build) trusts no entry
/// another one wrote.
const LINT_BUILD: u64 = {
    const SOURCES: [&str; 12] = [
        include_str!("../lint/mod.rs"),
        include_str!("../lint/diagnostic.rs"),
        include_str!("../lint/files.rs"),
        include_str!("../lint/manifest.rs"),
        include_str!("../lint/skill.rs"),
        include_str!("../lint/text.rs"),
        include_str!("../pack/document.rs"),
        include_str!("../pack/grammar.rs"),
        include_str!("../pack/id.rs"),
        include_str!("../pack/manifest.rs"),
        include_str!("../pack/skill.rs"),
        include_str!("../pack/text.rs"),
    ];
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < SOURCES.len() {
        let bytes = SOURCES[i].as_bytes();
        let mut j = 0;
        while j < bytes.len() {
            hash ^= bytes[j] as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
            j += 1;
        }
        i += 1;
    }
    hash
};

/// The key of the tree at `root` as lint walks it (no link followed
/// inside, the root's `.git/` left out); `None` when the walk meets an
/// error or more than [`MAX_ENTRIES`] entries (never cached). Each folder
/// is opened once and its entries are asked of it (`fstatat`), so a path
/// is resolved once per folder, not once per file.
pub fn tree_key(root: &Path) -> Option<TreeKey> {
    walk(root).map(|(key, _)| key)
}

/// [`tree_key`], with the paths the walk visited in its order (`None` when
/// a name is not UTF-8): what [`replayed_key`] needs to take the same key
/// without listing a folder.
fn walk(root: &Path) -> Option<(TreeKey, Option<Vec<String>>)> {
    use rustix::fs::{AtFlags, Mode, OFlags};
    let (root_fd, mut key) = KeyHash::start(root)?;
    let mut folders: Vec<(std::os::fd::OwnedFd, Vec<u8>)> = vec![(root_fd, Vec::new())];
    let mut paths: Vec<Vec<u8>> = Vec::new();
    let mut seen = 0usize;
    // One buffer for every folder's entries, read from the folder's own
    // descriptor (no second descriptor per folder, as `Dir::read_from` opens).
    let mut buf: Vec<u8> = Vec::with_capacity(DIRENT_BUF);
    while let Some((fd, prefix)) = folders.pop() {
        let mut names: Vec<std::ffi::CString> = Vec::new();
        let mut entries = rustix::fs::RawDir::new(&fd, buf.spare_capacity_mut());
        while let Some(entry) = entries.next() {
            let name = entry.ok()?.file_name().to_owned();
            if name.as_bytes() != b"." && name.as_bytes() != b".." {
                names.push(name);
            }
        }
        names.sort();
        for name in names {
            seen += 1;
            if seen > MAX_ENTRIES {
                return None;
            }
            let stat = rustix::fs::statat(&fd, &name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
            if is_dir(&stat) && prefix.is_empty() && name.as_bytes() == b".git" {
                continue;
            }
            let mut rel = prefix.clone();
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(name.as_bytes());
            key.add(&rel, &stat);
            if is_dir(&stat) {
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
                let sub = rustix::fs::openat(&fd, &name, flags, Mode::empty()).ok()?;
                folders.push((sub, rel.clone()));
            }
            paths.push(rel);
        }
    }
    let paths: Result<Vec<String>, _> = paths.into_iter().map(String::from_utf8).collect();
    Some((key.finish(), paths.ok()))
}

/// The key of the tree at `root` taken over `paths`, the paths an entry
/// says the walk that made its key visited, in that order: the root's
/// `fstat` and one `fstatat` of each path from the root, no folder listed.
///
/// It is [`tree_key`] whenever it equals the entry's key: then every
/// folder on the list has the metadata it had in that walk, change time
/// included, and a folder's change time moves whenever an entry is added to
/// it, removed from it or renamed in it (and cannot be set back), so each
/// folder holds what the walk listed in it; the racy rule covers two changes
/// within one tick, as for any file. When a path is gone, a folder is now
/// something else, or the list is not one a walk makes, the answer is
/// `None` or another key, and the tree is walked. A path is asked for only
/// below a folder this pass has just seen as a folder (not a link).
fn replayed_key(root: &Path, paths: &[String]) -> Option<TreeKey> {
    use rustix::fs::AtFlags;
    if paths.len() > MAX_ENTRIES {
        return None;
    }
    let (root_fd, mut key) = KeyHash::start(root)?;
    let mut folders: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for rel in paths {
        let parent_seen = match rel.rsplit_once('/') {
            Some((parent, _)) => folders.contains(parent),
            None => true,
        };
        let plain = rel
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
        if !parent_seen || !plain || rel == ".git" {
            return None;
        }
        let stat = rustix::fs::statat(&root_fd, rel.as_str(), AtFlags::SYMLINK_NOFOLLOW).ok()?;
        key.add(rel.as_bytes(), &stat);
        if is_dir(&stat) {
            folders.insert(rel);
        }
    }
    Some(key.finish())
}

fn is_dir(stat: &rustix::fs::Stat) -> bool {
    rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Directory
}

/// A key being taken: the digest so far and the newest time seen.
struct KeyHash {
    hash: Sha256,
    newest: i128,
}

impl KeyHash {
    /// The pack folder `root` opened (it may be a link to a folder, as lint
    /// allows) and a key holding the format, the version, the lint build,
    /// the path and the folder's own metadata.
    fn start(root: &Path) -> Option<(std::os::fd::OwnedFd, KeyHash)> {
        use rustix::fs::{CWD, Mode, OFlags};
        let mut hash = Sha256::new();
        hash.update(FORMAT.to_le_bytes());
        hash_bytes(&mut hash, env!("CARGO_PKG_VERSION").as_bytes());
        hash_bytes(&mut hash, &LINT_BUILD.to_le_bytes());
        hash_bytes(&mut hash, root.as_os_str().as_bytes());
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(CWD, root, flags, Mode::empty()).ok()?;
        let mut key = KeyHash {
            hash,
            newest: i128::MIN,
        };
        key.add(b".", &rustix::fs::fstat(&fd).ok()?);
        Some((fd, key))
    }

    fn add(&mut self, rel: &[u8], stat: &rustix::fs::Stat) {
        hash_stat(&mut self.hash, rel, stat, &mut self.newest);
    }

    fn finish(self) -> TreeKey {
        TreeKey {
            digest: crate::engine::store::digest::hex(&self.hash.finalize()),
            newest_ns: self.newest,
        }
    }
}

fn hash_bytes(hash: &mut Sha256, bytes: &[u8]) {
    hash.update((bytes.len() as u64).to_le_bytes());
    hash.update(bytes);
}

/// One entry's part of a key; `newest` is raised to its times. Each field
/// goes in at its own fixed width (76 bytes in all on Linux x86-64, where
/// widening all to 128 bits took 144): fewer blocks to digest, the same
/// metadata.
fn hash_stat(hash: &mut Sha256, rel: &[u8], st: &rustix::fs::Stat, newest: &mut i128) {
    const NS: i128 = 1_000_000_000;
    hash_bytes(hash, rel);
    let mtime = i128::from(st.st_mtime) * NS + i128::from(st.st_mtime_nsec);
    let ctime = i128::from(st.st_ctime) * NS + i128::from(st.st_ctime_nsec);
    *newest = (*newest).max(mtime).max(ctime);
    hash.update(st.st_mtime.to_le_bytes());
    hash.update(st.st_mtime_nsec.to_le_bytes());
    hash.update(st.st_ctime.to_le_bytes());
    hash.update(st.st_ctime_nsec.to_le_bytes());
    hash.update(st.st_mode.to_le_bytes());
    hash.update(st.st_size.to_le_bytes());
    hash.update(st.st_ino.to_le_bytes());
    hash.update(st.st_dev.to_le_bytes());
    hash.update(st.st_nlink.to_le_bytes());
    hash.update(st.st_uid.to_le_bytes());
    hash.update(st.st_gid.to_le_bytes());
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

    /// Taken over the paths the walk visited, the key is the walk's; a list
    /// no walk makes (a path out of the tree, below a file or a link, the
    /// root's `.git`) gives none.
    #[test]
    fn the_replayed_key_is_the_walks() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let ok = |r: std::io::Result<()>| r.unwrap_or_else(|e| panic!("{e}"));
        ok(fs::create_dir_all(root.join("sub/deeper")));
        ok(fs::create_dir(root.join(".git")));
        ok(fs::write(root.join("sub/deeper/f"), "a"));
        ok(fs::write(root.join("g"), "b"));
        ok(std::os::unix::fs::symlink("sub", root.join("link")));
        let (key, paths) = walk(root).unwrap_or_else(|| panic!("no key"));
        let paths = paths.unwrap_or_else(|| panic!("no paths"));
        assert_eq!(paths, ["g", "link", "sub", "sub/deeper", "sub/deeper/f"]);
        assert_eq!(replayed_key(root, &paths), Some(key.clone()));
        assert_ne!(replayed_key(root, &paths[..4]), Some(key));
        for bad in [
            &["..", "g"][..],
            &["sub/../g"],
            &["g/x"],
            &["link/deeper"],
            &["sub/deeper/f", "sub"],
            &[".git"],
            &["/etc"],
            &["sub//deeper"],
        ] {
            let bad: Vec<String> = bad.iter().map(|p| p.to_string()).collect();
            assert_eq!(replayed_key(root, &bad), None, "{bad:?}");
        }
    }

    /// A file in a subfolder counts, a link counts (not what it points
    /// to), and the root's `.git/` does not (lint ignores it).
    #[test]
    fn the_key_covers_the_tree_lint_walks() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let ok = |r: std::io::Result<()>| r.unwrap_or_else(|e| panic!("{e}"));
        ok(fs::create_dir_all(root.join("sub/deeper")));
        ok(fs::create_dir(root.join(".git")));
        ok(fs::write(root.join("sub/deeper/f"), "a"));
        ok(std::os::unix::fs::symlink(
            "sub/deeper/f",
            root.join("link"),
        ));
        let key = || tree_key(root).unwrap_or_else(|| panic!("no key"));
        let first = key();
        ok(fs::write(root.join(".git/HEAD"), "x"));
        assert_eq!(first, key());
        let link = fs::symlink_metadata(root.join("link")).map(|m| m.ino());
        ok(fs::write(root.join("sub/deeper/f"), "b"));
        let second = key();
        assert_ne!(first, second);
        ok(fs::remove_file(root.join("link")));
        ok(std::os::unix::fs::symlink(
            "sub/deeper/f",
            root.join("link"),
        ));
        assert!(link.is_ok());
        assert_ne!(second, key());
    }
}
