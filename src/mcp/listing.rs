//! What the server serves right now (HCP.md §16.2, §16.4, §16.5): the
//! tools and the Skill resources, read from one pass of the availability
//! function over the installed packs of each store it serves (inside a
//! project the project's, then the user store, a project pack shadowing a
//! user pack of its id, §15.5). What a read took from a pack whose files
//! are unchanged since the last one is taken again (`reads`).
//!
//! Blocking (it reads the store): the server calls it off its loop.

use super::reads::ReadCache;
use super::skills::SkillResources;
use super::stamp::{PackDirs, Stamp};
use super::tools::{self, ToolEntry, Which};
use crate::engine::error::Result;
use crate::engine::ops::{Engine, runnable_memo};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::Manifest;
use crate::engine::policy::availability::PackAvailability;
use crate::engine::store::parallel::parallel_map;
use std::path::PathBuf;

/// The tools and resources of one read of the store.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    pub tools: Vec<ToolEntry>,
    pub skills: Vec<SkillResources>,
    /// Only the first tools, as [`Listing::read_first`] read them (no
    /// Skills): what follows them is not known.
    pub prefix: bool,
    /// Each tool's place in `tools`, by name: a call finds its tool
    /// without a walk through thousands.
    by_name: std::collections::HashMap<String, usize>,
}

impl Listing {
    /// Reads the stores, `engines` in order (inside a project the
    /// project's, then the user store, §15.5): every installed pack's
    /// availability for the principal (catalog packs are never
    /// executable: none is read). A pack of an earlier store shadows a
    /// pack of the same id in a later one: only the first is served.
    pub fn read(engines: &[Engine], cache: &ReadCache, stamp: &Stamp) -> Result<Listing> {
        Listing::read_of(engines, cache, stamp, Which::Executable)
    }

    /// As [`Listing::read`], with the tools of the commands `which` names
    /// (every command of an activated pack: the tools that exist, §16.3).
    pub fn read_of(
        engines: &[Engine],
        cache: &ReadCache,
        stamp: &Stamp,
        which: Which,
    ) -> Result<Listing> {
        let mut held = std::collections::HashSet::new();
        // Every store's packs, each with the store holding it.
        let mut packs: Vec<(usize, Read)> = Vec::new();
        for (store, engine) in engines.iter().enumerate() {
            let read = read_store(engine, cache, stamp, which)?;
            packs.extend(
                read.into_iter()
                    .filter(|(a, _, _)| held.insert(a.pack_id.clone()))
                    .map(|r| (store, r)),
            );
        }
        let tools = named(engines, &packs, which);
        let mut skills: Vec<(usize, SkillResources)> = packs
            .iter()
            .filter_map(|(store, (a, _, dir))| {
                let dir = dir.as_deref()?;
                let skill = cache.skill(&a.pack_id, dir, stamp.pack(dir))?;
                Some((*store, skill))
            })
            .collect();
        cache.keep_only(stamp);
        // Two packs with one Skill name: the earlier store's, then the
        // first pack id, serves it.
        skills.sort_by(|(x, a), (y, b)| (&a.name, x, &a.pack_id).cmp(&(&b.name, y, &b.pack_id)));
        skills.dedup_by(|(_, b), (_, a)| a.name == b.name);
        let skills = skills.into_iter().map(|(_, s)| s).collect();
        Ok(Listing::new(tools, skills, false))
    }

    /// The first tools of what [`Listing::read`] would list — more than
    /// `size` of them where there are more — reading the packs in id order
    /// only until they are found (§16.2: a new server's first page does
    /// not wait for every pack of a large store). Tools are named and
    /// ordered by (pack_id, verb_key), so a pack's tools depend only on
    /// the packs before it: these are the first tools of the whole list.
    /// The views read go into `cache` with each pack's stamp of now, for
    /// the whole read that follows.
    pub fn read_first(engines: &[Engine], cache: &ReadCache, size: usize) -> Result<Listing> {
        let mut stores = Vec::new();
        let mut ids = Vec::new();
        let mut held = std::collections::HashSet::new();
        for (store, engine) in engines.iter().enumerate() {
            let state = engine.store().read_state()?;
            let in_force = engine.grants_in_force(&state)?;
            stores.push((state, in_force, PackDirs::open(engine)));
            let found = engine.store().installed_ids()?;
            ids.extend(found.into_iter().map(|id| (id, store)));
        }
        // The first store holding an id serves it (§15.5).
        ids.sort();
        ids.retain(|(id, _)| held.insert(id.clone()));
        let check = runnable_memo();
        let read_one = |(id, store): (PackId, usize)| {
            let engine = &engines[store];
            let (state, in_force, dirs) = &stores[store];
            let stamp = dirs.stamp(&id);
            let view = cache.view(engine, &id, Some(&stamp))?;
            let avail = engine.pack_availability_with(&view, state, in_force, &check);
            let tools = avail.commands.iter().filter(|c| c.mcp_tool()).count();
            let manifest = view.manifest().filter(|_| tools > 0).cloned();
            Some((store, tools, (avail, manifest, None)))
        };
        let (mut packs, mut found, mut from) = (Vec::new(), 0, 0);
        while found <= size && from < ids.len() {
            // 64 packs, then as many as the tools still wanted take at the
            // tools a pack had so far (64 at least, on every core at once).
            let wanted = match (from, found) {
                (0, _) => 64,
                (_, 0) => from,
                _ => (size + 1 - found).div_ceil(found.div_ceil(from)).max(64),
            };
            let to = ids.len().min(from + wanted);
            for (store, tools, read) in parallel_map(ids[from..to].to_vec(), read_one)
                .into_iter()
                .flatten()
            {
                found += tools;
                packs.push((store, read));
            }
            from = to;
        }
        let tools = named(engines, &packs, Which::Executable);
        Ok(Listing::new(tools, Vec::new(), from < ids.len()))
    }

    fn new(tools: Vec<ToolEntry>, skills: Vec<SkillResources>, prefix: bool) -> Listing {
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(at, t)| (t.name().to_string(), at))
            .collect();
        Listing {
            tools,
            skills,
            prefix,
            by_name,
        }
    }

    pub fn tool(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.get(*self.by_name.get(name)?)
    }

    /// Whether the client sees another tool list (names, schemas, text).
    pub fn tools_differ(&self, other: &Listing) -> bool {
        self.tools.len() != other.tools.len() || !self.starts_with(other)
    }

    /// Whether the first tools of `self` are those of `first` (names,
    /// schemas, text, versions, stores).
    pub fn starts_with(&self, first: &Listing) -> bool {
        self.tools.len() >= first.tools.len()
            && self
                .tools
                .iter()
                .zip(&first.tools)
                .all(|(a, b)| a.tool == b.tool && a.version == b.version && a.store == b.store)
    }

    pub fn skills_differ(&self, other: &Listing) -> bool {
        self.skills != other.skills
    }
}

/// The tools of `packs` (each with the index of its store), one naming
/// over all the stores, so every name is unique (§16.2).
fn named(engines: &[Engine], packs: &[(usize, Read)], which: Which) -> Vec<ToolEntry> {
    let tools = tools::tool_list_of(
        packs
            .iter()
            .filter_map(|(_, (a, m, _))| m.as_ref().map(|m| (a, m))),
        which,
    );
    let store_of: std::collections::HashMap<&str, usize> = packs
        .iter()
        .map(|(store, (a, _, _))| (a.pack_id.as_str(), *store))
        .collect();
    tools
        .into_iter()
        .map(|t| {
            let store = store_of.get(t.pack_id.as_str()).copied().unwrap_or(0);
            let scope = engines[store].scope().as_str();
            t.in_store(store, scope)
        })
        .collect()
}

/// One pack of a store as the listing reads it: its availability, its
/// manifest when a command of it is executable, its folder when its Skill
/// is active and the pack lints.
type Read = (PackAvailability, Option<Manifest>, Option<PathBuf>);

/// Every installed pack of `engine`'s store, its view read again only when
/// the pack changed ([`ReadCache::view`]), its availability worked out
/// anew from the state read now.
fn read_store(
    engine: &Engine,
    cache: &ReadCache,
    stamp: &Stamp,
    which: Which,
) -> Result<Vec<Read>> {
    let state = engine.store().read_state()?;
    let in_force = engine.grants_in_force(&state)?;
    let ids = engine.store().installed_ids()?;
    let check = runnable_memo();
    let reads = parallel_map(ids, |id| {
        let view = cache.view(engine, &id, stamp.pack(&engine.store().pack_dir(&id)))?;
        let avail = engine.pack_availability_with(&view, &state, &in_force, &check);
        let wanted = match which {
            Which::Executable => avail.commands.iter().any(|c| c.executable),
            Which::Activated => avail.activated,
        };
        let manifest = view.manifest().filter(|_| wanted).cloned();
        // A pack that fails lint now (a Skill edited in the store to hold
        // ESC, §14.5) serves no Skill: an agent is never served it.
        let skill_dir = view
            .dir()
            .filter(|_| avail.activated && avail.sense.active && avail.problems.is_empty());
        Some((avail, manifest, skill_dir))
    });
    Ok(reads.into_iter().flatten().collect())
}
