//! The one removal that never follows a link (HCP.md §15.6 "Stores hold no
//! links", §14.7), and the check that a path below a root is reached
//! through real folders only.
//!
//! Every recursive delete of hcpx goes through [`remove_below`]: given a
//! root (a store, a harness target, a temporary folder of ours) and a path
//! below it, it refuses when any folder from the root down to the path is a
//! link or not a folder, and removes the tree through folder handles opened
//! `O_NOFOLLOW | O_DIRECTORY` (`openat`/`unlinkat`), so a link found inside
//! is unlinked itself, never followed, and a folder swapped for a link
//! while the removal runs is not entered. The root itself may be reached
//! through a link (`$HCP_HOME` in a dotfiles folder): it is the caller's.
//!
//! The `layering` check `only_one_recursive_removal` holds every
//! `remove_dir_all` of `src/` to this file.

use rustix::fs::{AtFlags, CWD, Dir, FileType, Mode, OFlags};
use rustix::io::Errno;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// What stands where a real folder (or file) belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreal {
    /// A symbolic link, and where it points.
    Link { path: PathBuf, to: PathBuf },
    /// Something other than a folder where a folder belongs.
    NotFolder { path: PathBuf },
}

impl Unreal {
    /// The path that is a link or not a folder.
    pub fn path(&self) -> &Path {
        match self {
            Unreal::Link { path, .. } | Unreal::NotFolder { path } => path,
        }
    }

    /// `PATH is a symbolic link (to TARGET)` or `PATH is not a folder`.
    pub fn describe(&self) -> String {
        match self {
            Unreal::Link { path, to } => format!(
                "{} is a symbolic link (to {})",
                path.display(),
                to.display()
            ),
            Unreal::NotFolder { path } => format!("{} is not a folder", path.display()),
        }
    }
}

impl std::fmt::Display for Unreal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

/// What `path` is when it is a link (with its target) or, with
/// `want_folder`, anything but a folder; `None` when it is real or missing.
pub fn unreal(path: &Path, want_folder: bool) -> Option<Unreal> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.file_type().is_symlink() {
        let to = std::fs::read_link(path).unwrap_or_default();
        return Some(Unreal::Link {
            path: path.to_path_buf(),
            to,
        });
    }
    (want_folder && !meta.is_dir()).then(|| Unreal::NotFolder {
        path: path.to_path_buf(),
    })
}

/// The first folder from `root` (excluded) down to `path` (included when
/// `path_is_folder`, else only its link-ness) that is a link or not a
/// folder; `None` when every one is real or the path stops existing
/// before.
pub fn first_unreal(root: &Path, path: &Path, path_is_folder: bool) -> Option<Unreal> {
    let rel = path.strip_prefix(root).ok()?;
    let mut at = root.to_path_buf();
    let names: Vec<&OsStr> = rel.iter().collect();
    for (i, name) in names.iter().enumerate() {
        at.push(name);
        let last = i + 1 == names.len();
        match unreal(&at, !last || path_is_folder) {
            Some(found) => return Some(found),
            None if std::fs::symlink_metadata(&at).is_err() => return None,
            None => {}
        }
    }
    None
}

/// Removes `path` — a file, a link or a whole folder — which lies below
/// `root`, never following a link: refused (`InvalidInput`) when a folder
/// between `root` and `path` is a link or not a folder, or when `path` is
/// not below `root`. Nothing there is not an error.
pub fn remove_below(root: &Path, path: &Path) -> io::Result<()> {
    let names = relative_names(root, path)?;
    let Some((last, parents)) = names.split_last() else {
        return Err(refused(path, "is the root itself"));
    };
    let mut dir = open_dir(CWD, root, true).map_err(io::Error::from)?;
    let mut at = root.to_path_buf();
    for name in parents {
        at.push(name);
        dir = match open_dir(&dir, name.as_os_str(), false) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(()),
            Err(Errno::LOOP | Errno::NOTDIR) => {
                let why =
                    unreal(&at, true).map_or_else(|| "is not a folder".into(), |u| u.describe());
                return Err(refused(&at, &why));
            }
            Err(errno) => return Err(errno.into()),
        };
    }
    remove_entry(&dir, last.as_os_str(), 0)
}

/// [`remove_below`] with `path`'s own folder as the root: for a temporary
/// folder of hcpx's own, whose place nobody else chose.
pub fn remove_own(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if path.file_name().is_some() => remove_below(parent, path),
        _ => Err(refused(path, "has no folder above it")),
    }
}

/// The deepest folder [`remove_entry`] enters; deeper trees fail rather
/// than run the process out of file handles.
const MAX_DEPTH: usize = 256;

/// Removes the entry `name` of the folder `dir`: unlinks a file or link,
/// empties and removes a folder (opened without following a link).
fn remove_entry(dir: &impl AsFd, name: &OsStr, depth: usize) -> io::Result<()> {
    let stat = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => stat,
        Err(Errno::NOENT) => return Ok(()),
        Err(errno) => return Err(errno.into()),
    };
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return unlink(dir, name, AtFlags::empty());
    }
    if depth >= MAX_DEPTH {
        return Err(io::Error::other(format!(
            "folders nested deeper than {MAX_DEPTH}"
        )));
    }
    match open_dir(dir, name, false) {
        Ok(child) => empty_dir(&child, depth + 1)?,
        // Swapped for a link or a file since the stat: unlink that.
        Err(Errno::LOOP | Errno::NOTDIR) => return unlink(dir, name, AtFlags::empty()),
        Err(Errno::NOENT) => return Ok(()),
        Err(errno) => return Err(errno.into()),
    }
    unlink(dir, name, AtFlags::REMOVEDIR)
}

/// Removes every entry of the folder `dir`.
fn empty_dir(dir: &OwnedFd, depth: usize) -> io::Result<()> {
    // Names first, removal after: a listing is not changed while read.
    let mut names: Vec<OsString> = Vec::new();
    for entry in Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.push(OsStr::from_bytes(name).to_os_string());
        }
    }
    for name in names {
        remove_entry(dir, &name, depth)?;
    }
    Ok(())
}

fn unlink(dir: &impl AsFd, name: &OsStr, flags: AtFlags) -> io::Result<()> {
    match rustix::fs::unlinkat(dir, name, flags) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(errno) => Err(errno.into()),
    }
}

/// Opens the folder `name` of `dir`; a link is followed only when
/// `follow` (the caller's root).
fn open_dir(
    dir: impl AsFd,
    name: impl rustix::path::Arg,
    follow: bool,
) -> rustix::io::Result<OwnedFd> {
    let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    rustix::fs::openat(dir, name, flags, Mode::empty())
}

/// The names from `root` down to `path`, each a plain name.
fn relative_names(root: &Path, path: &Path) -> io::Result<Vec<PathBuf>> {
    let rel = path
        .strip_prefix(root)
        .map_err(|_| refused(path, &format!("is not inside {}", root.display())))?;
    rel.components()
        .map(|c| match c {
            Component::Normal(name) => Ok(PathBuf::from(name)),
            _ => Err(refused(path, "is not a plain path below its root")),
        })
        .collect()
}

fn refused(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("hcpx removes nothing through {}: it {why}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn ok<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    /// A root with a tree to remove and, beside it, a victim folder.
    struct Fixture {
        _dir: tempfile::TempDir,
        root: PathBuf,
        victim: PathBuf,
    }

    impl Fixture {
        fn new() -> Fixture {
            let dir = ok(tempfile::tempdir());
            let root = dir.path().join("store");
            let victim = dir.path().join("victim");
            ok(fs::create_dir_all(root.join("packs/a.b/scripts")));
            ok(fs::write(root.join("packs/a.b/SKILL.md"), "x"));
            ok(fs::write(root.join("packs/a.b/scripts/run"), "x"));
            ok(fs::create_dir_all(victim.join("inner")));
            ok(fs::write(victim.join("keep.txt"), "mine"));
            ok(fs::write(victim.join("inner/keep.txt"), "mine"));
            Fixture {
                _dir: dir,
                root,
                victim,
            }
        }

        fn victim_listing(&self) -> Vec<String> {
            let mut out = Vec::new();
            for entry in walk(&self.victim) {
                out.push(entry);
            }
            out
        }
    }

    fn walk(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for entry in ok(fs::read_dir(dir)).flatten() {
            let path = entry.path();
            out.push(path.display().to_string());
            if path.is_dir() {
                out.extend(walk(&path));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_tree_is_removed_whole() {
        let f = Fixture::new();
        ok(remove_below(&f.root, &f.root.join("packs/a.b")));
        assert!(fs::symlink_metadata(f.root.join("packs/a.b")).is_err());
        assert!(f.root.join("packs").is_dir());
        // Nothing there is no error.
        ok(remove_below(&f.root, &f.root.join("packs/a.b")));
    }

    #[test]
    fn a_link_inside_is_unlinked_and_its_target_kept() {
        let f = Fixture::new();
        let before = f.victim_listing();
        ok(symlink(&f.victim, f.root.join("packs/a.b/foo")));
        ok(symlink(
            f.victim.join("keep.txt"),
            f.root.join("packs/a.b/scripts/file"),
        ));
        ok(remove_below(&f.root, &f.root.join("packs/a.b")));
        assert!(fs::symlink_metadata(f.root.join("packs/a.b")).is_err());
        assert_eq!(f.victim_listing(), before);
        assert_eq!(ok(fs::read_to_string(f.victim.join("keep.txt"))), "mine");
    }

    #[test]
    fn a_link_at_the_path_itself_is_unlinked_only() {
        let f = Fixture::new();
        let before = f.victim_listing();
        ok(symlink(&f.victim, f.root.join("packs/x.y")));
        ok(remove_below(&f.root, &f.root.join("packs/x.y")));
        assert!(fs::symlink_metadata(f.root.join("packs/x.y")).is_err());
        assert_eq!(f.victim_listing(), before);
    }

    #[test]
    fn a_link_between_root_and_path_is_refused() {
        let f = Fixture::new();
        ok(fs::create_dir_all(f.victim.join("a.b")));
        ok(fs::write(f.victim.join("a.b/precious"), "mine"));
        let before = f.victim_listing();
        ok(fs::rename(f.root.join("packs"), f.root.join("old")));
        ok(symlink(&f.victim, f.root.join("packs")));
        let err = remove_below(&f.root, &f.root.join("packs/a.b"));
        let err = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(f.victim_listing(), before);
    }

    #[test]
    fn a_file_where_a_folder_belongs_is_refused() {
        let f = Fixture::new();
        ok(fs::write(f.root.join("skills"), "x"));
        let err = remove_below(&f.root, &f.root.join("skills/a.b"));
        assert_eq!(
            err.err().map(|e| e.kind()),
            Some(io::ErrorKind::InvalidInput)
        );
        assert!(f.root.join("skills").is_file());
    }

    #[test]
    fn the_root_may_be_reached_through_a_link() {
        let f = Fixture::new();
        let linked = f.root.with_file_name("dotfiles-store");
        ok(symlink(&f.root, &linked));
        ok(remove_below(&linked, &linked.join("packs/a.b")));
        assert!(fs::symlink_metadata(f.root.join("packs/a.b")).is_err());
    }

    #[test]
    fn a_path_outside_the_root_or_the_root_itself_is_refused() {
        let f = Fixture::new();
        assert!(remove_below(&f.root, &f.victim).is_err());
        assert!(remove_below(&f.root, &f.root).is_err());
        assert!(remove_below(&f.root, &f.root.join("packs/../../victim")).is_err());
        assert!(f.victim.join("keep.txt").is_file());
    }

    #[test]
    fn first_unreal_names_the_link_and_where_it_points() {
        let f = Fixture::new();
        ok(symlink(&f.victim, f.root.join("skills")));
        let found = first_unreal(&f.root, &f.root.join("skills/a.b"), true);
        assert_eq!(
            found,
            Some(Unreal::Link {
                path: f.root.join("skills"),
                to: f.victim.clone()
            })
        );
        assert_eq!(first_unreal(&f.root, &f.root.join("packs/a.b"), true), None);
        assert_eq!(
            first_unreal(&f.root, &f.root.join("packs/none/x"), true),
            None
        );
    }
}
