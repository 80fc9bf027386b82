//! Reading and writing one harness target folder (HCP.md §12.6–§12.7,
//! §14.10).
//!
//! A Skill is placed as `<folder>/<name>/`: the installed pack's whole
//! folder but its manifest — byte-for-byte copies with modes 0644 or 0755,
//! never links, copied by the store's no-link walker
//! ([`copy_tree`]) — with the marker `<folder>/<name>/.hcpx.json` naming
//! the pack, its version, the placed `SKILL.md`'s SHA-256, the §13.4 digest
//! of the placed files (marker excluded) and this store. Every write is
//! whole or absent: the new folder is built under a hidden staging name in
//! the target folder (same file system, see [`is_leftover`]) and renamed
//! into place; a replacement is swapped in with
//! `renameat2(RENAME_EXCHANGE)`; a removal first renames the folder aside.
//! Entries that are links, hidden, or not named like a Skill are never read
//! or touched, and a marker of another store (or a store-less one whose
//! pack is not installed here) is not ours ([`Owner`]). A placed folder
//! holding more than a pack may (§2.3) is `modified` without being read.
//!
//! Harness copies are derived from the store (which is flushed to disk with
//! every change), so they are not fsynced: a harness reading the folder sees
//! a copy whole or not at all (the renames), and a copy a power loss left
//! short reads as `modified` until `hcpx harness sync --force` puts it back.
//! This keeps `activate` with targets enabled about as fast as without.

use super::plan::{Found, Marker, Step, Wanted};
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::lint::files::{MAX_FILES, MAX_TOTAL_BYTES};
use crate::engine::pack::grammar;
use crate::engine::store::copy::{CopyOptions, copy_tree_digested};
use crate::engine::store::digest::{self, Tree};
use crate::engine::store::parallel::parallel_map;
use crate::engine::store::{Store, Transaction, remove, step as step_hook};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The marker file's name.
pub const MARKER: &str = ".hcpx.json";
/// The placed Skill's file name.
pub const SKILL_FILE: &str = "SKILL.md";
/// What of a pack's root is not placed: its manifest, and a file that
/// would pose as the marker.
pub const NOT_PLACED: &[&str] = &["pack.yaml", "pack.json", MARKER];
/// The start of every name hcpx stages or sets aside in a target folder.
const STAGING: &str = ".hcpx-";
/// The start of the names of what a change set aside.
const ASIDE: &str = ".hcpx-removed-";
/// Most bytes read of a marker or a pack's `SKILL.md` (§2.3's Skill limit).
const MAX_READ: u64 = 256 * 1024;

/// Which markers are this store's (§14.10): those naming it, and
/// store-less ones (an earlier release) whose pack is installed here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owner {
    /// The store's absolute path, links resolved; a project's store: `.hcp`.
    pub store: String,
    pub installed: BTreeSet<String>,
}

impl Owner {
    /// The owner for `store`, as it is now.
    pub fn of(store: &Store) -> Owner {
        let root = fs::canonicalize(store.root()).unwrap_or_else(|_| store.root().to_path_buf());
        // A project's store writes only into the project's own folders,
        // whose copies teammates may commit: its markers name it by the
        // project-relative `.hcp`, the same in every clone (§15.2).
        let store_name = match store.project() {
            Some(_) => crate::engine::store::PROJECT_STORE_DIR.to_string(),
            None => root.display().to_string(),
        };
        Owner {
            store: store_name,
            installed: store
                .installed_ids()
                .unwrap_or_default()
                .into_iter()
                .map(|id| id.to_string())
                .collect(),
        }
    }

    fn owns(&self, marker: &Marker) -> bool {
        match &marker.store {
            Some(store) => *store == self.store,
            None => self.installed.contains(&marker.pack_id),
        }
    }
}

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    digest::hex(&Sha256::digest(bytes))
}

/// The files a placed copy of the pack at `dir` holds (§12.6), read once.
pub fn placed_tree(dir: &Path) -> Result<Tree> {
    digest::scan_except(dir, NOT_PLACED)
}

/// Whether `name`, an entry of a target folder, is one hcpx stages a copy
/// under (`.hcpx-<skill>-<6 random>`) or sets one aside under
/// (`.hcpx-removed-…-<pid>-<n>`): what a crash may leave behind (§14.10).
pub fn is_leftover(name: &str) -> bool {
    if let Some(rest) = name.strip_prefix(ASIDE) {
        let mut tail = rest.rsplitn(3, '-');
        let digits = |s: Option<&str>| {
            s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        };
        return digits(tail.next())
            && digits(tail.next())
            && tail.next().is_some_and(|s| !s.is_empty());
    }
    let Some(rest) = name.strip_prefix(STAGING) else {
        return false;
    };
    rest.rsplit_once('-').is_some_and(|(skill, random)| {
        grammar::is_skill_name(skill)
            && random.len() == 6
            && random.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

/// The folders a crash left in `folder` under hcpx's staging names (never
/// a link, never a file), but those whose marker names another store (a
/// folder two stores share: that store's change may be running).
pub fn leftovers(folder: &Path, owner: &Owner) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let another_store = |dir: &Path| {
        read_bounded(&dir.join(MARKER))
            .and_then(|bytes| serde_json::from_slice::<Marker>(&bytes).ok())
            .and_then(|m| m.store)
            .is_some_and(|store| store != owner.store)
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(is_leftover))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|dir| !another_store(dir))
        .collect();
    found.sort();
    found
}

/// Removes a leftover staging folder [`leftovers`] named, if it still is a
/// folder (a link put there since is left alone).
pub fn remove_leftover(dir: &Path) -> Result<()> {
    if !fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Ok(());
    }
    remove::remove_own(dir).map_err(|e| Error::io("cannot remove", dir, &e))
}

/// What `folder` holds: one entry per sub-folder named like a Skill. A
/// missing folder holds nothing.
pub fn observe(folder: &Path, owner: &Owner) -> Result<Vec<Found>> {
    observe_except(folder, owner, &[])
}

/// [`observe`], taking what `known` says of the folders it names (copies
/// this change just placed, [`apply`]'s result) instead of reading them
/// again.
pub fn observe_except(folder: &Path, owner: &Owner, known: &[Found]) -> Result<Vec<Found>> {
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
        match known.iter().find(|found| found.skill == name) {
            Some(found) => found.clone(),
            None => observe_one(&folder.join(&name), name, owner),
        }
    }))
}

/// One entry: a link or a file is not ours (no marker read through it),
/// nor a folder whose marker is another store's; a folder of ours is read
/// whole for its digest.
pub fn observe_one(dir: &Path, skill: String, owner: &Owner) -> Found {
    let mut found = Found {
        skill,
        ..Found::default()
    };
    if !fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return found;
    }
    let Some(marker) = read_bounded(&dir.join(MARKER))
        .and_then(|bytes| serde_json::from_slice::<Marker>(&bytes).ok())
        .filter(|m| grammar::is_pack_id(&m.pack_id))
    else {
        return found;
    };
    if !owner.owns(&marker) {
        found.other_store = marker.store;
        return found;
    }
    // Our copy is of a linted pack (§2.3): a folder holding more was
    // edited, and is told so without reading what was put there.
    let bounds = digest::Bounds {
        entries: 10 * MAX_FILES,
        bytes: MAX_TOTAL_BYTES,
    };
    if let Ok(Some(tree)) = digest::scan_within(dir, &[MARKER], bounds) {
        found.sha256 = tree
            .files
            .get(SKILL_FILE.as_bytes())
            .map(|f| digest::hex(&f.sha256));
        found.only_skill = tree.files.len() == 1 && found.sha256.is_some();
        found.digest = tree.others.is_empty().then_some(tree.digest);
    }
    found.marker = Some(marker);
    found
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
/// creating the folder when a Skill must go there; a wanted pack's files
/// are read from its installed folder. Every step is recorded in `tx`: when
/// the change fails, the folder is put back as it was (§14.7); what was
/// staged or set aside is deleted when the change ends. Returns what each
/// copy it placed holds, as [`observe_one`] would read it back.
pub fn apply(
    tx: &mut Transaction<'_>,
    (target, folder): (super::target::TargetName, &Path),
    steps: &[Step],
    force: bool,
    owner: &Owner,
) -> Result<Vec<Found>> {
    if steps.is_empty() {
        return Ok(Vec::new());
    }
    let hint = |err: Error| {
        err.hint(
            Hint::from(format!(
                "hcpx writes Skills into {} because this harness target is enabled; make it writable, or `",
                folder.display()
            ))
            .cmd(Fix::HarnessDisable {
                target: target.to_string(),
            })
            .say("` it"),
        )
    };
    if steps
        .iter()
        .any(|s| matches!(s, Step::Place(_) | Step::Replace(_)))
    {
        create_folder(tx, folder).map_err(hint)?;
    }
    let mut placed = Vec::new();
    for step in steps {
        placed.extend(apply_one(tx, folder, step, force, owner).map_err(hint)?);
    }
    Ok(placed)
}

/// Carries out one step; the copy it placed, if it placed one.
fn apply_one(
    tx: &mut Transaction<'_>,
    folder: &Path,
    step: &Step,
    force: bool,
    owner: &Owner,
) -> Result<Option<Found>> {
    match step {
        Step::Place(want) => {
            let (staged, found) = stage_step(tx, folder, want, owner)?;
            let target = folder.join(&want.skill);
            match tx.rename_new(&staged, &target) {
                Ok(()) => Ok(Some(found)),
                // Someone created the folder since it was read: theirs now
                // (the status after the change says `conflict`).
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(None),
                Err(err) => Err(Error::io("cannot place the Skill at", &target, &err)),
            }
        }
        Step::Replace(want) => {
            if !still_ours(folder, &want.skill, force, owner) {
                return Ok(None);
            }
            let (staged, found) = stage_step(tx, folder, want, owner)?;
            tx.exchange(&staged, &folder.join(&want.skill))?;
            Ok(Some(found))
        }
        Step::Remove { skill } => {
            if !still_ours(folder, skill, force, owner) {
                return Ok(None);
            }
            let aside = aside_name(folder, skill);
            tx.exchange(&folder.join(skill), &aside)?;
            tx.remove_when_done(aside);
            Ok(None)
        }
        Step::Release { skill } => {
            let found = observe_one(&folder.join(skill), skill.clone(), owner);
            if found.marker.is_none() {
                return Ok(None);
            }
            let marker = folder.join(skill).join(MARKER);
            let aside = aside_name(folder, &format!("{skill}-marker"));
            tx.exchange(&marker, &aside)?;
            tx.remove_when_done(aside);
            Ok(None)
        }
    }
}

/// Builds the new folder for `want` beside the Skills, deleted when the
/// change ends (the old copy after a swap, the new one after an undo).
fn stage_step(
    tx: &mut Transaction<'_>,
    folder: &Path,
    want: &Wanted,
    owner: &Owner,
) -> Result<(PathBuf, Found)> {
    let from = tx.store().pack_dir(&want.pack_id);
    let (staged, found) = stage(folder, want, &from, owner)?;
    tx.remove_when_done(staged.clone());
    step_hook("harness.place")?;
    Ok((staged, found))
}

/// Whether `<folder>/<skill>` is still our copy, unedited (or `force`),
/// right before it is replaced or removed: an edit made since the folder
/// was read is never lost.
fn still_ours(folder: &Path, skill: &str, force: bool, owner: &Owner) -> bool {
    let found = observe_one(&folder.join(skill), skill.to_string(), owner);
    found.marker.is_some() && (force || !found.edited())
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

/// Builds `<folder>/.hcpx-<name>-<random>/` holding the pack's files (from
/// `from`, its installed folder) and the marker (not flushed to disk: see
/// the module docs).
fn stage(folder: &Path, want: &Wanted, from: &Path, owner: &Owner) -> Result<(PathBuf, Found)> {
    let dir = tempfile::Builder::new()
        .prefix(&format!("{STAGING}{}-", want.skill))
        .tempdir_in(folder)
        .map_err(|e| Error::io("cannot write in", folder, &e))?
        .keep();
    match fill(&dir, want, from, owner) {
        Ok(found) => Ok((dir, found)),
        Err(err) => {
            remove_tree(&dir);
            Err(err)
        }
    }
}

/// Copies the Skill folder into the staged `dir` and writes its marker;
/// returns what the folder holds, from the bytes copied.
fn fill(dir: &Path, want: &Wanted, from: &Path, owner: &Owner) -> Result<Found> {
    let options = CopyOptions {
        skip_root: NOT_PLACED,
        flush: false,
    };
    // The marker is written after the copy, so the copy's tree is the
    // placed tree without it.
    let tree = copy_tree_digested(from, dir, options)?;
    let Some(skill) = tree.files.get(SKILL_FILE.as_bytes()) else {
        let path = from.join(SKILL_FILE);
        return Err(
            Error::new(ErrorCode::Io, format!("cannot read {}", path.display()))
                .path(path.display().to_string()),
        );
    };
    let marker = Marker {
        pack_id: want.pack_id.to_string(),
        version: want.version.clone(),
        sha256: digest::hex(&skill.sha256),
        digest: Some(tree.digest.clone()),
        store: Some(owner.store.clone()),
    };
    let path = dir.join(MARKER);
    let write_err = |e: std::io::Error| Error::io("cannot write", &path, &e);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(&path)
        .map_err(write_err)?;
    file.set_permissions(fs::Permissions::from_mode(0o644))
        .map_err(write_err)?;
    file.write_all(&serde_json::to_vec(&marker).unwrap_or_default())
        .map_err(write_err)?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::io("cannot write", dir, &e))?;
    Ok(Found {
        skill: want.skill.clone(),
        sha256: Some(marker.sha256.clone()),
        digest: Some(tree.digest.clone()),
        only_skill: tree.files.len() == 1,
        marker: Some(marker),
        other_store: None,
    })
}

/// A fresh hidden name beside the Skills of `folder`, for what a change
/// sets aside until it ends.
fn aside_name(folder: &Path, name: &str) -> PathBuf {
    let pid = std::process::id();
    (0..)
        .map(|n| folder.join(format!("{ASIDE}{name}-{pid}-{n}")))
        .find(|p| fs::symlink_metadata(p).is_err())
        .unwrap_or_else(|| folder.join(format!("{ASIDE}{name}-{pid}")))
}

/// Removes a folder hcpx built; best effort.
fn remove_tree(dir: &Path) {
    let _ = remove::remove_own(dir);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::harness::plan::{SkillState, plan};
    use crate::engine::harness::target::TargetName;
    use crate::engine::pack::id::PackId;

    fn ok<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    /// A store in a temporary folder whose packs the tests write by hand.
    struct Fixture {
        dir: tempfile::TempDir,
        store: Store,
    }

    impl Fixture {
        fn new() -> Fixture {
            let dir = ok(tempfile::tempdir());
            let store = ok(Store::open(dir.path().join("hcp")));
            Fixture { dir, store }
        }

        /// Installs (by hand) `pack` with this `SKILL.md` and extra files.
        fn want(&self, pack: &str, skill: &str, body: &[u8], files: &[(&str, &str)]) -> Wanted {
            let id = PackId::parse(pack).unwrap_or_else(|| panic!("{pack}"));
            let dir = self.store.pack_dir(&id);
            let _ = crate::engine::store::remove::remove_own(&dir);
            ok(fs::create_dir_all(&dir));
            ok(fs::write(dir.join("pack.yaml"), "id: x\n"));
            ok(fs::write(dir.join(SKILL_FILE), body));
            for (path, text) in files {
                let path = dir.join(path);
                ok(fs::create_dir_all(path.parent().unwrap_or(&dir)));
                ok(fs::write(path, text));
            }
            Wanted {
                pack_id: id,
                version: "1.0.0".into(),
                skill: skill.into(),
                sha256: sha256_hex(body),
                digest: Some(ok(placed_tree(&dir)).digest),
            }
        }

        fn sync(&self, folder: &Path, wanted: &[Wanted], force: bool) -> Vec<SkillState> {
            let owner = Owner::of(&self.store);
            let mut tx = ok(self.store.lock());
            let found = ok(observe(folder, &owner));
            let p = plan(wanted, &found, force);
            ok(apply(
                &mut tx,
                (TargetName::ClaudeCode, folder),
                &p.steps,
                force,
                &owner,
            ));
            ok(tx.commit());
            let after = ok(observe(folder, &owner));
            plan(wanted, &after, force)
                .statuses
                .iter()
                .map(|s| s.state)
                .collect()
        }
    }

    /// Every name in `folder`, hidden ones included, sorted.
    fn names_in(folder: &Path) -> Vec<String> {
        let mut names: Vec<_> = ok(fs::read_dir(folder))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    const BODY: &[u8] = b"---\nname: notes\ndescription: d\n---\nbody\n";

    #[test]
    fn places_the_whole_folder_with_its_marker_and_removes_it_again() {
        let fx = Fixture::new();
        let folder = fx.dir.path().join("skills");
        let w = fx.want(
            "a.b",
            "notes",
            BODY,
            &[("scripts/run.sh", "echo\n"), ("ref.md", "r")],
        );
        let run = fx.store.pack_dir(&w.pack_id).join("scripts/run.sh");
        ok(fs::set_permissions(&run, fs::Permissions::from_mode(0o775)));
        let w = fx.want_again(w);
        assert_eq!(
            fx.sync(&folder, std::slice::from_ref(&w), false),
            [SkillState::Placed]
        );
        let placed = folder.join("notes");
        assert_eq!(fs::read(placed.join(SKILL_FILE)).unwrap_or_default(), BODY);
        assert_eq!(
            names_in(&placed),
            [".hcpx.json", "SKILL.md", "ref.md", "scripts"]
        );
        let mode = |p: &Path| {
            fs::symlink_metadata(p)
                .map(|m| m.permissions().mode() & 0o7777)
                .ok()
        };
        assert_eq!(mode(&placed.join("scripts/run.sh")), Some(0o755));
        assert_eq!(mode(&placed.join("ref.md")), Some(0o644));
        let marker: Marker = ok(serde_json::from_slice(
            &fs::read(placed.join(MARKER)).unwrap_or_default(),
        ));
        assert_eq!(marker.sha256, sha256_hex(BODY));
        assert_eq!(marker.digest, w.digest);
        assert_eq!(marker.store, Some(Owner::of(&fx.store).store));
        // Nothing hidden is left behind.
        assert_eq!(names_in(&folder), ["notes"]);
        // No pack wants it any more: the copy goes.
        assert!(fx.sync(&folder, &[], false).is_empty());
        assert!(!placed.exists());
    }

    impl Fixture {
        /// `want` recomputed after its installed files were changed.
        fn want_again(&self, mut want: Wanted) -> Wanted {
            want.digest = Some(ok(placed_tree(&self.store.pack_dir(&want.pack_id))).digest);
            want
        }
    }

    #[test]
    fn an_edited_copy_is_left_in_place_and_released_when_the_pack_goes() {
        let fx = Fixture::new();
        let folder = fx.dir.path().join("skills");
        let wanted = [fx.want("a.b", "notes", BODY, &[])];
        fx.sync(&folder, &wanted, false);
        ok(fs::write(folder.join("notes/mine.txt"), "mine"));
        assert_eq!(fx.sync(&folder, &wanted, false), [SkillState::Modified]);
        // Deactivated: the user's copy stays, without our marker.
        fx.sync(&folder, &[], false);
        assert_eq!(
            fs::read_to_string(folder.join("notes/mine.txt")).unwrap_or_default(),
            "mine"
        );
        assert!(!folder.join("notes").join(MARKER).exists());
        // It is foreign now: a pack wanting the name is in conflict.
        assert_eq!(fx.sync(&folder, &wanted, true), [SkillState::Conflict]);
    }

    #[test]
    fn an_abandoned_change_puts_the_folder_back() {
        let fx = Fixture::new();
        let folder = fx.dir.path().join("skills");
        let v2 = b"---\nname: notes\ndescription: two\n---\nbody\n";
        fx.sync(
            &folder,
            &[
                fx.want("a.b", "notes", BODY, &[]),
                fx.want("c.d", "gone", BODY, &[]),
            ],
            false,
        );
        let wanted = [
            fx.want("a.b", "notes", v2, &[]),
            fx.want("e.f", "new", v2, &[]),
        ];
        {
            let owner = Owner::of(&fx.store);
            let mut tx = ok(fx.store.lock());
            let found = ok(observe(&folder, &owner));
            let p = plan(&wanted, &found, false);
            assert_eq!(p.steps.len(), 3, "{p:?}");
            ok(apply(
                &mut tx,
                (TargetName::ClaudeCode, &folder),
                &p.steps,
                false,
                &owner,
            ));
            // Dropped without commit: the change failed later.
        }
        assert_eq!(
            fs::read(folder.join("notes/SKILL.md")).unwrap_or_default(),
            BODY
        );
        assert!(folder.join("gone/SKILL.md").is_file());
        assert!(!folder.join("new").exists());
        assert_eq!(
            names_in(&folder),
            ["gone", "notes"],
            "nothing staged is left behind"
        );
    }

    #[test]
    fn what_someone_writes_between_reading_and_placing_is_never_lost() {
        let fx = Fixture::new();
        let folder = fx.dir.path().join("skills");
        fx.sync(&folder, &[fx.want("a.b", "old", BODY, &[])], false);
        let owner = Owner::of(&fx.store);
        let found = ok(observe(&folder, &owner));
        let wanted = [
            fx.want("a.b", "notes", BODY, &[]),
            fx.want("c.d", "old", BODY, &[]),
        ];
        let p = plan(&wanted, &found, false);
        // Meanwhile: a folder of someone else's, and an edit of our copy.
        ok(fs::create_dir_all(folder.join("notes")));
        ok(fs::write(folder.join("notes/SKILL.md"), "theirs"));
        ok(fs::write(folder.join("old/SKILL.md"), "edited"));
        let mut tx = ok(fx.store.lock());
        ok(apply(
            &mut tx,
            (TargetName::ClaudeCode, &folder),
            &p.steps,
            false,
            &owner,
        ));
        ok(tx.commit());
        assert_eq!(
            fs::read_to_string(folder.join("notes/SKILL.md")).unwrap_or_default(),
            "theirs"
        );
        assert!(!folder.join("notes").join(MARKER).exists());
        assert_eq!(
            fs::read_to_string(folder.join("old/SKILL.md")).unwrap_or_default(),
            "edited"
        );
        assert_eq!(
            names_in(&folder),
            ["notes", "old"],
            "nothing staged is left behind"
        );
    }

    #[test]
    fn a_replacement_is_swapped_in_whole() {
        let fx = Fixture::new();
        let folder = fx.dir.path().join("skills");
        let v2 = b"---\nname: notes\ndescription: two\n---\nbody\n";
        fx.sync(
            &folder,
            &[fx.want("a.b", "notes", BODY, &[("a.txt", "1")])],
            false,
        );
        let w2 = fx.want("a.b", "notes", v2, &[("b.txt", "2")]);
        assert_eq!(fx.sync(&folder, &[w2], false), [SkillState::Placed]);
        assert_eq!(
            fs::read(folder.join("notes/SKILL.md")).unwrap_or_default(),
            v2
        );
        assert_eq!(
            names_in(&folder.join("notes")),
            [".hcpx.json", "SKILL.md", "b.txt"]
        );
    }

    #[test]
    fn links_and_foreign_folders_are_never_touched() {
        let fx = Fixture::new();
        let folder = fx.dir.path().join("skills");
        let elsewhere = fx.dir.path().join("elsewhere");
        ok(fs::create_dir_all(&elsewhere));
        ok(fs::create_dir_all(&folder));
        // A link to a folder holding a valid-looking marker of ours.
        ok(fs::write(elsewhere.join(SKILL_FILE), "old"));
        let tree = ok(digest::scan_except(&elsewhere, &[MARKER]));
        let marker = Marker {
            pack_id: "a.b".into(),
            version: "1.0.0".into(),
            sha256: sha256_hex(b"old"),
            digest: Some(tree.digest),
            store: Some(Owner::of(&fx.store).store),
        };
        ok(fs::write(
            elsewhere.join(MARKER),
            serde_json::to_vec(&marker).unwrap_or_default(),
        ));
        ok(std::os::unix::fs::symlink(&elsewhere, folder.join("notes")));
        ok(fs::create_dir(folder.join("theirs")));
        let wanted = [
            fx.want("a.b", "notes", BODY, &[]),
            fx.want("c.d", "theirs", BODY, &[]),
        ];
        assert_eq!(
            fx.sync(&folder, &wanted, true),
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

    #[test]
    fn a_marker_of_another_store_is_not_ours() {
        let fx = Fixture::new();
        let folder = fx.dir.path().join("skills");
        let wanted = [fx.want("a.b", "notes", BODY, &[])];
        fx.sync(&folder, &wanted, false);
        let path = folder.join("notes").join(MARKER);
        let mut marker: Marker = ok(serde_json::from_slice(&fs::read(&path).unwrap_or_default()));
        marker.store = Some("/elsewhere/hcp".into());
        ok(fs::write(
            &path,
            serde_json::to_vec(&marker).unwrap_or_default(),
        ));
        assert_eq!(fx.sync(&folder, &wanted, true), [SkillState::Conflict]);
        assert!(fx.sync(&folder, &[], true).is_empty());
        assert!(path.is_file(), "another store's copy stays");
        // A store-less marker (an earlier release) is ours while its pack
        // is installed here.
        marker.store = None;
        ok(fs::write(
            &path,
            serde_json::to_vec(&marker).unwrap_or_default(),
        ));
        assert_eq!(fx.sync(&folder, &wanted, false), [SkillState::Placed]);
    }

    #[test]
    fn only_hcpx_staging_names_are_leftovers() {
        for name in [
            ".hcpx-notes-Ab12Cd",
            ".hcpx-removed-notes-123-0",
            ".hcpx-removed-notes-marker-9-12",
        ] {
            assert!(is_leftover(name), "{name}");
        }
        for name in [
            ".hcpx.json",
            ".hcpx-notes",
            ".hcpx-notes-abc",
            ".hcpx-Notes!-Ab12Cd",
            "notes",
            ".hcpx-removed-",
            ".hcpx-removed-x-1-a",
            ".git",
        ] {
            assert!(!is_leftover(name), "{name}");
        }
    }
}
