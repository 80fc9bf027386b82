//! What the server serves right now (HCP.md §16.2, §16.4, §16.5): the
//! tools and the Skill resources, read from one pass of the availability
//! function over the installed packs, and the stamp of the store files
//! whose change can change them.
//!
//! Blocking (it reads the store): the server calls it off its loop.

use super::skills::SkillResources;
use super::tools::{self, ToolEntry};
use crate::engine::error::Result;
use crate::engine::ops::{Engine, runnable_memo};
use crate::engine::pack::manifest::Manifest;
use crate::engine::policy::availability::PackAvailability;
use std::path::{Path, PathBuf};

/// The tools and resources of one read of the store.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    pub tools: Vec<ToolEntry>,
    pub skills: Vec<SkillResources>,
}

impl Listing {
    /// Reads the store: every installed pack's availability for the
    /// engine's principal (catalog packs are never executable: none is
    /// read).
    pub fn read(engine: &Engine) -> Result<Listing> {
        let check = runnable_memo();
        let packs: Vec<(PackAvailability, Option<Manifest>, Option<PathBuf>)> =
            engine.map_packs(|view, state| {
                let avail = engine.pack_availability_with(view, state, &check);
                let executable = avail.commands.iter().any(|c| c.executable);
                let manifest = view.manifest().filter(|_| executable).cloned();
                let skill_dir = view.dir().filter(|_| avail.activated && avail.sense.active);
                (avail, manifest, skill_dir)
            })?;
        let tools = tools::tool_list(
            packs
                .iter()
                .filter_map(|(a, m, _)| m.as_ref().map(|m| (a, m))),
        );
        let mut skills: Vec<SkillResources> = packs
            .iter()
            .filter_map(|(a, _, dir)| SkillResources::read(&a.pack_id, dir.as_deref()?))
            .collect();
        // Two packs with one Skill name: the first pack id serves it.
        skills.sort_by(|a, b| (&a.name, &a.pack_id).cmp(&(&b.name, &b.pack_id)));
        skills.dedup_by(|b, a| a.name == b.name);
        Ok(Listing { tools, skills })
    }

    pub fn tool(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// Whether the client sees another tool list (names, schemas, text).
    pub fn tools_differ(&self, other: &Listing) -> bool {
        self.tools.len() != other.tools.len()
            || self
                .tools
                .iter()
                .zip(&other.tools)
                .any(|(a, b)| a.tool != b.tool || a.version != b.version)
    }

    pub fn skills_differ(&self, other: &Listing) -> bool {
        self.skills != other.skills
    }
}

/// One `stat` per file of [`stamp`]: inode, modification time, size.
pub type Stamp = Vec<Option<(u64, i64, i64, u64)>>;

/// What a change of the executable set touches: `state.json` (activation,
/// connection, grants), the `packs/` and `skills/` folders and each
/// installed pack's folder, manifest and Skill (install, upgrade). One
/// `stat` each: cheap enough to poll, and what decides whether a listing
/// read before is still the answer. (A program appearing on `PATH` changes
/// no stamp: it shows at the next change of the store.)
pub fn stamp(engine: &Engine) -> Stamp {
    let store = engine.store();
    let mut paths = vec![store.state_path(), store.packs_dir(), store.skills_dir()];
    if let Ok(ids) = store.installed_ids() {
        for id in ids {
            let dir = store.pack_dir(&id);
            paths.push(dir.join("pack.yaml"));
            paths.push(dir.join("pack.json"));
            paths.push(dir.join("SKILL.md"));
            paths.push(dir);
        }
    }
    paths.iter().map(|p| file_stamp(p)).collect()
}

fn file_stamp(path: &Path) -> Option<(u64, i64, i64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.ino(), m.mtime(), m.mtime_nsec(), m.len()))
}
