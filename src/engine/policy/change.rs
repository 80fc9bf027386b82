//! One change of a pack's reach in the capability diff (HCP.md §13.7) and
//! whether it escalates: the type [`capdiff`](super::capdiff) (the manifest
//! part) and [`capdiff_files`](super::capdiff_files) (the Skill and file
//! part) both write, and the front-ends show (`{"kind": K, ...,
//! "escalates": b}`).

use crate::engine::pack::manifest::{BindingKind, Effect, Plane};
use serde::Serialize;

/// One change of a pack's reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    CommandAdded {
        verb_key: String,
        effect: Effect,
    },
    CommandRemoved {
        verb_key: String,
    },
    EffectChanged {
        verb_key: String,
        from: Effect,
        to: Effect,
    },
    BindingChanged {
        from: BindingKind,
        to: BindingKind,
    },
    EnvAdded {
        name: String,
    },
    SecretAdded {
        name: String,
    },
    ProgramAdded {
        program: String,
    },
    HostAdded {
        host: String,
    },
    PlaneChanged {
        from: Plane,
        to: Plane,
    },
    SenseOnlyDropped,
    SkillChanged {
        lines_added: usize,
        lines_removed: usize,
    },
    FileAdded {
        path: String,
        executable: bool,
    },
    FileRemoved {
        path: String,
        /// The mode it had (it has no new one).
        executable: bool,
    },
    FileChanged {
        path: String,
        executable: bool,
        was_executable: bool,
    },
    AdapterEnvAdded {
        verb_key: String,
        name: String,
    },
    /// What an existing command runs differs in one adapter field: the
    /// values as written in the manifest (a `${NAME}` placeholder as the
    /// placeholder). For `field: env`, `name` is the variable whose value
    /// changed (absent for every other field).
    AdapterChanged {
        verb_key: String,
        field: AdapterField,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        from: serde_json::Value,
        to: serde_json::Value,
    },
    SchemeDowngraded {
        host: String,
    },
    MaterialSent {
        host: String,
        name: String,
    },
}

/// The adapter field an `adapter_changed` names (§13.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AdapterField {
    Program,
    Argv,
    Env,
    Method,
    Url,
    Headers,
    Body,
    Kind,
}

impl AdapterField {
    /// The field's name, as the JSON writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            AdapterField::Program => "program",
            AdapterField::Argv => "argv",
            AdapterField::Env => "env",
            AdapterField::Method => "method",
            AdapterField::Url => "url",
            AdapterField::Headers => "headers",
            AdapterField::Body => "body",
            AdapterField::Kind => "kind",
        }
    }
}

/// A change and whether it escalates: `{"kind": K, ..., "escalates": b}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CapabilityChange {
    #[serde(flatten)]
    pub change: Change,
    pub escalates: bool,
}

impl Change {
    /// Whether this change grants the pack more reach (§13.7).
    pub fn escalates(&self) -> bool {
        match self {
            Change::CommandAdded { effect, .. } => *effect == Effect::Write,
            Change::CommandRemoved { .. } => false,
            Change::EffectChanged { from, to, .. } => *from == Effect::Read && *to == Effect::Write,
            Change::BindingChanged { to, .. } => *to != BindingKind::Public,
            Change::EnvAdded { .. }
            | Change::SecretAdded { .. }
            | Change::ProgramAdded { .. }
            | Change::HostAdded { .. }
            | Change::SenseOnlyDropped
            | Change::AdapterEnvAdded { .. }
            | Change::AdapterChanged { .. }
            | Change::SchemeDowngraded { .. }
            | Change::MaterialSent { .. } => true,
            Change::PlaneChanged { to, .. } => *to == Plane::Control,
            Change::SkillChanged { .. } | Change::FileRemoved { .. } => false,
            Change::FileAdded { executable, .. } => *executable,
            Change::FileChanged {
                executable,
                was_executable,
                ..
            } => *executable && !*was_executable,
        }
    }
}

/// Whether any change escalates.
pub fn escalates(changes: &[CapabilityChange]) -> bool {
    changes.iter().any(|c| c.escalates)
}
