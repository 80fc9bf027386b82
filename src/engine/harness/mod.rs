//! Harness targets (HCP.md §12.4–§12.8, §14.10): placing the Skill folders
//! of activated packs where Claude Code, Codex, Cursor, Copilot, OpenCode,
//! Gemini CLI and Windsurf read them, and telling how each copy stands.
//!
//! - [`target`]: the table of targets, their folders and detection (§12.4);
//! - [`mcp_config`]: whether each harness's own MCP client configuration
//!   names `hcpx mcp` (§16.7), read-only;
//! - [`plan`]: the state of each Skill in a target and the steps that bring
//!   it in step — pure (§12.7–§12.8);
//! - [`links`]: how a project target's folder is reached — real folders,
//!   a link to another enabled target, or a link nothing goes through
//!   (§15.4);
//! - [`place`]: reading a target folder (which markers are this store's)
//!   and carrying the steps out, whole or not at all per Skill (§12.6), and
//!   the staging folders a crash leaves there (§14.10).
//!
//! hcpx writes into a target only when it is enabled (`harnesses:` in
//! `config.yaml`, §12.5), and only folders that carry its marker.

pub mod links;
pub mod mcp_config;
pub mod place;
pub mod plan;
pub mod target;

use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::id::PackId;
use crate::engine::pack::{grammar, skill};
use crate::engine::store::parallel::parallel_map;
use crate::engine::store::{Store, Transaction};
pub use place::Owner;
use plan::{SkillStatus, Wanted};
use serde::Serialize;
use std::path::PathBuf;
pub use target::{HarnessEnv, TargetName};

/// A target as `hcpx harness list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TargetInfo {
    pub name: TargetName,
    pub path: PathBuf,
    pub detected: bool,
    pub enabled: bool,
}

/// The Skills of one enabled target and their states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TargetStatus {
    pub name: TargetName,
    pub path: PathBuf,
    pub skills: Vec<SkillStatus>,
}

/// Parses the `harnesses:` names of `config.yaml`; an unknown one is
/// `store_corrupt` (hcpx never writes it, so someone edited the file).
pub fn parse_enabled(names: &[String], config: &std::path::Path) -> Result<Vec<TargetName>> {
    names
        .iter()
        .map(|name| {
            TargetName::parse(name).ok_or_else(|| {
                Error::new(
                    ErrorCode::StoreCorrupt,
                    format!("{}: unknown harness target `{name}`", config.display()),
                )
                .path(config.display().to_string())
                .hint(format!("known targets: {}", names_list()))
            })
        })
        .collect()
}

/// Every target's name, comma-separated, for messages.
pub fn names_list() -> String {
    TargetName::ALL
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every target with its folder, whether it is detected and enabled.
pub fn targets(env: &HarnessEnv, enabled: &[TargetName]) -> Vec<TargetInfo> {
    env.names()
        .iter()
        .map(|&name| {
            let location = env.locate(name);
            TargetInfo {
                name,
                detected: location.detected(),
                path: location.folder,
                enabled: enabled.contains(&name),
            }
        })
        .collect()
}

/// The Skills the activated packs want placed, in activation order: each
/// installed pack's `SKILL.md` name and SHA-256, and its manifest version;
/// the digest of the files a placed copy holds (§12.6) is read later, and
/// only where a copy is there to compare ([`with_digests`]). A pack whose
/// Skill cannot be read or has no valid name is left out (lint and
/// `doctor` report it).
pub fn wanted(store: &Store, activated: &[PackId]) -> Vec<Wanted> {
    let read = |id: PackId| {
        let dir = store.pack_dir(&id);
        let bytes = place::read_bounded(&dir.join(place::SKILL_FILE))?;
        let name = skill::parse(std::str::from_utf8(&bytes).ok()?)?.name?;
        if !grammar::is_skill_name(&name) {
            return None;
        }
        Some(Wanted {
            version: installed_version(&dir).unwrap_or_default(),
            pack_id: id,
            skill: name,
            sha256: place::sha256_hex(&bytes),
            digest: None,
        })
    };
    // Many activated packs: read on every core, in activation order.
    parallel_map(activated.to_vec(), read)
        .into_iter()
        .flatten()
        .collect()
}

/// Reads the digest of each Skill of `wanted` that `found` holds a copy of
/// ours of, for the same pack — the one comparison `plan` makes with it —
/// unless it is known already. A pack whose files cannot be read is left
/// out, as [`wanted`] leaves out one whose Skill cannot be.
fn with_digests(store: &Store, wanted: &mut Vec<Wanted>, found: &[plan::Found]) {
    let ours: std::collections::BTreeSet<(&str, &str)> = found
        .iter()
        .filter_map(|f| Some((f.skill.as_str(), f.marker.as_ref()?.pack_id.as_str())))
        .collect();
    let needed: Vec<usize> = (0..wanted.len())
        .filter(|&i| {
            let want = &wanted[i];
            want.digest.is_none() && ours.contains(&(want.skill.as_str(), want.pack_id.as_str()))
        })
        .collect();
    if needed.is_empty() {
        return;
    }
    let dirs = needed
        .iter()
        .map(|&i| (i, store.pack_dir(&wanted[i].pack_id)))
        .collect();
    // Many copies: read on every core.
    let read = parallel_map(dirs, |(i, dir)| (i, place::placed_tree(&dir).ok()));
    let mut unreadable = std::collections::BTreeSet::new();
    for (i, tree) in read {
        match tree {
            Some(tree) => wanted[i].digest = Some(tree.digest),
            None => {
                unreadable.insert(wanted[i].pack_id.clone());
            }
        }
    }
    wanted.retain(|want| !unreadable.contains(&want.pack_id));
}

/// Takes the digest of each copy this change just placed as its pack's:
/// it was copied from the pack's files a moment ago, under the store lock.
fn digests_of_placed(wanted: &mut [Wanted], placed: &[plan::Found]) {
    for found in placed {
        let Some(marker) = &found.marker else {
            continue;
        };
        let same = |want: &&mut Wanted| {
            want.pack_id.as_str() == marker.pack_id && want.skill == found.skill
        };
        if let Some(want) = wanted.iter_mut().find(same) {
            want.digest = want.digest.take().or_else(|| found.digest.clone());
        }
    }
}

/// The `version` of an installed pack's manifest, read without linting it
/// (the copy was linted when installed; `doctor` lints it again); for a
/// Skill pack, its implicit manifest's (§2.6: `metadata.version`, else
/// `0.0.0`).
fn installed_version(dir: &std::path::Path) -> Option<String> {
    let doc = crate::engine::lint::declared_manifest(dir)?;
    doc.get("version")?.as_str().map(str::to_string)
}

/// The state of every Skill in every enabled target, without changing
/// anything.
pub fn status(
    store: &Store,
    env: &HarnessEnv,
    enabled: &[TargetName],
    wanted: &[Wanted],
) -> Result<Vec<TargetStatus>> {
    let known = vec![Vec::new(); enabled.len()];
    status_with(store, env, enabled, &mut wanted.to_vec(), &known)
}

/// [`status`], taking what `known` (one list per target of `enabled`)
/// says of the copies a change just placed instead of reading them again.
fn status_with(
    store: &Store,
    env: &HarnessEnv,
    enabled: &[TargetName],
    wanted: &mut Vec<Wanted>,
    known: &[Vec<plan::Found>],
) -> Result<Vec<TargetStatus>> {
    let owner = Owner::of(store);
    enabled
        .iter()
        .zip(known)
        .map(|(&name, known)| {
            let folder = env.locate(name).folder;
            let (read, known) = match links::route(env, name, enabled) {
                links::Route::Real => (folder.clone(), &known[..]),
                links::Route::Alias(other) => (env.locate(other).folder, &[][..]),
                links::Route::Link(link) => {
                    let skills = wanted
                        .iter()
                        .map(|w| SkillStatus::through_link(w, &link))
                        .collect();
                    return Ok(TargetStatus {
                        name,
                        skills,
                        path: folder,
                    });
                }
            };
            let found = place::observe_except(&read, &owner, known)?;
            with_digests(store, wanted, &found);
            Ok(TargetStatus {
                name,
                skills: plan::plan(wanted, &found, false).statuses,
                path: folder,
            })
        })
        .collect()
}

/// Brings every enabled target in step with `wanted` (and clears the
/// `disabled` ones of our copies) as part of the store change `tx`, then
/// reports the states. `force` also replaces or removes `modified` copies;
/// `conflict` is never touched. Copies released to the user (§12.7) are
/// reported `modified`.
pub fn sync(
    tx: &mut Transaction<'_>,
    env: &HarnessEnv,
    enabled: &[TargetName],
    disabled: &[TargetName],
    wanted: &[Wanted],
    force: bool,
) -> Result<Vec<TargetStatus>> {
    crate::engine::store::step("harness.sync")?;
    let owner = Owner::of(tx.store());
    // A project target reached through a link is neither written nor
    // cleared (§15.4); a link to another target is written as that one.
    let real = |name| links::route(env, name, enabled) == links::Route::Real;
    for &name in disabled.iter().filter(|&&n| real(n)) {
        let folder = env.locate(name).folder;
        let found = place::observe(&folder, &owner)?;
        let steps = plan::plan(&[], &found, false).steps;
        place::apply(tx, (name, &folder), &steps, false, &owner)?;
    }
    let mut wanted = wanted.to_vec();
    let (mut released, mut placed) = (Vec::new(), Vec::new());
    for &name in enabled {
        if !real(name) {
            released.push(Vec::new());
            placed.push(Vec::new());
            continue;
        }
        let folder = env.locate(name).folder;
        let found = place::observe(&folder, &owner)?;
        with_digests(tx.store(), &mut wanted, &found);
        let plan = plan::plan(&wanted, &found, force);
        let fresh = place::apply(tx, (name, &folder), &plan.steps, force, &owner)?;
        digests_of_placed(&mut wanted, &fresh);
        released.push(released_copies(&plan));
        placed.push(fresh);
    }
    let mut after = status_with(tx.store(), env, enabled, &mut wanted, &placed)?;
    for (target, released) in after.iter_mut().zip(released) {
        target.skills.extend(released);
    }
    Ok(after)
}

/// The staging folders a crash left in the targets' folders (§14.10),
/// enabled or not (a crash during `enable` leaves them in one that is not).
pub fn leftovers(env: &HarnessEnv, owner: &Owner) -> Vec<(TargetName, PathBuf)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut found = Vec::new();
    for &name in env.names() {
        let folder = env.locate(name).folder;
        // Nothing is removed through a link in a project (§15.4).
        let linked = env.project.as_deref().is_some_and(|project| {
            crate::engine::store::remove::first_unreal(project, &folder, true).is_some()
        });
        if !linked && seen.insert(folder.clone()) {
            found.extend(
                place::leftovers(&folder, owner)
                    .into_iter()
                    .map(|path| (name, path)),
            );
        }
    }
    found
}

/// One line of a lifecycle result (§12.8 `harnesses`): where a touched
/// pack's Skill stands in one enabled target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HarnessLine {
    pub target: TargetName,
    pub skill: String,
    pub state: plan::SkillState,
    pub path: PathBuf,
    /// For a `conflict`: who holds the name (not part of the JSON shape).
    #[serde(skip)]
    pub taken: Option<plan::Taken>,
    /// `link`, with the link, where §15.4 applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<PathBuf>,
}

/// The lines of `targets` that concern `pack`.
pub fn lines_for(targets: &[TargetStatus], pack: &PackId) -> Vec<HarnessLine> {
    targets
        .iter()
        .flat_map(|t| {
            t.skills
                .iter()
                .filter(|s| s.pack_id == pack.as_str())
                .map(|s| HarnessLine {
                    target: t.name,
                    skill: s.skill.clone(),
                    state: s.state,
                    path: t.path.join(&s.skill),
                    taken: s.taken.clone(),
                    reason: s.reason,
                    link: s.link.clone(),
                })
        })
        .collect()
}

/// The edited copies a plan hands over to the user (§12.7): they carry no
/// marker afterwards, so only the plan still knows them; they are reported
/// `modified`.
fn released_copies(plan: &plan::Plan) -> Vec<SkillStatus> {
    plan.steps
        .iter()
        .filter_map(|step| match step {
            plan::Step::Release { skill } => plan
                .statuses
                .iter()
                .find(|s| &s.skill == skill && s.state == plan::SkillState::Modified)
                .cloned(),
            _ => None,
        })
        .collect()
}
