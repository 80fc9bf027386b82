//! Availability (11-lifecycle.md §11.2, HCP.md §11.2–§11.3, §7.4): per pack,
//! the four flags and a status; per command, `executable` and every unmet
//! condition. One pure function over a [`PackView`] and the state; the CLI's
//! `availability --json`, `exec`'s preconditions, `why`, and the TUI's matrix
//! all call it. Each pack says where its grants were read (`grants_from`,
//! §9.3).

use crate::engine::pack::manifest::{Adapter, BindingKind, PackKind};
use crate::engine::policy::grants;
pub use crate::engine::policy::refusal::{Condition, Refusal};
use crate::engine::store::snapshot::PackView;
use crate::engine::store::state::State;
use serde::Serialize;
use std::path::Path;

/// The highest stage a pack reached (§11.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Available,
    Installed,
    Activated,
    Connected,
    Executable,
    Unavailable,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Available => "available",
            Status::Installed => "installed",
            Status::Activated => "activated",
            Status::Connected => "connected",
            Status::Executable => "executable",
            Status::Unavailable => "unavailable",
        }
    }
}

/// `sense` of §7.4, with the harness targets where the pack's Skill is
/// placed (§12.8; filled in by the runtime, which reads the targets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sense {
    pub active: bool,
    pub harnesses: Vec<crate::engine::harness::TargetName>,
}

/// One command's availability.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandAvailability {
    pub verb_key: String,
    pub effect: &'static str,
    pub executable: bool,
    pub reasons: Vec<Refusal>,
}

/// One pack's availability, in the JSON shape of §11.3.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackAvailability {
    pub pack_id: String,
    /// A pack with a manifest, or a Skill pack (§2.6).
    pub kind: PackKind,
    pub version: Option<String>,
    pub status: Status,
    pub installed: bool,
    pub activated: bool,
    pub connected: bool,
    /// Where this pack's grants for the principal were read (§9.3).
    pub grants_from: grants::GrantsFrom,
    pub sense: Sense,
    pub commands: Vec<CommandAvailability>,
    /// Why an `unavailable` pack is so (its lint errors); absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

impl CommandAvailability {
    /// Whether `hcpx mcp` running as the same principal lists this command
    /// as a tool (HCP.md §16.2: the tools are the executable commands). The
    /// MCP server and the TUI's Availability pane both ask this.
    pub fn mcp_tool(&self) -> bool {
        self.executable
    }

    /// Whether this command meets `condition` (no reason of its kind).
    pub fn meets(&self, condition: Condition) -> bool {
        !self
            .reasons
            .iter()
            .any(|r| r.condition() == Some(condition))
    }
}

impl PackAvailability {
    pub fn command(&self, verb_key: &str) -> Option<&CommandAvailability> {
        self.commands.iter().find(|c| c.verb_key == verb_key)
    }
}

/// Checks whether an adapter can run here; `None` when it can.
pub type RunnableCheck<'a> = &'a dyn Fn(&Adapter, &Path) -> Option<Refusal>;

/// Computes a pack's availability for `principal` under the grants in
/// force in the pack's store (§9.3).
pub fn pack_availability(
    pack: &PackView,
    state: &State,
    in_force: &grants::InForce,
    principal: &str,
    runnable: RunnableCheck<'_>,
) -> PackAvailability {
    let id = pack.pack_id.as_str();
    let manifest = pack.manifest();
    let installed = pack.installed.is_some();
    let public = manifest.is_none_or(|m| m.binding.kind == BindingKind::Public);
    let activated = installed && state.is_activated(id);
    let connected = public || (activated && state.is_connected(id));
    let problems = problems(pack);
    let dir = pack.dir();
    let commands: Vec<CommandAvailability> = match (manifest, problems.is_empty()) {
        (Some(m), true) => m
            .commands
            .iter()
            .map(|cmd| {
                let mut reasons = Vec::new();
                if !activated {
                    reasons.push(Refusal::NotActivated);
                }
                if !connected {
                    reasons.push(Refusal::NotConnected);
                }
                let capability = grants::Capability::from(cmd.effect);
                if !in_force.holds(principal, capability, id) {
                    reasons.push(Refusal::GrantMissing(capability));
                }
                reasons.extend(dir.as_deref().and_then(|d| runnable(&cmd.adapter, d)));
                if m.sense_only {
                    reasons.push(Refusal::SenseOnly);
                }
                CommandAvailability {
                    verb_key: cmd.key.clone(),
                    effect: cmd.effect.as_str(),
                    executable: reasons.is_empty(),
                    reasons,
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    let status = if !problems.is_empty() {
        Status::Unavailable
    } else if commands.iter().any(|c| c.executable) {
        Status::Executable
    } else if activated && connected {
        Status::Connected
    } else if activated {
        Status::Activated
    } else if installed {
        Status::Installed
    } else {
        Status::Available
    };
    PackAvailability {
        pack_id: id.to_string(),
        kind: pack.kind(),
        version: manifest
            .map(|m| m.version.clone())
            .filter(|v| !v.is_empty()),
        status,
        installed,
        activated,
        connected,
        grants_from: in_force.from(),
        sense: Sense {
            active: activated && pack.skill_copied,
            harnesses: Vec::new(),
        },
        commands,
        problems,
    }
}

/// Why an installed copy is `unavailable` (§11.2): its lint errors, or the
/// id it names instead of its own; empty when it is fine (or not
/// installed).
fn problems(pack: &PackView) -> Vec<String> {
    let id = pack.pack_id.as_str();
    // A pack that fails lint is `unavailable`: the installed copy, or the
    // catalog copy of a pack not installed (it cannot be installed).
    match pack.report() {
        Some(report) if !report.ok => {
            let mut list: Vec<String> = report
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{}: {}: {}", d.file, d.rule, d.message))
                .collect();
            if list.is_empty() {
                list.push(format!(
                    "the installed manifest names `{}`, not `{id}`",
                    report.pack_id.as_deref().unwrap_or("nothing")
                ));
            }
            list
        }
        _ => Vec::new(),
    }
}
