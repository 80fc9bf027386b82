//! Stores hold no links (HCP.md §15.6): the runtime's own paths of a store
//! — `packs/`, `skills/`, `secrets/`, `catalogs/`, `.tmp/`, `state.json`,
//! `config.yaml`, `hcp.lock`, `store-id` and each pack's folder or secret —
//! are real folders and files. One that is a link (or a file where a folder
//! belongs) is `store_corrupt`: every change refuses before it changes
//! anything ([`Store::check_links`], called when the lock is taken), a
//! report reads nothing through it, and `doctor` names each one
//! ([`Store::unreal_paths`]).
//!
//! Exceptions: the store's own folder may be reached through a link
//! (`$HCP_HOME` in a dotfiles folder), and the user store's `config.yaml`
//! may be a link to a regular file its user owns, read and written at its
//! target ([`Store::config_write_path`]). A project's `.hcp` itself may not
//! be a link (`project::Project::check_store`).

use super::remove::{Unreal, unreal};
use super::{CONFIG_FILE, STATE_FILE, STORE_ID_FILE, Store};
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::pack::id::PackId;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The store's folders (§11.5, §13.2 `catalogs/`).
pub const FOLDERS: &[&str] = &["packs", "skills", "secrets", "catalogs", ".tmp"];

/// The store's files.
pub const FILES: &[&str] = &[STATE_FILE, CONFIG_FILE, "hcp.lock", STORE_ID_FILE];

/// The folders whose entries are one pack's each: a folder in `packs/` and
/// `skills/`, a file in `secrets/`.
const PER_PACK: &[(&str, bool)] = &[("packs", true), ("skills", true), ("secrets", false)];

impl Store {
    /// Every runtime path of this store that is a link or, where a folder
    /// belongs, something else (§15.6), in a stable order.
    pub fn unreal_paths(&self) -> Vec<Unreal> {
        let mut found = Vec::new();
        for name in FOLDERS {
            found.extend(unreal(&self.root.join(name), true));
        }
        for name in FILES {
            let path = self.root.join(name);
            if *name == CONFIG_FILE && self.allowed_config_link(&path) {
                continue;
            }
            found.extend(unreal(&path, false));
        }
        for (folder, per_pack_folder) in PER_PACK {
            let dir = self.root.join(folder);
            if unreal(&dir, true).is_some() {
                continue;
            }
            found.extend(unreal_entries(&dir, *per_pack_folder));
        }
        found
    }

    /// `store_corrupt` naming the first of [`Store::unreal_paths`]; every
    /// change calls it before it changes anything.
    pub fn check_links(&self) -> Result<()> {
        match self.unreal_paths().into_iter().next() {
            Some(found) => Err(self.link_error(&found)),
            None => Ok(()),
        }
    }

    /// The `store_corrupt` error of one path that is not real.
    pub fn link_error(&self, found: &Unreal) -> Error {
        let what = match self.project() {
            Some(_) => "the project's store",
            None => "the store",
        };
        let err = Error::new(
            ErrorCode::StoreCorrupt,
            format!(
                "{}; hcpx reads, writes and removes nothing through a link in {what}",
                found.describe()
            ),
        )
        .path(found.path().display().to_string());
        match self.project() {
            Some(_) => err.hint(
                Hint::from(format!(
                    "remove {} (it holds nothing of yours), then ",
                    self.root.display()
                ))
                .cmd(Fix::Sync)
                .say(" rebuilds it"),
            ),
            None => err.hint(format!(
                "remove the link {} (move what it points to away first if you need it)",
                found.path().display()
            )),
        }
    }

    /// Where `config.yaml` is written: its target when it is the user
    /// store's and a link to a regular file its user owns, else itself.
    pub fn config_write_path(&self) -> PathBuf {
        let path = self.config_path();
        if self.allowed_config_link(&path) {
            return std::fs::canonicalize(&path).unwrap_or(path);
        }
        path
    }

    /// The user store's `config.yaml` may be a link to a regular file owned
    /// by the user running hcpx; a project store's may not.
    fn allowed_config_link(&self, path: &Path) -> bool {
        if self.project().is_some() {
            return false;
        }
        let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        is_link
            && std::fs::metadata(path)
                .is_ok_and(|m| m.is_file() && m.uid() == rustix::process::geteuid().as_raw())
    }
}

/// The entries of `dir` that are links, or (with `want_folder`) files named
/// like a pack where its folder belongs; sorted by name.
fn unreal_entries(dir: &Path, want_folder: bool) -> Vec<Unreal> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|path| {
            let named_like_a_pack = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(PackId::parse)
                .is_some();
            unreal(path, want_folder && named_like_a_pack)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn ok<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = ok(tempfile::tempdir());
        let store = ok(Store::open(dir.path().join("hcp")));
        ok(fs::create_dir_all(dir.path().join("victim")));
        (dir, store)
    }

    #[test]
    fn a_fresh_store_has_no_link() {
        let (_dir, store) = store();
        assert_eq!(store.unreal_paths(), Vec::new());
        assert!(store.check_links().is_ok());
    }

    #[test]
    fn each_runtime_path_that_is_a_link_is_named() {
        let (dir, store) = store();
        let victim = dir.path().join("victim");
        ok(fs::remove_dir(store.packs_dir()));
        ok(symlink(&victim, store.packs_dir()));
        ok(fs::remove_file(store.state_path()));
        ok(symlink(victim.join("state.json"), store.state_path()));
        ok(fs::create_dir(store.skills_dir().join("a.b")));
        ok(symlink(&victim, store.skills_dir().join("c.d")));
        ok(symlink(
            victim.join("token"),
            store.secrets_dir().join("e.f"),
        ));
        let named: Vec<PathBuf> = store
            .unreal_paths()
            .iter()
            .map(|u| u.path().to_path_buf())
            .collect();
        assert_eq!(
            named,
            vec![
                store.packs_dir(),
                store.state_path(),
                store.skills_dir().join("c.d"),
                store.secrets_dir().join("e.f"),
            ]
        );
        let err = store
            .check_links()
            .err()
            .unwrap_or_else(|| panic!("refused"));
        assert_eq!(err.code, ErrorCode::StoreCorrupt);
        assert!(err.message.contains("symbolic link"), "{}", err.message);
        assert!(err.message.contains("victim"), "{}", err.message);
    }

    #[test]
    fn a_file_where_a_pack_folder_belongs_is_named() {
        let (_dir, store) = store();
        ok(fs::write(store.packs_dir().join("a.b"), "x"));
        ok(fs::write(store.packs_dir().join("NOTES"), "x"));
        let named: Vec<PathBuf> = store
            .unreal_paths()
            .iter()
            .map(|u| u.path().to_path_buf())
            .collect();
        assert_eq!(named, vec![store.packs_dir().join("a.b")]);
    }

    #[test]
    fn the_user_config_may_link_to_a_file_of_the_user() {
        let (dir, store) = store();
        let dotfile = dir.path().join("victim/config.yaml");
        ok(fs::copy(store.config_path(), &dotfile));
        ok(fs::remove_file(store.config_path()));
        ok(symlink(&dotfile, store.config_path()));
        assert_eq!(store.unreal_paths(), Vec::new());
        assert_eq!(store.config_write_path(), ok(fs::canonicalize(&dotfile)));
        // A link to a folder is not a file the user writes.
        ok(fs::remove_file(store.config_path()));
        ok(symlink(dir.path().join("victim"), store.config_path()));
        assert_eq!(store.unreal_paths().len(), 1);
    }
}
