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

use crate::engine::harness::plan::SkillState;
use crate::engine::ops::Engine;
use std::collections::{BTreeMap, BTreeSet};

/// The marks of every pack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// Packs whose installed copy fails `verify`.
    pub integrity: BTreeSet<String>,
    /// Packs with a Skill in `conflict` or `modified` in a target.
    pub harness: BTreeSet<String>,
    /// Packs with a newer version, as `o` found them (any source): the
    /// version.
    pub outdated: BTreeMap<String, String>,
    /// Packs with a newer version in their catalog, read after every load
    /// (no network).
    pub outdated_local: BTreeMap<String, String>,
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
    }

    /// The newer version of `id`, if one is known.
    pub fn latest(&self, id: &str) -> Option<&String> {
        self.outdated_local
            .get(id)
            .or_else(|| self.outdated.get(id))
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
            out.push(format!(
                "↑ version {latest} is out: U upgrades (hcpx upgrade {id})"
            ));
        }
        out
    }
}

/// The marks a load can compute without the network: `verify` of every
/// installed pack, every enabled target's states, and the packs whose
/// catalog has a newer version. A part that does not
/// read leaves its marks out (doctor and the CLI report it).
pub fn read(engine: &Engine) -> Marks {
    let mut marks = Marks::default();
    match engine.verify(&[]) {
        Ok(report) => {
            marks.integrity = report
                .packs
                .into_iter()
                .filter(|p| !p.ok && !p.actual.is_empty())
                .map(|p| p.pack_id)
                .collect();
        }
        Err(err) => tracing::warn!(code = err.code.as_str(), "marks: verify failed"),
    }
    match engine.harness_status(None) {
        Ok(targets) => {
            marks.harness = targets
                .into_iter()
                .flat_map(|t| t.skills)
                .filter(|s| matches!(s.state, SkillState::Conflict | SkillState::Modified))
                .map(|s| s.pack_id)
                .collect();
        }
        Err(err) => tracing::warn!(code = err.code.as_str(), "marks: harness status failed"),
    }
    match engine.outdated_offline() {
        Ok(packs) => {
            marks.outdated_local = packs.into_iter().map(|p| (p.pack_id, p.latest)).collect();
        }
        Err(err) => tracing::warn!(code = err.code.as_str(), "marks: outdated failed"),
    }
    marks
}
