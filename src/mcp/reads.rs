//! What the server read of each installed pack before (HCP.md §16.4): its
//! view (manifest and lint report) and its Skill, by pack folder, each
//! with the stamp of the pack's files when it was read. A read of the
//! store after a change that left a pack as it was — a grant, an
//! activation, another pack installed — reads none of its files again:
//! only the pack's availability is worked out anew, from the new state.
//!
//! The key is the pack's part of the [`Stamp`] the server takes: its
//! folder, manifest and Skill, and its Skill copy. An upgrade or a new install
//! replaces the folder whole, which changes it. A file edited in place
//! deeper in the folder is seen at the next change of these; whatever the
//! listing says, a call checks the pack again through the exec path
//! (lint cache keyed on every file, §6.1), so a stale listing never runs
//! a pack that fails its checks now.

use super::skills::SkillResources;
use super::stamp::{PackStamp, Stamp};
use crate::engine::ops::Engine;
use crate::engine::pack::id::PackId;
use crate::engine::store::snapshot::PackView;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The views and Skills read before, by pack folder.
#[derive(Debug, Default)]
pub struct ReadCache {
    views: Mutex<HashMap<PathBuf, (PackStamp, Arc<PackView>)>>,
    skills: Mutex<HashMap<PathBuf, (PackStamp, Option<SkillResources>)>>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ReadCache {
    /// The view of installed pack `id`, read again (through the lint
    /// cache) only when its stamp changed; `None` when it cannot be read.
    /// `stamp` is the pack's when the listing's stamp was taken (`None`:
    /// not installed then, so read it).
    pub fn view(
        &self,
        engine: &Engine,
        id: &PackId,
        stamp: Option<&PackStamp>,
    ) -> Option<Arc<PackView>> {
        let dir = engine.store().pack_dir(id);
        let known = locked(&self.views).get(&dir).cloned();
        if let (Some((was, view)), Some(stamp)) = (known, stamp)
            && was == *stamp
            && stamp[0].is_some()
        {
            return Some(view);
        }
        let view = Arc::new(engine.pack_view(id).ok()?);
        if let Some(stamp) = stamp {
            locked(&self.views).insert(dir, (*stamp, Arc::clone(&view)));
        }
        Some(view)
    }

    /// The Skill of `pack_id` installed at `dir`, read again only when
    /// the folder or its `SKILL.md` changed.
    pub fn skill(
        &self,
        pack_id: &str,
        dir: &Path,
        stamp: Option<&PackStamp>,
    ) -> Option<SkillResources> {
        let known = locked(&self.skills).get(dir).cloned();
        if let (Some((was, skill)), Some(stamp)) = (known, stamp)
            && was == *stamp
            && stamp[0].is_some()
            && skill.as_ref().is_none_or(|s| s.pack_id == pack_id)
        {
            return skill;
        }
        let skill = SkillResources::read(pack_id, dir);
        if let Some(stamp) = stamp {
            locked(&self.skills).insert(dir.to_path_buf(), (*stamp, skill.clone()));
        }
        skill
    }

    /// Forgets the folders of packs not installed when `stamp` was taken.
    pub fn keep_only(&self, stamp: &Stamp) {
        locked(&self.views).retain(|dir, _| stamp.pack(dir).is_some());
        locked(&self.skills).retain(|dir, _| stamp.pack(dir).is_some());
    }
}
