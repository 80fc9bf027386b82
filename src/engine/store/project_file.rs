//! The step a change of a project's store ends with (HCP.md §15.3): the
//! project's `hcp.yaml` kept in step with what the change did. The store
//! knows nothing of `hcp.yaml`; the project layer gives the store a
//! [`CommitHook`] (`project::keep`) when it opens a project's store, and
//! every [`Transaction`] of that store calls it, under the lock, just
//! before the state is written, told what the lock and the activations
//! were when the change began ([`Start`]). What the hook writes through
//! the transaction is undone with the rest if the change fails (§14.7).

use super::{Store, Transaction, state::State};
use crate::engine::error::Result;
use crate::engine::pack::id::PackId;
use std::collections::BTreeSet;
use std::sync::Arc;

/// What a project's lock and activations were when a change began.
#[derive(Debug, Clone)]
pub struct Start {
    pub locked: BTreeSet<PackId>,
    pub activated: BTreeSet<PackId>,
}

impl Start {
    /// `None` outside a project, and when the lock does not read (the
    /// change then leaves `hcp.yaml` alone; `doctor` reports the lock).
    pub fn read(store: &Store, state: &State) -> Option<Start> {
        store.commit_hook.as_ref()?;
        let lock = store.read_lockfile().ok()?;
        Some(Start {
            locked: lock.packs.into_keys().collect(),
            activated: state.activated.iter().cloned().collect(),
        })
    }
}

/// Called by every change of a project's store before its state is
/// written (see the module doc).
#[derive(Clone)]
pub struct CommitHook(pub Arc<CommitFn>);

/// The function a [`CommitHook`] calls.
pub type CommitFn = dyn Fn(&mut Transaction<'_>, &Start) -> Result<()> + Send + Sync;

impl std::fmt::Debug for CommitHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CommitHook")
    }
}

impl Transaction<'_> {
    /// Runs the store's [`CommitHook`], if it has one.
    pub(super) fn keep_project_file(&mut self) -> Result<()> {
        let (Some(hook), Some(start)) =
            (self.store.commit_hook.clone(), self.project_start.clone())
        else {
            return Ok(());
        };
        (hook.0)(self, &start)
    }
}
