//! Copying a pack tree without following links (HCP.md §14.1): the one
//! walker that install (into `<store>/packs/`) and harness placing (into a
//! target's `<folder>/<name>/`, §12.6) both use.
//!
//! The root folder may be a link (the path the user named); below it
//! nothing is followed, also if it changes while it is copied: each folder
//! is opened from its parent's handle with `O_NOFOLLOW` (a folder swapped
//! for a link to one of the user's after lint walked it is refused, not
//! copied from), and each file is opened the same way as a regular file.
//! Regular files are written 0644, or 0755 where the source has an execute
//! bit; folders 0755; links and special files are never copied.

use crate::engine::error::{Error, Result};
use crate::engine::lint::files::MAX_TOTAL_BYTES;
use crate::engine::store::digest::{self, Tree};
use crate::engine::store::{create_dir, sync_dir};
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// How [`copy_tree`] copies.
#[derive(Debug, Clone, Copy, Default)]
pub struct CopyOptions<'a> {
    /// Names at the root that are not copied (besides `.git/`).
    pub skip_root: &'a [&'a str],
    /// Flush the copy (every file and folder) to disk before returning.
    pub flush: bool,
}

/// Copies the tree at `from` to the new folder `to` (see the module doc),
/// leaving out `.git/` and `options.skip_root` at the root.
pub fn copy_tree(from: &Path, to: &Path, options: CopyOptions<'_>) -> Result<()> {
    walk_copy(from, to, options, None)
}

/// [`copy_tree`], returning the §13.4 tree of the copy (what
/// [`digest::scan`] of `to` would say) from the bytes it wrote: the files
/// are read once for both, not once more for the digest. A tree above the
/// pack limit of §2.3 is not held in memory: it is scanned after the copy.
pub fn copy_tree_digested(from: &Path, to: &Path, options: CopyOptions<'_>) -> Result<Tree> {
    let mut kept = Kept {
        files: Vec::new(),
        budget: Some(MAX_TOTAL_BYTES),
    };
    walk_copy(from, to, options, Some(&mut kept))?;
    match kept.budget {
        Some(_) => Ok(digest::tree_of(kept.files)),
        None => digest::scan(to),
    }
}

/// The files a [`copy_tree_digested`] copied, while they fit its budget:
/// each relative path, whether it is executable, and its bytes.
struct Kept {
    files: Vec<(Vec<u8>, bool, Vec<u8>)>,
    /// Bytes it may still hold; `None` once it gave up.
    budget: Option<u64>,
}

impl Kept {
    /// Stops keeping bytes: the tree is scanned after the copy instead.
    fn give_up(&mut self) {
        self.budget = None;
        self.files = Vec::new();
    }
}

fn walk_copy(
    from: &Path,
    to: &Path,
    options: CopyOptions<'_>,
    mut kept: Option<&mut Kept>,
) -> Result<()> {
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use std::os::unix::ffi::OsStrExt;
    create_dir(to)?;
    let read_err = |rel: &Path, err: rustix::io::Errno| {
        Error::io("cannot read", &from.join(rel), &std::io::Error::from(err))
    };
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    // Folders still to copy, as paths relative to `from`; one buffer for
    // every file.
    let mut pending = vec![PathBuf::new()];
    let mut buf = vec![0u8; 64 * 1024];
    while let Some(rel) = pending.pop() {
        let dir = open_below(from, &rel, dir_flags).map_err(|err| read_err(&rel, err))?;
        for entry in rustix::fs::Dir::read_from(&dir).map_err(|err| read_err(&rel, err))? {
            let entry = entry.map_err(|err| read_err(&rel, err))?;
            let name = entry.file_name();
            let name_os = std::ffi::OsStr::from_bytes(name.to_bytes());
            let at_root = rel.as_os_str().is_empty();
            if name_os == "." || name_os == ".." {
                continue;
            }
            if at_root && options.skip_root.iter().any(|s| name_os == *s) {
                continue;
            }
            let child = rel.join(name_os);
            // The kind the folder listing gives, where the file system
            // gives one; what is opened is checked again on its handle.
            let kind = match entry.file_type() {
                FileType::Unknown => {
                    let stat = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)
                        .map_err(|err| read_err(&child, err))?;
                    FileType::from_raw_mode(stat.st_mode)
                }
                kind => kind,
            };
            match kind {
                FileType::Directory if at_root && name_os == ".git" => {}
                FileType::Directory => {
                    create_new_dir(&to.join(&child))?;
                    pending.push(child);
                }
                FileType::RegularFile => {
                    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK;
                    let file =
                        rustix::fs::openat(&dir, name, flags | OFlags::CLOEXEC, Mode::empty())
                            .map_err(|err| read_err(&child, err))?;
                    let (src, dst) = (from.join(&child), to.join(&child));
                    let keep = kept
                        .as_deref_mut()
                        .map(|k| (child.as_os_str().as_bytes(), k));
                    // Flushed all at once below, not file by file.
                    copy_open_file(fs::File::from(file), (&src, &dst), &mut buf, keep)?;
                }
                // Links and special files: never copied (lint refuses them
                // in a pack).
                _ => {}
            }
        }
    }
    if options.flush {
        flush_tree(to)?;
    }
    Ok(())
}

/// Moves the tree at `from` — a folder of a private checkout hcpx wrote
/// itself (regular files and folders only, HCP.md §14.8) — to the new
/// folder `to` in one rename instead of a copy, then gives it the modes of
/// §14.1 (files 0644, or 0755 with an execute bit; folders 0755; whatever
/// the umask was when it was written). `Ok(false)`, with nothing moved,
/// when it cannot be renamed there (another file system): copy it then.
/// Anything but a regular file or a folder in it is an error.
pub fn move_tree(from: &Path, to: &Path) -> Result<bool> {
    if fs::rename(from, to).is_err() {
        return Ok(false);
    }
    for entry in walkdir::WalkDir::new(to).follow_links(false) {
        let entry = entry.map_err(|err| {
            let io = std::io::Error::other(err.to_string());
            Error::io("cannot read", err.path().unwrap_or(to), &io)
        })?;
        let path = entry.path();
        let io = |err: std::io::Error| Error::io("cannot write", path, &err);
        let meta = entry
            .metadata()
            .map_err(|err| io(std::io::Error::other(err.to_string())))?;
        let mode = match entry.file_type() {
            t if t.is_dir() => 0o755,
            t if t.is_file() && meta.permissions().mode() & 0o111 != 0 => 0o755,
            t if t.is_file() => 0o644,
            _ => return Err(io(std::io::Error::other("it is not a regular file"))),
        };
        if meta.permissions().mode() & 0o7777 != mode {
            fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(io)?;
        }
    }
    Ok(true)
}

/// Makes the copy at `to` durable before it is renamed into place: one
/// `syncfs` of its file system (every file and folder written, in one
/// journal commit, instead of an fsync per file: a Skill pack of 15 files is
/// 15 waits on the disk otherwise), then the root folder itself.
pub fn flush_tree(to: &Path) -> Result<()> {
    let root = fs::File::open(to).map_err(|err| Error::io("cannot open", to, &err))?;
    rustix::fs::syncfs(&root)
        .map_err(|err| Error::io("cannot flush", to, &std::io::Error::from(err)))?;
    sync_dir(to);
    Ok(())
}

/// Opens the folder `rel` below `root`, one part at a time from the
/// previous part's handle, following no link on the way.
fn open_below(
    root: &Path,
    rel: &Path,
    flags: rustix::fs::OFlags,
) -> rustix::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    // The root itself may be a link the user named.
    let root_flags = flags & !OFlags::NOFOLLOW;
    let mut dir = rustix::fs::open(root, root_flags, Mode::empty())?;
    for part in rel.components() {
        dir = rustix::fs::openat(&dir, part.as_os_str(), flags, Mode::empty())?;
    }
    Ok(dir)
}

/// Copies one regular file to a new file `to`, with mode 0755 where the
/// source has an execute bit, else 0644 (§14.1). A read error names the
/// source, a write error the copy. The source is opened as a regular file
/// only (`open_regular`): one swapped for a link (to a file of the user's
/// outside the pack) or a FIFO (which would wait for a writer forever)
/// since the walk that found it is refused, not followed.
#[cfg(test)]
fn copy_file(from: &Path, to: &Path) -> Result<()> {
    let source = crate::engine::lint::files::open_regular(from)
        .map_err(|err| Error::io("cannot read", from, &err))?;
    copy_open_file(source, (from, to), &mut [0u8; 4096], None)
}

/// Copies the opened file `source` (read from `from`) to a new file `to`,
/// as [`copy_file`] does, through `buf`; anything but a regular file is
/// refused. With `keep`, its bytes are also kept there under its relative
/// path while they fit the budget.
fn copy_open_file(
    mut source: fs::File,
    (from, to): (&Path, &Path),
    buf: &mut [u8],
    keep: Option<(&[u8], &mut Kept)>,
) -> Result<()> {
    let read_err = |err: std::io::Error| Error::io("cannot read", from, &err);
    let write_err = |err: std::io::Error| Error::io("cannot write", to, &err);
    let meta = source.metadata().map_err(read_err)?;
    if !meta.is_file() {
        return Err(read_err(std::io::Error::other("it is not a regular file")));
    }
    let executable = meta.permissions().mode() & 0o111 != 0;
    let mode = if executable { 0o755 } else { 0o644 };
    let mut copy = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(to)
        .map_err(write_err)?;
    let mut keep = keep;
    if let Some((_, kept)) = &mut keep
        && kept.budget.is_none_or(|b| meta.len() > b)
    {
        kept.give_up();
    }
    let keeping = keep.as_ref().is_some_and(|(_, kept)| kept.budget.is_some());
    let mut bytes = Vec::new();
    loop {
        let n = match source.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(read_err(err)),
        };
        copy.write_all(&buf[..n]).map_err(write_err)?;
        if keeping {
            bytes.extend_from_slice(&buf[..n]);
        }
    }
    if let (true, Some((rel, kept))) = (keeping, keep) {
        match kept.budget.and_then(|b| b.checked_sub(bytes.len() as u64)) {
            Some(left) => {
                kept.budget = Some(left);
                kept.files.push((rel.to_vec(), executable, bytes));
            }
            None => kept.give_up(),
        }
    }
    if !umask_keeps(mode) {
        copy.set_permissions(fs::Permissions::from_mode(mode))
            .map_err(write_err)?;
    }
    Ok(())
}

/// Creates the folder `path`, mode 0755, where nothing is (a copy's own
/// folder: what is there already is an error, never written through).
fn create_new_dir(path: &Path) -> Result<()> {
    let io = |err: std::io::Error| Error::io("cannot create", path, &err);
    fs::DirBuilder::new().mode(0o755).create(path).map_err(io)?;
    if !umask_keeps(0o755) {
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).map_err(io)?;
    }
    Ok(())
}

/// Whether a file or folder created with `mode` gets exactly that mode:
/// the process's umask (read once, from `/proc/self/status`) takes none
/// of its bits. When the umask cannot be read, no: the mode is set after
/// the create, as it always is when the umask takes some.
fn umask_keeps(mode: u32) -> bool {
    static UMASK: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    let umask = UMASK.get_or_init(|| {
        let status = fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find_map(|l| l.strip_prefix("Umask:"))?;
        u32::from_str_radix(line.trim(), 8).ok()
    });
    umask.is_some_and(|umask| mode & umask == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::error::ErrorCode;

    /// A file swapped for a link or a FIFO after the walk found it is not
    /// followed: the copy fails at once and writes nothing.
    #[test]
    fn copy_file_refuses_a_link_or_a_fifo() {
        let dir = temp();
        let secret = dir.path().join("secret");
        fs::write(&secret, "the user's key").unwrap_or_default();
        let link = dir.path().join("link");
        let _ = std::os::unix::fs::symlink(&secret, &link);
        let copy = dir.path().join("copy");
        assert!(copy_file(&link, &copy).is_err());
        assert!(fs::read(&copy).unwrap_or_default().is_empty());
        let fifo = dir.path().join("fifo");
        let _ = rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        );
        assert!(copy_file(&fifo, &dir.path().join("copy2")).is_err());
    }

    /// A folder of the pack swapped for a link (to a folder of the user's)
    /// between lint's walk and the copy: opening it from its parent follows
    /// no link, so nothing is copied from there; the pack folder itself may
    /// be a link.
    #[test]
    fn folders_below_the_pack_are_opened_without_following_links() {
        use rustix::fs::OFlags;
        let dir = temp();
        let pack = dir.path().join("pack");
        let outside = dir.path().join("outside");
        fs::create_dir_all(pack.join("real")).unwrap_or_default();
        fs::create_dir_all(&outside).unwrap_or_default();
        fs::write(outside.join("id_rsa"), "the user's key").unwrap_or_default();
        let _ = std::os::unix::fs::symlink(&outside, pack.join("sub"));
        let named = dir.path().join("named");
        let _ = std::os::unix::fs::symlink(&pack, &named);
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW;
        assert!(open_below(&named, Path::new("real"), flags).is_ok());
        assert!(open_below(&named, Path::new("sub"), flags).is_err());
        let copy = dir.path().join("copy");
        assert!(copy_tree(&named, &copy, CopyOptions::default()).is_ok());
        assert!(copy.join("real").is_dir());
        assert!(fs::symlink_metadata(copy.join("sub")).is_err());
    }

    fn temp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_read_error_names_the_source_not_the_copy() {
        // Reading a folder fails with EISDIR, even for root.
        let dir = temp();
        let source = dir.path().join("source");
        fs::create_dir(&source).unwrap_or_else(|e| panic!("{e}"));
        let dest = dir.path().join("staged");
        let err = copy_file(&source, &dest).err();
        let shown = err.map(|e| (e.code, e.message, e.context.path));
        let Some((code, message, path)) = shown else {
            panic!("copying a folder as a file succeeded");
        };
        assert_eq!(code, ErrorCode::Io);
        assert!(message.contains(&source.display().to_string()), "{message}");
        assert!(!message.contains("staged"), "{message}");
        assert_eq!(path, Some(source.display().to_string()));
    }

    #[test]
    fn an_unreadable_file_is_named_in_the_error() {
        // Root reads mode-000 files; the test means something only for
        // other users (the folder case above covers root).
        if rustix::process::geteuid().is_root() {
            return;
        }
        let dir = temp();
        let source = dir.path().join("pack");
        fs::create_dir(&source).unwrap_or_else(|e| panic!("{e}"));
        let secret = source.join("locked.txt");
        fs::write(&secret, "x").unwrap_or_else(|e| panic!("{e}"));
        fs::set_permissions(&secret, fs::Permissions::from_mode(0o000))
            .unwrap_or_else(|e| panic!("{e}"));
        let message = copy_tree(&source, &dir.path().join("staged"), CopyOptions::default())
            .err()
            .map(|e| e.message)
            .unwrap_or_default();
        assert!(message.contains(&secret.display().to_string()), "{message}");
    }

    #[test]
    fn modes_follow_section_14_1() {
        let dir = temp();
        let source = dir.path().join("pack");
        fs::create_dir(&source).unwrap_or_else(|e| panic!("{e}"));
        for (name, mode) in [
            ("suid", 0o4755),
            ("open", 0o777),
            ("data", 0o666),
            ("sgid", 0o2644),
        ] {
            let path = source.join(name);
            fs::write(&path, name).unwrap_or_else(|e| panic!("{e}"));
            fs::set_permissions(&path, fs::Permissions::from_mode(mode))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let to = dir.path().join("staged");
        copy_tree(&source, &to, CopyOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let mode = |name: &str| {
            fs::metadata(to.join(name))
                .map(|m| m.permissions().mode() & 0o7777)
                .ok()
        };
        assert_eq!(mode("suid"), Some(0o755));
        assert_eq!(mode("open"), Some(0o755));
        assert_eq!(mode("data"), Some(0o644));
        assert_eq!(mode("sgid"), Some(0o644));
        assert_eq!(mode(""), Some(0o755));
    }
}
