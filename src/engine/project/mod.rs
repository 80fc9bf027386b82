//! Project scope (HCP.md §15): a folder holding `hcp.yaml`, found by
//! walking up from the working directory (§15.1), with `hcp.lock` beside
//! it and its own store in `.hcp/` (§15.2).
//!
//! This layer is plain data and reads of the file system only, but for
//! creating `.hcp/` itself: finding the project ([`walk`], [`resolve`]:
//! only an `hcp.yaml` of the user's own, `ownership`), whether its `.hcp/`
//! is ours (`ours`: the store id recorded in the user store's
//! `projects.json`, creating and adopting one), reading `hcp.yaml` within
//! a size bound ([`Project::read_file`]), and the project-relative paths
//! `hcp.yaml` and `hcp.lock` record ([`portable_path`], [`resolve_path`],
//! kept in `store::relpath` since the lock uses them). `file` parses and
//! edits `hcp.yaml` (with positions, keeping comments); `keep` is the step
//! every change of a project's store ends with: `hcp.yaml` edited for what
//! the change did. Opening the project's store and the commands on it live
//! in `ops` (`ops/project.rs`).
//!
//! Where the spec is silent:
//! - an `hcp.yaml` inside the user store (a pack that ships one) is no
//!   project: the walk stops at the user store;
//! - a project whose `.hcp` is the user store (`$HCP_HOME` pointing into
//!   it, or a home folder holding `hcp.yaml` with the store `~/.hcp`) is
//!   refused (`usage`): one store must never serve as both;
//! - an `hcp.yaml` that is a link, in a folder of another user's, is
//!   passed over like any file of theirs (a warning, not `usage`), so a
//!   co-user cannot stop every command below a shared folder;
//! - `hcp.yaml` is read up to [`MAX_FILE_BYTES`]; a larger one is `usage`.

pub mod file;
pub mod keep;
pub mod ours;
pub mod ownership;

use crate::engine::error::{Error, Fix, Result};
use serde::Serialize;
use std::io::Read;
use std::path::{Path, PathBuf};

pub use crate::engine::store::relpath::{leaves_project, portable_path, resolve_path};

/// The project's store folder, beside `hcp.yaml`.
pub const STORE_DIR: &str = crate::engine::store::PROJECT_STORE_DIR;
/// The project's lock file, beside `hcp.yaml`.
pub const LOCK_FILE: &str = "hcp.lock";
/// The largest `hcp.yaml` hcpx reads.
pub const MAX_FILE_BYTES: u64 = file::MAX_BYTES as u64;

/// Which store a command acted on (`"scope"` in every result, §15.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Project,
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// What the user asked for: `--project`, `--global`/`-g`, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScopeFlag {
    /// The project found by walking up, if any.
    #[default]
    Auto,
    /// A project must be found (`--project`).
    Project,
    /// The user store, whatever folder this is (`--global`).
    Global,
}

/// A project: its folder (absolute, links resolved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    root: PathBuf,
}

impl Project {
    /// The project at `root` (made absolute, links resolved).
    pub fn at(root: &Path) -> Result<Project> {
        let root = root
            .canonicalize()
            .map_err(|err| Error::io("cannot read", root, &err))?;
        Ok(Project { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    /// `<project>/hcp.yaml`.
    pub fn file_path(&self) -> PathBuf {
        self.root.join(file::FILE_NAME)
    }
    /// `<project>/hcp.lock`.
    pub fn lock_path(&self) -> PathBuf {
        self.root.join(LOCK_FILE)
    }
    /// `<project>/.hcp`.
    pub fn store_dir(&self) -> PathBuf {
        self.root.join(STORE_DIR)
    }

    /// The text of `hcp.yaml`, read within [`MAX_FILE_BYTES`].
    pub fn read_text(&self) -> Result<String> {
        read_bounded(&self.file_path())
    }

    /// `hcp.yaml`, parsed: a malformed file is `usage` naming `hcp.yaml`,
    /// the line and the column (§15.2).
    pub fn read_file(&self) -> Result<file::ProjectFile> {
        let text = self.read_text()?;
        file::parse(&text).map_err(|err| self.named(err))
    }

    /// `err` (from `file`, which names `hcp.yaml`) naming this project's
    /// file by its path.
    pub fn named(&self, err: Error) -> Error {
        Project::named_at(&self.file_path(), err)
    }

    fn named_at(path: &Path, mut err: Error) -> Error {
        if let Some(rest) = err.message.strip_prefix(file::FILE_NAME) {
            err.message = format!("{}{rest}", path.display());
        }
        err.path(path.display().to_string())
    }

    /// Refuses a project whose `.hcp` is the user store `user_store` or
    /// holds it, or lies inside it (`usage`): one store must never serve
    /// as both. Whether `.hcp` is ours is [`ours::check`].
    pub fn check_not_user_store(&self, user_store: &Path) -> Result<()> {
        let dir = self.store_dir();
        let user = user_store
            .canonicalize()
            .unwrap_or_else(|_| std::path::absolute(user_store).unwrap_or_default());
        if user == dir || user.starts_with(&dir) || dir.starts_with(&user) {
            return Err(Error::usage(format!(
                "the project {} would keep its packs in {}, which is the user store {} or inside it",
                self.root.display(),
                dir.display(),
                user.display()
            ))
            .path(self.file_path().display().to_string())
            .hint("set HCP_HOME to a folder outside the project, or pass -g to act on the user store"));
        }
        Ok(())
    }
}

/// What the walk-up from a folder found (§15.1): the project, if any, and
/// the `hcp.yaml` files it passed over because they are not the user's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub root: Option<PathBuf>,
    pub skipped: Vec<ownership::Skipped>,
}

/// The nearest folder from `start` up that holds an `hcp.yaml` of the
/// user's own (§15.1, [`ownership`]), stopping at the user store
/// `user_store` (an `hcp.yaml` inside it is no project). `hcp.yaml` or
/// `hcp.lock` that is a link, in a folder of the user's, is `usage`.
pub fn walk(start: &Path, user_store: &Path) -> Result<Found> {
    let user_store_root = user_store.canonicalize().ok();
    let mut found = Found::default();
    let Ok(start) = start.canonicalize() else {
        return Ok(found);
    };
    let me = ownership::User::current();
    let mut safe: Option<Vec<String>> = None;
    for dir in start.ancestors() {
        if user_store_root
            .as_deref()
            .is_some_and(|u| dir.starts_with(u))
        {
            continue;
        }
        let file = dir.join(file::FILE_NAME);
        let Ok(meta) = std::fs::symlink_metadata(&file) else {
            continue;
        };
        if !meta.is_file() && !meta.file_type().is_symlink() {
            continue;
        }
        let safe = safe.get_or_insert_with(|| safe_directories(user_store));
        if let Some(skipped) = ownership::check(dir, me, safe) {
            found.skipped.push(skipped);
            continue;
        }
        for path in [file, dir.join(LOCK_FILE)] {
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(Error::usage(format!(
                    "{} is a symbolic link; a project's hcp.yaml and hcp.lock must be regular files",
                    path.display()
                ))
                .path(path.display().to_string())
                .hint("replace the link with the file it points to, or pass -g to act on the user store"));
            }
        }
        found.root = Some(dir.to_path_buf());
        break;
    }
    Ok(found)
}

/// The user store's `safe_directories` (§15.1); an unreadable
/// `config.yaml` lists none (its own commands report it).
fn safe_directories(user_store: &Path) -> Vec<String> {
    crate::engine::store::config::read(&user_store.join(crate::engine::store::CONFIG_FILE))
        .map(|config| config.safe_directories)
        .unwrap_or_default()
}

/// The nearest project from `start` up (see [`walk`]); `None` when there
/// is none or the walk fails.
pub fn find(start: &Path, user_store: &Path) -> Option<PathBuf> {
    walk(start, user_store).ok()?.root
}

/// The project a command acts in (§15.1) and the warnings of the walk:
/// no project outside one or with `--global`; `--project` outside one is
/// `usage`, saying which `hcp.yaml` files were passed over and why.
pub fn resolve(flag: ScopeFlag, cwd: &Path, user_store: &Path) -> Result<Resolved> {
    if flag == ScopeFlag::Global {
        return Ok(Resolved::default());
    }
    let found = walk(cwd, user_store)?;
    let warnings = found
        .skipped
        .iter()
        .map(ownership::Skipped::warning)
        .collect();
    match found.root {
        Some(root) => Ok(Resolved {
            project: Some(Project::at(&root)?),
            warnings,
        }),
        None if flag == ScopeFlag::Project => {
            let mut message = format!(
                "--project: no {} of yours in {} or any folder above it",
                file::FILE_NAME,
                cwd.display()
            );
            for skipped in &found.skipped {
                message.push_str(&format!(
                    "; {} was passed over: {} (owner: {})",
                    skipped.dir.join(file::FILE_NAME).display(),
                    skipped.why,
                    skipped.owner
                ));
            }
            let err = Error::usage(message);
            Err(if found.skipped.is_empty() {
                err.fix(Fix::Init)
            } else {
                err.hint(
                    "add a folder you trust to safe_directories in the user store's config.yaml",
                )
            })
        }
        None => Ok(Resolved {
            project: None,
            warnings,
        }),
    }
}

/// What [`resolve`] found: the project, if any, and the walk's warnings
/// (an `hcp.yaml` passed over, naming it and its owner).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    pub project: Option<Project>,
    pub warnings: Vec<String>,
}

/// Reads a file of at most [`MAX_FILE_BYTES`] as UTF-8 text.
fn read_bounded(path: &Path) -> Result<String> {
    let file = std::fs::File::open(path).map_err(|err| Error::io("cannot read", path, &err))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| Error::io("cannot read", path, &err))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::usage(format!(
            "{} is larger than {} KiB; hcpx does not read it",
            path.display(),
            MAX_FILE_BYTES / 1024
        ))
        .path(path.display().to_string()));
    }
    match file::decode(&bytes) {
        Ok(text) => Ok(text.to_string()),
        Err(err) => Err(Project::named_at(path, err)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_recorded_relative_to_the_project() {
        let root = Path::new("/p/q");
        assert_eq!(portable_path(root, Path::new("/p/q/tools/a")), "./tools/a");
        assert_eq!(portable_path(root, Path::new("/p/other")), "../other");
        assert_eq!(portable_path(root, Path::new("/x/y")), "../../x/y");
        assert_eq!(portable_path(root, Path::new("/p/q")), ".");
        assert_eq!(resolve_path(root, "./tools/a"), Path::new("/p/q/tools/a"));
        assert_eq!(resolve_path(root, "../other"), Path::new("/p/other"));
        assert!(leaves_project("../other"));
        assert!(!leaves_project("./tools"));
    }

    #[test]
    fn the_nearest_hcp_yaml_wins_and_the_user_store_is_no_project() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let outer = dir.path().join("outer");
        let inner = outer.join("inner/deep");
        std::fs::create_dir_all(&inner).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(outer.join("hcp.yaml"), "hcp: \"1\"\n").unwrap_or_else(|e| panic!("{e}"));
        let store = dir.path().join("store");
        let found = find(&inner, &store).map(|p| p.canonicalize().ok());
        assert_eq!(found, Some(outer.canonicalize().ok()));
        // Inside the user store, no project is found.
        assert_eq!(find(&inner, &outer), None);
        // --project outside a project is usage.
        let err = resolve(ScopeFlag::Project, &store.join(".."), &store);
        assert!(err.is_err());
        assert!(matches!(
            resolve(ScopeFlag::Global, &inner, &store),
            Ok(Resolved { project: None, .. })
        ));
    }
}
