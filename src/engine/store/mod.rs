//! The store (HCP.md §11.5, 11-lifecycle.md §11.3): `$HCP_HOME`, default
//! `~/.hcp`, holding `packs/`, `skills/`, `secrets/`, `state.json`,
//! `config.yaml`, `.tmp/` and `.lock`. None of its own paths may be a link
//! (§15.6, [`links`]), and every tree it deletes goes through the one
//! removal that never follows a link ([`remove`]).
//!
//! Every change happens under an exclusive lock on `.lock` (a separate file,
//! since renames replace `state.json`'s inode) and every file is written
//! atomically: a temporary file in `.tmp/`, fsync, rename, fsync of the
//! folder. A `state.json` that does not parse is `store_corrupt`: reported,
//! never replaced.
//!
//! Paths inside the store are built only from a checked [`PackId`] (§14.2),
//! and what the store creates is never writable by group or others,
//! whatever the umask (§14.1).
//!
//! A writer that finds the lock held waits for it, tells its front-end once
//! that it waits (the engine never prints: [`LockWait::on_wait`]), and gives
//! up after [`LockWait::timeout`] with `timeout` (§10.1).

pub mod catalog;
pub mod catalog_index;
pub mod collection;
pub mod config;
pub mod copy;
pub mod digest;
pub mod grant;
pub mod links;
pub mod lint_cache;
pub mod lockfile;
pub mod parallel;
pub mod principal;
pub mod project_file;
pub mod projects;
pub mod relpath;
pub mod remove;
pub mod snapshot;
pub mod source;
pub mod state;

use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::id::PackId;
use crate::engine::store::state::State;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The largest store file hcpx reads (`state.json`, `hcp.lock`,
/// `config.yaml`): far above what a store of thousands of packs writes.
pub const MAX_STORE_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Reads one of the store's own files whole; `Ok(None)` when it is missing.
/// A link is followed, as before, but what it reaches must be a regular
/// file of at most [`MAX_STORE_FILE_BYTES`]: a FIFO would make every
/// command wait for a writer forever (it is opened `O_NONBLOCK` and
/// refused), a device could be read without end.
pub fn read_store_file(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    read_file_bounded(path, rustix::fs::OFlags::NONBLOCK)
}

/// [`read_store_file`] that never follows a link (`O_NOFOLLOW`, §15.6): a
/// link there fails (`ELOOP`) instead of being read. For `state.json` and
/// the secrets, which the store's user never links.
pub fn read_store_file_nofollow(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    use rustix::fs::OFlags;
    match read_file_bounded(path, OFlags::NONBLOCK | OFlags::NOFOLLOW) {
        Err(err) if err.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => Err(
            std::io::Error::other("it is a symbolic link; hcpx does not read through it"),
        ),
        other => other,
    }
}

fn read_file_bounded(path: &Path, flags: rustix::fs::OFlags) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let flags = flags.bits();
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(i32::try_from(flags).unwrap_or(0))
        .open(path)
    {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other(
            "it is not a regular file (remove it, or put the file back)",
        ));
    }
    if meta.len() > MAX_STORE_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "it is {} bytes, over the limit of {MAX_STORE_FILE_BYTES}",
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_STORE_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_STORE_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "it is over the limit of {MAX_STORE_FILE_BYTES} bytes"
        )));
    }
    Ok(Some(bytes))
}

pub const STATE_FILE: &str = "state.json";
pub const CONFIG_FILE: &str = "config.yaml";
/// The mode of `state.json` and `config.yaml` (§14.9): they name grants,
/// catalogs and sources, so only their owner reads them.
pub const PRIVATE_FILE_MODE: u32 = 0o600;
const LOCK_FILE: &str = ".lock";
/// A project's store folder, beside its `hcp.yaml` (§15.2).
pub const PROJECT_STORE_DIR: &str = ".hcp";
/// A project store's random id (§15.2), recorded in the user store's
/// `projects.json`.
pub const STORE_ID_FILE: &str = "store-id";
const TMP_DIR: &str = ".tmp";

const CONFIG_TEMPLATE: &str = "\
# hcpx configuration (HCP §11.6).
# catalogs: folders whose sub-folders are packs hcpx installs by their id.
# Relative paths are relative to this file's folder.
catalogs: []
";

/// A store on disk.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    lock_wait: LockWait,
    /// The project whose store this is (`<project>/.hcp`, HCP.md §15.2):
    /// its lock is `<project>/hcp.lock` and every change keeps
    /// `<project>/hcp.yaml` in step (see [`project_file`]).
    project: Option<PathBuf>,
    /// What every change of a project's store ends with (keeping
    /// `hcp.yaml` in step, [`project_file`]).
    commit_hook: Option<project_file::CommitHook>,
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
            project: None,
            commit_hook: None,
        };
        store.create_layout()?;
        Ok(store)
    }

    /// Opens the store of the project at `project` (`<project>/.hcp`),
    /// creating its layout and its `.gitignore` of `*` on first use
    /// (§15.2). The caller checked that `.hcp` is a folder of its own.
    pub fn open_project(
        project: &Path,
        lock_wait: LockWait,
        commit_hook: Option<project_file::CommitHook>,
    ) -> Result<Store> {
        let store = Store {
            root: project.join(PROJECT_STORE_DIR),
            lock_wait,
            project: Some(project.to_path_buf()),
            commit_hook,
        };
        store.create_layout()?;
        let ignore = store.root.join(".gitignore");
        if fs::symlink_metadata(&ignore).is_err() {
            write_atomic(&store.tmp_dir(), &ignore, b"*\n", 0o644)?;
        }
        Ok(store)
    }

    /// The project whose store this is, if any (§15.2).
    pub fn project(&self) -> Option<&Path> {
        self.project.as_deref()
    }

    /// Opens an existing store for reading only, creating nothing: `None`
    /// when `root` is not a folder (shell completion reads the store this
    /// way, and must not create one on a TAB).
    pub fn open_existing(root: impl Into<PathBuf>) -> Option<Store> {
        let root = root.into();
        let store = root.is_dir().then(|| Store {
            root,
            lock_wait: LockWait::default(),
            project: None,
            commit_hook: None,
        });
        // Nothing is read through a link at its own paths (§15.6).
        store.filter(|s| s.unreal_paths().is_empty())
    }

    /// Creates the store's folders and files that are missing. Only the
    /// root is made with its parents (it may be reached through a link);
    /// each folder inside is made alone, so a link there is never followed
    /// (`mkdir` does not follow one), and when any runtime path is a link
    /// nothing more is created: [`Store::check_links`] refuses it (§15.6).
    fn create_layout(&self) -> Result<()> {
        let mkdir = |path: &Path, mode: u32| -> Result<()> {
            let made = match path == self.root {
                true => fs::DirBuilder::new()
                    .recursive(true)
                    .mode(mode)
                    .create(path),
                false => match fs::DirBuilder::new().mode(mode).create(path) {
                    Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                    other => other,
                },
            };
            match made {
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
        if !self.unreal_paths().is_empty() {
            return Ok(());
        }
        let missing = |path: &Path| fs::symlink_metadata(path).is_err();
        if missing(&self.state_path()) || missing(&self.config_path()) {
            let tx = self.lock()?;
            if missing(&self.config_path()) {
                write_atomic(
                    &self.tmp_dir(),
                    &self.config_path(),
                    CONFIG_TEMPLATE.as_bytes(),
                    PRIVATE_FILE_MODE,
                )?;
            }
            if missing(&self.state_path()) {
                tx.write_state(&State::default())?;
            }
        }
        for path in [self.config_path(), self.state_path()] {
            make_private(&path);
        }
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn packs_dir(&self) -> PathBuf {
        self.root.join("packs")
    }
    pub fn pack_dir(&self, pack_id: &PackId) -> PathBuf {
        self.packs_dir().join(pack_id.as_str())
    }
    pub fn skills_dir(&self) -> PathBuf {
        self.root.join("skills")
    }
    /// `<store>/skills/<pack_id>/` (§5.4).
    pub fn skill_dir(&self, pack_id: &PackId) -> PathBuf {
        self.skills_dir().join(pack_id.as_str())
    }
    /// `<store>/skills/<pack_id>/SKILL.md` (§5.4).
    pub fn skill_path(&self, pack_id: &PackId) -> PathBuf {
        self.skill_dir(pack_id).join("SKILL.md")
    }
    pub fn secrets_dir(&self) -> PathBuf {
        self.root.join("secrets")
    }
    /// `<store>/secrets/<pack_id>` (§8.4).
    pub fn secret_path(&self, pack_id: &PackId) -> PathBuf {
        self.secrets_dir().join(pack_id.as_str())
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
        let bytes = match read_store_file_nofollow(&path) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(State::default()),
            Err(err) => return Err(Error::io("cannot read", &path, &err)),
        };
        let corrupt = |why: String| {
            Error::new(
                ErrorCode::StoreCorrupt,
                format!("{} is corrupt: {why}", path.display()),
            )
            .path(path.display().to_string())
            .hint("hcpx never replaces it: repair the JSON by hand, or move the file away to start from an empty state")
        };
        let state: State =
            serde_json::from_slice(&bytes).map_err(|err| corrupt(err.to_string()))?;
        // A principal in `grants` is checked like one on the command line
        // (§9.1): a name that is not one is no grant anyone can hold. The
        // key `*` is no principal: it lists what every principal not listed
        // holds (§9.4).
        let names = state.grants.iter().flat_map(|g| g.keys());
        let mut names = names.filter(|p| p.as_str() != principal::EVERYONE_ELSE);
        if let Some(bad) = names.find(|p| !principal::is_principal(p)) {
            return Err(corrupt(format!(
                "`grants` names `{}`, which is not a principal name",
                bad.escape_default()
            )));
        }
        Ok(state)
    }

    /// Takes the store's exclusive lock (waiting for other hcpx processes,
    /// see [`LockWait`]) and reads the state.
    pub fn lock(&self) -> Result<Transaction<'_>> {
        let path = self.lock_path();
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o644)
            // A `.lock` that is a symbolic link is not followed (ELOOP).
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&path)
            .map_err(|err| Error::io("cannot open the lock file", &path, &err))?;
        wait_for_lock(&file, &path, &self.lock_wait)?;
        // A change refuses a store with a link at its own paths before it
        // changes anything (§15.6).
        self.check_links()?;
        self.clean_tmp();
        let state = self.read_state()?;
        let project_start = project_file::Start::read(self, &state);
        Ok(Transaction {
            store: self,
            _lock: file,
            project_start,
            original: state.clone(),
            state,
            undo: Vec::new(),
            scratch: None,
            scratch_next: 0,
            skills_unflushed: false,
            leftovers: Vec::new(),
            deferred: false,
            unflushed: false,
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
            let _ = remove::remove_below(&self.root, &entry.path());
        }
    }

    /// Ids of the packs present in `packs/`, sorted. Folders whose names are
    /// not pack ids are left out.
    pub fn installed_ids(&self) -> Result<Vec<PackId>> {
        let dir = self.packs_dir();
        let entries = fs::read_dir(&dir).map_err(|err| Error::io("cannot read", &dir, &err))?;
        let mut ids: Vec<PackId> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().to_str().and_then(PackId::parse))
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// Whether the store at `root` holds `pack_id` (HCP.md §15.1): its pack
    /// folder is there, or (`links_count`) a link or non-folder is on the
    /// way to it, so that this store refuses a change of it rather than
    /// another store taking it (§15.6). Opens nothing and creates nothing.
    pub fn holds_at(root: &Path, pack_id: &PackId, links_count: bool) -> bool {
        let dir = root.join("packs").join(pack_id.as_str());
        dir.is_dir() || (links_count && remove::first_unreal(root, &dir, true).is_some())
    }

    pub fn is_installed(&self, pack_id: &PackId) -> bool {
        fs::symlink_metadata(self.pack_dir(pack_id)).is_ok_and(|m| m.is_dir())
    }

    /// The stored secret of a pack, if any.
    pub fn read_secret(&self, pack_id: &PackId) -> Result<Option<String>> {
        let path = self.secret_path(pack_id);
        if let Some(found) = remove::first_unreal(&self.root, &path, false) {
            return Err(self.link_error(&found));
        }
        let bytes = read_store_file_nofollow(&path)
            .map_err(|err| Error::io("cannot read the secret file", &path, &err))?;
        bytes
            .map(|b| {
                String::from_utf8(b).map_err(|_| {
                    Error::new(
                        ErrorCode::StoreCorrupt,
                        format!("{} is not UTF-8 text", path.display()),
                    )
                })
            })
            .transpose()
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
///
/// Steps that go together (HCP.md §14.7): every change of a file or folder
/// made through the transaction (`replace_file`, `create_dir`, `move_aside`,
/// `exchange`, `save`) records how to undo it. A failed commit, or dropping
/// the transaction before commit, undoes them in reverse order, so a change
/// either completes or leaves the store as it was. What was moved aside lives
/// in a scratch folder under `.tmp/` until the change is over (the next lock
/// removes it if the process was killed).
pub struct Transaction<'s> {
    store: &'s Store,
    _lock: File,
    /// In a project's store: what the lock and the activations were when
    /// the change began, so commit can keep `hcp.yaml` in step.
    project_start: Option<project_file::Start>,
    /// The state as it is on disk now.
    original: State,
    pub state: State,
    undo: Vec<Undo>,
    scratch: Option<tempfile::TempDir>,
    /// The number the next scratch path starts looking from.
    scratch_next: usize,
    /// Paths outside `.tmp/` (beside a harness target's Skills) to delete
    /// when the change ends, committed or undone.
    leftovers: Vec<PathBuf>,
    /// Files this change writes inside the store are not flushed one by
    /// one but all at once ([`Transaction::defer_flush`]).
    deferred: bool,
    /// The Skill copies this change writes are not flushed by it
    /// ([`Transaction::leave_skills_unflushed`]).
    skills_unflushed: bool,
    /// Something was written inside the store and not flushed yet.
    unflushed: bool,
}

/// A point in a change to roll back to (see [`Transaction::mark`]).
#[derive(Debug, Clone)]
pub struct Mark {
    steps: usize,
    state: State,
}

/// How to undo one step of a change.
#[derive(Debug)]
enum Undo {
    /// Write this file back (`None`: remove it).
    File {
        path: PathBuf,
        bytes: Option<Vec<u8>>,
        mode: u32,
    },
    /// Remove a folder the change created.
    Dir(PathBuf),
    /// Rename `from` back to `to`.
    Rename { from: PathBuf, to: PathBuf },
    /// Swap two paths back.
    Exchange(PathBuf, PathBuf),
    /// Write this state back.
    State(Box<State>),
}

impl Transaction<'_> {
    pub fn store(&self) -> &Store {
        self.store
    }

    /// Writes the state if it changed, then releases the lock. When the write
    /// fails, every recorded step is undone first.
    pub fn commit(mut self) -> Result<()> {
        let done = self
            .keep_project_file()
            .and_then(|()| self.flush())
            .and_then(|()| self.save());
        if let Err(err) = done {
            self.rollback();
            return Err(err);
        }
        self.undo.clear();
        self.remove_leftovers();
        Ok(())
    }

    /// Writes the state now, when it changed, and keeps the lock: for a
    /// change whose later steps are only safe once the state says so. Undone
    /// like any other step.
    pub fn save(&mut self) -> Result<()> {
        if self.state == self.original {
            return Ok(());
        }
        // What the state will say is on disk before it says so.
        self.flush()?;
        self.write_state(&self.state)?;
        let before = std::mem::replace(&mut self.original, self.state.clone());
        self.undo.push(Undo::State(Box::new(before)));
        Ok(())
    }

    /// From now on, the Skill copies this change writes in `skills/`
    /// ([`Transaction::replace_file`]) are renamed into place without an
    /// fsync each, and flushed all at once — one `syncfs` of the store's
    /// file system, with the staged packs — before the state is next
    /// written and at commit: a change activating many packs (a sync)
    /// waits on the disk once. They are derived from the packs (`doctor
    /// --fix` re-copies one a crash left short); every other file (the
    /// state, `hcp.lock`, `hcp.yaml`) is still flushed as it is written.
    pub fn defer_flush(&mut self) {
        self.deferred = true;
    }

    /// From now on, the Skill copies this change writes in `skills/` are
    /// renamed into place and not flushed by it at all: derived from the
    /// packs, like a harness copy, a copy a power loss left short or
    /// missing is named by `doctor` and re-copied by `doctor --fix`
    /// (HCP.md §14.7). For a change that writes many and nothing else that
    /// needs a flush (activate): it does not wait on the whole file system
    /// for them.
    pub fn leave_skills_unflushed(&mut self) {
        self.skills_unflushed = true;
    }

    /// Marks that files were written inside the store (staged pack copies)
    /// that the next [`Transaction::flush`] must make durable.
    pub fn wrote_unflushed(&mut self) {
        self.unflushed = true;
    }

    /// Flushes what this change wrote inside the store and did not flush
    /// yet: one `syncfs` of the store's file system, then the store's root
    /// folder. Nothing when everything is flushed already.
    pub fn flush(&mut self) -> Result<()> {
        if !self.unflushed {
            return Ok(());
        }
        copy::flush_tree(&self.store.root)?;
        self.unflushed = false;
        Ok(())
    }

    /// Where the change stands now: a mark for [`Transaction::rollback_to`].
    pub fn mark(&self) -> Mark {
        Mark {
            steps: self.undo.len(),
            state: self.state.clone(),
        }
    }

    /// Undoes the steps recorded after `mark`, newest first, and puts the
    /// in-memory state back as it was then. Best effort: a step that cannot
    /// be undone is left for `doctor` to name.
    pub fn rollback_to(&mut self, mark: Mark) {
        self.undo_steps(mark.steps);
        self.state = mark.state;
    }

    /// Undoes every step and forgets the in-memory changes.
    fn rollback(&mut self) {
        self.undo_steps(0);
        self.state = self.original.clone();
    }

    fn undo_steps(&mut self, keep: usize) {
        while self.undo.len() > keep {
            let Some(step) = self.undo.pop() else { break };
            self.undo_step(step);
        }
    }

    fn undo_step(&mut self, step: Undo) {
        let _ = match step {
            Undo::File {
                path,
                bytes: Some(bytes),
                mode,
            } => write_atomic(&self.store.tmp_dir(), &path, &bytes, mode),
            Undo::File {
                path, bytes: None, ..
            } => {
                let _ = remove::remove_own(&path);
                Ok(())
            }
            Undo::Dir(path) => {
                let _ = remove::remove_own(&path);
                Ok(())
            }
            Undo::Rename { from, to } => {
                let _ = fs::rename(&from, &to);
                Ok(())
            }
            Undo::Exchange(a, b) => {
                let _ = exchange(&a, &b);
                Ok(())
            }
            Undo::State(state) => {
                let result = self.write_state(&state);
                if result.is_ok() {
                    self.original = *state;
                }
                result
            }
        };
    }

    fn write_state(&self, state: &State) -> Result<()> {
        step("state.write")?;
        let mut text = serde_json::to_vec_pretty(state)
            .map_err(|err| Error::new(ErrorCode::Io, format!("cannot encode the state: {err}")))?;
        text.push(b'\n');
        write_atomic(
            &self.store.tmp_dir(),
            &self.store.state_path(),
            &text,
            PRIVATE_FILE_MODE,
        )
    }

    /// Writes a file atomically inside the store (under the lock), without
    /// recording how to undo it.
    pub fn write_file(&self, path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
        write_atomic(&self.store.tmp_dir(), path, bytes, mode)
    }

    /// Writes a file atomically and records how to put back what was there
    /// (its bytes and mode, or nothing).
    pub fn replace_file(&mut self, path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
        let before = match fs::symlink_metadata(path) {
            Ok(meta) if meta.is_file() => {
                let old = fs::read(path).map_err(|err| Error::io("cannot read", path, &err))?;
                Some((old, meta.permissions().mode() & 0o777))
            }
            Ok(_) => {
                return Err(Error::io(
                    "cannot write",
                    path,
                    &std::io::Error::other("something other than a file is in the way"),
                ));
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => return Err(Error::io("cannot read", path, &err)),
        };
        let skill_copy = path.starts_with(self.store.skills_dir());
        if skill_copy && self.skills_unflushed {
            write_renamed(&self.store.tmp_dir(), path, bytes, mode)?;
        } else if skill_copy && self.deferred {
            write_renamed(&self.store.tmp_dir(), path, bytes, mode)?;
            self.unflushed = true;
        } else {
            write_atomic(&self.store.tmp_dir(), path, bytes, mode)?;
        }
        self.undo.push(match before {
            Some((old, old_mode)) => Undo::File {
                path: path.to_path_buf(),
                bytes: Some(old),
                mode: old_mode,
            },
            None => Undo::File {
                path: path.to_path_buf(),
                bytes: None,
                mode,
            },
        });
        Ok(())
    }

    /// Creates a folder (mode 0755) unless a folder (not a link) is there;
    /// undo removes it.
    pub fn create_dir(&mut self, path: &Path) -> Result<()> {
        match fs::DirBuilder::new().mode(0o755).create(path) {
            Ok(()) => {
                self.undo.push(Undo::Dir(path.to_path_buf()));
                Ok(())
            }
            // A link to a folder elsewhere is not ours to write through.
            Err(err)
                if err.kind() == std::io::ErrorKind::AlreadyExists
                    && fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) =>
            {
                Ok(())
            }
            Err(err) => Err(Error::io("cannot create", path, &err)),
        }
    }

    /// Moves `path` (a file or folder) into this change's scratch folder in
    /// one rename; undo moves it back. False when there was nothing there.
    /// What was moved aside is deleted when the transaction ends.
    pub fn move_aside(&mut self, path: &Path) -> Result<bool> {
        if let Err(err) = fs::symlink_metadata(path) {
            return match err.kind() {
                std::io::ErrorKind::NotFound => Ok(false),
                _ => Err(Error::io("cannot remove", path, &err)),
            };
        }
        let aside = self.scratch_path("aside")?;
        fs::rename(path, &aside).map_err(|err| Error::io("cannot remove", path, &err))?;
        self.undo.push(Undo::Rename {
            from: aside,
            to: path.to_path_buf(),
        });
        Ok(true)
    }

    /// Renames `from` to `to` only if nothing is at `to` (`renameat2` with
    /// `RENAME_NOREPLACE`): a folder someone else created meanwhile is never
    /// replaced (`AlreadyExists`). Undo moves it back.
    pub fn rename_new(&mut self, from: &Path, to: &Path) -> std::io::Result<()> {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => {}
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                // A file system without the flag: check, then rename.
                if fs::symlink_metadata(to).is_ok() {
                    return Err(std::io::ErrorKind::AlreadyExists.into());
                }
                fs::rename(from, to)?;
            }
            Err(errno) => return Err(errno.into()),
        }
        self.undo.push(Undo::Rename {
            from: to.to_path_buf(),
            to: from.to_path_buf(),
        });
        Ok(())
    }

    /// Puts `from` at `to` in one step. When `to` exists the two are
    /// exchanged (`renameat2` with `RENAME_EXCHANGE`, or two renames where
    /// the file system lacks it), so `from` then holds what was at `to`.
    /// Undo swaps them back (or moves `to` back to `from`).
    pub fn exchange(&mut self, from: &Path, to: &Path) -> Result<()> {
        let io = |err: std::io::Error| Error::io("cannot install into", to, &err);
        if fs::symlink_metadata(to).is_err() {
            fs::rename(from, to).map_err(io)?;
            self.undo.push(Undo::Rename {
                from: to.to_path_buf(),
                to: from.to_path_buf(),
            });
            return Ok(());
        }
        exchange(from, to).map_err(io)?;
        self.undo
            .push(Undo::Exchange(from.to_path_buf(), to.to_path_buf()));
        Ok(())
    }

    /// Deletes `path` (a file or folder this change staged or set aside
    /// outside `.tmp/`) when the change ends, committed or undone.
    pub fn remove_when_done(&mut self, path: PathBuf) {
        self.leftovers.push(path);
    }

    fn remove_leftovers(&mut self) {
        for path in self.leftovers.drain(..) {
            let _ = remove::remove_own(&path);
        }
        // The scratch folder under `.tmp/`, removed without following a
        // link put inside it.
        if let Some(scratch) = self.scratch.take() {
            let _ = remove::remove_below(&self.store.root, &scratch.keep());
        }
    }

    /// A fresh path (not created) inside this change's scratch folder under
    /// `.tmp/`, which lives until the transaction ends.
    pub fn scratch_path(&mut self, name: &str) -> Result<PathBuf> {
        if self.scratch.is_none() {
            self.scratch = Some(self.staging_dir()?);
        }
        let dir = self.scratch.as_ref().map(|d| d.path().to_path_buf());
        let dir = dir.unwrap_or_else(|| self.store.tmp_dir());
        // Counted on from the last: many packs staged in one change look
        // at one name each, not at every name taken before.
        loop {
            let path = dir.join(format!("{name}-{}", self.scratch_next));
            self.scratch_next += 1;
            if fs::symlink_metadata(&path).is_err() {
                return Ok(path);
            }
        }
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

impl Drop for Transaction<'_> {
    /// A change abandoned before commit (an error returned with `?`) is
    /// undone.
    fn drop(&mut self) {
        self.rollback();
        self.remove_leftovers();
    }
}

/// Swaps two paths in one step where the file system can, else with three
/// renames through a name beside `a`.
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    if renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).is_ok() {
        return Ok(());
    }
    let via = a.with_extension("swap");
    fs::rename(b, &via)?;
    if let Err(err) = fs::rename(a, b) {
        let _ = fs::rename(&via, b);
        return Err(err);
    }
    fs::rename(&via, a)
}

/// Test hooks at the named steps of a change (HCP.md §14.7), so tests can
/// stop a change exactly there: `HCPX_TEST_CRASH_AT=STEP` kills this process
/// with SIGKILL on reaching STEP; `HCPX_TEST_FAIL_AT=STEP` makes STEP fail
/// with `io`; `HCPX_TEST_STOP_AT=STEP` stops this process (SIGSTOP) there
/// until a test has changed something and sent SIGCONT;
/// `HCPX_TEST_STEP_LOG=FILE` appends each step's name reached, one a line,
/// to FILE, so a test counts how often a command writes the state or plans
/// the targets (that it stays linear, without a clock). Unset, a step does
/// nothing. They exist only in debug builds (§14.11): a release binary has
/// the no-op twin below, and reads no `HCPX_TEST_*` variable at all (the
/// `test_hooks_only_in_debug_builds` check in `engine/layering.rs` holds
/// every such read to this function).
#[cfg(debug_assertions)]
pub fn step(name: &str) -> Result<()> {
    let hit = |var: &str| std::env::var_os(var).is_some_and(|v| v == name);
    if let Some(log) = std::env::var_os("HCPX_TEST_STEP_LOG") {
        let _ = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .and_then(|mut file| writeln!(file, "{name}"));
    }
    if hit("HCPX_TEST_STOP_AT") {
        let _ =
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::STOP);
    }
    if hit("HCPX_TEST_CRASH_AT") {
        let _ =
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
        std::process::abort();
    }
    if hit("HCPX_TEST_FAIL_AT") {
        return Err(Error::new(
            ErrorCode::Io,
            format!("{name} failed (HCPX_TEST_FAIL_AT)"),
        ));
    }
    Ok(())
}

/// A named step of a change: in a release build, nothing (§14.11).
#[cfg(not(debug_assertions))]
#[inline(always)]
pub fn step(_name: &str) -> Result<()> {
    Ok(())
}

/// Takes group and other access away from a store file an earlier release
/// (or another program) left readable (§14.9); a link is not followed, and
/// a file that cannot be changed is left for `doctor` to name.
fn make_private(path: &Path) {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_file() && meta.permissions().mode() & 0o077 != 0 {
        let _ = fs::set_permissions(path, fs::Permissions::from_mode(PRIVATE_FILE_MODE));
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in `tmp_dir`,
/// fsync, rename over `path`, fsync of `path`'s folder.
pub fn write_atomic(tmp_dir: &Path, path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    write_via_temp(tmp_dir, path, bytes, mode, true)
}

/// [`write_atomic`] without the fsyncs: a temporary file in `tmp_dir`
/// renamed over `path`, for a change that flushes everything it wrote at
/// once ([`Transaction::defer_flush`]).
fn write_renamed(tmp_dir: &Path, path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    write_via_temp(tmp_dir, path, bytes, mode, false)
}

/// A temporary file in `tmp_dir` with `mode` and `bytes`, renamed over
/// `path`; with `durable`, the file is fsynced before the rename and
/// `path`'s folder after it.
fn write_via_temp(
    tmp_dir: &Path,
    path: &Path,
    bytes: &[u8],
    mode: u32,
    durable: bool,
) -> Result<()> {
    let mut file = tempfile::NamedTempFile::new_in(tmp_dir)
        .map_err(|err| Error::io("cannot create a temporary file in", tmp_dir, &err))?;
    let io = |err: std::io::Error| Error::io("cannot write", path, &err);
    file.as_file()
        .set_permissions(fs::Permissions::from_mode(mode))
        .map_err(io)?;
    file.write_all(bytes).map_err(io)?;
    if durable {
        file.as_file().sync_all().map_err(io)?;
    }
    file.persist(path).map_err(|err| io(err.error))?;
    if durable {
        sync_dir(path.parent().unwrap_or(Path::new(".")));
    }
    Ok(())
}

/// Creates `path` and its missing parents as folders with mode 0755,
/// whatever the umask (§14.1). A symbolic link at `path` is refused, not
/// followed.
pub fn create_dir(path: &Path) -> Result<()> {
    let io = |err: std::io::Error| Error::io("cannot create", path, &err);
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(path)
        .map_err(io)?;
    if fs::symlink_metadata(path)
        .map_err(io)?
        .file_type()
        .is_symlink()
    {
        return Err(Error::new(
            ErrorCode::Io,
            format!(
                "{} is a symbolic link; hcpx does not write through it",
                path.display()
            ),
        )
        .path(path.display().to_string()));
    }
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).map_err(io)
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

    fn id(s: &str) -> PackId {
        PackId::parse(s).unwrap_or_else(|| panic!("{s}"))
    }

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
        let id = PackId::parse("a.b").unwrap_or_else(|| panic!("valid id"));
        let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        tx.state.activate(&id);
        drop(tx);
        assert!(!store.read_state().unwrap_or_default().is_activated("a.b"));
        let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        tx.state.activate(&id);
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
            project: None,
            commit_hook: None,
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

    #[test]
    fn dropping_a_transaction_undoes_its_steps_in_reverse() {
        let (_dir, store) = temp_store();
        let root = store.root().to_path_buf();
        fs::write(root.join("skills/.kept"), "old").unwrap_or_else(|e| panic!("{e}"));
        fs::create_dir_all(root.join("packs/a.b")).unwrap_or_else(|e| panic!("{e}"));
        let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        tx.replace_file(&root.join("skills/.kept"), b"new", 0o644)
            .unwrap_or_else(|e| panic!("{e}"));
        tx.create_dir(&root.join("skills/x.y"))
            .unwrap_or_else(|e| panic!("{e}"));
        tx.replace_file(&root.join("skills/x.y/SKILL.md"), b"s", 0o644)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(tx.move_aside(&root.join("packs/a.b")).ok(), Some(true));
        assert_eq!(tx.move_aside(&root.join("packs/none")).ok(), Some(false));
        tx.state.activate(&id("x.y"));
        tx.save().unwrap_or_else(|e| panic!("{e}"));
        assert!(
            store
                .read_state()
                .unwrap_or_default()
                .is_activated(&id("x.y"))
        );
        drop(tx);
        assert_eq!(
            fs::read(root.join("skills/.kept")).ok(),
            Some(b"old".to_vec())
        );
        assert!(!root.join("skills/x.y").exists());
        assert!(root.join("packs/a.b").is_dir());
        assert_eq!(store.read_state().ok(), Some(State::default()));
        assert_eq!(
            fs::read_dir(store.tmp_dir()).map(|d| d.count()).ok(),
            Some(0)
        );
    }

    #[test]
    fn rollback_to_a_mark_keeps_the_steps_before_it() {
        let (_dir, store) = temp_store();
        let root = store.root().to_path_buf();
        let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        tx.replace_file(&root.join("skills/one"), b"1", 0o644)
            .unwrap_or_else(|e| panic!("{e}"));
        tx.state.activate(&id("a.one"));
        let mark = tx.mark();
        tx.replace_file(&root.join("skills/two"), b"2", 0o644)
            .unwrap_or_else(|e| panic!("{e}"));
        tx.state.activate(&id("a.two"));
        tx.rollback_to(mark);
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
        assert!(root.join("skills/one").is_file());
        assert!(!root.join("skills/two").exists());
        let state = store.read_state().unwrap_or_default();
        assert_eq!(state.activated, vec![id("a.one")]);
    }

    #[test]
    fn exchange_swaps_and_is_undone() {
        let (_dir, store) = temp_store();
        let root = store.root().to_path_buf();
        fs::create_dir_all(root.join("packs/a.b")).unwrap_or_else(|e| panic!("{e}"));
        fs::write(root.join("packs/a.b/v"), "1").unwrap_or_else(|e| panic!("{e}"));
        let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        let staged = tx.scratch_path("pack").unwrap_or_else(|e| panic!("{e}"));
        fs::create_dir_all(&staged).unwrap_or_else(|e| panic!("{e}"));
        fs::write(staged.join("v"), "2").unwrap_or_else(|e| panic!("{e}"));
        tx.exchange(&staged, &root.join("packs/a.b"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            fs::read_to_string(root.join("packs/a.b/v")).ok().as_deref(),
            Some("2")
        );
        drop(tx);
        assert_eq!(
            fs::read_to_string(root.join("packs/a.b/v")).ok().as_deref(),
            Some("1")
        );
        assert_eq!(
            fs::read_dir(store.tmp_dir()).map(|d| d.count()).ok(),
            Some(0)
        );
    }
}
