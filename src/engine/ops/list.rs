//! The rows of `list`: every installed and catalog pack with its status and
//! a few manifest fields, for the CLI, the bootstrap pack and the TUI
//! (HCP.md §11.2, §11.6); and `search`: the catalog packs that match words.

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

/// One catalog pack that `hcpx search WORD...` found: every word is in its
/// id, name or description (case aside).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    pub pack_id: String,
    pub kind: PackKind,
    pub name: Option<String>,
    pub version: Option<String>,
    pub description: Option<String>,
    /// Whether this store holds it already.
    pub installed: bool,
    /// The catalog folder it was found in (the first holding the id, the
    /// one `install ID` takes, §11.6), and its own folder there.
    pub catalog: String,
    pub path: String,
}

/// The catalog packs (of every catalog, packs of collections included,
/// §11.6, §13.1) whose id, name or description holds every word of
/// `words`, case aside: those whose id holds them first, then by id.
pub fn search(engine: &Engine, words: &[String]) -> Result<Vec<SearchHit>> {
    let words: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let found = engine.map_packs(|view, _| {
        let catalog = view.catalog.as_ref()?;
        let m = catalog.report.manifest.as_ref();
        let id = view.pack_id.to_lowercase();
        let text = [
            m.map(|m| m.name.as_str()),
            m.map(|m| m.description.as_str()),
        ]
        .into_iter()
        .flatten()
        .fold(id.clone(), |all, field| all + "\n" + &field.to_lowercase());
        words.iter().all(|w| text.contains(w.as_str())).then(|| {
            let by_id = words.iter().all(|w| id.contains(w.as_str()));
            let hit = SearchHit {
                pack_id: view.pack_id.clone(),
                kind: catalog.report.kind,
                name: m.map(|m| m.name.clone()),
                version: m.map(|m| m.version.clone()),
                description: m.map(|m| m.description.clone()),
                installed: view.installed.is_some(),
                catalog: catalog.catalog.display().to_string(),
                path: catalog.dir.display().to_string(),
            };
            (!by_id, hit)
        })
    })?;
    let mut found: Vec<(bool, SearchHit)> = found.into_iter().flatten().collect();
    found.sort_by(|a, b| (a.0, &a.1.pack_id).cmp(&(b.0, &b.1.pack_id)));
    Ok(found.into_iter().map(|(_, hit)| hit).collect())
}
