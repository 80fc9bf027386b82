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
//! Paths inside the store are built only from a checked [`PackId`] (§14.2),
//! and what the store creates is never writable by group or others,
//! whatever the umask (§14.1).

pub mod catalog;
pub mod config;
pub mod parallel;
pub mod snapshot;
pub mod state;

use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::id::PackId;
use crate::engine::store::state::State;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

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
        let store = Store { root: root.into() };
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
                Err(err) => Err(Error::io("cannot create", path, &err)
                    .hint("set HCP_HOME to a folder you can write")),
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

    /// Takes the store's exclusive lock (waiting for other hcpx processes)
    /// and reads the state.
    pub fn lock(&self) -> Result<Transaction<'_>> {
        let path = self.lock_path();
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o644)
            .open(&path)
            .map_err(|err| Error::io("cannot open the lock file", &path, &err))?;
        file.lock()
            .map_err(|err| Error::io("cannot lock", &path, &err))?;
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
    fn clean_tmp(&self) {
        let Ok(entries) = fs::read_dir(self.tmp_dir()) else {
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

    /// Ids of the packs present in `packs/`, sorted. Folders whose names are
    /// not pack ids are left out (see [`Store::stray_entries`]).
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

    /// Entries of `packs/`, `skills/` and `secrets/` whose names are not
    /// pack ids (§14.2): never turned into paths for deletion, only reported.
    pub fn stray_entries(&self) -> Vec<PathBuf> {
        let mut stray = Vec::new();
        for dir in [self.packs_dir(), self.skills_dir(), self.secrets_dir()] {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            stray.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_str().and_then(PackId::parse).is_none())
                    .map(|e| e.path()),
            );
        }
        stray.sort();
        stray
    }

    pub fn is_installed(&self, pack_id: &PackId) -> bool {
        fs::symlink_metadata(self.pack_dir(pack_id)).is_ok_and(|m| m.is_dir())
    }

    /// The stored secret of a pack, if any.
    pub fn read_secret(&self, pack_id: &PackId) -> Result<Option<String>> {
        let path = self.secret_path(pack_id);
        match fs::read_to_string(&path) {
            Ok(secret) => Ok(Some(secret)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(Error::io("cannot read the secret file", &path, &err)),
        }
    }
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
