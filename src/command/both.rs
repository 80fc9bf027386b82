//! Inside a project, the requests that read or change both stores
//! (HCP.md §15.5, §15.1), for every front-end: `list`, `availability`,
//! `verify`, `doctor` and `harness list|status` read the project's store
//! and the user store; a change of several existing packs (`activate`,
//! `deactivate`, `uninstall`, `remove`) whose packs the two stores hold
//! between them runs on each store for the packs it holds, and so does
//! `verify PACK_ID...`. Pure: which request each store runs ([`split`]),
//! and the two outcomes as one — the JSON document is the project's with
//! each list holding the items of both, each with its `"scope"` (in
//! `list`, a user pack that a project pack of the same id shadows has
//! `"shadowed": true`, and a catalog pack — `available`, in neither
//! store — is listed once, on the project's side; `ok` holds for both; the first error is the
//! document's), the words each store's under its name ([`Both::words`]).

use crate::command::request::PackArg;
use crate::command::{Outcome, Request};
use crate::engine::ops::list::ListRow;
use crate::engine::policy::availability::Status;
use std::path::Path;

/// Whether `request` is read from both stores inside a project: a report
/// of every pack or target, or `verify`.
pub fn reads_both(request: &Request) -> bool {
    matches!(
        request,
        Request::List
            | Request::Availability { pack: None }
            | Request::HarnessList
            | Request::HarnessStatus { pack: None }
            | Request::Verify { .. }
            | Request::Doctor { .. }
    )
}

/// Whether `request` runs on both stores inside the project whose store is
/// `project_store`: a report of [`reads_both`], or a change of packs
/// that the two stores hold between them.
pub fn runs_on_both(request: &Request, project_store: &Path) -> bool {
    let (ours, theirs) = split(request, project_store);
    reads_both(request) || (is_change_of_packs(request) && ours.is_some() && theirs.is_some())
}

/// A change of several existing packs, each made in the store holding it.
pub fn is_change_of_packs(request: &Request) -> bool {
    matches!(
        request,
        Request::Activate { .. }
            | Request::Deactivate { .. }
            | Request::Uninstall { .. }
            | Request::Remove { .. }
    )
}

/// What each store answered (`None`: it ran nothing).
#[derive(Debug, Clone)]
pub struct Both {
    pub ours: Option<Outcome>,
    pub theirs: Option<Outcome>,
}

impl Both {
    /// The worse exit code of the two.
    pub fn exit_code(&self) -> i32 {
        self.outcomes().map(Outcome::exit_code).max().unwrap_or(0)
    }

    /// The project's outcome, then the user store's.
    pub fn outcomes(&self) -> impl Iterator<Item = &Outcome> {
        [&self.ours, &self.theirs].into_iter().flatten()
    }

    /// The merged `--json` document of `request` (see the module doc).
    pub fn document(&self, request: &Request) -> serde_json::Value {
        merged(request, self.ours.as_ref(), self.theirs.as_ref())
    }

    /// Each store's words under its name: the project at `project`, then
    /// the user store.
    pub fn words(&self, project: &str) -> String {
        let mut text = String::new();
        if let Some(ours) = &self.ours {
            text.push_str(&format!("project {project}:\n{ours}"));
        }
        if let Some(theirs) = &self.theirs {
            if self.ours.is_some() {
                text.push('\n');
            }
            match (&self.ours, theirs) {
                (Some(Outcome::List(ours)), Outcome::List(rows)) => {
                    let rows = rows
                        .iter()
                        .filter(|r| !catalog_row_listed(r.status.as_str(), &r.pack_id, ours))
                        .cloned()
                        .collect();
                    text.push_str(&format!("user store:\n{}", Outcome::List(rows)));
                }
                _ => text.push_str(&format!("user store:\n{theirs}")),
            }
        }
        text
    }
}

/// Whether a user-store row of `list` is a catalog pack (`available`: in
/// no store) that the project's rows list already: the catalogs are read
/// by both stores, and a catalog pack is listed once, on the project's
/// side (where `install` puts it).
fn catalog_row_listed(status: &str, pack_id: &str, ours: &[ListRow]) -> bool {
    status == Status::Available.as_str() && ours.iter().any(|r| r.pack_id == pack_id)
}

/// The request each store runs: `verify PACK_ID...` and a change of
/// several packs split their packs by the store that holds them (a store
/// holding none of them runs nothing, since `verify` of no pack is every
/// pack); every other request runs on both.
pub fn split(request: &Request, project_store: &Path) -> (Option<Request>, Option<Request>) {
    let held = |id: &str| {
        crate::engine::pack::id::PackId::parse(id)
            .is_some_and(|id| crate::engine::store::Store::holds_at(project_store, &id, false))
    };
    match request {
        Request::Verify { packs } if !packs.is_empty() => {
            let (ours, theirs): (Vec<PackArg>, Vec<PackArg>) =
                packs.iter().cloned().partition(|p| held(p.as_str()));
            let side =
                |packs: Vec<PackArg>| (!packs.is_empty()).then_some(Request::Verify { packs });
            (side(ours), side(theirs))
        }
        Request::Activate { packs }
        | Request::Deactivate { packs }
        | Request::Uninstall { packs }
        | Request::Remove { packs } => {
            let (ours, theirs): (Vec<PackArg>, Vec<PackArg>) =
                packs.iter().cloned().partition(|p| held(p.as_str()));
            let side =
                |packs: Vec<PackArg>| (!packs.is_empty()).then(|| with_packs(request, packs));
            (side(ours), side(theirs))
        }
        _ => (Some(request.clone()), Some(request.clone())),
    }
}

/// `request` (a change of several packs) for `packs` instead.
fn with_packs(request: &Request, packs: Vec<PackArg>) -> Request {
    match request {
        Request::Activate { .. } => Request::Activate { packs },
        Request::Deactivate { .. } => Request::Deactivate { packs },
        Request::Uninstall { .. } => Request::Uninstall { packs },
        _ => Request::Remove { packs },
    }
}

/// The project's document with the user store's items added to its list
/// (see the module doc).
pub fn merged(
    request: &Request,
    ours: Option<&Outcome>,
    theirs: Option<&Outcome>,
) -> serde_json::Value {
    let key = match request {
        Request::HarnessList | Request::HarnessStatus { .. } => "targets",
        Request::Doctor { .. } => "checks",
        request if is_change_of_packs(request) => "results",
        _ => "packs",
    };
    let ours = ours.map(|o| serde_json::to_value(o).unwrap_or_default());
    let theirs = theirs.map(|o| serde_json::to_value(o).unwrap_or_default());
    let mut merged = tagged(ours.as_ref().and_then(|d| d.get(key)), "project");
    let ids: std::collections::BTreeSet<String> = merged
        .iter()
        .filter_map(|p| {
            p.get("pack_id")
                .and_then(|v| v.as_str())
                .map(str::to_string)
        })
        .collect();
    for mut item in tagged(theirs.as_ref().and_then(|d| d.get(key)), "user") {
        let shadowed = item
            .get("pack_id")
            .and_then(|v| v.as_str())
            .is_some_and(|id| ids.contains(id));
        let available =
            item.get("status").and_then(|v| v.as_str()) == Some(Status::Available.as_str());
        if shadowed && available && matches!(request, Request::List) {
            // A catalog pack the project's rows list already.
            continue;
        }
        if shadowed
            && matches!(request, Request::List)
            && let Some(map) = item.as_object_mut()
        {
            map.insert("shadowed".into(), true.into());
        }
        merged.push(item);
    }
    let ok = [&ours, &theirs]
        .into_iter()
        .flatten()
        .filter_map(|d| d.get("ok").and_then(serde_json::Value::as_bool))
        .reduce(|a, b| a && b);
    // The error that stopped either side (the project's first).
    let error = [&ours, &theirs]
        .into_iter()
        .flatten()
        .find_map(|d| d.get("error").cloned());
    let mut doc = ours.or(theirs).unwrap_or_default();
    if let Some(map) = doc.as_object_mut() {
        map.insert(key.into(), merged.into());
        if let Some(error) = error {
            map.insert("error".into(), error);
        }
        if let Some(ok) = ok {
            map.insert("ok".into(), ok.into());
        }
    }
    doc
}

/// The items of a document's list, each with `"scope": scope`.
fn tagged(items: Option<&serde_json::Value>, scope: &str) -> Vec<serde_json::Value> {
    let items = items
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    items
        .into_iter()
        .map(|mut item| {
            if let Some(map) = item.as_object_mut() {
                map.insert("scope".into(), scope.into());
            }
            item
        })
        .collect()
}
