//! A pack's bundled files for the Details pane: every file of the pack
//! folder (the installed copy, else the catalog's) but the manifest and
//! `SKILL.md` at its root — a Skill pack's `scripts/`, reference files,
//! templates (HCP.md §2.6) — with its size and whether it is executable.
//!
//! Read by the worker with the rest of the selected pack, never on the UI
//! loop. Nothing is opened and no symbolic link is followed (§2.4): names
//! and `symlink_metadata` only, so a FIFO or a link to elsewhere is listed
//! as what it is. `.git/` is left out (§2.4). The walk is bounded by the
//! §2.3 limit on a pack's files, so a hostile folder cannot stall it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Most files the Details pane lists; the rest are counted.
pub const MAX_SHOWN: usize = 200;
/// Most entries read (the §2.3 limit on a pack's files); past it the
/// count says "more than".
const MAX_READ: usize = 1000;
/// Most entries looked at, folders included (a tree of empty folders
/// costs as much to walk as one of files).
const MAX_VISITS: usize = 10 * MAX_READ;
/// Deepest folder looked into.
const MAX_DEPTH: usize = 32;

/// What a bundled entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    File {
        size: u64,
        executable: bool,
    },
    /// A symbolic link (lint refuses them in a pack, §2.4): not followed.
    Link,
    /// A FIFO, socket or device: never opened.
    Special,
}

/// One bundled file: its `/`-separated path in the pack, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundledFile {
    pub path: String,
    pub kind: FileKind,
}

/// A pack's bundled files, sorted by path, at most [`MAX_SHOWN`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bundled {
    pub files: Vec<BundledFile>,
    /// Files not listed.
    pub more: usize,
    /// The walk stopped at [`MAX_READ`] files (or [`MAX_VISITS`] entries):
    /// there may be more still.
    pub cut: bool,
}

/// The files of the pack folder `dir` but its manifest and `SKILL.md`.
/// A folder that does not read (or is itself a link) lists nothing.
pub fn read(dir: &Path) -> Bundled {
    let is_dir = dir.symlink_metadata().is_ok_and(|m| m.is_dir());
    if !is_dir {
        return Bundled::default();
    }
    let mut found = Vec::new();
    let mut cut = false;
    let mut visits = 0;
    let mut folders: Vec<(PathBuf, String, usize)> = vec![(dir.to_path_buf(), String::new(), 0)];
    while let Some((folder, rel, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            visits += 1;
            if found.len() >= MAX_READ || visits > MAX_VISITS {
                cut = true;
                break;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            // `DirEntry::metadata` does not follow a link.
            let Ok(meta) = entry.metadata() else { continue };
            let kind = meta.file_type();
            if kind.is_dir() {
                if name != ".git" && depth < MAX_DEPTH {
                    folders.push((entry.path(), path, depth + 1));
                }
                continue;
            }
            if rel.is_empty() && is_described_elsewhere(&name) {
                continue;
            }
            let kind = if kind.is_symlink() {
                FileKind::Link
            } else if kind.is_file() {
                FileKind::File {
                    size: meta.len(),
                    executable: meta.permissions().mode() & 0o111 != 0,
                }
            } else {
                FileKind::Special
            };
            found.push(BundledFile { path, kind });
        }
        if cut {
            break;
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    let more = found.len().saturating_sub(MAX_SHOWN);
    found.truncate(MAX_SHOWN);
    Bundled {
        files: found,
        more,
        cut,
    }
}

/// The root files Details shows in their own sections.
fn is_described_elsewhere(name: &str) -> bool {
    matches!(name, "pack.yaml" | "pack.json" | "SKILL.md")
}

/// A size in bytes as people read it: `512 B`, `2.0 KiB`, `3.4 MiB`.
pub fn size_text(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn lists_the_files_but_the_manifest_and_skill_with_sizes_and_x() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "pack.yaml", "x");
        write(root, "SKILL.md", "x");
        write(root, "reference.md", "hello");
        write(root, "scripts/run.sh", "#!/bin/sh\n");
        write(root, "docs/SKILL.md", "nested, so listed");
        write(root, ".git/HEAD", "ref");
        fs::set_permissions(
            root.join("scripts/run.sh"),
            fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let read = read(root);
        let paths: Vec<&str> = read.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["docs/SKILL.md", "reference.md", "scripts/run.sh"]);
        assert_eq!(
            read.files[2].kind,
            FileKind::File {
                size: 10,
                executable: true
            }
        );
        assert_eq!(
            read.files[1].kind,
            FileKind::File {
                size: 5,
                executable: false
            }
        );
        assert_eq!((read.more, read.cut), (0, false));
    }

    #[test]
    fn links_and_fifos_are_listed_never_followed_nor_opened() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "secret/key.txt", "top secret");
        let root = dir.path();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("linked")).unwrap();
        let fifo = root.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let read = read(root);
        assert!(read.files.iter().all(|f| !f.path.contains("key.txt")));
        let linked = read.files.iter().find(|f| f.path == "linked").unwrap();
        assert_eq!(linked.kind, FileKind::Link);
        if made.is_ok_and(|s| s.success()) {
            let pipe = read.files.iter().find(|f| f.path == "pipe").unwrap();
            assert_eq!(pipe.kind, FileKind::Special);
        }
        // A pack folder that is itself a link lists nothing.
        let link = outside.path().join("pack-link");
        std::os::unix::fs::symlink(root, &link).unwrap();
        assert_eq!(super::read(&link), Bundled::default());
    }

    #[test]
    fn at_most_200_are_listed_and_the_rest_counted() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..230 {
            write(dir.path(), &format!("data/f{i:03}.txt"), "");
        }
        let read = read(dir.path());
        assert_eq!(read.files.len(), MAX_SHOWN);
        assert_eq!(read.files[0].path, "data/f000.txt");
        assert_eq!((read.more, read.cut), (30, false));
    }

    #[test]
    fn the_walk_stops_at_the_limit_on_a_packs_files() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..=MAX_READ {
            write(dir.path(), &format!("f{i:04}"), "");
        }
        let read = read(dir.path());
        assert_eq!(read.files.len(), MAX_SHOWN);
        assert_eq!((read.more, read.cut), (MAX_READ - MAX_SHOWN, true));
    }

    #[test]
    fn sizes_read_as_people_read_them() {
        assert_eq!(size_text(512), "512 B");
        assert_eq!(size_text(2048), "2.0 KiB");
        assert_eq!(size_text(3 * 1024 * 1024 + 400 * 1024), "3.4 MiB");
    }
}
