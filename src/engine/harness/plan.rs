//! The state of each Skill in one harness target and what keeping it in
//! step would do (HCP.md §12.6–§12.8, §14.10), as a pure function of what
//! packs want placed and what the target folder holds.
//!
//! Rules (§12.7, §14.10):
//! - a folder without a marker of this store's is never ours (`conflict`);
//!   `place::observe` drops the markers of another store, and store-less
//!   ones (an earlier release) whose pack is not installed here;
//! - the names `hcp-cli` and `hcp-*` go to the bootstrap pack only: any
//!   other pack wanting one is `conflict`, never placed;
//! - of the activated packs wanting one name, the one activated first
//!   (first in `wanted`) holds it; an unedited copy of another pack there
//!   is replaced, an edited one is left (the holder is `conflict` until
//!   `--force`);
//! - a copy where any file was added, removed or changed (mode included)
//!   against its marker's digest is `modified`, left alone unless forced; a
//!   marker without `digest` (an earlier release: `SKILL.md` alone) is ours
//!   and `outdated` while its `SKILL.md` matches its `sha256`;
//! - a marked copy of a pack that no longer wants it is `stale`, and a
//!   stale copy that was edited becomes the user's (marker removed, folder
//!   kept).

use crate::engine::pack::id::PackId;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The reserved Skill name (§14.10), and the prefix of the others.
const RESERVED: &str = "hcp-cli";
const RESERVED_PREFIX: &str = "hcp-";

/// A pack's Skill as it should be placed: an activated pack's Skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub pack_id: PackId,
    pub version: String,
    /// The Skill's frontmatter `name`: the folder it goes in.
    pub skill: String,
    /// SHA-256 of the pack's `SKILL.md`, lowercase hex.
    pub sha256: String,
    /// `sha256:<hex>` (§13.4) of the files a placed copy holds: the pack's
    /// files but the manifest (and any root `.hcpx.json`). Read only when
    /// a copy of this pack's is there to compare (`harness::with_digests`),
    /// or taken from the copy just placed: `None` until then, and a copy is
    /// never `current` against `None`.
    pub digest: Option<String>,
}

/// What the target folder holds under one Skill name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Found {
    pub skill: String,
    /// Our marker (this store's), when the folder has one that parses with
    /// a valid id.
    pub marker: Option<Marker>,
    /// The store another store's marker names (the folder is `conflict`).
    pub other_store: Option<String>,
    /// SHA-256 of the `SKILL.md` there, if there is one.
    pub sha256: Option<String>,
    /// `sha256:<hex>` (§13.4) of the folder, marker excluded; `None` when
    /// it holds a link or a special file, or cannot be read.
    pub digest: Option<String>,
    /// The folder holds `SKILL.md` and the marker, nothing else.
    pub only_skill: bool,
}

/// `<folder>/<name>/.hcpx.json` (§12.6, §14.10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Marker {
    pub pack_id: String,
    pub version: String,
    pub sha256: String,
    /// Absent in a marker of an earlier release (which placed `SKILL.md`
    /// alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The store that placed the copy (absolute, links resolved); absent
    /// in a marker of an earlier release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
}

impl Found {
    /// Whether our copy here was edited since it was placed: any file
    /// added, removed or changed against the marker's digest; for an old
    /// marker, anything but its `SKILL.md` unchanged.
    pub fn edited(&self) -> bool {
        let Some(marker) = &self.marker else {
            return false;
        };
        match &marker.digest {
            Some(digest) => self.digest.as_ref() != Some(digest),
            None => !(self.only_skill && self.sha256.as_ref() == Some(&marker.sha256)),
        }
    }

    /// Whether our copy here is of `want`'s current Skill folder.
    fn current(&self, want: &Wanted) -> bool {
        self.marker.as_ref().is_some_and(|m| {
            m.pack_id == want.pack_id.as_str()
                && m.version == want.version
                && m.digest.is_some()
                && m.digest == want.digest
        })
    }
}

/// The state of a pack's Skill in a target (§12.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillState {
    Placed,
    Missing,
    Outdated,
    Modified,
    Conflict,
    Stale,
}

impl SkillState {
    pub fn as_str(self) -> &'static str {
        match self {
            SkillState::Placed => "placed",
            SkillState::Missing => "missing",
            SkillState::Outdated => "outdated",
            SkillState::Modified => "modified",
            SkillState::Conflict => "conflict",
            SkillState::Stale => "stale",
        }
    }
}

/// Who holds a name a pack is in `conflict` for (§12.7: the warning names
/// the pack holding it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Taken {
    /// Another activated pack (activated first), or its edited copy.
    Pack(String),
    /// A copy placed by another store (the path its marker names).
    Store(String),
    /// A folder hcpx did not place (no marker, or a link).
    Foreign,
    /// A name only the bootstrap pack may use (`hcp-cli`, `hcp-*`).
    Reserved,
    /// The project target is reached through this link (§15.4): nothing
    /// is placed or removed there.
    Link(std::path::PathBuf),
}

/// One line of a target's status: a pack's Skill and its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillStatus {
    pub pack_id: String,
    pub skill: String,
    pub state: SkillState,
    /// For a `conflict`: who holds the name (not part of the JSON shape).
    #[serde(skip)]
    pub taken: Option<Taken>,
    /// Why, where §15.4 says: `link` (the project target is reached
    /// through a link).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The link, with `reason` `link`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<std::path::PathBuf>,
}

impl SkillStatus {
    /// A `conflict` of `want` in a target reached through `link` (§15.4).
    pub fn through_link(want: &Wanted, link: &std::path::Path) -> SkillStatus {
        SkillStatus {
            pack_id: want.pack_id.to_string(),
            skill: want.skill.clone(),
            state: SkillState::Conflict,
            taken: Some(Taken::Link(link.to_path_buf())),
            reason: Some("link"),
            link: Some(link.to_path_buf()),
        }
    }
}

/// What keeping a target in step does to one Skill folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Create `<folder>/<skill>` with this pack's Skill folder.
    Place(Wanted),
    /// Replace our copy there with this pack's Skill folder.
    Replace(Wanted),
    /// Remove our copy there (the whole folder).
    Remove { skill: String },
    /// Remove our marker only: the edited copy is the user's now.
    Release { skill: String },
}

/// The states of a target and the steps that would bring it in step.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    pub statuses: Vec<SkillStatus>,
    pub steps: Vec<Step>,
}

/// Whether `want` takes a name reserved for the bootstrap pack (§14.10).
pub fn reserved(want: &Wanted) -> bool {
    let name = want.skill.as_str();
    (name == RESERVED || name.starts_with(RESERVED_PREFIX)) && want.pack_id != PackId::bootstrap()
}

/// Plans one target. `wanted` is in activation order; `found` is what the
/// folder holds (any order). With `force`, `modified` copies are replaced
/// or removed too; `conflict` never changes.
pub fn plan(wanted: &[Wanted], found: &[Found], force: bool) -> Plan {
    let found: BTreeMap<&str, &Found> = found.iter().map(|f| (f.skill.as_str(), f)).collect();
    let mut by_name: BTreeMap<&str, Vec<&Wanted>> = BTreeMap::new();
    for want in wanted.iter().filter(|w| !reserved(w)) {
        by_name.entry(want.skill.as_str()).or_default().push(want);
    }
    let mut plan = Plan::default();
    let mut taken_names = BTreeSet::new();
    for want in wanted {
        let (state, step, taken) = if reserved(want) {
            (SkillState::Conflict, None, Some(Taken::Reserved))
        } else {
            let claimants = &by_name[want.skill.as_str()];
            let here = found.get(want.skill.as_str()).copied();
            decide(want, claimants, here, force)
        };
        if step.is_some() {
            taken_names.insert(want.skill.as_str());
        }
        plan.statuses.push(SkillStatus {
            pack_id: want.pack_id.to_string(),
            skill: want.skill.clone(),
            state,
            taken,
            reason: None,
            link: None,
        });
        plan.steps.extend(step);
    }
    // Our copies that no activated pack wants there any more.
    for (name, f) in &found {
        let Some(marker) = &f.marker else { continue };
        let theirs = by_name
            .get(name)
            .is_some_and(|c| c.iter().any(|w| w.pack_id.as_str() == marker.pack_id));
        if theirs {
            continue;
        }
        let keep = f.edited() && !force;
        plan.statuses.push(SkillStatus {
            pack_id: marker.pack_id.clone(),
            skill: name.to_string(),
            state: if keep {
                SkillState::Modified
            } else {
                SkillState::Stale
            },
            taken: None,
            reason: None,
            link: None,
        });
        if !taken_names.contains(name) {
            let skill = name.to_string();
            plan.steps.push(if keep {
                Step::Release { skill }
            } else {
                Step::Remove { skill }
            });
        }
    }
    plan
}

/// One pack's state for a name it wants, and the step that brings it in
/// step. `claimants` are the packs wanting that name, in activation order:
/// the first holds it.
fn decide(
    want: &Wanted,
    claimants: &[&Wanted],
    here: Option<&Found>,
    force: bool,
) -> (SkillState, Option<Step>, Option<Taken>) {
    let first = claimants.first().copied().unwrap_or(want);
    let holds = first.pack_id == want.pack_id;
    let conflict = |taken| (SkillState::Conflict, None, Some(taken));
    let Some(here) = here else {
        return if holds {
            (SkillState::Missing, Some(Step::Place(want.clone())), None)
        } else {
            conflict(Taken::Pack(first.pack_id.to_string()))
        };
    };
    let Some(marker) = &here.marker else {
        return conflict(match &here.other_store {
            Some(store) => Taken::Store(store.clone()),
            None => Taken::Foreign,
        });
    };
    let edited = here.edited();
    let replace = Some(Step::Replace(want.clone()));
    if marker.pack_id == want.pack_id.as_str() {
        return match (holds, edited) {
            (true, true) if force => (SkillState::Modified, replace, None),
            (_, true) => (SkillState::Modified, None, None),
            (true, false) if here.current(want) => (SkillState::Placed, None, None),
            (true, false) => (SkillState::Outdated, replace, None),
            (false, false) => conflict(Taken::Pack(first.pack_id.to_string())),
        };
    }
    match (holds, edited && !force) {
        // Another pack's copy: replaced unless edited.
        (true, false) => (SkillState::Missing, replace, None),
        (true, true) => conflict(Taken::Pack(marker.pack_id.clone())),
        (false, _) => conflict(Taken::Pack(first.pack_id.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want(pack: &str, skill: &str, sha: &str) -> Wanted {
        Wanted {
            pack_id: PackId::parse(pack).unwrap_or_else(|| panic!("{pack}")),
            version: "1.0.0".into(),
            skill: skill.into(),
            sha256: sha.into(),
            digest: Some(format!("d{sha}")),
        }
    }

    fn ours(skill: &str, pack: &str, marker_sha: &str, file_sha: Option<&str>) -> Found {
        Found {
            skill: skill.into(),
            marker: Some(Marker {
                pack_id: pack.into(),
                version: "1.0.0".into(),
                sha256: marker_sha.into(),
                digest: Some(format!("d{marker_sha}")),
                store: None,
            }),
            sha256: file_sha.map(str::to_string),
            digest: file_sha.map(|s| format!("d{s}")),
            ..Found::default()
        }
    }

    fn states(plan: &Plan) -> Vec<(String, SkillState)> {
        plan.statuses
            .iter()
            .map(|s| (s.pack_id.clone(), s.state))
            .collect()
    }

    #[test]
    fn a_free_name_is_missing_and_gets_placed() {
        let p = plan(&[want("a.b", "notes", "1")], &[], false);
        assert_eq!(states(&p), [("a.b".into(), SkillState::Missing)]);
        assert_eq!(p.steps, [Step::Place(want("a.b", "notes", "1"))]);
    }

    #[test]
    fn a_matching_copy_is_placed_and_left_alone() {
        let p = plan(
            &[want("a.b", "notes", "1")],
            &[ours("notes", "a.b", "1", Some("1"))],
            false,
        );
        assert_eq!(states(&p), [("a.b".into(), SkillState::Placed)]);
        assert!(p.steps.is_empty());
    }

    #[test]
    fn another_version_of_our_copy_is_outdated_and_replaced() {
        let p = plan(
            &[want("a.b", "notes", "2")],
            &[ours("notes", "a.b", "1", Some("1"))],
            false,
        );
        assert_eq!(states(&p), [("a.b".into(), SkillState::Outdated)]);
        assert_eq!(p.steps, [Step::Replace(want("a.b", "notes", "2"))]);
    }

    #[test]
    fn an_edited_copy_is_modified_and_replaced_only_with_force() {
        let found = [ours("notes", "a.b", "1", Some("9"))];
        let p = plan(&[want("a.b", "notes", "1")], &found, false);
        assert_eq!(states(&p), [("a.b".into(), SkillState::Modified)]);
        assert!(p.steps.is_empty());
        let forced = plan(&[want("a.b", "notes", "1")], &found, true);
        assert_eq!(forced.steps, [Step::Replace(want("a.b", "notes", "1"))]);
        // A deleted SKILL.md under our marker is an edit too.
        let gone = plan(
            &[want("a.b", "notes", "1")],
            &[ours("notes", "a.b", "1", None)],
            false,
        );
        assert_eq!(states(&gone), [("a.b".into(), SkillState::Modified)]);
    }

    #[test]
    fn a_folder_without_our_marker_is_a_conflict_even_with_force() {
        let found = [Found {
            skill: "notes".into(),
            sha256: Some("1".into()),
            ..Found::default()
        }];
        let p = plan(&[want("a.b", "notes", "1")], &found, true);
        assert_eq!(states(&p), [("a.b".into(), SkillState::Conflict)]);
        assert!(p.steps.is_empty());
    }

    #[test]
    fn two_packs_with_one_name_the_first_activated_keeps_it() {
        let wanted = [
            want("b.second", "notes", "2"),
            want("a.first", "notes", "1"),
        ];
        let fresh = plan(&wanted, &[], false);
        assert_eq!(
            states(&fresh),
            [
                ("b.second".into(), SkillState::Missing),
                ("a.first".into(), SkillState::Conflict)
            ]
        );
        assert_eq!(
            fresh.statuses[1].taken,
            Some(Taken::Pack("b.second".into()))
        );
        // The later one's copy is there (placed at `enable` in another
        // order, say): the first activated takes the name back.
        let held = plan(&wanted, &[ours("notes", "a.first", "1", Some("1"))], false);
        assert_eq!(
            states(&held),
            [
                ("b.second".into(), SkillState::Missing),
                ("a.first".into(), SkillState::Conflict)
            ]
        );
        assert_eq!(held.steps, [Step::Replace(want("b.second", "notes", "2"))]);
        // Unless that copy was edited: then it stays, and nobody holds it.
        let edited = plan(&wanted, &[ours("notes", "a.first", "1", Some("9"))], false);
        assert_eq!(
            states(&edited),
            [
                ("b.second".into(), SkillState::Conflict),
                ("a.first".into(), SkillState::Modified)
            ]
        );
        assert!(edited.steps.is_empty());
    }

    #[test]
    fn reserved_names_go_to_the_bootstrap_pack_only() {
        let p = plan(
            &[want("a.b", "hcp-cli", "1"), want("c.d", "hcp-x", "1")],
            &[],
            true,
        );
        assert_eq!(
            states(&p),
            [
                ("a.b".into(), SkillState::Conflict),
                ("c.d".into(), SkillState::Conflict)
            ]
        );
        assert!(p.steps.is_empty());
        assert_eq!(p.statuses[0].taken, Some(Taken::Reserved));
        let boot = plan(&[want("hcp-cli", "hcp-cli", "1")], &[], false);
        assert_eq!(states(&boot), [("hcp-cli".into(), SkillState::Missing)]);
    }

    #[test]
    fn an_old_marker_is_outdated_while_its_skill_is_unchanged() {
        let old = |file_sha: &str, only_skill: bool| Found {
            skill: "notes".into(),
            marker: Some(Marker {
                pack_id: "a.b".into(),
                version: "1.0.0".into(),
                sha256: "1".into(),
                digest: None,
                store: None,
            }),
            sha256: Some(file_sha.into()),
            digest: Some("whatever".into()),
            only_skill,
            ..Found::default()
        };
        let w = [want("a.b", "notes", "1")];
        let p = plan(&w, &[old("1", true)], false);
        assert_eq!(states(&p), [("a.b".into(), SkillState::Outdated)]);
        assert_eq!(p.steps, [Step::Replace(want("a.b", "notes", "1"))]);
        for edited in [old("9", true), old("1", false)] {
            let p = plan(&w, &[edited], false);
            assert_eq!(states(&p), [("a.b".into(), SkillState::Modified)]);
            assert!(p.steps.is_empty());
        }
    }

    #[test]
    fn a_copy_no_pack_wants_is_stale_and_removed() {
        let p = plan(&[], &[ours("notes", "a.b", "1", Some("1"))], false);
        assert_eq!(states(&p), [("a.b".into(), SkillState::Stale)]);
        assert_eq!(
            p.steps,
            [Step::Remove {
                skill: "notes".into()
            }]
        );
    }

    #[test]
    fn an_edited_stale_copy_is_released_to_the_user() {
        let found = [ours("notes", "a.b", "1", Some("9"))];
        let p = plan(&[], &found, false);
        assert_eq!(states(&p), [("a.b".into(), SkillState::Modified)]);
        assert_eq!(
            p.steps,
            [Step::Release {
                skill: "notes".into()
            }]
        );
        let forced = plan(&[], &found, true);
        assert_eq!(
            forced.steps,
            [Step::Remove {
                skill: "notes".into()
            }]
        );
    }

    #[test]
    fn a_name_freed_by_a_stale_copy_goes_to_the_pack_that_wants_it() {
        let found = [ours("notes", "old.pack", "1", Some("1"))];
        let p = plan(&[want("new.pack", "notes", "2")], &found, false);
        assert_eq!(
            states(&p),
            [
                ("new.pack".into(), SkillState::Missing),
                ("old.pack".into(), SkillState::Stale)
            ]
        );
        assert_eq!(p.steps, [Step::Replace(want("new.pack", "notes", "2"))]);
    }
}
