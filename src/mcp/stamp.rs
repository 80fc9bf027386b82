//! The stamp the server takes when woken (HCP.md §16.4, §16.6): one `stat` of each file whose
//! change can change what a `tools/list` or `resources/list` answers. In
//! each store: `state.json` (activation, connection, grants), the `packs/`
//! and `skills/` folders, and of each installed pack its folder, manifest
//! (`pack.yaml`, `pack.json`), `SKILL.md` and Skill copy (install,
//! upgrade, activation); then each folder on `PATH`, whose entries change
//! when a program a command runs appears or goes. While the stamp is the
//! one of the last read, that read is still the answer; a pack whose own
//! stamp is unchanged need not be read again ([`super::reads`]).
//!
//! A pack's files are asked of its store's `packs/` folder, opened once
//! (`fstatat`), so each `stat` walks one or two path components, not the
//! whole path.

use crate::engine::ops::Engine;
use crate::engine::pack::id::PackId;
use rustix::fs::{AtFlags, Mode, OFlags};
use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

/// A file's inode, modification time and size.
pub type FileStamp = (u64, i64, i64, u64);

/// A pack's folder, `pack.yaml`, `pack.json`, `SKILL.md` and Skill copy.
pub type PackStamp = [Option<FileStamp>; 5];

/// The stamp of every file the server's answers depend on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stamp {
    /// The stores' own files, then the `PATH` folders.
    files: Vec<Option<FileStamp>>,
    /// Each installed pack's, by its folder.
    packs: HashMap<PathBuf, PackStamp>,
}

impl Stamp {
    /// Takes the stamp of `engines`' stores and of `PATH`.
    pub fn take(engines: &[Engine]) -> Stamp {
        let mut stamp = Stamp::default();
        for engine in engines {
            let store = engine.store();
            for path in [store.state_path(), store.packs_dir(), store.skills_dir()] {
                stamp.files.push(file_stamp(&path));
            }
            let dirs = PackDirs::open(engine);
            for id in store.installed_ids().unwrap_or_default() {
                stamp.packs.insert(store.pack_dir(&id), dirs.stamp(&id));
            }
        }
        if let Some(path) = std::env::var_os("PATH") {
            stamp
                .files
                .extend(std::env::split_paths(&path).map(|p| file_stamp(&p)));
        }
        stamp
    }

    /// The stamp of the pack installed at `dir`, when it was taken.
    pub fn pack(&self, dir: &Path) -> Option<&PackStamp> {
        self.packs.get(dir)
    }
}

/// A store's `packs/` and `skills/` folders, opened once, of which each
/// pack's stamp is asked.
pub struct PackDirs {
    packs: Option<OwnedFd>,
    skills: Option<OwnedFd>,
}

impl PackDirs {
    pub fn open(engine: &Engine) -> PackDirs {
        let store = engine.store();
        PackDirs {
            packs: open_dir(&store.packs_dir()),
            skills: open_dir(&store.skills_dir()),
        }
    }

    /// The stamp of installed pack `id` now: what [`Stamp::pack`] gives
    /// of a stamp taken now.
    pub fn stamp(&self, id: &PackId) -> PackStamp {
        let id = id.as_str();
        let at = |dir: &Option<OwnedFd>, rel: &str| dir.as_ref().and_then(|d| stat_at(d, rel));
        [
            at(&self.packs, id),
            at(&self.packs, &format!("{id}/pack.yaml")),
            at(&self.packs, &format!("{id}/pack.json")),
            at(&self.packs, &format!("{id}/SKILL.md")),
            at(&self.skills, &format!("{id}/SKILL.md")),
        ]
    }
}

/// The folders whose entries the stamp reads: of each store its own
/// folder (`state.json`), `packs/`, `skills/` and each installed pack's
/// folder and Skill copy's; then each folder on `PATH`. The watcher is
/// woken by changes in them (`super::wake`).
pub fn folders(engines: &[Engine]) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for engine in engines {
        let store = engine.store();
        if let Some(root) = store.state_path().parent() {
            folders.push(root.to_path_buf());
        }
        let (packs, skills) = (store.packs_dir(), store.skills_dir());
        for id in store.installed_ids().unwrap_or_default() {
            folders.push(packs.join(id.as_str()));
            folders.push(skills.join(id.as_str()));
        }
        folders.extend([packs, skills]);
    }
    if let Some(path) = std::env::var_os("PATH") {
        folders.extend(std::env::split_paths(&path).filter(|p| p.is_absolute()));
    }
    folders
}

/// One `stat` of `path` (not following a final symbolic link).
pub fn file_stamp(path: &Path) -> Option<FileStamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.ino(), m.mtime(), m.mtime_nsec(), m.len()))
}

fn open_dir(path: &Path) -> Option<OwnedFd> {
    rustix::fs::open(
        path,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()
}

fn stat_at(dir: &OwnedFd, rel: &str) -> Option<FileStamp> {
    let st = rustix::fs::statat(dir, rel, AtFlags::SYMLINK_NOFOLLOW).ok()?;
    Some((
        st.st_ino,
        st.st_mtime,
        st.st_mtime_nsec as i64,
        st.st_size as u64,
    ))
}
