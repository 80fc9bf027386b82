//! The pack directory rules of HCP.md §2: layout, limits, symbolic links and
//! file names. Nothing here follows a link or reads more than a limit allows.

use crate::engine::lint::diagnostic::{Diagnostic, Rule};
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// §2.3 limits.
pub const MAX_FILES: usize = 1_000;
pub const MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;
pub const MAX_MANIFEST_BYTES: u64 = 256 * 1024;
pub const MAX_SKILL_BYTES: u64 = 256 * 1024;

/// Entries (files and folders) the walk visits at most, so a tree of empty
/// folders cannot keep lint busy.
const MAX_ENTRIES: usize = 10 * MAX_FILES;

/// What a walk of the pack directory found.
#[derive(Debug, Default)]
pub struct PackTree {
    /// Relative paths of regular files (`.git/` left out), in walk order.
    pub files: Vec<PathBuf>,
    pub total_bytes: u64,
    /// The root's entries by name, as the walk saw them (no link followed;
    /// the root's `.git/` left out), so that lint finds its manifest and
    /// Skill without asking the file system again; `None` when the walk
    /// could not list the whole root (an error, the entry limit).
    root: Option<BTreeMap<OsString, RootEntry>>,
    /// Why the root itself could not be read, when it could not.
    pub unreadable: Option<std::io::Error>,
}

/// An entry of the pack root, as `lstat` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootEntry {
    Dir,
    File {
        len: u64,
    },
    /// A link or a special file.
    Other,
}

/// What the walk knows of a name at the pack root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootLookup {
    /// The walk did not list the whole root: ask the file system.
    NotListed,
    Missing,
    Found(RootEntry),
}

impl PackTree {
    /// The root entry `name`, as the walk saw it.
    pub fn root_entry(&self, name: &str) -> RootLookup {
        match &self.root {
            None => RootLookup::NotListed,
            Some(entries) => entries
                .get(OsStr::new(name))
                .map_or(RootLookup::Missing, |e| RootLookup::Found(*e)),
        }
    }
}

/// Whether a walk entry is the pack's own `.git/`, which lint ignores and
/// install does not copy (§2.4).
pub fn is_root_git_dir(entry: &walkdir::DirEntry) -> bool {
    entry.depth() == 1 && entry.file_name() == ".git" && entry.file_type().is_dir()
}

/// Walks `root` without following links and reports §2.3/§2.4 findings.
pub fn scan(root: &Path, out: &mut Vec<Diagnostic>) -> PackTree {
    let mut tree = PackTree {
        root: Some(BTreeMap::new()),
        ..PackTree::default()
    };
    // Regular files seen, also those with bad names. The walk goes on past
    // MAX_FILES (bounded by MAX_ENTRIES) so that the limit does not hide
    // later findings.
    let mut file_count = 0usize;
    let walk = WalkDir::new(root)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !is_root_git_dir(e));
    for (seen, entry) in walk.enumerate() {
        if seen == MAX_ENTRIES {
            tree.root = None;
            out.push(Diagnostic::new(
                Rule::PackTooLarge,
                ".",
                format!("the pack has more than {MAX_ENTRIES} files and folders"),
            ));
            break;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                tree.root = None;
                let rel = err.path().map_or_else(|| ".".into(), |p| relative(root, p));
                out.push(Diagnostic::new(
                    Rule::PackNotADirectory,
                    rel,
                    format!("cannot read: {err}"),
                ));
                if err.depth() == 0 {
                    // The root itself: its caller says so in its words.
                    tree.unreadable = err.into_io_error();
                }
                continue;
            }
        };
        if visit(root, &entry, &mut tree, out) {
            file_count += 1;
        }
    }
    check_limits(file_count, tree.total_bytes, out);
    tree
}

/// Checks one walk entry's name and kind (§2.4) and records a regular file
/// in `tree`; returns whether it is a regular file.
fn visit(
    root: &Path,
    entry: &walkdir::DirEntry,
    tree: &mut PackTree,
    out: &mut Vec<Diagnostic>,
) -> bool {
    // The printable path, written only for a finding (most entries have none).
    let rel = || relative(root, entry.path());
    let name_ok = check_name(entry, rel, out);
    let kind = entry.file_type();
    if entry.depth() == 1
        && !kind.is_file()
        && let Some(root) = &mut tree.root
    {
        let seen = if kind.is_dir() {
            RootEntry::Dir
        } else {
            RootEntry::Other
        };
        root.insert(entry.file_name().to_os_string(), seen);
    }
    if kind.is_symlink() {
        out.push(
            Diagnostic::new(
                Rule::PackSymlink,
                rel(),
                "symbolic links are not allowed in a pack",
            )
            .hint("replace the link with a copy of the file it points to"),
        );
    } else if kind.is_file() {
        let len = entry.metadata().map(|m| m.len());
        tree.total_bytes += len.as_ref().map_or(0, |l| *l);
        if entry.depth() == 1 {
            match (&mut tree.root, len) {
                (Some(root), Ok(len)) => {
                    root.insert(entry.file_name().to_os_string(), RootEntry::File { len });
                }
                // Its size is unknown: lint asks the file system.
                (root, Err(_)) => *root = None,
                (None, _) => {}
            }
        }
        if name_ok {
            let rel_path = entry.path().strip_prefix(root).unwrap_or(entry.path());
            tree.files.push(rel_path.to_path_buf());
        }
        return true;
    } else if !kind.is_dir() {
        out.push(Diagnostic::new(
            Rule::PackFileName,
            rel(),
            "not a regular file or folder (a device, socket or pipe)",
        ));
    }
    false
}

/// The §2.3 limits on the number of files and their total size.
fn check_limits(file_count: usize, total_bytes: u64, out: &mut Vec<Diagnostic>) {
    if file_count > MAX_FILES {
        out.push(
            Diagnostic::new(
                Rule::PackTooLarge,
                ".",
                format!("the pack has more than {MAX_FILES} files"),
            )
            .hint("a pack holds at most 1,000 files (HCP §2.3)"),
        );
    }
    if total_bytes > MAX_TOTAL_BYTES {
        out.push(Diagnostic::new(
            Rule::PackTooLarge,
            ".",
            format!(
                "the pack holds {total_bytes} bytes, over the limit of {MAX_TOTAL_BYTES} (16 MiB)"
            ),
        ));
    }
}

fn check_name(
    entry: &walkdir::DirEntry,
    rel: impl FnOnce() -> String,
    out: &mut Vec<Diagnostic>,
) -> bool {
    let problem = match entry.file_name().to_str() {
        None => "the name is not valid UTF-8",
        Some(name) if name.chars().any(char::is_control) => "the name contains control characters",
        Some(_) => return true,
    };
    out.push(Diagnostic::new(Rule::PackFileName, rel(), problem).hint("rename it"));
    false
}

/// A path relative to the pack root, printable: control characters are
/// escaped and invalid UTF-8 replaced, so a hostile name cannot drive a
/// terminal.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let text = rel.to_string_lossy();
    if text.is_empty() {
        return ".".into();
    }
    printable(&text)
}

/// Escapes control characters.
pub fn printable(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

/// Opens `path` for reading only if it is a regular file: a link is not
/// followed (`O_NOFOLLOW`), a FIFO does not make the open wait for a writer
/// (`O_NONBLOCK`), and the opened file is checked again, so a file swapped
/// for a pipe or a device after a `stat` is still refused. Read it with
/// `take` to bound what is read.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    let flags = (OFlags::NOFOLLOW | OFlags::NONBLOCK).bits();
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(i32::try_from(flags).unwrap_or(0))
        .open(path)?;
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ))
    }
}

/// How one of the pack's own files (manifest, Skill) could be read.
pub enum RootFile {
    Missing,
    /// Not readable as a file; already reported (a link, a special file,
    /// too large, an I/O error).
    Refused,
    Bytes(Vec<u8>),
}

/// Reads a file at the pack root without following links and without
/// reading past `limit`; `tree` is the walk of the root, which tells what
/// the entry is (else it is asked of the file system). A folder of that
/// name counts as missing. Links and special files are left to [`scan`] to
/// report; size and I/O problems are reported here. The file is opened as
/// a regular file only ([`open_regular`]), so one swapped since the walk
/// is still refused.
pub fn read_root_file(
    root: &Path,
    name: &str,
    limit: u64,
    what: &str,
    tree: &PackTree,
    out: &mut Vec<Diagnostic>,
) -> RootFile {
    let path = root.join(name);
    let entry = match tree.root_entry(name) {
        RootLookup::Found(entry) => entry,
        RootLookup::Missing => return RootFile::Missing,
        RootLookup::NotListed => match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => RootEntry::Dir,
            Ok(meta) if meta.file_type().is_file() => RootEntry::File { len: meta.len() },
            Ok(_) => RootEntry::Other,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return RootFile::Missing,
            Err(err) => {
                out.push(Diagnostic::new(
                    Rule::PackNotADirectory,
                    name,
                    format!("cannot read {what}: {err}"),
                ));
                return RootFile::Refused;
            }
        },
    };
    let len = match entry {
        // A folder of that name is not the file.
        RootEntry::Dir => return RootFile::Missing,
        RootEntry::Other => return RootFile::Refused,
        RootEntry::File { len } => len,
    };
    let too_large = |out: &mut Vec<Diagnostic>, size: String| {
        out.push(
            Diagnostic::new(
                Rule::PackTooLarge,
                name,
                format!("{what} is {size}, over the limit of {} KiB", limit / 1024),
            )
            .hint(format!("keep {name} under {} KiB (HCP §2.3)", limit / 1024)),
        );
        RootFile::Refused
    };
    if len > limit {
        return too_large(out, format!("{len} bytes"));
    }
    // Room for the whole file and one byte more, so that it is read in one
    // call and the end found in a second (a `take` hides the size, and an
    // empty buffer would grow from 32 bytes, one read at a time).
    let mut bytes = Vec::with_capacity(usize::try_from(len.min(limit) + 1).unwrap_or(0));
    let read = open_regular(&path).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes));
    match read {
        // The file grew between the check and the read.
        Ok(_) if bytes.len() as u64 > limit => too_large(out, "larger".into()),
        Ok(_) => RootFile::Bytes(bytes),
        Err(err) => {
            out.push(Diagnostic::new(
                Rule::PackNotADirectory,
                name,
                format!("cannot read {what}: {err}"),
            ));
            RootFile::Refused
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(file: RootFile) -> String {
        match file {
            RootFile::Missing => "missing".into(),
            RootFile::Refused => "refused".into(),
            RootFile::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
        }
    }

    #[test]
    fn a_root_that_cannot_be_opened_is_told_apart() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut out = Vec::new();
        let tree = scan(&dir.path().join("gone"), &mut out);
        let kind = tree.unreadable.as_ref().map(std::io::Error::kind);
        assert_eq!(kind, Some(std::io::ErrorKind::NotFound), "{out:?}");
        assert_eq!(tree.root_entry("pack.yaml"), RootLookup::NotListed);
        let mut out = Vec::new();
        assert!(scan(dir.path(), &mut out).unreadable.is_none());
    }

    /// The walk's view of the root answers as the file system does: a
    /// file, a folder of that name, a link, a file too large, no entry.
    #[test]
    fn root_files_read_alike_from_the_walk_and_from_the_file_system() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        fs::write(root.join("pack.yaml"), "id: a.b\n").unwrap_or_else(|e| panic!("{e}"));
        fs::create_dir(root.join("SKILL.md")).unwrap_or_else(|e| panic!("{e}"));
        fs::write(root.join("big"), "x".repeat(20)).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink("pack.yaml", root.join("link"))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut out = Vec::new();
        let walked = scan(root, &mut out);
        assert_eq!(
            walked.root_entry("SKILL.md"),
            RootLookup::Found(RootEntry::Dir)
        );
        assert_eq!(
            walked.root_entry("link"),
            RootLookup::Found(RootEntry::Other)
        );
        assert_eq!(walked.root_entry("pack.json"), RootLookup::Missing);
        let unlisted = PackTree::default();
        assert_eq!(unlisted.root_entry("pack.yaml"), RootLookup::NotListed);
        for name in ["pack.yaml", "SKILL.md", "link", "big", "pack.json"] {
            let mut a = Vec::new();
            let mut b = Vec::new();
            let from_walk = outcome(read_root_file(root, name, 10, "it", &walked, &mut a));
            let from_fs = outcome(read_root_file(root, name, 10, "it", &unlisted, &mut b));
            assert_eq!(from_walk, from_fs, "{name}");
            assert_eq!(a, b, "{name}");
        }
    }
}
