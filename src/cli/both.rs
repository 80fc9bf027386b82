//! Reports of both stores inside a project (HCP.md §15.5): `list`,
//! `availability`, `verify`, `doctor` and `harness list|status` read the
//! project's store and the user store. The JSON document is the project's
//! with each list holding the items of both, each with its `"scope"`; in
//! `list`, a user pack that a project pack of the same id shadows has
//! `"shadowed": true`; `ok`, where the document has one, holds for both.
//! The words are each store's report under its name, then the notes and
//! errors of both on stderr; the exit code is the worse of the two.
//!
//! `verify PACK_ID...` checks each pack in the store that holds it (the
//! project's first, §15.1); `doctor` opens both stores as doctor does
//! (a broken `config.yaml` is reported, not fatal), and `--fix` repairs
//! both.
//!
//! A change of several packs (`activate`, `deactivate`, `uninstall`,
//! `remove`) whose packs the two stores hold between them runs on each
//! store for the packs it holds (§15.1: a command on an existing pack acts
//! on the store that holds it), and its `results` are merged the same way.

use crate::cli::context::Ctx;
use crate::cli::output::ScopeTag;
use crate::cli::report::write_text;
use crate::command::execute::execute;
use crate::command::request::PackArg;
use crate::command::{Outcome, Request};
use crate::engine::error::Result;
use crate::engine::ops::Engine;
use crate::engine::project::{Project, Scope};
use std::io::Write;

/// Whether `request` reads both stores: a report of every pack or target
/// inside a project.
pub fn reads_both(request: &Request, ctx: &Ctx) -> bool {
    let both = matches!(
        request,
        Request::List
            | Request::Availability { pack: None }
            | Request::HarnessList
            | Request::HarnessStatus { pack: None }
            | Request::Verify { .. }
            | Request::Doctor { .. }
    );
    match ctx.project() {
        Ok(Some(project)) => {
            let (ours, theirs) = split(request, Some(project));
            both || (is_change_of_packs(request) && ours.is_some() && theirs.is_some())
        }
        _ => false,
    }
}

/// A change of several existing packs, each made in the store holding it.
fn is_change_of_packs(request: &Request) -> bool {
    matches!(
        request,
        Request::Activate { .. }
            | Request::Deactivate { .. }
            | Request::Uninstall { .. }
            | Request::Remove { .. }
    )
}

/// Runs `request` on both stores and prints the merged report.
pub fn run(request: &Request, ctx: &Ctx) -> i32 {
    let outcomes = ctx.project().and_then(|project| {
        let (ours, theirs) = split(request, project);
        let ours = match ours {
            Some(request) => Some(execute(
                &open(&request, ctx, true)?,
                &request,
                &ctx.out.flags,
            )?),
            None => None,
        };
        let theirs = match theirs {
            Some(request) => Some(execute(
                &open(&request, ctx, false)?,
                &request,
                &ctx.out.flags,
            )?),
            None => None,
        };
        Ok((ours, theirs))
    });
    let (ours, theirs) = match outcomes {
        Ok(both) => both,
        Err(err) => return ctx.fail(&err),
    };
    // The result is the project's (§15.1).
    let project = ctx
        .project()
        .ok()
        .flatten()
        .map(|p| p.root().display().to_string());
    ctx.out.set_scope(ScopeTag {
        scope: Scope::Project,
        project: project.clone(),
    });
    let code = [&ours, &theirs]
        .into_iter()
        .flatten()
        .map(Outcome::exit_code)
        .max()
        .unwrap_or(0);
    if ctx.out.json {
        ctx.out
            .json(&merged(request, ours.as_ref(), theirs.as_ref()));
    } else {
        words(
            project.unwrap_or_default(),
            ours.as_ref(),
            theirs.as_ref(),
            ctx,
        );
    }
    code
}

/// The request each store runs: `verify PACK_ID...` and a change of
/// several packs split their packs by the store that holds them (a store
/// holding none of them runs nothing, since `verify` of no pack is every
/// pack); every other request runs on both.
fn split(request: &Request, project: Option<&Project>) -> (Option<Request>, Option<Request>) {
    let Some(project) = project else {
        return (Some(request.clone()), Some(request.clone()));
    };
    let held = |id: &str| {
        crate::engine::pack::id::PackId::parse(id)
            .is_some_and(|id| project.store_dir().join("packs").join(id.as_str()).is_dir())
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

/// The engine of the project's store (`project`) or of the user store.
fn open(request: &Request, ctx: &Ctx, project: bool) -> Result<Engine> {
    let doctor = matches!(request, Request::Doctor { .. });
    match (project, doctor) {
        (true, true) => ctx.engine_for_doctor(),
        (true, false) => ctx.engine(),
        (false, true) => ctx.user_engine_for_doctor(),
        (false, false) => ctx.user_engine(),
    }
}

/// Each store's report under its name, then their notes and errors.
fn words(project: String, ours: Option<&Outcome>, theirs: Option<&Outcome>, ctx: &Ctx) {
    let mut text = String::new();
    if let Some(ours) = ours {
        text.push_str(&format!("project {project}:\n{ours}"));
    }
    if let Some(theirs) = theirs {
        if ours.is_some() {
            text.push('\n');
        }
        text.push_str(&format!("user store:\n{theirs}"));
    }
    write_text(&text);
    for outcome in [ours, theirs].into_iter().flatten() {
        let notes = outcome.notes();
        if !notes.is_empty() {
            let _ = write!(anstream::stderr().lock(), "{notes}");
        }
        if let Some(err) = outcome.error() {
            ctx.out.error(&err);
        }
    }
}

/// The project's document with the user store's items added to its list
/// (see the module doc).
fn merged(
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
