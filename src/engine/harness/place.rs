//! Reading and writing one harness target folder (HCP.md §12.6–§12.7).
//!
//! A Skill is placed as `<folder>/<name>/SKILL.md`, a byte-for-byte copy
//! (never a link), with the marker `<folder>/<name>/.hcpx.json`. Every
//! write is whole or absent: the new folder is built under a hidden
//! temporary name in the target folder (same file system) and renamed into
//! place; a replacement is swapped in with `renameat2(RENAME_EXCHANGE)`; a
//! removal first renames the folder aside. Entries that are links, hidden,
//! or not named like a Skill are never read or touched.
//!
//! Harness copies are derived from the store (which is flushed to disk with
//! every change), so they are not fsynced: a harness reading the folder sees
//! a copy whole or not at all (the renames), and a copy a power loss left
//! short reads as `modified` until `hcpx harness sync --force` puts it back.
//! This keeps `activate` with targets enabled about as fast as without.

use super::plan::{Found, Marker, Step, Wanted};
use crate::engine::error::{Error, Result};
use crate::engine::pack::grammar;
use crate::engine::store::parallel::parallel_map;
use crate::engine::store::{Transaction, step as step_hook};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The marker file's name.
pub const MARKER: &str = ".hcpx.json";
/// The placed Skill's file name.
pub const SKILL_FILE: &str = "SKILL.md";
/// Most bytes read of a marker or a placed `SKILL.md` (§2.3's Skill limit).
const MAX_READ: u64 = 256 * 1024;

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// What `folder` holds: one entry per sub-folder named like a Skill. A
/// missing folder holds nothing.
pub fn observe(folder: &Path) -> Result<Vec<Found>> {
    let entries = match fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(Error::io("cannot read", folder, &err)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| Error::io("cannot read", folder, &err))?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if grammar::is_skill_name(&name) {
            names.push(name);
        }
    }
    names.sort();
    // Many Skills: their markers and digests are read on every core.
    Ok(parallel_map(names, |name| {
        observe_one(&folder.join(&name), name)
    }))
}

/// One entry: a link or a file is not ours (no marker read through it).
fn observe_one(dir: &Path, skill: String) -> Found {
    let is_dir = fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
    if !is_dir {
        return Found {
            skill,
            marker: None,
            sha256: None,
        };
    }
    let marker = read_small(&dir.join(MARKER))
        .and_then(|bytes| serde_json::from_slice::<Marker>(&bytes).ok())
        .filter(|m| grammar::is_pack_id(&m.pack_id));
    let sha256 = read_small(&dir.join(SKILL_FILE)).map(|bytes| sha256_hex(&bytes));
    Found {
        skill,
        marker,
        sha256,
    }
}

/// A regular file's bytes (not followed through a link), if it is at most
/// [`MAX_READ`] bytes; a larger or unreadable one reads as an unknown
/// digest.
fn read_small(path: &Path) -> Option<Vec<u8>> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    Some(read_bounded(path).unwrap_or_else(|| b"(too large)".to_vec()))
}

/// A regular file's bytes, never through a link, if it is at most
/// [`MAX_READ`] bytes (§2.3's Skill limit).
pub(super) fn read_bounded(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = crate::engine::lint::files::open_regular(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_READ + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= MAX_READ).then_some(bytes)
}

/// Carries out `steps` in `folder` as part of the store change `tx`,
/// creating the folder when a Skill must go there. `skill_bytes` gives a
/// wanted pack's `SKILL.md`. Every step is recorded in `tx`: when the change
/// fails, the folder is put back as it was (§14.7); what was staged or set
/// aside is deleted when the change ends.
pub fn apply(
    tx: &mut Transaction<'_>,
    folder: &Path,
    steps: &[Step],
    force: bool,
    skill_bytes: &dyn Fn(&Wanted) -> Result<Vec<u8>>,
) -> Result<()> {
    if steps.is_empty() {
        return Ok(());
    }
    let hint = |err: Error| {
        err.hint(format!(
            "hcpx writes Skills into {} because this harness target is enabled; make it writable, or `hcpx harness disable` it",
            folder.display()
        ))
    };
    if steps
        .iter()
        .any(|s| matches!(s, Step::Place(_) | Step::Replace(_)))
    {
        create_folder(tx, folder).map_err(hint)?;
    }
    for step in steps {
        apply_one(tx, folder, step, force, skill_bytes).map_err(hint)?;
    }
    Ok(())
}

fn apply_one(
    tx: &mut Transaction<'_>,
    folder: &Path,
    step: &Step,
    force: bool,
    skill_bytes: &dyn Fn(&Wanted) -> Result<Vec<u8>>,
) -> Result<()> {
    match step {
        Step::Place(want) => {
            let staged = stage_step(tx, folder, want, skill_bytes)?;
            let target = folder.join(&want.skill);
            match tx.rename_new(&staged, &target) {
                Ok(()) => Ok(()),
                // Someone created the folder since it was read: theirs now
                // (the status after the change says `conflict`).
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                Err(err) => Err(Error::io("cannot place the Skill at", &target, &err)),
            }
        }
        Step::Replace(want) => {
            if !still_ours(folder, &want.skill, force) {
                return Ok(());
            }
            let staged = stage_step(tx, folder, want, skill_bytes)?;
            tx.exchange(&staged, &folder.join(&want.skill))
        }
        Step::Remove { skill } => {
            if !still_ours(folder, skill, force) {
                return Ok(());
            }
            let aside = aside_name(folder, skill);
            tx.exchange(&folder.join(skill), &aside)?;
            tx.remove_when_done(aside);
            Ok(())
        }
        Step::Release { skill } => {
            let marker = folder.join(skill).join(MARKER);
            let aside = aside_name(folder, &format!("{skill}-marker"));
            tx.exchange(&marker, &aside)?;
            tx.remove_when_done(aside);
            Ok(())
        }
    }
}

/// Builds the new folder for `want` beside the Skills, deleted when the
/// change ends (the old copy after a swap, the new one after an undo).
fn stage_step(
    tx: &mut Transaction<'_>,
    folder: &Path,
    want: &Wanted,
    skill_bytes: &dyn Fn(&Wanted) -> Result<Vec<u8>>,
) -> Result<PathBuf> {
    let bytes = skill_bytes(want)?;
    let staged =
        stage(folder, want, &bytes).map_err(|e| Error::io("cannot write in", folder, &e))?;
    tx.remove_when_done(staged.clone());
    step_hook("harness.place")?;
    Ok(staged)
}

/// Whether `<folder>/<skill>` is still our copy, unedited (or `force`),
/// right before it is replaced or removed: an edit made since the folder
/// was read is never lost.
fn still_ours(folder: &Path, skill: &str, force: bool) -> bool {
    let found = observe_one(&folder.join(skill), skill.to_string());
    match found.marker {
        Some(marker) => force || found.sha256.as_deref() == Some(marker.sha256.as_str()),
        None => false,
    }
}

/// Creates the target folder (and its parents) when missing, recording the
/// ones it made so an undone change removes them again.
fn create_folder(tx: &mut Transaction<'_>, folder: &Path) -> Result<()> {
    let mut missing = Vec::new();
    let mut at = folder;
    while fs::symlink_metadata(at).is_err() {
        missing.push(at.to_path_buf());
        match at.parent() {
            Some(parent) => at = parent,
            None => break,
        }
    }
    for dir in missing.iter().rev() {
        tx.create_dir(dir)?;
    }
    Ok(())
}

/// Builds `<folder>/.hcpx-<name>-<random>/` holding the Skill and its
/// marker (not flushed to disk: see the module docs).
fn stage(folder: &Path, want: &Wanted, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let dir = tempfile::Builder::new()
        .prefix(&format!(".hcpx-{}-", want.skill))
        .tempdir_in(folder)?
        .keep();
    let write = |name: &str, bytes: &[u8]| -> std::io::Result<()> {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.join(name))?;
        file.set_permissions(fs::Permissions::from_mode(0o644))?;
        file.write_all(bytes)
    };
    let marker = Marker {
        pack_id: want.pack_id.to_string(),
        version: want.version.clone(),
        sha256: sha256_hex(bytes),
    };
    let result = write(SKILL_FILE, bytes)
        .and_then(|()| write(MARKER, &serde_json::to_vec(&marker).unwrap_or_default()))
        .and_then(|()| fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)));
    if let Err(err) = result {
        remove_tree(&dir);
        return Err(err);
    }
    Ok(dir)
}

/// A fresh hidden name beside the Skills of `folder`, for what a change
/// sets aside until it ends.
fn aside_name(folder: &Path, name: &str) -> PathBuf {
    let pid = std::process::id();
    (0..)
        .map(|n| folder.join(format!(".hcpx-removed-{name}-{pid}-{n}")))
        .find(|p| fs::symlink_metadata(p).is_err())
        .unwrap_or_else(|| folder.join(format!(".hcpx-removed-{name}-{pid}")))
}

/// Removes a folder hcpx built; best effort.
fn remove_tree(dir: &Path) {
    let _ = fs::remove_dir_all(dir);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::harness::plan::{SkillState, plan};

    fn want(pack: &str, skill: &str, bytes: &[u8]) -> Wanted {
        Wanted {
            pack_id: crate::engine::pack::id::PackId::parse(pack)
                .unwrap_or_else(|| panic!("{pack}")),
            version: "1.0.0".into(),
            skill: skill.into(),
            sha256: sha256_hex(bytes),
        }
    }

    /// Every name in `folder`, hidden ones included, sorted.
    fn names_in(folder: &Path) -> Vec<String> {
        let mut names: Vec<_> = fs::read_dir(folder)
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn sync(folder: &Path, wanted: &[Wanted], body: &[u8], force: bool) -> Vec<SkillState> {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = crate::engine::store::Store::open(home.path().join("hcp"))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        let found = observe(folder).unwrap_or_else(|e| panic!("{e}"));
        let p = plan(wanted, &found, force);
        apply(&mut tx, folder, &p.steps, force, &|_| Ok(body.to_vec()))
            .unwrap_or_else(|e| panic!("{e}"));
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
        let after = observe(folder).unwrap_or_else(|e| panic!("{e}"));
        plan(wanted, &after, force)
            .statuses
            .iter()
            .map(|s| s.state)
            .collect()
    }

    #[test]
    fn places_a_byte_copy_with_its_marker_and_removes_it_again() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let folder = dir.path().join("skills");
        let body = b"---\nname: notes\ndescription: d\n---\nbody\n";
        let wanted = [want("a.b", "notes", body)];
        assert_eq!(sync(&folder, &wanted, body, false), [SkillState::Placed]);
        let placed = folder.join("notes");
        assert_eq!(fs::read(placed.join(SKILL_FILE)).unwrap_or_default(), body);
        assert!(!fs::symlink_metadata(placed.join(SKILL_FILE)).is_ok_and(|m| m.is_symlink()));
        let marker: Marker =
            serde_json::from_slice(&fs::read(placed.join(MARKER)).unwrap_or_default())
                .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(marker.sha256, sha256_hex(body));
        // Nothing hidden is left behind.
        assert_eq!(names_in(&folder), ["notes"]);
        // No pack wants it any more: the copy goes.
        assert!(sync(&folder, &[], body, false).is_empty());
        assert!(!placed.exists());
    }

    #[test]
    fn an_edited_copy_is_left_in_place_and_released_when_the_pack_goes() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let folder = dir.path().to_path_buf();
        let body = b"---\nname: notes\ndescription: d\n---\nbody\n";
        let wanted = [want("a.b", "notes", body)];
        sync(&folder, &wanted, body, false);
        fs::write(folder.join("notes").join(SKILL_FILE), "mine").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sync(&folder, &wanted, body, false), [SkillState::Modified]);
        assert_eq!(
            fs::read_to_string(folder.join("notes/SKILL.md")).unwrap_or_default(),
            "mine"
        );
        // Deactivated: the user's copy stays, without our marker.
        sync(&folder, &[], body, false);
        assert_eq!(
            fs::read_to_string(folder.join("notes/SKILL.md")).unwrap_or_default(),
            "mine"
        );
        assert!(!folder.join("notes").join(MARKER).exists());
        // It is foreign now: a pack wanting the name is in conflict.
        assert_eq!(sync(&folder, &wanted, body, true), [SkillState::Conflict]);
    }

    #[test]
    fn an_abandoned_change_puts_the_folder_back() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let folder = dir.path().join("skills");
        let v1 = b"---\nname: notes\ndescription: one\n---\nbody\n";
        let v2 = b"---\nname: notes\ndescription: two\n---\nbody\n";
        sync(
            &folder,
            &[want("a.b", "notes", v1), want("c.d", "gone", v1)],
            v1,
            false,
        );
        let store = crate::engine::store::Store::open(dir.path().join("hcp"))
            .unwrap_or_else(|e| panic!("{e}"));
        {
            let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
            let found = observe(&folder).unwrap_or_else(|e| panic!("{e}"));
            let p = plan(
                &[want("a.b", "notes", v2), want("e.f", "new", v2)],
                &found,
                false,
            );
            assert_eq!(p.steps.len(), 3, "{p:?}");
            apply(&mut tx, &folder, &p.steps, false, &|_| Ok(v2.to_vec()))
                .unwrap_or_else(|e| panic!("{e}"));
            // Dropped without commit: the change failed later.
        }
        assert_eq!(
            fs::read(folder.join("notes/SKILL.md")).unwrap_or_default(),
            v1
        );
        assert!(folder.join("gone/SKILL.md").is_file());
        assert!(!folder.join("new").exists());
        let names = names_in(&folder);
        assert_eq!(names, ["gone", "notes"], "nothing staged is left behind");
    }

    #[test]
    fn what_someone_writes_between_reading_and_placing_is_never_lost() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let folder = dir.path().join("skills");
        let store = crate::engine::store::Store::open(dir.path().join("hcp"))
            .unwrap_or_else(|e| panic!("{e}"));
        let v1 = b"---\nname: notes\ndescription: one\n---\nbody\n";
        sync(&folder, &[want("a.b", "old", v1)], v1, false);
        let found = observe(&folder).unwrap_or_else(|e| panic!("{e}"));
        let wanted = [want("a.b", "notes", v1), want("c.d", "old", v1)];
        let p = plan(&wanted, &found, false);
        // Meanwhile: a folder of someone else's, and an edit of our copy.
        fs::create_dir_all(folder.join("notes")).unwrap_or_else(|e| panic!("{e}"));
        fs::write(folder.join("notes/SKILL.md"), "theirs").unwrap_or_else(|e| panic!("{e}"));
        fs::write(folder.join("old/SKILL.md"), "edited").unwrap_or_else(|e| panic!("{e}"));
        let mut tx = store.lock().unwrap_or_else(|e| panic!("{e}"));
        apply(&mut tx, &folder, &p.steps, false, &|_| Ok(v1.to_vec()))
            .unwrap_or_else(|e| panic!("{e}"));
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            fs::read_to_string(folder.join("notes/SKILL.md")).unwrap_or_default(),
            "theirs"
        );
        assert!(!folder.join("notes").join(MARKER).exists());
        assert_eq!(
            fs::read_to_string(folder.join("old/SKILL.md")).unwrap_or_default(),
            "edited"
        );
        let names = names_in(&folder);
        assert_eq!(names, ["notes", "old"], "nothing staged is left behind");
    }

    #[test]
    fn a_replacement_is_swapped_in_whole() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let folder = dir.path().to_path_buf();
        let v1 = b"---\nname: notes\ndescription: one\n---\nbody\n";
        let v2 = b"---\nname: notes\ndescription: two\n---\nbody\n";
        sync(&folder, &[want("a.b", "notes", v1)], v1, false);
        assert_eq!(
            sync(&folder, &[want("a.b", "notes", v2)], v2, false),
            [SkillState::Placed]
        );
        assert_eq!(
            fs::read(folder.join("notes/SKILL.md")).unwrap_or_default(),
            v2
        );
    }

    #[test]
    fn links_and_foreign_folders_are_never_touched() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let folder = dir.path().join("skills");
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap_or_else(|e| panic!("{e}"));
        fs::create_dir_all(&folder).unwrap_or_else(|e| panic!("{e}"));
        let body = b"x";
        // A link to a folder holding a valid-looking marker of ours.
        fs::write(
            elsewhere.join(MARKER),
            serde_json::to_vec(&Marker {
                pack_id: "a.b".into(),
                version: "1.0.0".into(),
                sha256: sha256_hex(b"old"),
            })
            .unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        fs::write(elsewhere.join(SKILL_FILE), "old").unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(&elsewhere, folder.join("notes"))
            .unwrap_or_else(|e| panic!("{e}"));
        fs::create_dir(folder.join("theirs")).unwrap_or_else(|e| panic!("{e}"));
        let wanted = [want("a.b", "notes", body), want("c.d", "theirs", body)];
        assert_eq!(
            sync(&folder, &wanted, body, true),
            [SkillState::Conflict, SkillState::Conflict]
        );
        assert_eq!(
            fs::read_to_string(elsewhere.join(SKILL_FILE)).unwrap_or_default(),
            "old"
        );
        assert!(
            fs::read_dir(folder.join("theirs"))
                .map(|d| d.count())
                .unwrap_or(1)
                == 0
        );
    }
}
