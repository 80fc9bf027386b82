//! Marks on the browser's rows, seen without opening a pack:
//!
//! - `!` its installed copy fails `verify` (HCP.md §13.5: its digest differs
//!   from `hcp.lock`);
//! - `≠` its Skill is in `conflict` or `modified` in an enabled harness
//!   target (§12.7–§12.8);
//! - `↑` its recorded source has a newer version (§13.6): a catalog's is
//!   read after every load; a git source's only after `o` (check for
//!   updates), since it asks the network.
//!
//! The first two are read by a worker after every load of the store; none
//! is decided here.
//!
//! A load follows every change to the store, also one that touches neither
//! the packs nor the harness folders, and on 1,000 packs with 3 targets
//! `verify` and harness status take about 200 ms. So the read first takes
//! a signature of everything those two read — `hcp.lock`, `state.json`,
//! `config.yaml`, every entry under `packs/`, and each enabled target
//! folder two levels deep (a Skill's folder, its marker and `SKILL.md`) —
//! from metadata alone (path, type, size, mode, inode, modification and
//! change times; no write leaves the change time as it was), and when it
//! equals the last read's in this session, keeps the `!` and `≠` marks
//! that read found. As in git's "racily clean" rule, a signature holding
//! any time less than [`SETTLED`] old is never kept: a file written twice
//! within one clock tick of the file system could otherwise keep both
//! times. `↑` is always read again.

use crate::engine::harness::place::{MARKER, SKILL_FILE};
use crate::engine::harness::plan::SkillState;
use crate::engine::ops::Engine;
use crate::engine::ops::upgrade::{OutdatedPack, UpdateReason};
use crate::engine::store::parallel::parallel_map;
use crate::tui::text;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// The marks of every pack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// Packs whose installed copy fails `verify`.
    pub integrity: BTreeSet<String>,
    /// Packs with a Skill in `conflict` or `modified` in a target.
    pub harness: BTreeSet<String>,
    /// Packs with a newer version or new content, as `o` found them (any
    /// source): what is out, in words ([`update_words`]).
    pub outdated: BTreeMap<String, String>,
    /// Packs with a newer version or new content in their catalog or
    /// folder, read after every load (no network).
    pub outdated_local: BTreeMap<String, String>,
    /// Inside a project: the marks of the user store's packs that a
    /// project pack of the same id shadows (their rows are apart,
    /// HCP.md §15.5).
    pub shadowed: Option<Box<Marks>>,
}

impl Marks {
    /// The one mark a row shows (the gravest), if any.
    pub fn of(&self, id: &str) -> Option<char> {
        if self.integrity.contains(id) {
            Some('!')
        } else if self.harness.contains(id) {
            Some('≠')
        } else if self.latest(id).is_some() {
            Some('↑')
        } else {
            None
        }
    }

    /// Whether any row shows a mark (the browser then has a column for it).
    pub fn any(&self) -> bool {
        !(self.integrity.is_empty()
            && self.harness.is_empty()
            && self.outdated.is_empty()
            && self.outdated_local.is_empty())
            || self.shadowed.as_ref().is_some_and(|m| m.any())
    }

    /// The marks of a row: a shadowed user pack's are its own.
    pub fn of_row(&self, id: &str, shadowed: bool) -> Option<char> {
        match shadowed {
            true => self.shadowed.as_ref().and_then(|m| m.of(id)),
            false => self.of(id),
        }
    }

    /// [`Marks::explain`] of a row (see [`Marks::of_row`]); a shadowed
    /// pack's commands carry `-g` (the project's copy is the one
    /// `hcpx verify ID` checks there).
    pub fn explain_row(&self, id: &str, shadowed: bool) -> Vec<String> {
        match (shadowed, &self.shadowed) {
            (true, Some(marks)) => marks
                .explain(id)
                .into_iter()
                .map(|line| line.replace("hcpx ", "hcpx -g "))
                .collect(),
            (true, None) => Vec::new(),
            (false, _) => self.explain(id),
        }
    }

    /// What is out for `id` (a newer version, or new content), if known.
    pub fn latest(&self, id: &str) -> Option<&String> {
        self.outdated_local
            .get(id)
            .or_else(|| self.outdated.get(id))
    }

    /// Adds the user store's marks inside a project: those of the packs
    /// the project holds too (`shadows`) apart, as [`Marks::shadowed`].
    pub fn add(&mut self, other: Marks, shadows: &BTreeSet<String>) {
        let apart = |id: &String| shadows.contains(id);
        let (integrity, ours): (BTreeSet<String>, BTreeSet<String>) =
            other.integrity.into_iter().partition(apart);
        self.integrity.extend(ours);
        let (harness, ours): (BTreeSet<String>, BTreeSet<String>) =
            other.harness.into_iter().partition(apart);
        self.harness.extend(ours);
        let (outdated, ours): (BTreeMap<String, String>, BTreeMap<String, String>) =
            other.outdated.into_iter().partition(|(id, _)| apart(id));
        for (id, words) in ours {
            self.outdated.entry(id).or_insert(words);
        }
        let (outdated_local, ours): (BTreeMap<String, String>, BTreeMap<String, String>) = other
            .outdated_local
            .into_iter()
            .partition(|(id, _)| apart(id));
        for (id, words) in ours {
            self.outdated_local.entry(id).or_insert(words);
        }
        let shadowed = Marks {
            integrity,
            harness,
            outdated,
            outdated_local,
            shadowed: None,
        };
        self.shadowed = shadowed.any().then(|| Box::new(shadowed));
    }

    /// `id` was upgraded: its `↑` goes.
    pub fn upgraded(&mut self, id: &str) {
        self.outdated.remove(id);
        self.outdated_local.remove(id);
    }

    /// Every mark of `id`, in words, with the command that tells more.
    pub fn explain(&self, id: &str) -> Vec<String> {
        let mut out = Vec::new();
        if self.integrity.contains(id) {
            out.push(format!(
                "! the installed copy differs from hcp.lock: hcpx verify {id}"
            ));
        }
        if self.harness.contains(id) {
            out.push(format!(
                "≠ its Skill is edited or someone else's in a harness target: hcpx harness status {id}"
            ));
        }
        if let Some(latest) = self.latest(id) {
            out.push(format!("↑ {latest} is out: U upgrades (hcpx upgrade {id})"));
        }
        out
    }
}

/// The marks a load can compute without the network: `verify` of every
/// installed pack, every enabled target's states, and the packs whose
/// catalog has a newer version. A part that does not
/// read leaves its marks out (doctor and the CLI report it). `!` and `≠`
/// are those of the last read of this session when nothing they depend on
/// changed since (see the module doc).
pub fn read(engine: &Engine) -> Marks {
    static LAST: Mutex<Option<Kept>> = Mutex::new(None);
    read_with(engine, &LAST, SystemTime::now())
}

/// How old every time in a signature must be for the signature to be kept.
pub const SETTLED: Duration = Duration::from_secs(2);

/// What an update brings, in words: `version 1.2.0`, or `new content
/// (1.0.0)` for the same version with other content (§13.6).
pub fn update_words(pack: &OutdatedPack) -> String {
    match pack.reason {
        UpdateReason::Version => format!("version {}", text::one_line(&pack.latest)),
        UpdateReason::Content => format!("new content ({})", text::one_line(&pack.latest)),
        UpdateReason::Missing => "missing at its source".to_string(),
        UpdateReason::LintFailed => "no longer lints at its source".to_string(),
        UpdateReason::Renamed => format!("renamed to {}", text::one_line(&pack.latest)),
        UpdateReason::NotChecked => "not checked".to_string(),
    }
}

/// The `!` and `≠` marks of a read, and the signature of what they were
/// read from.
#[derive(Debug)]
struct Kept {
    signature: Signature,
    integrity: BTreeSet<String>,
    harness: BTreeSet<String>,
}

/// [`read`] with the last read kept in `last`, as if at time `now`.
fn read_with(engine: &Engine, last: &Mutex<Option<Kept>>, now: SystemTime) -> Marks {
    // Taken before anything is read: a change meanwhile makes the next
    // signature differ from this one.
    let signature = signature(engine, now);
    let kept = last.lock().unwrap_or_else(|e| e.into_inner()).take();
    let mut marks = Marks::default();
    match kept.filter(|k| signature.is_some() && Some(&k.signature) == signature.as_ref()) {
        Some(kept) => {
            marks.integrity = kept.integrity.clone();
            marks.harness = kept.harness.clone();
            *last.lock().unwrap_or_else(|e| e.into_inner()) = Some(kept);
        }
        None => {
            let (integrity, harness) = (integrity(engine), harness(engine));
            marks.integrity = integrity.clone().unwrap_or_default();
            marks.harness = harness.clone().unwrap_or_default();
            if let (Some(signature), Some(integrity), Some(harness)) =
                (signature, integrity, harness)
            {
                *last.lock().unwrap_or_else(|e| e.into_inner()) = Some(Kept {
                    signature,
                    integrity,
                    harness,
                });
            }
        }
    }
    match engine.outdated_offline() {
        Ok(packs) => {
            marks.outdated_local = packs
                .iter()
                .filter(|p| p.reason.is_update())
                .map(|p| (p.pack_id.clone(), update_words(p)))
                .collect();
        }
        Err(err) => tracing::warn!(code = err.code.as_str(), "marks: outdated failed"),
    }
    marks
}

/// The installed packs that fail `verify`; `None` when it cannot run.
fn integrity(engine: &Engine) -> Option<BTreeSet<String>> {
    match engine.verify(&[]) {
        Ok(report) => Some(
            report
                .packs
                .into_iter()
                .filter(|p| !p.ok && !p.actual.is_empty())
                .map(|p| p.pack_id)
                .collect(),
        ),
        Err(err) => {
            tracing::warn!(code = err.code.as_str(), "marks: verify failed");
            None
        }
    }
}

/// The packs with a Skill in `conflict` or `modified` in an enabled target;
/// `None` when the targets cannot be read.
fn harness(engine: &Engine) -> Option<BTreeSet<String>> {
    match engine.harness_status(None) {
        Ok(targets) => Some(
            targets
                .into_iter()
                .flat_map(|t| t.skills)
                .filter(|s| matches!(s.state, SkillState::Conflict | SkillState::Modified))
                .map(|s| s.pack_id)
                .collect(),
        ),
        Err(err) => {
            tracing::warn!(code = err.code.as_str(), "marks: harness status failed");
            None
        }
    }
}

/// One entry's metadata: what changes when its content, kind, mode or
/// place changes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stat {
    path: Vec<u8>,
    kind: u32,
    size: u64,
    dev: u64,
    ino: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

/// Every entry [`read`]'s `!` and `≠` depend on, in a fixed order.
type Signature = Vec<Option<Stat>>;

/// The signature of what `verify` and harness status read; `None` when a
/// part cannot be listed or a time in it is not [`SETTLED`] before `now`.
fn signature(engine: &Engine, now: SystemTime) -> Option<Signature> {
    let store = engine.store();
    let mut out: Signature = Vec::new();
    for path in [store.lock_path(), store.state_path(), store.config_path()] {
        out.push(stat(&path));
    }
    // Each pack's whole tree (verify digests every file).
    let packs = store.packs_dir();
    let trees = parallel_map(names(&packs)?, |name| walk(&packs.join(name)));
    for tree in trees {
        out.extend(tree?);
    }
    // Each target's entries, and what harness status reads of each: its
    // marker and `SKILL.md` (§12.7).
    let env = engine.harness_env().ok()?;
    for target in engine.enabled_harnesses().ok()? {
        let folder = env.locate(target).folder;
        out.push(stat(&folder));
        if !folder.exists() {
            continue;
        }
        let skills = parallel_map(names(&folder)?, |name| {
            let dir = folder.join(name);
            [
                stat(&dir),
                stat(&dir.join(MARKER)),
                stat(&dir.join(SKILL_FILE)),
            ]
        });
        out.extend(skills.into_iter().flatten());
    }
    let settled = now.checked_sub(SETTLED)?;
    let settled = settled.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    let settled = (settled.as_secs() as i64, i64::from(settled.subsec_nanos()));
    out.iter()
        .flatten()
        .all(|s| s.mtime < settled && s.ctime < settled)
        .then_some(out)
}

/// The names in folder `dir`, sorted; `None` when it cannot be listed.
fn names(dir: &Path) -> Option<Vec<std::ffi::OsString>> {
    let mut names = std::fs::read_dir(dir)
        .ok()?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<std::io::Result<Vec<_>>>()
        .ok()?;
    names.sort();
    Some(names)
}

/// `root` and every entry under it, never through a link (`root` itself
/// included); `None` when a folder cannot be listed.
fn walk(root: &Path) -> Option<Vec<Option<Stat>>> {
    let mut entries = Vec::new();
    for entry in walkdir::WalkDir::new(root)
        .follow_links(false)
        .follow_root_links(false)
        .sort_by_file_name()
    {
        let entry = entry.ok()?;
        let meta = entry.metadata().ok()?;
        entries.push(Some(of_metadata(entry.path(), &meta)));
    }
    Some(entries)
}

/// `path`'s metadata (not through a link); `None` when it is missing.
fn stat(path: &Path) -> Option<Stat> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some(of_metadata(path, &meta))
}

fn of_metadata(path: &Path, meta: &std::fs::Metadata) -> Stat {
    Stat {
        path: path.as_os_str().as_bytes().to_vec(),
        kind: meta.mode(),
        size: meta.size(),
        dev: meta.dev(),
        ino: meta.ino(),
        mtime: (meta.mtime(), meta.mtime_nsec()),
        ctime: (meta.ctime(), meta.ctime_nsec()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::engine::harness::{HarnessEnv, TargetName};
    use crate::engine::store::digest;
    use std::path::PathBuf;

    /// A store with `demo.one` installed, locked and activated, its Skill
    /// placed in the `agents` target; the engine, and the placed Skill.
    fn setup(dir: &Path) -> (Engine, PathBuf) {
        let home = dir.join("home");
        let mut engine = Engine::open(&home, &[], "user").unwrap();
        engine.set_harness_env(HarnessEnv {
            home: dir.join("user"),
            ..HarnessEnv::default()
        });
        let root = home.join("packs/demo.one");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("pack.yaml"),
            "hcp: \"1\"\nid: demo.one\nname: One\nversion: 1.0.0\ndescription: A pack.\n\
             commands:\n  - key: run\n    summary: Run it\n    effect: read\n\
             \x20   adapter: {kind: process, program: \"true\"}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("SKILL.md"),
            "---\nname: demo-one\ndescription: One.\n---\nUse `run`.\n",
        )
        .unwrap();
        let lock = serde_json::json!({"version": 1, "packs": {"demo.one": {
            "digest": digest::digest(&root).unwrap(),
            "source": {"kind": "dir", "path": root.display().to_string()},
            "version": "1.0.0",
        }}});
        std::fs::write(home.join("hcp.lock"), lock.to_string()).unwrap();
        let state = serde_json::json!({"activated": ["demo.one", "hcp-cli"], "connected": []});
        std::fs::write(home.join("state.json"), state.to_string()).unwrap();
        engine.harness_enable(&[TargetName::Agents]).unwrap();
        let placed = dir.join("user/.agents/skills/demo-one/SKILL.md");
        assert!(placed.is_file());
        (engine, placed)
    }

    /// A time when every file just written is settled.
    #[test]
    fn a_shadowed_user_pack_s_marks_stay_on_its_own_row() {
        let mut project = Marks::default();
        project.harness.insert("a.both".into());
        let mut user = Marks::default();
        user.integrity.insert("a.both".into());
        user.integrity.insert("a.user".into());
        let shadows = BTreeSet::from(["a.both".to_string()]);
        project.add(user, &shadows);
        assert_eq!(project.of_row("a.both", false), Some('≠'));
        assert_eq!(project.of_row("a.both", true), Some('!'));
        assert_eq!(project.of_row("a.user", false), Some('!'));
        let said = project.explain_row("a.both", true);
        assert!(said[0].contains("hcpx -g verify a.both"), "{said:?}");
    }

    fn later() -> SystemTime {
        SystemTime::now() + SETTLED + Duration::from_secs(60)
    }

    #[test]
    fn kept_marks_are_the_marks_read_and_a_change_is_still_seen() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, placed) = setup(dir.path());
        let last = Mutex::new(None);
        let clean = read_with(&engine, &last, later());
        assert_eq!(clean, read(&engine));
        assert!(!clean.any(), "{clean:?}");
        assert!(last.lock().unwrap().is_some(), "a settled read is kept");
        assert_eq!(read_with(&engine, &last, later()), clean);

        // An installed file edited: `!`. (Its size changes: a test runs
        // within one clock tick, where only SETTLED tells an edit of the
        // same size, which `later` skips.)
        let skill = engine.store().root().join("packs/demo.one/SKILL.md");
        let text = std::fs::read_to_string(&skill).unwrap();
        std::fs::write(&skill, text.replace("One.", "Three.")).unwrap();
        let marks = read_with(&engine, &last, later());
        assert_eq!(marks.of("demo.one"), Some('!'), "{marks:?}");
        assert_eq!(marks, read(&engine));
        std::fs::write(&skill, text).unwrap();
        assert!(!read_with(&engine, &last, later()).any());

        // The placed Skill edited by hand: `≠`.
        std::fs::write(&placed, "edited by hand\n").unwrap();
        let marks = read_with(&engine, &last, later());
        assert!(marks.harness.contains("demo.one"), "{marks:?}");
        assert_eq!(marks, read(&engine));

        // A file added to the installed copy: `!` as well.
        std::fs::remove_file(&placed).unwrap();
        std::fs::write(engine.store().root().join("packs/demo.one/extra"), "x").unwrap();
        let marks = read_with(&engine, &last, later());
        assert_eq!(marks.of("demo.one"), Some('!'), "{marks:?}");
        assert_eq!(marks, read(&engine));
    }

    #[test]
    fn a_read_of_files_just_written_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, _placed) = setup(dir.path());
        let last = Mutex::new(None);
        let marks = read_with(&engine, &last, SystemTime::now());
        assert!(!marks.any(), "{marks:?}");
        assert!(
            last.lock().unwrap().is_none(),
            "times within SETTLED of now"
        );
    }
}
