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
    SchemeDowngraded {
        host: String,
    },
    MaterialSent {
        host: String,
        name: String,
    },
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
