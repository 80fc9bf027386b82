//! `S` and the store each key acts on inside a project (HCP.md §15.1):
//! installing goes to the store `S` chose (the project's at first); a key
//! on an installed pack goes to the store that holds it (its row's; for
//! an id typed on the `:` line, the project's first), like the CLI; the
//! command shown for it carries `-g` when that is the user store. Outside
//! a project every job runs on the one store and nothing here applies.

use super::*;

impl App {
    /// `S`: installs go to the other store.
    pub(super) fn toggle_scope(&mut self) {
        match self.scopes.toggle() {
            Ok(store) => {
                let text = match store {
                    Store::Project => "installs go to the project's store now".to_string(),
                    Store::User => "installs go to the user store now (hcpx -g)".to_string(),
                };
                self.status.info(text);
            }
            Err(why) => self.say(Outcome::Refused, why, None),
        }
    }

    /// The store a key on `ids` acts on (`adding`: an install; see the
    /// module doc), or why there is not one: the packs are in both stores.
    pub(super) fn store_for(&self, adding: bool, ids: &[String]) -> Result<Store, String> {
        if self.scopes.project().is_none() || adding {
            return Ok(self.scopes.adds_to());
        }
        let targets = self.targets();
        let mut stores = ids.iter().map(|id| {
            let keyed = targets.iter().find(|r| r.id() == id.as_str());
            let row = keyed
                .copied()
                .or_else(|| self.packs.entries.iter().find(|r| r.id() == id.as_str()));
            row.map_or(self.scopes.adds_to(), |r| self.scopes.store_of(r))
        });
        let first = stores.next().unwrap_or(self.scopes.adds_to());
        if stores.any(|s| s != first) {
            return Err(format!(
                "{} are in the project's store and the user store: mark the packs of one store (the SCOPE column says which)",
                ids.join(", ")
            ));
        }
        Ok(first)
    }

    /// `job` on `store` alone, inside a project (`Job::In`).
    pub(super) fn routed(&self, store: Store, job: Job) -> Job {
        match self.scopes.project() {
            Some(_) => Job::In {
                store,
                job: Box::new(job),
            },
            None => job,
        }
    }
}
