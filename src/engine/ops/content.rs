//! What one version of a pack holds, read for the capability diff of an
//! upgrade or a sync replacement (HCP.md §13.7–§13.8): its manifest (as lint
//! reads it), its files with modes and hashes and its digest (§13.4), and
//! the text of its `SKILL.md`.
//!
//! A folder anyone may write (a catalog, a `dir` source) is first copied
//! into a private temporary folder ([`private_copy`]), and the diff, the
//! checks and the install all read that copy: a manifest swapped while it
//! is linted and swapped back before the digest is taken cannot make the
//! diff shown differ from what is installed.
//!
//! Where the spec is silent: a `SKILL.md` that is missing, not a regular
//! file or over lint's limit (§2.3) reads as empty (lint refuses such a
//! pack before anything is installed); bytes that are not UTF-8 are read
//! lossily.

use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::lint::files::{MAX_FILES, MAX_TOTAL_BYTES, is_root_git_dir, open_regular};
use crate::engine::lint::{LintOptions, lint_pack};
use crate::engine::pack::manifest::Manifest;
use crate::engine::policy::capdiff::{self, CapabilityChange, PackContent};
use crate::engine::store::digest::{self, Tree};
use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Largest `SKILL.md` read (§2.3: 256 KiB).
const MAX_SKILL_BYTES: u64 = 256 * 1024;

/// One version of a pack, as the diff compares it.
#[derive(Debug, Clone)]
pub(super) struct Content {
    /// `None` when the folder does not lint.
    pub manifest: Option<Manifest>,
    pub tree: Tree,
    pub skill: String,
}

impl Content {
    /// Reads the pack folder `dir`.
    pub fn read(dir: &Path) -> Result<Content> {
        let tree = digest::scan(dir)?;
        let report = lint_pack(dir, LintOptions::default());
        let manifest = report.manifest.filter(|_| report.ok);
        Ok(Content {
            manifest,
            tree,
            skill: read_skill(&dir.join("SKILL.md")),
        })
    }

    /// The folder `dir` whose manifest (`None`: it does not lint) the
    /// caller has read already: a staged copy, linted with options of its
    /// own; with `tree`, the copy's tree as the copy read it
    /// (`copy_tree_digested`), else it is scanned.
    pub fn with_manifest(
        dir: &Path,
        manifest: Option<Manifest>,
        tree: Option<digest::Tree>,
    ) -> Result<Content> {
        let tree = match tree {
            Some(tree) => tree,
            None => digest::scan(dir)?,
        };
        Ok(Content {
            manifest,
            tree,
            skill: read_skill(&dir.join("SKILL.md")),
        })
    }

    /// The `sha256:<hex>` digest of §13.4.
    pub fn digest(&self) -> &str {
        &self.tree.digest
    }

    /// The capability diff of `self` → `new` (an unreadable old manifest
    /// counts as the default one: every reach is new).
    pub fn diff_to(&self, new: &Content, new_manifest: &Manifest) -> Vec<CapabilityChange> {
        let old_manifest = self.manifest.clone().unwrap_or_default();
        capdiff::diff_packs(
            &PackContent {
                manifest: &old_manifest,
                tree: &self.tree,
                skill: &self.skill,
            },
            &PackContent {
                manifest: new_manifest,
                tree: &new.tree,
                skill: &new.skill,
            },
        )
    }

    /// The capability diff of `new` against nothing (§15.6).
    pub fn diff_from_nothing(new: &Content, new_manifest: &Manifest) -> Vec<CapabilityChange> {
        capdiff::diff_from_nothing(&PackContent {
            manifest: new_manifest,
            tree: &new.tree,
            skill: &new.skill,
        })
    }
}

/// A private copy of the pack folder `dir` (mode 0700, outside the store),
/// in a folder of the same name (lint compares a Skill's name with it):
/// regular files (0644, or 0755 with any execute bit) and folders, the
/// root `.git/` left out, links copied as links (lint then refuses them,
/// §2.4), any other file type refused. Over lint's limits (§2.3) it stops
/// with `lint_failed` rather than copying without end.
pub(super) fn private_copy(dir: &Path) -> Result<(tempfile::TempDir, PathBuf)> {
    let tmp = super::fetch::private_temp_dir("hcpx-pack-")?;
    let name = dir
        .file_name()
        .unwrap_or_else(|| std::ffi::OsStr::new("pack"));
    let root = tmp.path().join(name);
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| !is_root_git_dir(e));
    let (mut entries, mut bytes) = (0usize, 0u64);
    for entry in walk {
        let entry = entry.map_err(|err| {
            let io = std::io::Error::other(err.to_string());
            Error::io("cannot read", err.path().unwrap_or(dir), &io)
        })?;
        entries += 1;
        if entries > 10 * MAX_FILES || bytes > MAX_TOTAL_BYTES {
            return Err(Error::new(
                ErrorCode::LintFailed,
                format!(
                    "{} is over the limits of a pack (files or size)",
                    dir.display()
                ),
            )
            .path(dir.display().to_string()));
        }
        let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        bytes += copy_entry(&entry, &root.join(rel))?;
    }
    Ok((tmp, root))
}

/// Copies one entry of a walk to `to`; the bytes copied.
fn copy_entry(entry: &walkdir::DirEntry, to: &Path) -> Result<u64> {
    let kind = entry.file_type();
    fn err_at(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
        move |err| Error::io("cannot copy", path, &err)
    }
    if kind.is_dir() {
        std::fs::create_dir_all(to).map_err(err_at(to))?;
        return Ok(0);
    }
    if kind.is_symlink() {
        let target = std::fs::read_link(entry.path()).map_err(err_at(entry.path()))?;
        std::os::unix::fs::symlink(target, to).map_err(err_at(to))?;
        return Ok(0);
    }
    let mut from = open_regular(entry.path()).map_err(err_at(entry.path()))?;
    let executable = from
        .metadata()
        .map_err(err_at(entry.path()))?
        .permissions()
        .mode()
        & 0o111
        != 0;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(if executable { 0o755 } else { 0o644 })
        .open(to)
        .map_err(err_at(to))?;
    let copied =
        std::io::copy(&mut (&mut from).take(MAX_TOTAL_BYTES + 1), &mut file).map_err(err_at(to))?;
    Ok(copied)
}

fn read_skill(path: &Path) -> String {
    let mut bytes = Vec::new();
    let read = open_regular(path).and_then(|f| f.take(MAX_SKILL_BYTES + 1).read_to_end(&mut bytes));
    if read.is_err() || bytes.len() as u64 > MAX_SKILL_BYTES {
        return String::new();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_copy_keeps_modes_and_links_skips_git_and_refuses_a_fifo() {
        let Ok(dir) = tempfile::tempdir() else { return };
        let pack = dir.path().join("my-skill");
        let ok = std::fs::create_dir_all(pack.join("scripts")).is_ok()
            && std::fs::create_dir_all(pack.join(".git")).is_ok()
            && std::fs::write(pack.join("SKILL.md"), "s").is_ok()
            && std::fs::write(pack.join(".git/config"), "g").is_ok()
            && std::fs::write(pack.join("scripts/x.sh"), "x").is_ok()
            && std::fs::set_permissions(
                pack.join("scripts/x.sh"),
                std::fs::Permissions::from_mode(0o700),
            )
            .is_ok()
            && std::os::unix::fs::symlink("/etc/passwd", pack.join("link")).is_ok();
        assert!(ok);
        let Ok((_tmp, copy)) = private_copy(&pack) else {
            panic!("copy failed");
        };
        assert!(copy.ends_with("my-skill"));
        let mode = |p: &str| {
            std::fs::symlink_metadata(copy.join(p)).map(|m| m.permissions().mode() & 0o777)
        };
        assert_eq!(mode("scripts/x.sh").ok(), Some(0o755));
        assert_eq!(mode("SKILL.md").ok(), Some(0o644));
        assert!(!copy.join(".git").exists());
        let link = std::fs::symlink_metadata(copy.join("link"));
        assert!(link.is_ok_and(|m| m.file_type().is_symlink()));
        assert_eq!(
            digest::scan(&pack).map(|t| t.files.len()).ok(),
            digest::scan(&copy).map(|t| t.files.len()).ok()
        );
        let fifo = pack.join("fifo");
        let mode = rustix::fs::Mode::from_raw_mode(0o600);
        assert!(rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, mode).is_ok());
        assert!(private_copy(&pack).is_err());
    }
}
