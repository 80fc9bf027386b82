//! `hcpx show PACK_ID`: everything hcpx knows about one pack — the manifest
//! facts (HCP.md §3), every command with its args (§4) and availability
//! (§11.2–§11.3), the Binding (§8) without any secret value, where the pack
//! is installed and its Skill copy (§5.4). Plain data; the front-ends render
//! it (pack text through `terminal_safe`, §14.5).

use crate::engine::error::Result;
use crate::engine::ops::Engine;
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::{
    Arg, Binding, Effect, Manifest, OutputKind, PackKind, Requires,
};
use crate::engine::policy::availability::{PackAvailability, Refusal, Sense, Status};
use serde::Serialize;

/// The `hcpx show --json` document (without `ok`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PackDetails {
    pub pack_id: String,
    /// A pack with a manifest, or a Skill pack (§2.6).
    pub kind: PackKind,
    pub name: Option<String>,
    pub version: Option<String>,
    pub description: Option<String>,
    pub plane: Option<&'static str>,
    pub license: Option<String>,
    pub homepage: Option<String>,
    pub requires: Option<Requires>,
    pub sense_only: bool,
    pub status: Status,
    pub installed: bool,
    pub activated: bool,
    pub connected: bool,
    pub sense: Sense,
    /// The Binding as declared: kind, env names, secret name and prompt,
    /// probe, base_url. Never a secret value (§8.3).
    pub binding: Option<Binding>,
    /// `<store>/packs/<pack_id>` when installed.
    pub installed_path: Option<String>,
    /// The catalog folder the pack was found in, when it is not installed.
    pub catalog_path: Option<String>,
    pub skill: SkillCopy,
    pub commands: Vec<CommandDetails>,
    /// Why an `unavailable` pack is so (its lint errors).
    pub problems: Vec<String>,
}

/// The Skill copy of §5.4.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillCopy {
    /// `<store>/skills/<pack_id>/SKILL.md`.
    pub path: String,
    /// Whether that copy exists (the pack is activated).
    pub copied: bool,
}

/// One command of [`PackDetails`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommandDetails {
    pub verb_key: String,
    pub summary: String,
    pub effect: Effect,
    /// The adapter kind (`process`, `http`, `builtin`, or one this runtime
    /// cannot run).
    pub adapter: String,
    pub output: OutputKind,
    pub timeout_ms: u64,
    pub args: Vec<Arg>,
    pub executable: bool,
    pub reasons: Vec<Refusal>,
}

impl PackDetails {
    pub fn command(&self, verb_key: &str) -> Option<&CommandDetails> {
        self.commands.iter().find(|c| c.verb_key == verb_key)
    }
}

/// One pack's details; `not_found` when it is neither installed nor in a
/// catalog (with a did-you-mean hint).
pub fn show(engine: &Engine, id: &PackId) -> Result<PackDetails> {
    let view = engine.pack_view(id)?;
    let state = engine.store().read_state()?;
    let in_force = engine.grants_in_force(&state)?;
    let avail = engine.pack_availability(&view, &state, &in_force);
    let manifest = view.manifest();
    let installed_path = view
        .installed
        .as_ref()
        .map(|r| r.root.display().to_string());
    let catalog_path = match &view.installed {
        Some(_) => None,
        None => view.catalog.as_ref().map(|c| c.dir.display().to_string()),
    };
    Ok(PackDetails {
        pack_id: view.pack_id.clone(),
        kind: avail.kind,
        name: manifest.map(|m| m.name.clone()),
        version: avail.version.clone(),
        description: manifest.map(|m| m.description.clone()),
        plane: manifest.map(|m| m.plane.as_str()),
        license: manifest.and_then(|m| m.license.clone()),
        homepage: manifest.and_then(|m| m.homepage.clone()),
        requires: manifest.map(|m| m.requires.clone()),
        sense_only: manifest.is_some_and(|m| m.sense_only),
        status: avail.status,
        installed: avail.installed,
        activated: avail.activated,
        connected: avail.connected,
        sense: avail.sense.clone(),
        binding: manifest.map(|m| m.binding.clone()),
        installed_path,
        catalog_path,
        skill: SkillCopy {
            path: engine.store().skill_path(id).display().to_string(),
            copied: view.skill_copied,
        },
        commands: commands(manifest, &avail),
        problems: avail.problems.clone(),
    })
}

/// One command of one pack, for `hcpx exec PACK_ID VERB --help`;
/// `not_found` (with did-you-mean) for an unknown pack or verb.
pub fn command(engine: &Engine, id: &PackId, verb_key: &str) -> Result<CommandDetails> {
    let pack_id = id.as_str();
    let details = show(engine, id)?;
    match details.command(verb_key) {
        Some(c) => Ok(c.clone()),
        None => {
            let keys = details.commands.iter().map(|c| c.verb_key.as_str());
            Err(super::no_such_verb(pack_id, verb_key, keys))
        }
    }
}

fn commands(manifest: Option<&Manifest>, avail: &PackAvailability) -> Vec<CommandDetails> {
    let Some(m) = manifest else {
        return Vec::new();
    };
    m.commands
        .iter()
        .map(|cmd| {
            let a = avail.command(&cmd.key);
            CommandDetails {
                verb_key: cmd.key.clone(),
                summary: cmd.summary.clone(),
                effect: cmd.effect,
                adapter: cmd.adapter.kind().to_string(),
                output: cmd.output,
                timeout_ms: cmd.timeout_ms,
                args: cmd.args.clone(),
                executable: a.is_some_and(|a| a.executable),
                reasons: a.map(|a| a.reasons.clone()).unwrap_or_default(),
            }
        })
        .collect()
}
