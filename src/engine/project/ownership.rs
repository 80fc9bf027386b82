//! Whose folder an `hcp.yaml` is in (HCP.md §15.1), as git's
//! `safe.directory` check: the walk-up takes a folder as a project only
//! when the folder and its `hcp.yaml` are owned by the user running hcpx
//! and neither is writable by others, or by a group other than the user's
//! own primary group. Any other is skipped with a [`Skipped`] warning
//! naming it and its owner, unless the user store's `config.yaml` lists
//! it in `safe_directories` (or lists `*`), for CI containers whose
//! checkout another uid owns.
//!
//! Pure checks over file metadata and the user's ids; the owner's name is
//! looked up in `/etc/passwd` for the warning only.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The user hcpx runs as: the effective uid and the primary group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct User {
    pub uid: u32,
    pub gid: u32,
}

impl User {
    /// The user running this process.
    pub fn current() -> User {
        User {
            uid: rustix::process::geteuid().as_raw(),
            gid: rustix::process::getgid().as_raw(),
        }
    }
}

/// An `hcp.yaml` the walk-up did not take (§15.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The folder holding it.
    pub dir: PathBuf,
    /// Its owner, as a name where one is known (`uid N` otherwise).
    pub owner: String,
    /// Why it is no project.
    pub why: String,
}

impl Skipped {
    /// The warning printed on stderr (and in `--json`'s `warnings`).
    pub fn warning(&self) -> String {
        format!(
            "{} is no project for you: {} (owner: {}); hcpx ignores it and looks further up. If you trust it, add the folder to safe_directories in the user store's config.yaml",
            self.dir.join(super::file::FILE_NAME).display(),
            self.why,
            self.owner
        )
    }
}

/// Why the folder `dir` and its file `file` (metadata read without
/// following a link) are not the user's, if they are not.
pub fn not_ours(
    dir: &std::fs::Metadata,
    file: &std::fs::Metadata,
    user: User,
) -> Option<(u32, String)> {
    for (what, meta) in [("the folder", dir), ("hcp.yaml", file)] {
        if meta.uid() != user.uid {
            return Some((meta.uid(), format!("{what} is owned by another user")));
        }
        if meta.file_type().is_symlink() {
            // A link has no mode of its own: what it is, is checked apart.
            continue;
        }
        let mode = meta.mode();
        if mode & 0o002 != 0 {
            return Some((meta.uid(), format!("{what} is writable by others")));
        }
        if mode & 0o020 != 0 && meta.gid() != user.gid {
            return Some((
                meta.uid(),
                format!("{what} is writable by the group {}", meta.gid()),
            ));
        }
    }
    None
}

/// Whether `dir` is accepted whoever owns it: listed in
/// `safe_directories` (as written, or with links resolved), or `*` is.
pub fn is_safe(dir: &Path, safe_directories: &[String]) -> bool {
    safe_directories.iter().any(|listed| {
        listed == "*"
            || Path::new(listed) == dir
            || Path::new(listed)
                .canonicalize()
                .is_ok_and(|resolved| resolved == dir)
    })
}

/// The check of one folder holding `hcp.yaml` (a regular file, not
/// followed): `None` when it is a project for `user`, else what to warn.
pub fn check(dir: &Path, user: User, safe_directories: &[String]) -> Option<Skipped> {
    let file = dir.join(super::file::FILE_NAME);
    let (dir_meta, file_meta) = match (
        std::fs::symlink_metadata(dir),
        std::fs::symlink_metadata(&file),
    ) {
        (Ok(d), Ok(f)) => (d, f),
        _ => return None,
    };
    let (uid, why) = not_ours(&dir_meta, &file_meta, user)?;
    if is_safe(dir, safe_directories) {
        return None;
    }
    Some(Skipped {
        dir: dir.to_path_buf(),
        owner: user_name(uid),
        why,
    })
}

/// The name of the user `uid` from `/etc/passwd`, else `uid N`.
fn user_name(uid: u32) -> String {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .filter_map(|line| {
            let mut fields = line.split(':');
            let name = fields.next()?;
            let id = fields.nth(1)?.parse::<u32>().ok()?;
            (id == uid).then(|| format!("{} (uid {uid})", name.escape_default()))
        })
        .next()
        .unwrap_or_else(|| format!("uid {uid}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn meta(path: &Path) -> std::fs::Metadata {
        std::fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn only_the_users_own_folder_and_file_make_a_project() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("hcp.yaml");
        std::fs::write(&file, "hcp: \"1\"\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644))
            .unwrap_or_else(|e| panic!("{e}"));
        let me = User::current();
        let (d, f) = (meta(dir.path()), meta(&file));
        assert_eq!(not_ours(&d, &f, me), None);
        let other = User {
            uid: me.uid.wrapping_add(1),
            gid: me.gid,
        };
        assert!(not_ours(&d, &f, other).is_some_and(|(_, why)| why.contains("another user")));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666))
            .unwrap_or_else(|e| panic!("{e}"));
        let why = not_ours(&d, &meta(&file), me).map(|(_, why)| why);
        assert_eq!(why.as_deref(), Some("hcp.yaml is writable by others"));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o664))
            .unwrap_or_else(|e| panic!("{e}"));
        let elsewhere = User {
            uid: me.uid,
            gid: me.gid.wrapping_add(1),
        };
        assert!(not_ours(&d, &meta(&file), elsewhere).is_some());
        assert_eq!(not_ours(&d, &meta(&file), me), None);
        // Listed in safe_directories (or `*`), it is a project.
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666))
            .unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
        assert!(check(&root, me, &[]).is_some());
        assert!(check(&root, me, &["*".into()]).is_none());
        assert!(check(&root, me, &[root.display().to_string()]).is_none());
    }
}
