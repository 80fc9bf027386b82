//! The report subcommands (`doctor`, `verify`, `show`, `availability`,
//! `why`, `list`, `catalog list|update`, `harness list|status`,
//! `outdated`): a [`Request`] run by the command layer, its [`Outcome`]
//! printed as its `--json` document or its words (HCP.md §10.1), exiting
//! with its code (§10.2).

use crate::cli::context::Ctx;
use crate::command::args::Command;
use crate::command::{Outcome, Request, execute};
use crate::engine::error::Error;
use std::io::Write;

/// Runs the report `command` asks for.
pub fn command(command: &Command, ctx: &Ctx) -> i32 {
    match Request::from_command(command) {
        Some(request) => run(&request, ctx),
        None => ctx.fail(&Error::usage("this subcommand is not a report")),
    }
}

/// Runs `request` and prints its outcome. Inside a project (HCP.md
/// §15.5), `list`, `availability` of every pack and `harness list|status`
/// read both stores; a report on one pack reads the store that holds it.
pub fn run(request: &Request, ctx: &Ctx) -> i32 {
    let in_project = matches!(ctx.project(), Ok(Some(_)));
    let both = matches!(
        request,
        Request::List
            | Request::Availability { pack: None }
            | Request::HarnessList
            | Request::HarnessStatus { pack: None }
    );
    if in_project && both {
        return run_both(request, ctx);
    }
    // A broken config.yaml or bootstrap pack does not stop doctor: it is
    // what doctor reports.
    let engine = match request {
        Request::Doctor { .. } => ctx.engine_for_doctor(),
        Request::Show { pack }
        | Request::Why { pack, .. }
        | Request::Availability { pack: Some(pack) }
        | Request::HarnessStatus { pack: Some(pack) } => ctx.engine_holding(pack),
        _ => ctx.engine(),
    };
    match engine.and_then(|engine| execute(&engine, request, &ctx.out.flags)) {
        Ok(outcome) => print(&outcome, ctx),
        Err(err) => ctx.fail(&err),
    }
}

/// A report of both stores (§15.5): the project's items, then the user
/// store's, each with `"scope"`; in `list`, a user pack a project pack of
/// the same id shadows has `"shadowed": true`. Text: each store's report
/// under its name.
fn run_both(request: &Request, ctx: &Ctx) -> i32 {
    let outcomes = ctx.engine().and_then(|project| {
        let ours = execute(&project, request, &ctx.out.flags)?;
        let user = ctx.user_engine()?;
        let theirs = execute(&user, request, &ctx.out.flags)?;
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
    ctx.out.set_scope(crate::cli::output::ScopeTag {
        scope: crate::engine::project::Scope::Project,
        project: project.clone(),
    });
    if !ctx.out.json {
        let mut stdout = anstream::stdout().lock();
        let _ = writeln!(stdout, "project {}:", project.unwrap_or_default());
        let _ = write!(stdout, "{ours}");
        let _ = writeln!(stdout, "\nuser store:");
        let _ = write!(stdout, "{theirs}");
        return ours.exit_code().max(theirs.exit_code());
    }
    let key = match request {
        Request::HarnessList | Request::HarnessStatus { .. } => "targets",
        _ => "packs",
    };
    let mut doc = serde_json::to_value(&ours).unwrap_or_default();
    let other = serde_json::to_value(&theirs).unwrap_or_default();
    let tagged = |items: Option<&serde_json::Value>, scope: &str| -> Vec<serde_json::Value> {
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
    };
    let mut merged = tagged(doc.get(key), "project");
    let ids: std::collections::BTreeSet<String> = merged
        .iter()
        .filter_map(|p| {
            p.get("pack_id")
                .and_then(|v| v.as_str())
                .map(str::to_string)
        })
        .collect();
    for mut item in tagged(other.get(key), "user") {
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
    if let Some(map) = doc.as_object_mut() {
        map.insert(key.into(), merged.into());
    }
    ctx.out.json(&doc);
    ours.exit_code().max(theirs.exit_code())
}

/// `outcome` on stdout; its error (verify's) after its words on stderr.
pub fn print(outcome: &Outcome, ctx: &Ctx) -> i32 {
    let tag = ctx.out.scope().filter(|t| t.project.is_some());
    if let (true, Some(tag)) = (ctx.out.json, tag) {
        // Inside a project every pack and target says its store (§15.5).
        let mut doc = serde_json::to_value(outcome).unwrap_or_default();
        for key in ["packs", "targets"] {
            let items = doc.get_mut(key).and_then(|v| v.as_array_mut());
            for item in items.into_iter().flatten() {
                if let Some(map) = item.as_object_mut() {
                    map.insert("scope".into(), tag.scope.as_str().into());
                }
            }
        }
        ctx.out.json(&doc);
    } else if ctx.out.json {
        ctx.out.json(outcome);
    } else {
        let _ = write!(anstream::stdout().lock(), "{outcome}");
        if let Some(err) = outcome.error() {
            ctx.out.error(&err);
        }
    }
    outcome.exit_code()
}
