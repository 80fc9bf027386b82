//! The rows of `list`: every installed and catalog pack with its status and
//! a few manifest fields, for the CLI, the bootstrap pack and the TUI.

use crate::engine::error::Result;
use crate::engine::ops::Engine;
use crate::engine::pack::manifest::PackKind;
use crate::engine::policy::availability::Status;
use crate::engine::policy::grants::InForce;
use serde::Serialize;

/// One pack in `hcpx list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListRow {
    pub pack_id: String,
    /// A pack with a manifest, or a Skill pack (§2.6).
    pub kind: PackKind,
    pub name: Option<String>,
    pub version: Option<String>,
    pub status: Status,
    pub installed: bool,
    pub activated: bool,
    pub connected: bool,
    pub plane: Option<&'static str>,
    pub binding: Option<&'static str>,
    pub description: Option<String>,
    /// Where the pack's files are: the store, or a catalog folder.
    pub path: Option<String>,
}

/// Lists every pack, sorted by id.
pub fn list(engine: &Engine) -> Result<Vec<ListRow>> {
    let check = crate::engine::ops::runnable_memo();
    let inherited = engine.inherited_grants()?;
    engine.map_packs(|view, state| {
        let in_force = InForce::resolve(state.grants.as_ref(), inherited.as_ref());
        let avail = engine.pack_availability_with(view, state, &in_force, &check);
        let m = view.manifest();
        ListRow {
            pack_id: view.pack_id.clone(),
            kind: avail.kind,
            name: m.map(|m| m.name.clone()),
            version: avail.version,
            status: avail.status,
            installed: avail.installed,
            activated: avail.activated,
            connected: avail.connected,
            plane: m.map(|m| m.plane.as_str()),
            binding: m.map(|m| m.binding.kind.as_str()),
            description: m.map(|m| m.description.clone()),
            path: view.dir().map(|d| d.display().to_string()),
        }
    })
}
