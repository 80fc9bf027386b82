//! `S` and the store each key acts on inside a project (HCP.md §15.1):
//! installing goes to the store `S` chose (the project's at first); a key
//! on an installed pack goes to the store that holds it (its row's), like
//! the CLI; the command shown for it carries `-g` when that is the user
//! store. A lifecycle key on marked rows of both stores acts on each for
//! the packs it holds, as the CLI splits them (`App::stores_for`). A `:`
//! line runs as `hcpx` would in the project: on the store its `-g` or
//! `--project` names, else an install on the project's and a pack on the
//! store holding it, the project's first. Outside a project
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
        match self.stores_for(adding, ids).as_slice() {
            [] => Ok(self.scopes.adds_to()),
            [(store, _)] => Ok(*store),
            _ => {
                let mut named: Vec<&str> = ids.iter().map(String::as_str).collect();
                named.dedup();
                Err(format!(
                    "{}: packs of the project's store and of the user store at once; mark the packs of one store (the SCOPE column says which)",
                    named.join(", ")
                ))
            }
        }
    }

    /// The stores a key on `ids` acts on, each with the ids it holds (in
    /// the order given, once each), the project's first: one store but
    /// for a key on marked rows of both, which the CLI splits the same way
    /// (`command::both::split`).
    pub(super) fn stores_for(&self, adding: bool, ids: &[String]) -> Vec<(Store, Vec<String>)> {
        if self.scopes.project().is_none() {
            return vec![(Store::User, ids.to_vec())];
        }
        if let Some(store) = self.line_store() {
            return vec![(store, ids.to_vec())];
        }
        let typed = self.line_flags.typed;
        if adding {
            let store = if typed {
                Store::Project
            } else {
                self.scopes.adds_to()
            };
            return vec![(store, ids.to_vec())];
        }
        // A key: the rows it acts on (both rows of an id when both are
        // marked); a typed id: its first row (the project's when the
        // project holds it).
        let targets = if typed { Vec::new() } else { self.targets() };
        let mut split: Vec<(Store, Vec<String>)> = Vec::new();
        let mut unheld: Vec<String> = Vec::new();
        let add = |split: &mut Vec<(Store, Vec<String>)>, store: Store, id: &String| match split
            .iter_mut()
            .find(|(s, _)| *s == store)
        {
            Some((_, held)) if held.contains(id) => {}
            Some((_, held)) => held.push(id.clone()),
            None => split.push((store, vec![id.clone()])),
        };
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
            if rows.is_empty() {
                unheld.push(id.clone());
            }
            for store in rows.iter().map(|r| self.scopes.store_of(r)) {
                add(&mut split, store, id);
            }
        }
        // An id no row holds goes with the others (or where installs go).
        let store = split.first().map_or(self.scopes.adds_to(), |(s, _)| *s);
        for id in &unheld {
            add(&mut split, store, id);
        }
        split.sort_by_key(|(store, _)| *store != Store::Project);
        split
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
