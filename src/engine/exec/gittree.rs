//! Writing a fetched commit's tree ourselves (HCP.md §14.8, §14.1): the
//! entries come from `git ls-tree -r -z` and the bytes from `git cat-file
//! --batch`, so no checkout runs — no filter, smudge, `.gitattributes`
//! conversion, hook or other program of the user's or the repository's git
//! configuration touches fetched content.
//!
//! What is written: regular files only, 0644, or 0755 where git records the
//! executable mode (`100755`), into folders 0755 — whatever the umask or the
//! repository says. Not written: symbolic links (`120000`) and submodules
//! (`160000`); a SUBDIR that is one is then missing (`not_found`), and a
//! pack whose `SKILL.md` or manifest was a link fails lint for the missing
//! file. A path with an empty, `.` or `..` part, or a `.git` part (any
//! case), or that is absolute, or that is not UTF-8, is refused
//! (`source_unavailable`): git never makes the first ones, so a tree
//! holding one is hostile. Each file counts at least [`BLOCK`] bytes against
//! the fetch's bound, so many empty files are bounded too. [`read`] keeps
//! the bytes of a few files in memory instead (the names of a collection's
//! packs), under the same bound and refusals of a short blob.

use crate::engine::error::{Error, ErrorCode, Result};
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// One file of the tree to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The blob's object id.
    pub oid: String,
    /// Its `/`-separated path in the repository.
    pub path: String,
    pub executable: bool,
}

/// The regular files of `git ls-tree -r -z` output below `subdir` (all of
/// them without one), links and submodules left out; a path that could
/// leave the folder it is written to is an error naming it.
pub fn entries(listing: &[u8], subdir: Option<&str>) -> Result<Vec<Entry>> {
    let prefix = subdir.map(|s| format!("{s}/"));
    let mut out = Vec::new();
    for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let Ok(text) = std::str::from_utf8(record) else {
            return Err(hostile(&format!(
                "the tree holds a file name that is not UTF-8 ({}), which is never written",
                String::from_utf8_lossy(record).escape_default()
            )));
        };
        let Some((meta, path)) = text.split_once('\t') else {
            return Err(hostile(&format!(
                "unreadable tree entry `{}`",
                text.escape_default()
            )));
        };
        let mut fields = meta.split(' ');
        let (mode, kind, oid) = (fields.next(), fields.next(), fields.next());
        let (Some(mode), Some("blob"), Some(oid)) = (mode, kind, oid) else {
            continue; // a submodule (`commit`)
        };
        if !safe_path(path) {
            return Err(hostile(&format!(
                "the tree holds the path `{}`, which is never written",
                path.escape_default()
            )));
        }
        let inside = match &prefix {
            Some(prefix) => path.starts_with(prefix.as_str()),
            None => true,
        };
        if !inside || !matches!(mode, "100644" | "100755") {
            continue; // outside SUBDIR, or a symbolic link (`120000`)
        }
        out.push(Entry {
            oid: oid.to_string(),
            path: path.to_string(),
            executable: mode == "100755",
        });
    }
    Ok(out)
}

/// Whether `path` is relative, with no empty, `.`, `..` or `.git` part.
pub fn safe_path(path: &str) -> bool {
    !path.starts_with('/')
        && path
            .split('/')
            .all(|p| !(p.is_empty() || p == "." || p == ".." || p.eq_ignore_ascii_case(".git")))
}

/// What each file written counts against the bound at least: one block.
pub const BLOCK: u64 = 4096;

/// Writes `entries` below the new folder `into` from `batch`, the output of
/// `git cat-file --batch` for their oids in the same order. `budget` is how
/// many bytes may still be written (each file counting at least
/// [`BLOCK`]): past it, nothing more is, and the
/// error is `source_unavailable` (the caller removes what was written).
pub fn write(entries: &[Entry], batch: &Path, into: &Path, budget: u64) -> Result<u64> {
    let io = |what: &str, path: &Path, err: std::io::Error| Error::io(what, path, &err);
    let file = fs::File::open(batch).map_err(|e| io("cannot read", batch, e))?;
    let mut reader = BufReader::new(file);
    mkdir(into)?;
    let mut written = 0u64;
    for entry in entries {
        let mut header = String::new();
        reader
            .read_line(&mut header)
            .map_err(|e| io("cannot read", batch, e))?;
        let size = blob_size(&header, &entry.oid)?;
        // A file takes at least a block, so a tree of many empty files is
        // bounded too.
        written = written.saturating_add(size.max(BLOCK));
        if written > budget {
            return Err(too_large(budget));
        }
        let path = target(into, &entry.path);
        if let Some(parent) = path.parent() {
            mkdir(parent)?;
        }
        let mode = if entry.executable { 0o755 } else { 0o644 };
        let mut out = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&path)
            .map_err(|e| io("cannot write", &path, e))?;
        let copied = std::io::copy(&mut (&mut reader).take(size), &mut out)
            .map_err(|e| io("cannot write", &path, e))?;
        let mut newline = [0u8; 1];
        if copied != size || reader.read_exact(&mut newline).is_err() {
            return Err(hostile(&format!("git cut `{}` short", entry.path)));
        }
        out.flush().map_err(|e| io("cannot write", &path, e))?;
    }
    Ok(written)
}

/// The bytes of `entries`, in order, from the `cat-file --batch` output in
/// `batch`, kept in memory rather than written (for the few small files a
/// caller reads, e.g. the names of a collection's packs); each counts as in
/// [`write`] against `budget`.
pub fn read(entries: &[Entry], batch: &Path, budget: u64) -> Result<Vec<Vec<u8>>> {
    let io = |err: std::io::Error| Error::io("cannot read", batch, &err);
    let mut reader = BufReader::new(fs::File::open(batch).map_err(io)?);
    let mut read = 0u64;
    let mut blobs = Vec::with_capacity(entries.len());
    for entry in entries {
        let mut header = String::new();
        reader.read_line(&mut header).map_err(io)?;
        let size = blob_size(&header, &entry.oid)?;
        read = read.saturating_add(size.max(BLOCK));
        if read > budget {
            return Err(too_large(budget));
        }
        let mut bytes = Vec::new();
        let copied = (&mut reader)
            .take(size)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let mut newline = [0u8; 1];
        if copied as u64 != size || reader.read_exact(&mut newline).is_err() {
            return Err(hostile(&format!("git cut `{}` short", entry.path)));
        }
        blobs.push(bytes);
    }
    Ok(blobs)
}

/// The size in a `cat-file --batch` header `<oid> blob <size>`.
fn blob_size(header: &str, oid: &str) -> Result<u64> {
    let mut parts = header.trim_end().split(' ');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(o), Some("blob"), Some(size)) if o == oid => size
            .parse()
            .map_err(|_| hostile(&format!("git reported no size for {oid}"))),
        _ => Err(hostile(&format!(
            "git has no blob {oid} ({})",
            header.trim_end().escape_default()
        ))),
    }
}

fn target(into: &Path, path: &str) -> PathBuf {
    path.split('/')
        .fold(into.to_path_buf(), |p, part| p.join(part))
}

/// Creates `dir` and its missing parents, 0755 (the umask only takes bits
/// away).
fn mkdir(dir: &Path) -> Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(dir)
        .map_err(|e| Error::io("cannot create", dir, &e))
}

fn hostile(why: &str) -> Error {
    Error::new(ErrorCode::SourceUnavailable, why.to_string())
}

/// The error of a fetch past its bound (§14.8).
pub fn too_large(budget: u64) -> Error {
    Error::new(
        ErrorCode::SourceUnavailable,
        format!("the fetch would write more than {budget} bytes; nothing was kept"),
    )
    .hint("HCPX_FETCH_MAX_BYTES sets the bound (default 1 GiB); with a SUBDIR only that folder's files are fetched where the server allows")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(lines: &[&str]) -> Vec<u8> {
        lines.iter().flat_map(|l| l.bytes().chain([0])).collect()
    }

    #[test]
    fn links_submodules_and_other_folders_are_left_out() {
        let oid = "a".repeat(40);
        let text = listing(&[
            &format!("100644 blob {oid}\tp/pack.yaml"),
            &format!("100755 blob {oid}\tp/bin/run"),
            &format!("120000 blob {oid}\tp/link"),
            &format!("160000 commit {oid}\tp/sub"),
            &format!("100644 blob {oid}\tother/big"),
        ]);
        let found = entries(&text, Some("p")).unwrap_or_default();
        let paths: Vec<(&str, bool)> = found
            .iter()
            .map(|e| (e.path.as_str(), e.executable))
            .collect();
        assert_eq!(paths, vec![("p/pack.yaml", false), ("p/bin/run", true)]);
        assert_eq!(entries(&text, None).map(|e| e.len()).ok(), Some(3));
    }

    #[test]
    fn files_get_the_modes_of_14_1_and_count_a_block_each() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        let batch = tmp.path().join("batch");
        let text = format!("{a} blob 3\nabc\n{b} blob 2\nhi\n");
        std::fs::write(&batch, text).unwrap_or_else(|e| panic!("{e}"));
        let entry = |oid: &str, path: &str, executable| Entry {
            oid: oid.to_string(),
            path: path.to_string(),
            executable,
        };
        let list = [entry(&a, "p/x.txt", false), entry(&b, "p/bin/run", true)];
        let small = tmp.path().join("small");
        let err = write(&list, &batch, &small, 2 * BLOCK - 1).err();
        assert_eq!(err.map(|e| e.code), Some(ErrorCode::SourceUnavailable));
        let into = tmp.path().join("into");
        assert_eq!(write(&list, &batch, &into, 2 * BLOCK).ok(), Some(2 * BLOCK));
        let mode = |p: &str| {
            let meta = std::fs::metadata(into.join(p)).unwrap_or_else(|e| panic!("{e}"));
            meta.permissions().mode() & 0o7777
        };
        assert_eq!(
            (mode("p/x.txt"), mode("p/bin/run"), mode("p/bin")),
            (0o644, 0o755, 0o755)
        );
        let text = std::fs::read_to_string(into.join("p/bin/run")).unwrap_or_default();
        assert_eq!(text, "hi");
    }

    #[test]
    fn read_keeps_the_bytes_in_memory_bounded_and_refuses_a_short_blob() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        let batch = tmp.path().join("batch");
        let entry = |oid: &str, path: &str| Entry {
            oid: oid.to_string(),
            path: path.to_string(),
            executable: false,
        };
        let list = [entry(&a, "p/SKILL.md"), entry(&b, "q/pack.yaml")];
        std::fs::write(&batch, format!("{a} blob 3\nabc\n{b} blob 2\nhi\n"))
            .unwrap_or_else(|e| panic!("{e}"));
        let read_all = read(&list, &batch, 2 * BLOCK).ok();
        assert_eq!(read_all, Some(vec![b"abc".to_vec(), b"hi".to_vec()]));
        let over = read(&list, &batch, 2 * BLOCK - 1).err();
        assert_eq!(over.map(|e| e.code), Some(ErrorCode::SourceUnavailable));
        std::fs::write(&batch, format!("{a} blob 3\nabc\n{b} blob 9\nhi\n"))
            .unwrap_or_else(|e| panic!("{e}"));
        let short = read(&list, &batch, 4 * BLOCK).err();
        assert_eq!(short.map(|e| e.code), Some(ErrorCode::SourceUnavailable));
        // Nothing is written beside the batch.
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(left.len(), 1);
    }

    #[test]
    fn a_path_that_could_leave_the_folder_is_refused() {
        let oid = "b".repeat(40);
        for bad in [
            "../x",
            "a/../../x",
            "/etc/x",
            "a//b",
            ".git/config",
            "a/.GIT/hooks/x",
            "./a",
        ] {
            let text = listing(&[&format!("100644 blob {oid}\t{bad}")]);
            let code = entries(&text, None).err().map(|e| e.code);
            assert_eq!(code, Some(ErrorCode::SourceUnavailable), "{bad}");
        }
        assert!(safe_path("a/.github/x") && safe_path(".gitattributes"));
        let mut latin1 = format!("100644 blob {oid}\tcaf").into_bytes();
        latin1.extend([0xe9, 0]);
        let code = entries(&latin1, None).err().map(|e| e.code);
        assert_eq!(code, Some(ErrorCode::SourceUnavailable));
    }
}
