//! Collections (HCP.md §13.1): the packs below a folder that is not itself
//! a pack. A pack folder holds `pack.yaml`, `pack.json` or `SKILL.md` at its
//! root; the search looks at most [`MAX_DEPTH`] folders deep (a pack at
//! `a/b/c/d/e/f/` is found, one at `a/b/c/d/e/f/g/` is not), does not
//! descend into a pack, `.git/` or `node_modules/`, follows no symbolic link
//! and searches hidden folders (`skills/.curated/`). A folder that is itself
//! a pack is a collection of that one pack, at path `.`.
//!
//! Where the spec is silent: the search visits at most [`MAX_FOLDERS`]
//! folders (a checkout of a huge monorepo ends the search there, marked
//! [`Collection::truncated`], instead of walking it all); folder names that
//! are not UTF-8 are passed by (a pack path is text in JSON and the lock).
//! Each non-pack folder walked is recorded with its modification time, so a
//! catalog index can tell when a pack may have been added or removed below.

use crate::engine::lint::{MANIFEST_JSON, MANIFEST_YAML, has_root_file};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// How many folders deep packs are looked for.
pub const MAX_DEPTH: usize = 6;

/// How many folders one search visits at most.
pub const MAX_FOLDERS: usize = 100_000;

/// A Skill's file name, which alone makes a folder a (Skill) pack.
pub const SKILL_FILE: &str = "SKILL.md";

/// The path of a collection's pack that is the collection folder itself.
pub const ROOT: &str = ".";

/// A folder's modification time, seconds and nanoseconds.
pub type FolderTime = (i64, i64);

/// What a search found below a folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collection {
    /// The pack folders, `/`-separated and relative to the searched folder
    /// ([`ROOT`] for the folder itself), sorted.
    pub packs: Vec<String>,
    /// Every folder walked that is not a pack (`""` for the searched one),
    /// with its modification time.
    pub folders: Vec<(String, Option<FolderTime>)>,
    /// True when the search stopped at [`MAX_FOLDERS`].
    pub truncated: bool,
}

/// Whether `dir` is a pack folder: it holds a manifest or a `SKILL.md`.
pub fn is_pack_dir(dir: &Path) -> bool {
    [MANIFEST_YAML, MANIFEST_JSON, SKILL_FILE]
        .iter()
        .any(|name| has_root_file(dir, name))
}

/// A folder's modification time, if it can be read (not following a link).
pub fn folder_time(dir: &Path) -> Option<FolderTime> {
    std::fs::symlink_metadata(dir)
        .ok()
        .filter(|m| m.is_dir())
        .map(|m| (m.mtime(), m.mtime_nsec()))
}

/// Finds the packs below `root` (see the module doc for the rules).
pub fn search(root: &Path) -> Collection {
    let mut found = Collection::default();
    if is_pack_dir(root) {
        found.packs.push(ROOT.to_string());
        return found;
    }
    // Folders still to read: (relative path, depth).
    let mut pending: Vec<(String, usize)> = vec![(String::new(), 0)];
    let mut visited = 0;
    while let Some((rel, depth)) = pending.pop() {
        if visited == MAX_FOLDERS {
            found.truncated = true;
            break;
        }
        visited += 1;
        let dir = if rel.is_empty() {
            root.to_path_buf()
        } else {
            root.join(&rel)
        };
        found.folders.push((rel.clone(), folder_time(&dir)));
        for name in sub_folders(&dir) {
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if is_pack_dir(&root.join(&child)) {
                found.packs.push(child);
            } else if depth + 1 < MAX_DEPTH {
                pending.push((child, depth + 1));
            }
        }
    }
    found.packs.sort();
    found.folders.sort();
    found
}

/// The pack folders that [`search`] would find in a tree holding the
/// regular files `files` (`/`-separated paths relative to the searched
/// folder) and the folders they are in: the same rules, read from a
/// listing (a git tree) instead of the disk. A file's folder is a pack
/// when the file is a manifest or a `SKILL.md`; `node_modules` (and
/// `.git`) folders are not searched, nor folders below a pack or past
/// [`MAX_DEPTH`]. Sorted.
pub fn search_files<'a>(files: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut candidates = std::collections::BTreeSet::new();
    for path in files {
        let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
        if [MANIFEST_YAML, MANIFEST_JSON, SKILL_FILE].contains(&name) {
            candidates.insert(folder);
        }
    }
    if candidates.contains("") {
        return vec![ROOT.to_string()];
    }
    let searched = |folder: &str| {
        let parts: Vec<&str> = folder.split('/').collect();
        parts.len() <= MAX_DEPTH
            && !parts.iter().any(|p| *p == "node_modules" || *p == ".git")
            // Not below another pack: the search does not descend into one.
            && !(1..parts.len()).any(|n| candidates.contains(parts[..n].join("/").as_str()))
    };
    candidates
        .iter()
        .filter(|folder| searched(folder))
        .map(|folder| folder.to_string())
        .collect()
}

/// The names of the folders in `dir` that are searched: real folders (no
/// links), UTF-8 names, not `.git` or `node_modules`.
fn sub_folders(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name != ".git" && name != "node_modules")
        .collect()
}

/// Whether `rel` is a path a collection may hold: [`ROOT`], or
/// `/`-separated parts that are not empty, `.` or `..` (an index file or a
/// lock is text anyone may edit; this keeps its paths inside the folder).
pub fn is_inside(rel: &str) -> bool {
    rel == ROOT
        || (!rel.is_empty()
            && rel
                .split('/')
                .all(|p| !p.is_empty() && p != "." && p != ".." && !p.contains('\0')))
}

/// The folder `rel` below `root`, when no part of the way is a symbolic
/// link and it is a folder.
pub fn resolve(root: &Path, rel: &str) -> Option<std::path::PathBuf> {
    if !is_inside(rel) {
        return None;
    }
    if rel == ROOT {
        return Some(root.to_path_buf());
    }
    let mut path = root.to_path_buf();
    for part in rel.split('/') {
        path.push(part);
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            return None;
        }
    }
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn temp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

    fn touch(root: &Path, rel: &str) {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        fs::write(path, "x").unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn finds_the_layouts_of_skill_repositories() {
        let dir = temp();
        let root = dir.path();
        touch(root, "skills/pdf/SKILL.md");
        touch(root, "skills/pdf/scripts/SKILL.md"); // inside a pack: not a pack
        touch(root, "skills/.curated/docx/SKILL.md");
        touch(root, "plugins/p/skills/x/SKILL.md");
        touch(root, "packs/acme.notes/pack.yaml");
        touch(root, "node_modules/m/SKILL.md");
        touch(root, ".git/s/SKILL.md");
        touch(root, "a/b/c/d/e/f/SKILL.md");
        touch(root, "a/b/c/d/e/f2/g/SKILL.md");
        touch(root, "README.md");
        let found = search(root);
        assert_eq!(
            found.packs,
            [
                "a/b/c/d/e/f",
                "packs/acme.notes",
                "plugins/p/skills/x",
                "skills/.curated/docx",
                "skills/pdf"
            ]
        );
        assert!(!found.truncated);
        assert!(found.folders.iter().any(|(rel, _)| rel.is_empty()));
    }

    #[test]
    fn a_listing_finds_what_the_disk_search_finds() {
        let dir = temp();
        let files = [
            "skills/pdf/SKILL.md",
            "skills/pdf/scripts/SKILL.md",
            "skills/pdf/big.bin",
            "skills/.curated/docx/SKILL.md",
            "plugins/p/skills/x/SKILL.md",
            "packs/acme.notes/pack.yaml",
            "packs/acme.json/pack.json",
            "node_modules/m/SKILL.md",
            "x/node_modules/m/SKILL.md",
            "a/b/c/d/e/f/SKILL.md",
            "a/b/c/d/e/f2/g/SKILL.md",
            "docs/SKILL.md.txt",
            "README.md",
        ];
        for file in files {
            touch(dir.path(), file);
        }
        assert_eq!(search_files(files), search(dir.path()).packs);
        assert_eq!(search_files(["SKILL.md", "sub/SKILL.md"]), [ROOT]);
        assert!(search_files(["README.md"]).is_empty());
    }

    #[test]
    fn a_pack_is_a_collection_of_itself() {
        let dir = temp();
        touch(dir.path(), "SKILL.md");
        touch(dir.path(), "sub/SKILL.md");
        assert_eq!(search(dir.path()).packs, [ROOT]);
    }

    #[test]
    fn links_are_not_followed_and_loops_end() {
        let dir = temp();
        let outside = temp();
        touch(outside.path(), "evil/SKILL.md");
        let root = dir.path().join("repo");
        touch(&root, "skills/ok/SKILL.md");
        let _ = std::os::unix::fs::symlink(outside.path(), root.join("out"));
        let _ = std::os::unix::fs::symlink(&root, root.join("skills/loop"));
        assert_eq!(search(&root).packs, ["skills/ok"]);
        assert!(resolve(&root, "out/evil").is_none());
        assert!(resolve(&root, "skills/ok").is_some());
        assert!(resolve(&root, "../x").is_none());
    }

    #[test]
    fn paths_must_stay_inside() {
        for bad in ["", "..", "a/../b", "/abs", "a//b", "./a"] {
            assert!(!is_inside(bad), "{bad}");
        }
        for good in [".", "a", "a/.b/c"] {
            assert!(is_inside(good), "{good}");
        }
    }
}
