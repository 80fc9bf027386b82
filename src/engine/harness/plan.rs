//! The state of each Skill in one harness target and what keeping it in
//! step would do (HCP.md §12.6–§12.8), as a pure function of what packs
//! want placed and what the target folder holds.
//!
//! Rules (§12.7): a folder without our marker is never ours (`conflict`);
//! of two activated packs wanting one Skill name, the one already placed
//! keeps it, else the first in activation order; a copy whose bytes no
//! longer match its marker is `modified` and is left alone unless forced; a
//! marked copy of a pack that no longer wants it is `stale`, and a stale
//! copy that was edited becomes the user's (marker removed, file kept).

use crate::engine::pack::id::PackId;
use serde::Serialize;
use std::collections::BTreeMap;

/// A pack's Skill as it should be placed: an activated pack's Skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub pack_id: PackId,
    pub version: String,
    /// The Skill's frontmatter `name`: the folder it goes in.
    pub skill: String,
    /// SHA-256 of the pack's `SKILL.md`, lowercase hex.
    pub sha256: String,
}

/// What the target folder holds under one Skill name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub skill: String,
    /// Our marker, when the folder has one that parses with a valid id.
    pub marker: Option<Marker>,
    /// SHA-256 of the `SKILL.md` there, if there is one.
    pub sha256: Option<String>,
}

/// `<folder>/<name>/.hcpx.json` (§12.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Marker {
    pub pack_id: String,
    pub version: String,
    pub sha256: String,
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

/// One line of a target's status: a pack's Skill and its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillStatus {
    pub pack_id: String,
    pub skill: String,
    pub state: SkillState,
}

/// What keeping a target in step does to one Skill folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Create `<folder>/<skill>` with this pack's Skill.
    Place(Wanted),
    /// Replace our copy there with this pack's Skill.
    Replace(Wanted),
    /// Remove our copy there (folder, Skill and marker).
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

/// Plans one target. `wanted` is in activation order; `found` is what the
/// folder holds (any order). With `force`, `modified` copies are replaced
/// or removed too; `conflict` never changes.
pub fn plan(wanted: &[Wanted], found: &[Found], force: bool) -> Plan {
    let found: BTreeMap<&str, &Found> = found.iter().map(|f| (f.skill.as_str(), f)).collect();
    let mut by_name: BTreeMap<&str, Vec<&Wanted>> = BTreeMap::new();
    for want in wanted {
        by_name.entry(want.skill.as_str()).or_default().push(want);
    }
    let mut plan = Plan::default();
    let mut status = |pack_id: &str, skill: &str, state| {
        plan.statuses.push(SkillStatus {
            pack_id: pack_id.to_string(),
            skill: skill.to_string(),
            state,
        })
    };
    let mut steps = Vec::new();
    for want in wanted {
        let claimants = &by_name[want.skill.as_str()];
        let here = found.get(want.skill.as_str()).copied();
        let holder = holder(claimants, here);
        if holder.is_none_or(|h| h.pack_id != want.pack_id) {
            status(&want.pack_id, &want.skill, SkillState::Conflict);
            continue;
        }
        let state = match here {
            None => SkillState::Missing,
            Some(f) => match &f.marker {
                Some(m) if m.pack_id.as_str() != want.pack_id.as_str() => SkillState::Missing,
                Some(m) if f.sha256.as_deref() != Some(m.sha256.as_str()) => SkillState::Modified,
                Some(m) if m.sha256 != want.sha256 || m.version != want.version => {
                    SkillState::Outdated
                }
                Some(_) => SkillState::Placed,
                None => SkillState::Conflict,
            },
        };
        status(&want.pack_id, &want.skill, state);
        match (state, here) {
            (SkillState::Missing, None) => steps.push(Step::Place(want.clone())),
            (SkillState::Missing, Some(_)) | (SkillState::Outdated, _) => {
                steps.push(Step::Replace(want.clone()))
            }
            (SkillState::Modified, _) if force => steps.push(Step::Replace(want.clone())),
            _ => {}
        }
    }
    // Our copies that no pack wants there any more.
    for (name, f) in &found {
        let Some(marker) = &f.marker else { continue };
        let claimed = by_name
            .get(name)
            .is_some_and(|c| holder(c, Some(f)).is_some());
        let theirs = by_name
            .get(name)
            .is_some_and(|c| c.iter().any(|w| w.pack_id.as_str() == marker.pack_id));
        if theirs {
            continue;
        }
        let modified = f.sha256.as_deref() != Some(marker.sha256.as_str());
        if modified && !force {
            status(&marker.pack_id, name, SkillState::Modified);
            if !claimed {
                steps.push(Step::Release {
                    skill: name.to_string(),
                });
            }
        } else {
            status(&marker.pack_id, name, SkillState::Stale);
            if !claimed {
                steps.push(Step::Remove {
                    skill: name.to_string(),
                });
            }
        }
    }
    plan.steps = steps;
    plan
}

/// Which of the packs wanting one name gets it: the one whose marker is
/// there, else (when the folder is free or holds a stale copy of ours) the
/// first; nobody when the folder is not ours or holds an edited stale copy.
fn holder<'a>(claimants: &[&'a Wanted], here: Option<&Found>) -> Option<&'a Wanted> {
    match here {
        None => claimants.first().copied(),
        Some(Found { marker: None, .. }) => None,
        Some(
            f @ Found {
                marker: Some(m), ..
            },
        ) => {
            if let Some(owner) = claimants.iter().find(|w| w.pack_id.as_str() == m.pack_id) {
                return Some(owner);
            }
            let modified = f.sha256.as_deref() != Some(m.sha256.as_str());
            if modified {
                None
            } else {
                claimants.first().copied()
            }
        }
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
        }
    }

    fn ours(skill: &str, pack: &str, marker_sha: &str, file_sha: Option<&str>) -> Found {
        Found {
            skill: skill.into(),
            marker: Some(Marker {
                pack_id: pack.into(),
                version: "1.0.0".into(),
                sha256: marker_sha.into(),
            }),
            sha256: file_sha.map(str::to_string),
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
            marker: None,
            sha256: Some("1".into()),
        }];
        let p = plan(&[want("a.b", "notes", "1")], &found, true);
        assert_eq!(states(&p), [("a.b".into(), SkillState::Conflict)]);
        assert!(p.steps.is_empty());
    }

    #[test]
    fn two_packs_with_one_name_the_placed_one_keeps_it() {
        let wanted = [
            want("a.first", "notes", "1"),
            want("b.second", "notes", "2"),
        ];
        let fresh = plan(&wanted, &[], false);
        assert_eq!(
            states(&fresh),
            [
                ("a.first".into(), SkillState::Missing),
                ("b.second".into(), SkillState::Conflict)
            ]
        );
        let held = plan(&wanted, &[ours("notes", "b.second", "2", Some("2"))], false);
        assert_eq!(
            states(&held),
            [
                ("a.first".into(), SkillState::Conflict),
                ("b.second".into(), SkillState::Placed)
            ]
        );
        assert!(held.steps.is_empty());
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
