//! What the server read of each installed pack before (HCP.md §16.4): its
//! view (manifest and lint report) and its Skill, by pack folder, each
//! with the stamp of the pack's files when it was read. A read of the
//! store after a change that left a pack as it was — a grant, an
//! activation, another pack installed — reads none of its files again:
//! only the pack's availability is worked out anew, from the new state.
//!
//! The stamp is what [`listing::stamp`] polls for the pack: its folder,
//! manifest and Skill, and its Skill copy. An upgrade or a new install
//! replaces the folder whole, which changes it. A file edited in place
//! deeper in the folder is seen at the next change of these; whatever the
//! listing says, a call checks the pack again through the exec path
//! (lint cache keyed on every file, §6.1), so a stale listing never runs
//! a pack that fails its checks now.
//!
//! [`listing::stamp`]: super::listing::stamp

use super::listing::{FileStamp, file_stamp};
use super::skills::SkillResources;
use crate::engine::ops::Engine;
use crate::engine::pack::id::PackId;
use crate::engine::store::snapshot::PackView;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A pack's stamp: its folder, `pack.yaml`, `pack.json`, `SKILL.md` and
/// Skill copy.
type PackStamp = [Option<FileStamp>; 5];

/// The views and Skills read before, by pack folder.
#[derive(Debug, Default)]
pub struct ReadCache {
    views: Mutex<HashMap<PathBuf, (PackStamp, Arc<PackView>)>>,
    skills: Mutex<HashMap<PathBuf, (PackStamp, Option<SkillResources>)>>,
}

fn pack_stamp(engine: &Engine, id: &PackId) -> PackStamp {
    let store = engine.store();
    let dir = store.pack_dir(id);
    [
        file_stamp(&dir),
        file_stamp(&dir.join("pack.yaml")),
        file_stamp(&dir.join("pack.json")),
        file_stamp(&dir.join("SKILL.md")),
        file_stamp(&store.skill_path(id)),
    ]
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ReadCache {
    /// The view of installed pack `id`, read again (through the lint
    /// cache) only when its stamp changed; `None` when it cannot be read.
    pub fn view(&self, engine: &Engine, id: &PackId) -> Option<Arc<PackView>> {
        let dir = engine.store().pack_dir(id);
        let stamp = pack_stamp(engine, id);
        let known = locked(&self.views).get(&dir).cloned();
        if let Some((was, view)) = known
            && was == stamp
            && stamp[0].is_some()
        {
            return Some(view);
        }
        let view = Arc::new(engine.pack_view(id).ok()?);
        locked(&self.views).insert(dir, (stamp, Arc::clone(&view)));
        Some(view)
    }

    /// The Skill of `pack_id` installed at `dir`, read again only when
    /// the folder or its `SKILL.md` changed.
    pub fn skill(&self, pack_id: &str, dir: &Path) -> Option<SkillResources> {
        let stamp: PackStamp = [
            file_stamp(dir),
            None,
            None,
            file_stamp(&dir.join("SKILL.md")),
            None,
        ];
        let known = locked(&self.skills).get(dir).cloned();
        if let Some((was, skill)) = known
            && was == stamp
            && stamp[0].is_some()
            && skill.as_ref().is_none_or(|s| s.pack_id == pack_id)
        {
            return skill;
        }
        let skill = SkillResources::read(pack_id, dir);
        locked(&self.skills).insert(dir.to_path_buf(), (stamp, skill.clone()));
        skill
    }

    /// Forgets the folders of packs no longer installed in `engines`'
    /// stores.
    pub fn keep_only(&self, engines: &[Engine]) {
        let installed: std::collections::HashSet<PathBuf> = engines
            .iter()
            .flat_map(|e| {
                let ids = e.store().installed_ids().unwrap_or_default();
                ids.into_iter().map(|id| e.store().pack_dir(&id))
            })
            .collect();
        locked(&self.views).retain(|dir, _| installed.contains(dir));
        locked(&self.skills).retain(|dir, _| installed.contains(dir));
    }
}
