//! Whether a project's `.hcp/` is ours (HCP.md §15.2, §15.6): the
//! runtime creates it (mode 0700) with a random id in `.hcp/store-id` and
//! records `{path, store_id}` in the user store's `projects.json`
//! (`store::projects`). A `.hcp/` whose id is not recorded there for this
//! project's path came with the repository (`git add -f`, an archive, a
//! copy): it is never read, written or removed, and every command that
//! would use it fails with `store_corrupt` naming `.hcp/` and the fix
//! (remove it; `hcpx sync` rebuilds it). A `.hcp/` that is a link, or not
//! a folder, is refused the same way: a link could send the project's
//! writes anywhere.
//!
//! A `.hcp/` of an earlier release (no `store-id`) that is a real folder
//! of mode 0700, owned by the user, with no link inside, can be adopted
//! ([`adoptable`], [`adopt`]; `hcpx doctor --fix` does it after asking).
//!
//! Where the spec is silent: the store id is 32 hex digits from the
//! kernel's random source; a `store-id` that is a link, not a regular
//! file, or not such an id is a foreign store like any other.

use super::Project;
use super::ownership::User;
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::store::{self, STORE_ID_FILE, projects};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// What a project's `.hcp/` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreState {
    /// There is none yet: `init` or the first change creates it.
    Absent,
    /// It is ours: its id is recorded for this project.
    Ours,
}

/// Checks the project's `.hcp/` (see the module doc): absent, ours, or an
/// error (`store_corrupt`: a link, a file, foreign; `usage`: the user
/// store itself).
pub fn check(project: &Project, user_home: &Path) -> Result<StoreState> {
    let dir = project.store_dir();
    let meta = match std::fs::symlink_metadata(&dir) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            project.check_not_user_store(user_home)?;
            return Ok(StoreState::Absent);
        }
        Err(err) => return Err(Error::io("cannot read", &dir, &err)),
    };
    if meta.file_type().is_symlink() || !meta.is_dir() {
        let what = if meta.file_type().is_symlink() {
            "a symbolic link"
        } else {
            "not a folder"
        };
        return Err(refused(project, &format!("it is {what}")));
    }
    project.check_not_user_store(user_home)?;
    let Some(id) = read_id(&dir) else {
        let why = match adoptable(project) {
            Ok(()) => "it has no store-id: an earlier hcpx release made it, or it came with the repository".to_string(),
            Err(why) => format!("it has no store-id, and {why}"),
        };
        let mut err = refused(project, &why);
        if adoptable(project).is_ok() {
            err = err.hint(
                Hint::default()
                    .say("if you made it with an earlier hcpx, ")
                    .cmd(Fix::Doctor { fix: true })
                    .say(" adopts it; otherwise remove it and ")
                    .cmd(Fix::Sync)
                    .say(" rebuilds it from hcp.yaml and hcp.lock"),
            );
        }
        return Err(err);
    };
    let recorded = projects::read(user_home)?;
    if recorded.store_id(project.root()) == Some(id.as_str()) {
        return Ok(StoreState::Ours);
    }
    Err(refused(
        project,
        &format!(
            "its store id is not recorded for this project in {} (it came with the repository, an archive or a copy)",
            projects::path(user_home).display()
        ),
    ))
}

/// `store_corrupt` naming the project's `.hcp/`, why, and the fix.
fn refused(project: &Project, why: &str) -> Error {
    let dir = project.store_dir();
    Error::new(
        ErrorCode::StoreCorrupt,
        format!(
            "{}/ is not this project's store: {why}; hcpx never reads, writes or removes it",
            dir.display()
        ),
    )
    .path(dir.display().to_string())
    .hint(
        Hint::default()
            .say(format!("remove {}/ yourself; ", dir.display()))
            .cmd(Fix::Sync)
            .say(" rebuilds it from hcp.yaml and hcp.lock"),
    )
}

/// The id in `<dir>/store-id`: a regular file (not followed) holding 32
/// hex digits; `None` for anything else.
fn read_id(dir: &Path) -> Option<String> {
    let path = dir.join(STORE_ID_FILE);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(128).read_to_string(&mut text).ok()?;
    let id = text.trim();
    (id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id.to_string())
}

/// A new random store id.
fn new_id() -> Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|err| Error::io("cannot read", Path::new("/dev/urandom"), &err))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Creates the project's `.hcp/` (mode 0700) holding a new `store-id`,
/// and records it for the project in the user store's `projects.json`,
/// under the user store's lock. The folder is made beside it under a
/// temporary name and renamed into place, never over an existing one: a
/// `.hcp` another process made meanwhile is left as it is (and checked
/// again by the caller).
pub fn create(project: &Project, user_home: &Path) -> Result<()> {
    let id = new_id()?;
    let root = project.root();
    projects::update(user_home, |registry| -> Result<()> {
        let staged = tempfile::Builder::new()
            .prefix(".hcp.new-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(root)
            .map_err(|err| Error::io("cannot create a folder in", root, &err))?;
        let id_path = staged.path().join(STORE_ID_FILE);
        store::write_atomic(staged.path(), &id_path, format!("{id}\n").as_bytes(), 0o600)?;
        let dir = project.store_dir();
        match rustix::fs::renameat_with(
            rustix::fs::CWD,
            staged.path(),
            rustix::fs::CWD,
            &dir,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => {
                let _ = staged.keep();
                store::sync_dir(root);
                registry.set_store_id(root, &id);
                Ok(())
            }
            Err(rustix::io::Errno::EXIST) => Ok(()),
            Err(err) => Err(Error::io("cannot create", &dir, &err.into())),
        }
    })?
}

/// Why the project's `.hcp/` of an earlier release (no `store-id`) cannot
/// be adopted, if it cannot: it must be a real folder of mode 0700, owned
/// by the user, with no link anywhere inside.
pub fn adoptable(project: &Project) -> std::result::Result<(), String> {
    let dir = project.store_dir();
    let meta =
        std::fs::symlink_metadata(&dir).map_err(|err| format!("it cannot be read: {err}"))?;
    if !meta.is_dir() {
        return Err("it is not a folder".into());
    }
    if std::fs::symlink_metadata(dir.join(STORE_ID_FILE)).is_ok() {
        return Err(
            "it has a store id of its own, made on another machine or for another folder".into(),
        );
    }
    if meta.uid() != User::current().uid {
        return Err(format!("it is owned by uid {}, not you", meta.uid()));
    }
    if meta.mode() & 0o777 != 0o700 {
        return Err(format!(
            "its mode is {:04o}, not 0700 (if it is yours, chmod 700 it first)",
            meta.mode() & 0o777
        ));
    }
    for entry in walkdir::WalkDir::new(&dir).follow_links(false) {
        let entry = entry.map_err(|err| format!("it cannot be read: {err}"))?;
        if entry.path_is_symlink() {
            return Err(format!("it holds a link, {}", entry.path().display()));
        }
    }
    Ok(())
}

/// Adopts the project's `.hcp/` of an earlier release: writes a new
/// `store-id` into it and records it (the caller asked the user first).
pub fn adopt(project: &Project, user_home: &Path) -> Result<()> {
    adoptable(project).map_err(|why| refused(project, &format!("it cannot be adopted: {why}")))?;
    let id = new_id()?;
    let dir = project.store_dir();
    projects::update(user_home, |registry| -> Result<()> {
        store::write_atomic(
            &dir,
            &dir.join(STORE_ID_FILE),
            format!("{id}\n").as_bytes(),
            0o600,
        )?;
        registry.set_store_id(project.root(), &id);
        Ok(())
    })?
}
