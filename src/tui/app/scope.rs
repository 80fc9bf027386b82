//! `S` and the store each key acts on inside a project (HCP.md §15.1):
//! installing goes to the store `S` chose (the project's at first); a key
//! on an installed pack goes to the store that holds it (its row's), like
//! the CLI; the command shown for it carries `-g` when that is the user
//! store. A `:` line runs as `hcpx` would in the project: on the store
//! its `-g` or `--project` names, else an install on the project's and a
//! pack on the store holding it, the project's first. Outside a project
//! every job runs on the one store and nothing here applies.

use super::*;
use crate::engine::error::Fix;
use crate::engine::project::ScopeFlag;

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
        if self.scopes.project().is_none() {
            return Ok(Store::User);
        }
        if let Some(store) = self.line_store() {
            return Ok(store);
        }
        let typed = self.line_flags.typed;
        if adding {
            return Ok(if typed {
                Store::Project
            } else {
                self.scopes.adds_to()
            });
        }
        // A key: the rows it acts on (both rows of an id when both are
        // marked); a typed id: its first row (the project's when the
        // project holds it).
        let targets = if typed { Vec::new() } else { self.targets() };
        let mut stores: Vec<Store> = Vec::new();
        for id in ids {
            let keyed: Vec<&Row> = targets
                .iter()
                .copied()
                .filter(|r| r.id() == id.as_str())
                .collect();
            let rows = match keyed.is_empty() {
                false => keyed,
                true => self
                    .packs
                    .entries
                    .iter()
                    .find(|r| r.id() == id.as_str())
                    .into_iter()
                    .collect(),
            };
            stores.extend(rows.iter().map(|r| self.scopes.store_of(r)));
        }
        let first = stores.first().copied().unwrap_or(self.scopes.adds_to());
        if stores.iter().any(|s| *s != first) {
            let mut named: Vec<&str> = ids.iter().map(String::as_str).collect();
            named.dedup();
            return Err(format!(
                "{}: packs of the project's store and of the user store at once; mark the packs of one store (the SCOPE column says which)",
                named.join(", ")
            ));
        }
        Ok(first)
    }

    /// `line`, the words of `fix`, with `-g` when the fix acts on the user
    /// store inside a project: an install while installs go there, a stage
    /// of a pack the user store holds, a grant for the selected user pack
    /// (grants are the store's that holds the pack, §15.5).
    pub(super) fn fix_in_store(&self, fix: &Fix, line: String) -> String {
        let pack = match fix {
            Fix::Install { .. } => None,
            Fix::Activate { pack }
            | Fix::Deactivate { pack }
            | Fix::Connect { pack, .. }
            | Fix::Uninstall { pack } => Some(pack.clone()),
            Fix::Grant { .. } => self.selected_row().map(|r| r.id().to_string()),
            _ => return line,
        };
        let store = match pack {
            None => Ok(self.scopes.adds_to()),
            Some(pack) => self.store_for(false, &[pack]),
        };
        match store {
            Ok(store) => self.in_store(store, line),
            Err(_) => line,
        }
    }

    /// The store a `:` line's `-g` or `--project` names, inside a project.
    pub(super) fn line_store(&self) -> Option<Store> {
        self.scopes.project()?;
        match self.line_flags.scope {
            ScopeFlag::Global => Some(Store::User),
            ScopeFlag::Project => Some(Store::Project),
            ScopeFlag::Auto => None,
        }
    }

    /// `line`, an `hcpx` command line, with `-g` when it acts on `store`
    /// from inside a project.
    pub(super) fn in_store(&self, store: Store, line: String) -> String {
        match self.scopes.flag(store) {
            Some(flag) => line.replacen("hcpx", &format!("hcpx {flag}"), 1),
            None => line,
        }
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
