//! What the server serves right now (HCP.md §16.2, §16.4, §16.5): the
//! tools and the Skill resources, read from one pass of the availability
//! function over the installed packs of each store it serves (inside a
//! project the project's, then the user store, a project pack shadowing a
//! user pack of its id, §15.5), and the stamp of the files whose change
//! can change them.
//!
//! Blocking (it reads the store): the server calls it off its loop.

use super::reads::ReadCache;
use super::skills::SkillResources;
use super::tools::{self, ToolEntry};
use crate::engine::error::Result;
use crate::engine::ops::{Engine, runnable_memo};
use crate::engine::pack::manifest::Manifest;
use crate::engine::policy::availability::PackAvailability;
use crate::engine::store::parallel::parallel_map;
use std::path::{Path, PathBuf};

/// The tools and resources of one read of the store.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    pub tools: Vec<ToolEntry>,
    pub skills: Vec<SkillResources>,
}

impl Listing {
    /// Reads the stores, `engines` in order (inside a project the
    /// project's, then the user store, §15.5): every installed pack's
    /// availability for the principal (catalog packs are never
    /// executable: none is read). A pack of an earlier store shadows a
    /// pack of the same id in a later one: only the first is served.
    pub fn read(engines: &[Engine], cache: &ReadCache) -> Result<Listing> {
        let mut held = std::collections::HashSet::new();
        let mut tools = Vec::new();
        let mut skills: Vec<(usize, SkillResources)> = Vec::new();
        for (store, engine) in engines.iter().enumerate() {
            let scope = engine.scope().as_str();
            let packs: Vec<Read> = read_store(engine, cache)?
                .into_iter()
                .filter(|(a, _, _)| held.insert(a.pack_id.clone()))
                .collect();
            let ours = tools::tool_list(
                packs
                    .iter()
                    .filter_map(|(a, m, _)| m.as_ref().map(|m| (a, m))),
            );
            tools.extend(ours.into_iter().map(|t| t.in_store(store, scope)));
            skills.extend(packs.iter().filter_map(|(a, _, dir)| {
                cache.skill(&a.pack_id, dir.as_deref()?).map(|s| (store, s))
            }));
        }
        cache.keep_only(engines);
        // Two packs with one Skill name: the earlier store's, then the
        // first pack id, serves it.
        skills.sort_by(|(x, a), (y, b)| (&a.name, x, &a.pack_id).cmp(&(&b.name, y, &b.pack_id)));
        skills.dedup_by(|(_, b), (_, a)| a.name == b.name);
        let skills = skills.into_iter().map(|(_, s)| s).collect();
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
                .any(|(a, b)| a.tool != b.tool || a.version != b.version || a.store != b.store)
    }

    pub fn skills_differ(&self, other: &Listing) -> bool {
        self.skills != other.skills
    }
}

/// One pack of a store as the listing reads it: its availability, its
/// manifest when a command of it is executable, its folder when its Skill
/// is active.
type Read = (PackAvailability, Option<Manifest>, Option<PathBuf>);

/// Every installed pack of `engine`'s store, its view read again only when
/// the pack changed ([`ReadCache::view`]), its availability worked out
/// anew from the state read now.
fn read_store(engine: &Engine, cache: &ReadCache) -> Result<Vec<Read>> {
    let state = engine.store().read_state()?;
    let ids = engine.store().installed_ids()?;
    let check = runnable_memo();
    let reads = parallel_map(ids, |id| {
        let view = cache.view(engine, &id)?;
        let avail = engine.pack_availability_with(&view, &state, &check);
        let executable = avail.commands.iter().any(|c| c.executable);
        let manifest = view.manifest().filter(|_| executable).cloned();
        let skill_dir = view.dir().filter(|_| avail.activated && avail.sense.active);
        Some((avail, manifest, skill_dir))
    });
    Ok(reads.into_iter().flatten().collect())
}

/// A file's inode, modification time and size, as one `stat` gives them.
pub type FileStamp = (u64, i64, i64, u64);

/// One `stat` per file of [`stamp`]: inode, modification time, size.
pub type Stamp = Vec<Option<FileStamp>>;

/// What a change of the executable set touches, in each store:
/// `state.json` (activation, connection, grants), the `packs/` and
/// `skills/` folders and each installed pack's folder, manifest and Skill
/// (install, upgrade); and each folder on `PATH`, whose entries change
/// when a program a command runs appears or goes. One `stat` each: cheap
/// enough to poll, and what decides whether a listing read before is
/// still the answer.
pub fn stamp(engines: &[Engine]) -> Stamp {
    let mut paths = Vec::new();
    for engine in engines {
        let store = engine.store();
        paths.extend([store.state_path(), store.packs_dir(), store.skills_dir()]);
        if let Ok(ids) = store.installed_ids() {
            for id in ids {
                let dir = store.pack_dir(&id);
                paths.push(dir.join("pack.yaml"));
                paths.push(dir.join("pack.json"));
                paths.push(dir.join("SKILL.md"));
                paths.push(dir);
            }
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&path));
    }
    paths.iter().map(|p| file_stamp(p)).collect()
}

pub fn file_stamp(path: &Path) -> Option<FileStamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.ino(), m.mtime(), m.mtime_nsec(), m.len()))
}
