//! The digest of a pack tree (HCP.md §13.4): SHA-256 over its regular
//! files in byte order of their `/`-separated relative paths (`.git/` at
//! the root excluded), each contributing `path`, NUL, `755` or `644`, NUL,
//! its size in decimal, NUL, its bytes. Written `sha256:<hex>`.
//!
//! Where the spec is silent: the mode is `755` when any execute bit is set
//! (as install copies it, §14.1). Links and special files are not part of
//! the digest; [`Tree`] lists them as `others`, so `verify` can report a
//! tree holding one (an installed pack never does) as changed. Files are
//! streamed through the hash (never held in memory), and [`scan_within`]
//! gives up on a tree larger than its bounds before reading any file.

use crate::engine::error::{Error, Result};
use crate::engine::lint::files::{is_root_git_dir, open_regular};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// One regular file of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    pub executable: bool,
    pub size: u64,
    /// SHA-256 of the file's bytes.
    pub sha256: [u8; 32],
}

/// What a tree holds, by relative path bytes (so in digest order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    pub files: BTreeMap<Vec<u8>, FileEntry>,
    /// Paths of links and special files (not part of the digest).
    pub others: Vec<Vec<u8>>,
    /// `sha256:<hex>` of §13.4.
    pub digest: String,
}

/// The `sha256:<hex>` digest of the tree at `dir`.
pub fn digest(dir: &Path) -> Result<String> {
    Ok(scan(dir)?.digest)
}

/// Reads every file of the tree at `dir` once, and computes its digest.
pub fn scan(dir: &Path) -> Result<Tree> {
    scan_except(dir, &[])
}

/// [`scan`], leaving out the entries named `skip_root` at the root (a
/// harness copy's marker, a pack's manifest: HCP.md §12.6).
pub fn scan_except(dir: &Path, skip_root: &[&str]) -> Result<Tree> {
    let unbounded = Bounds {
        entries: usize::MAX,
        bytes: u64::MAX,
    };
    Ok(scan_within(dir, skip_root, unbounded)?.unwrap_or_default())
}

/// How much a [`scan_within`] looks at before it gives up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Entries (files, folders, links) below the root.
    pub entries: usize,
    /// The regular files' sizes added up.
    pub bytes: u64,
}

/// [`scan_except`], or `None` as soon as the tree holds more than `bounds`
/// — told by the walk alone, before any file is read: a folder someone
/// filled (a sparse 100 GB file, a million files) costs no more than the
/// bound to look at.
pub fn scan_within(dir: &Path, skip_root: &[&str], bounds: Bounds) -> Result<Option<Tree>> {
    let mut tree = Tree::default();
    let skipped = |e: &walkdir::DirEntry| {
        e.depth() == 1 && skip_root.iter().any(|name| e.file_name() == *name)
    };
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| !is_root_git_dir(e) && !skipped(e));
    let (mut paths, mut entries, mut bytes) = (Vec::new(), 0usize, 0u64);
    for entry in walk {
        let entry = entry.map_err(|err| {
            Error::io(
                "cannot read",
                err.path().unwrap_or(dir),
                &std::io::Error::other(err.to_string()),
            )
        })?;
        if entry.depth() == 0 {
            continue;
        }
        entries += 1;
        if entries > bounds.entries {
            return Ok(None);
        }
        if entry.file_type().is_dir() {
            continue;
        }
        let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let rel = rel.as_os_str().as_bytes().to_vec();
        if entry.file_type().is_file() {
            bytes = bytes.saturating_add(entry.metadata().map_or(0, |m| m.len()));
            if bytes > bounds.bytes {
                return Ok(None);
            }
            paths.push((rel, entry.path().to_path_buf()));
        } else {
            tree.others.push(rel);
        }
    }
    let mut total = Sha256::new();
    paths.sort();
    for (rel, path) in paths {
        let entry = hash_file(&path, &rel, &mut total)?;
        tree.files.insert(rel, entry);
    }
    tree.others.sort();
    tree.digest = format!("sha256:{}", hex(&total.finalize()));
    Ok(Some(tree))
}

/// The tree of files already read — each relative path, whether it is
/// executable, and its bytes — as [`scan`] would compute it from disk.
pub fn tree_of(mut files: Vec<(Vec<u8>, bool, Vec<u8>)>) -> Tree {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut tree = Tree::default();
    let mut total = Sha256::new();
    for (rel, executable, bytes) in files {
        let size = bytes.len() as u64;
        header(&mut total, &rel, executable, size);
        total.update(&bytes);
        let entry = FileEntry {
            executable,
            size,
            sha256: Sha256::digest(&bytes).into(),
        };
        tree.files.insert(rel, entry);
    }
    tree.digest = format!("sha256:{}", hex(&total.finalize()));
    tree
}

/// What a file contributes to the digest before its bytes: its path, NUL,
/// `755` or `644`, NUL, its size in decimal, NUL.
fn header(total: &mut Sha256, rel: &[u8], executable: bool, size: u64) {
    let mode: &[u8] = if executable { b"755" } else { b"644" };
    total.update(rel);
    total.update([0]);
    total.update(mode);
    total.update([0]);
    total.update(size.to_string().as_bytes());
    total.update([0]);
}

/// Hashes one file: its own SHA-256 and size, streaming its contribution
/// (path, NUL, mode, NUL, size, NUL, bytes) into `total` as it reads. The
/// size written is the number of bytes read, so header and bytes agree
/// even if the file grows meanwhile.
fn hash_file(path: &Path, rel: &[u8], total: &mut Sha256) -> Result<FileEntry> {
    let read_err = |err: std::io::Error| Error::io("cannot read", path, &err);
    let file = open_regular(path).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    let executable = meta.permissions().mode() & 0o111 != 0;
    let size = meta.len();
    header(total, rel, executable, size);
    // Streamed: a file costs its length in time, never in memory.
    let (mut own, mut read) = (Sha256::new(), 0u64);
    let mut limited = file.take(size.saturating_add(1));
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match limited.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(read_err(err)),
        };
        own.update(&buf[..n]);
        total.update(&buf[..n]);
        read += n as u64;
    }
    if read != size {
        return Err(read_err(std::io::Error::other(
            "it changed while it was read",
        )));
    }
    Ok(FileEntry {
        executable,
        size,
        sha256: own.finalize().into(),
    })
}

/// Lower-case hex, two digits a byte (by table: a `format!` of `{:02x}`
/// a byte took about 6,000 instructions a SHA-256 digest, and the lint
/// cache makes one a pack on every `list`).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * bytes.len());
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}

/// The relative paths that differ between two trees: added, removed or
/// modified (bytes or mode), and any link or special file in `actual`.
pub fn changed(expected: &Tree, actual: &Tree) -> Vec<String> {
    let mut paths: Vec<&Vec<u8>> = Vec::new();
    for (path, entry) in &actual.files {
        if expected.files.get(path) != Some(entry) {
            paths.push(path);
        }
    }
    for path in expected.files.keys() {
        if !actual.files.contains_key(path) {
            paths.push(path);
        }
    }
    paths.extend(actual.others.iter());
    let mut shown: Vec<String> = paths
        .into_iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    shown.sort();
    shown.dedup();
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_two_lowercase_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(hex(&[]), "");
    }

    /// A file the walk saw, swapped for a link or a FIFO before it is read
    /// (a catalog folder is anyone's): refused at once, not followed.
    #[test]
    fn a_file_swapped_for_a_link_or_a_fifo_is_not_read() {
        let Ok(dir) = tempfile::tempdir() else { return };
        let secret = dir.path().join("secret");
        let link = dir.path().join("link");
        let fifo = dir.path().join("fifo");
        assert!(std::fs::write(&secret, "the user's key").is_ok());
        assert!(std::os::unix::fs::symlink(&secret, &link).is_ok());
        let mode = rustix::fs::Mode::from_raw_mode(0o600);
        assert!(rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, mode).is_ok());
        let mut total = Sha256::new();
        assert!(hash_file(&secret, b"secret", &mut total).is_ok());
        assert!(hash_file(&link, b"link", &mut total).is_err());
        assert!(hash_file(&fifo, b"fifo", &mut total).is_err());
    }
}
