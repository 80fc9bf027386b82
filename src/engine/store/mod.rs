//! The store (HCP.md §11.5, 11-lifecycle.md §11.3): `$HCP_HOME`, default
//! `~/.hcp`, holding `packs/`, `skills/`, `secrets/`, `state.json`,
//! `config.yaml`, `.tmp/` and `.lock`.
//!
//! Every change happens under an exclusive lock on `.lock` (a separate file,
//! since renames replace `state.json`'s inode) and every file is written
//! atomically: a temporary file in `.tmp/`, fsync, rename, fsync of the
//! folder. A `state.json` that does not parse is `store_corrupt`: reported,
//! never replaced.
//!
//! A writer that finds the lock held waits for it, tells its front-end once
//! that it waits (the engine never prints: [`LockWait::on_wait`]), and gives
//! up after [`LockWait::timeout`] with `timeout` (§10.1).

pub mod catalog;
pub mod config;
pub mod grant;
pub mod parallel;
pub mod snapshot;
pub mod state;

use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::store::state::State;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const STATE_FILE: &str = "state.json";
pub const CONFIG_FILE: &str = "config.yaml";
const LOCK_FILE: &str = ".lock";
const TMP_DIR: &str = ".tmp";

const CONFIG_TEMPLATE: &str = "\
# hcpx configuration (HCP §11.6).
# catalogs: folders whose sub-folders are packs that `hcpx install ID` can find.
# Relative paths are relative to this file's folder.
catalogs: []
";

/// A store on disk.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    lock_wait: LockWait,
}

/// Called once when a writer has to wait for the store lock, with the lock
/// file's path; the front-end tells the user.
pub type LockObserver = Arc<dyn Fn(&Path) + Send + Sync>;

/// How a writer waits for the store lock held by another process.
#[derive(Clone)]
pub struct LockWait {
    /// How long to wait before giving up with `timeout`.
    pub timeout: Duration,
    /// Told once, when the lock is found held.
    pub on_wait: Option<LockObserver>,
}

impl LockWait {
    /// How long a writer waits for the lock unless told otherwise.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
    /// How often a waiting writer tries the lock again.
    const POLL: Duration = Duration::from_millis(10);
}

impl Default for LockWait {
    fn default() -> Self {
        LockWait {
            timeout: LockWait::DEFAULT_TIMEOUT,
            on_wait: None,
        }
    }
}

impl std::fmt::Debug for LockWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LockWait")
            .field("timeout", &self.timeout)
            .field("on_wait", &self.on_wait.is_some())
            .finish()
    }
}

/// `$HCP_HOME`, else `~/.hcp`.
pub fn default_home() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("HCP_HOME").filter(|h| !h.is_empty()) {
        return Some(PathBuf::from(home));
    }
    directories::BaseDirs::new().map(|dirs| dirs.home_dir().join(".hcp"))
}

impl Store {
    /// Opens the store at `root`, creating its layout on first use.
    pub fn open(root: impl Into<PathBuf>) -> Result<Store> {
        Store::open_with(root, LockWait::default())
    }

    /// [`Store::open`], waiting for the lock as `lock_wait` says.
    pub fn open_with(root: impl Into<PathBuf>, lock_wait: LockWait) -> Result<Store> {
        let store = Store {
            root: root.into(),
            lock_wait,
        };
        store.create_layout()?;
        Ok(store)
    }

    fn create_layout(&self) -> Result<()> {
        let mkdir = |path: &Path, mode: u32| -> Result<()> {
            match fs::DirBuilder::new()
                .recursive(true)
                .mode(mode)
                .create(path)
            {
                Ok(()) => Ok(()),
                Err(err) => {
                    let error = Error::io("cannot create", path, &err);
                    // Keep the hint of a full disk.
                    Err(match error.context.hint {
                        Some(_) => error,
                        None => error.hint("set HCP_HOME to a folder you can write"),
                    })
                }
            }
        };
        mkdir(&self.root, 0o755)?;
        mkdir(&self.packs_dir(), 0o755)?;
        mkdir(&self.skills_dir(), 0o755)?;
        mkdir(&self.secrets_dir(), 0o700)?;
        mkdir(&self.tmp_dir(), 0o700)?;
        if !self.state_path().exists() || !self.config_path().exists() {
            let tx = self.lock()?;
            if !self.config_path().exists() {
                write_atomic(
                    &self.tmp_dir(),
                    &self.config_path(),
                    CONFIG_TEMPLATE.as_bytes(),
                    0o644,
                )?;
            }
            if !self.state_path().exists() {
                tx.write_state(&State::default())?;
            }
        }
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn packs_dir(&self) -> PathBuf {
        self.root.join("packs")
    }
    pub fn pack_dir(&self, pack_id: &str) -> PathBuf {
        self.packs_dir().join(pack_id)
    }
    pub fn skills_dir(&self) -> PathBuf {
        self.root.join("skills")
    }
    /// `<store>/skills/<pack_id>/SKILL.md` (§5.4).
    pub fn skill_path(&self, pack_id: &str) -> PathBuf {
        self.skills_dir().join(pack_id).join("SKILL.md")
    }
    pub fn secrets_dir(&self) -> PathBuf {
        self.root.join("secrets")
    }
    /// `<store>/secrets/<pack_id>` (§8.4).
    pub fn secret_path(&self, pack_id: &str) -> PathBuf {
        self.secrets_dir().join(pack_id)
    }
    pub fn tmp_dir(&self) -> PathBuf {
        self.root.join(TMP_DIR)
    }
    pub fn state_path(&self) -> PathBuf {
        self.root.join(STATE_FILE)
    }
    pub fn config_path(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }
    pub fn lock_path(&self) -> PathBuf {
        self.root.join(LOCK_FILE)
    }

    /// Reads `state.json` without locking (writes are atomic renames, so a
    /// reader sees one whole version). A missing file is the empty state.
    pub fn read_state(&self) -> Result<State> {
        let path = self.state_path();
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
            Err(err) => return Err(Error::io("cannot read", &path, &err)),
        };
        serde_json::from_slice(&bytes).map_err(|err| {
            Error::new(
                ErrorCode::StoreCorrupt,
                format!("{} is corrupt: {err}", path.display()),
            )
            .path(path.display().to_string())
            .hint("hcpx never replaces it: repair the JSON by hand, or move the file away to start from an empty state")
        })
    }

    /// Takes the store's exclusive lock (waiting for other hcpx processes,
    /// see [`LockWait`]) and reads the state.
    pub fn lock(&self) -> Result<Transaction<'_>> {
        let path = self.lock_path();
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            // A `.lock` that is a symbolic link is not followed (ELOOP).
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&path)
            .map_err(|err| Error::io("cannot open the lock file", &path, &err))?;
        wait_for_lock(&file, &path, &self.lock_wait)?;
        self.clean_tmp();
        let state = self.read_state()?;
        Ok(Transaction {
            store: self,
            _lock: file,
            original: state.clone(),
            state,
        })
    }

    /// Removes what a process killed mid-change left in `.tmp/`. Only called
    /// under the lock, and every writer holds the lock while it uses `.tmp/`.
    /// A `.tmp` that is not a folder of its own (a symbolic link to some
    /// other folder) is left alone: its entries are not ours to delete.
    fn clean_tmp(&self) {
        let tmp = self.tmp_dir();
        if !fs::symlink_metadata(&tmp).is_ok_and(|m| m.is_dir()) {
            return;
        }
        let Ok(entries) = fs::read_dir(&tmp) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let _ = match entry.file_type() {
                Ok(t) if t.is_dir() => fs::remove_dir_all(&path),
                _ => fs::remove_file(&path),
            };
        }
    }

    /// Ids of the packs present in `packs/`, sorted.
    pub fn installed_ids(&self) -> Result<Vec<String>> {
        let dir = self.packs_dir();
        let entries = fs::read_dir(&dir).map_err(|err| Error::io("cannot read", &dir, &err))?;
        let mut ids: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect();
        ids.sort();
        Ok(ids)
    }

    pub fn is_installed(&self, pack_id: &str) -> bool {
        fs::symlink_metadata(self.pack_dir(pack_id)).is_ok_and(|m| m.is_dir())
    }

    /// The stored secret of a pack, if any.
    pub fn read_secret(&self, pack_id: &str) -> Result<Option<String>> {
        let path = self.secret_path(pack_id);
        match fs::read_to_string(&path) {
            Ok(secret) => Ok(Some(secret)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(Error::io("cannot read the secret file", &path, &err)),
        }
    }
}

/// Locks `file`, trying again every [`LockWait::POLL`] while another process
/// holds it: tells `wait.on_wait` once, gives up once one holder has kept it
/// for `wait.timeout`. Each holder writes a mark of its own into the file
/// ([`mark_holder`]), so a waiter behind a queue of writers that each hold
/// the lock briefly sees them change and keeps waiting.
fn wait_for_lock(file: &File, path: &Path, wait: &LockWait) -> Result<()> {
    let mut holder: Option<Vec<u8>> = None;
    let mut since = Instant::now();
    let mut told = false;
    loop {
        match file.try_lock() {
            Ok(()) => {
                mark_holder(file);
                return Ok(());
            }
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(err)) => {
                return Err(Error::io("cannot lock", path, &err));
            }
        }
        if !told {
            told = true;
            if let Some(on_wait) = &wait.on_wait {
                on_wait(path);
            }
        }
        let now = fs::read(path).ok();
        if holder.as_ref() != now.as_ref() {
            holder = now;
            since = Instant::now();
        }
        let waited = since.elapsed();
        if waited >= wait.timeout {
            return Err(lock_timeout(path, wait.timeout));
        }
        std::thread::sleep(LockWait::POLL.min(wait.timeout - waited));
    }
}

/// Writes who holds the lock into the lock file (process id and time), for
/// [`wait_for_lock`]'s waiters; best effort.
fn mark_holder(file: &File) {
    use std::os::unix::fs::FileExt;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mark = format!("{} {nanos}\n", std::process::id());
    let _ = file.set_len(0);
    let _ = file.write_all_at(mark.as_bytes(), 0);
}

/// The error of a writer that waited `timeout` for the lock in vain.
fn lock_timeout(path: &Path, timeout: Duration) -> Error {
    Error::new(
        ErrorCode::Timeout,
        format!(
            "gave up waiting for the store lock {}: another hcpx process has held it for {} ms",
            path.display(),
            timeout.as_millis()
        ),
    )
    .path(path.display().to_string())
    .hint(format!(
        "wait for the other hcpx to finish and try again (`fuser {}` names it); HCPX_LOCK_TIMEOUT_MS sets how long to wait",
        path.display()
    ))
}

/// The store while its lock is held: the state as read, changed in memory,
/// written by [`Transaction::commit`]. Dropping it without commit releases
/// the lock and writes nothing.
pub struct Transaction<'s> {
    store: &'s Store,
    _lock: File,
    original: State,
    pub state: State,
}

impl Transaction<'_> {
    pub fn store(&self) -> &Store {
        self.store
    }

    /// Writes the state if it changed, then releases the lock.
    pub fn commit(self) -> Result<()> {
        if self.state != self.original {
            self.write_state(&self.state)?;
        }
        Ok(())
    }

    fn write_state(&self, state: &State) -> Result<()> {
        let mut text = serde_json::to_vec_pretty(state)
            .map_err(|err| Error::new(ErrorCode::Io, format!("cannot encode the state: {err}")))?;
        text.push(b'\n');
        write_atomic(
            &self.store.tmp_dir(),
            &self.store.state_path(),
            &text,
            0o644,
        )
    }

    /// Writes a file atomically inside the store (under the lock).
    pub fn write_file(&self, path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
        write_atomic(&self.store.tmp_dir(), path, bytes, mode)
    }

    /// A fresh, empty folder under `.tmp/` for staging.
    pub fn staging_dir(&self) -> Result<tempfile::TempDir> {
        let tmp = self.store.tmp_dir();
        tempfile::Builder::new()
            .prefix("stage-")
            .tempdir_in(&tmp)
            .map_err(|err| Error::io("cannot create a staging folder in", &tmp, &err))
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in `tmp_dir`,
/// fsync, rename over `path`, fsync of `path`'s folder.
pub fn write_atomic(tmp_dir: &Path, path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let mut file = tempfile::NamedTempFile::new_in(tmp_dir)
        .map_err(|err| Error::io("cannot create a temporary file in", tmp_dir, &err))?;
    let io = |err: std::io::Error| Error::io("cannot write", path, &err);
    file.as_file()
        .set_permissions(fs::Permissions::from_mode(mode))
        .map_err(io)?;
    file.write_all(bytes).map_err(io)?;
    file.as_file().sync_all().map_err(io)?;
    file.persist(path).map_err(|err| io(err.error))?;
    sync_dir(path.parent().unwrap_or(Path::new(".")));
    Ok(())
}

/// Flushes a folder's entries (the rename) to disk; best effort.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = Store::open(dir.path().join("hcp")).unwrap_or_else(|e| panic!("{e}"));
        (dir, store)
    }

    #[test]
    fn open_creates_the_layout() {
        let (_dir, store) = temp_store();
        for sub in ["packs", "skills", "secrets", ".tmp"] {
            assert!(store.root().join(sub).is_dir(), "{sub}");
        }
        assert!(store.state_path().is_file());
        assert!(store.config_path().is_file());
        let mode = fs::metadata(store.secrets_dir()).map(|m| m.permissions().mode() & 0o777);
        assert_eq!(mode.ok(), Some(0o700));
        assert_eq!(store.read_state().ok(), Some(State::default()));
    }

    #[test]
    fn commit_writes_and_drop_does_not() {
        let (_dir, store) = temp_store();
        let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        tx.state.activate("a.b");
        drop(tx);
        assert!(!store.read_state().unwrap_or_default().is_activated("a.b"));
        let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        tx.state.activate("a.b");
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
        assert!(store.read_state().unwrap_or_default().is_activated("a.b"));
    }

    #[test]
    fn corrupt_state_is_reported_and_kept() {
        let (_dir, store) = temp_store();
        fs::write(store.state_path(), "{not json").unwrap_or_else(|e| panic!("{e}"));
        let err = store.read_state().err().map(|e| e.code);
        assert_eq!(err, Some(ErrorCode::StoreCorrupt));
        assert!(store.lock().is_err());
        // Opening again does not replace it.
        let _ = Store::open(store.root());
        assert_eq!(
            fs::read_to_string(store.state_path()).ok().as_deref(),
            Some("{not json")
        );
    }

    #[test]
    fn a_held_lock_is_waited_for_then_given_up() {
        let (_dir, store) = temp_store();
        let held = File::create(store.lock_path()).unwrap_or_else(|e| panic!("{e}"));
        held.lock().unwrap_or_else(|e| panic!("{e}"));
        let told = Arc::new(std::sync::Mutex::new(Vec::<PathBuf>::new()));
        let seen = told.clone();
        let waiting = Store {
            root: store.root().to_path_buf(),
            lock_wait: LockWait {
                timeout: Duration::from_millis(50),
                on_wait: Some(Arc::new(move |path: &Path| {
                    if let Ok(mut v) = seen.lock() {
                        v.push(path.to_path_buf());
                    }
                })),
            },
        };
        let err = waiting.lock().err().unwrap_or_else(|| panic!("locked"));
        assert_eq!(err.code, ErrorCode::Timeout);
        assert!(err.message.contains(".lock"), "{}", err.message);
        let told = told.lock().map(|v| v.clone()).unwrap_or_default();
        assert_eq!(told, vec![store.lock_path()]);
        drop(held);
        assert!(waiting.lock().is_ok());
    }

    #[test]
    fn the_holder_leaves_its_mark_in_the_lock_file() {
        let (_dir, store) = temp_store();
        let tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        let mark = fs::read_to_string(store.lock_path()).unwrap_or_default();
        assert!(
            mark.starts_with(&format!("{} ", std::process::id())),
            "{mark}"
        );
        drop(tx);
        let _tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        let again = fs::read_to_string(store.lock_path()).unwrap_or_default();
        assert_ne!(mark, again);
    }

    #[test]
    fn a_tmp_that_links_elsewhere_is_not_emptied() {
        let (dir, store) = temp_store();
        let elsewhere = dir.path().join("precious");
        fs::create_dir_all(elsewhere.join("inner")).unwrap_or_else(|e| panic!("{e}"));
        fs::remove_dir(store.tmp_dir()).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(&elsewhere, store.tmp_dir()).unwrap_or_else(|e| panic!("{e}"));
        drop(store.lock());
        assert!(elsewhere.join("inner").is_dir());
    }

    #[test]
    fn a_lock_file_that_is_a_link_is_not_followed() {
        let (dir, store) = temp_store();
        let target = dir.path().join("target");
        fs::remove_file(store.lock_path()).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(&target, store.lock_path()).unwrap_or_else(|e| panic!("{e}"));
        let err = store.lock().err().map(|e| e.code);
        assert_eq!(err, Some(ErrorCode::Io));
        assert!(!target.exists());
    }

    #[test]
    fn lock_removes_leftovers_of_killed_changes() {
        let (_dir, store) = temp_store();
        fs::create_dir_all(store.tmp_dir().join("stage-x/inner")).unwrap_or_else(|e| panic!("{e}"));
        let _tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            fs::read_dir(store.tmp_dir()).map(|d| d.count()).ok(),
            Some(0)
        );
    }
}
