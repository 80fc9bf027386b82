//! Every subcommand the command layer runs (the reports and the lifecycle:
//! HCP.md §10, §11): a [`Request`] parsed from the clap tree, run by the
//! command layer with what only a terminal lends it (an [`Interaction`]),
//! its [`Outcome`] printed as its `--json` document or its words on stdout
//! and its notes on stderr (§10.1), exiting with its code (§10.2).
//!
//! Which store a request runs on is chosen here (HCP.md §15.1, §15.5):
//! the scope's (the project's inside one, unless `-g`), the store that
//! holds the pack for a request on one pack, the user store for catalog
//! changes; inside a project `list`, `availability` of every pack and
//! `harness list|status` read both stores, each item with its `"scope"`.
//! `init` opens no store.

use crate::cli::context::Ctx;
use crate::cli::output::{ScopeTag, terminal_safe};
use crate::command::args::Command;
use crate::command::execute::{Interaction, execute, execute_with, without_store};
use crate::command::request::PackArg;
use crate::command::{Outcome, Request};
use crate::engine::error::{Error, Result};
use crate::engine::ops::Engine;
use crate::engine::project::Scope;
use std::io::Write;

/// Runs the subcommand `command` asks for.
pub fn command(command: &Command, ctx: &Ctx) -> i32 {
    command_with(command, ctx, Interaction::default())
}

/// [`command`] with what the front-end lends it. The store is opened
/// before the words are checked, so a store that cannot be opened is the
/// error, as it has always been.
pub fn command_with(command: &Command, ctx: &Ctx, io: Interaction<'_>) -> i32 {
    let Some(parsed) = Request::parse(command) else {
        return ctx.fail(&Error::usage(
            "this subcommand is not run by the command layer",
        ));
    };
    if let Ok(request) = &parsed
        && let Some(outcome) = without_store(request)
    {
        return print(&outcome, ctx);
    }
    if let Ok(Request::Init { dir }) = &parsed {
        return init(dir, ctx);
    }
    if let Ok(request) = &parsed
        && reads_both(request, ctx)
    {
        return run_both(request, ctx);
    }
    let engine = match &parsed {
        Ok(request) => engine_for(request, ctx),
        Err(_) => ctx.engine(),
    };
    match engine.and_then(|engine| Ok((engine, parsed?))) {
        Ok((engine, request)) => match execute_with(&engine, &request, &ctx.out.flags, io) {
            Ok(outcome) => {
                let code = print(&outcome, ctx);
                if matches!(request, Request::Add { .. } | Request::Remove { .. }) {
                    say_scope(ctx);
                }
                code
            }
            Err(err) => ctx.fail(&err),
        },
        Err(err) => ctx.fail(&err),
    }
}

/// Runs a report `request` and prints its outcome.
pub fn run(request: &Request, ctx: &Ctx) -> i32 {
    if reads_both(request, ctx) {
        return run_both(request, ctx);
    }
    let io = Interaction::default();
    match engine_for(request, ctx)
        .and_then(|engine| execute_with(&engine, request, &ctx.out.flags, io))
    {
        Ok(outcome) => print(&outcome, ctx),
        Err(err) => ctx.fail(&err),
    }
}

/// The engine of the store `request` runs on (see the module doc).
pub fn engine_for(request: &Request, ctx: &Ctx) -> Result<Engine> {
    let pack = match request {
        // A broken config.yaml or bootstrap pack does not stop doctor: it
        // is what doctor reports.
        Request::Doctor { .. } => return ctx.engine_for_doctor(),
        // The catalogs are the user's (§15.1).
        Request::CatalogAdd { .. } | Request::CatalogRemove { .. } => return ctx.user_engine(),
        Request::Show { pack }
        | Request::Why { pack, .. }
        | Request::Connect { pack }
        | Request::Exec { pack, .. }
        | Request::Availability { pack: Some(pack) }
        | Request::HarnessStatus { pack: Some(pack) } => Some(pack.as_str()),
        Request::Activate { packs }
        | Request::Deactivate { packs }
        | Request::Uninstall { packs }
        | Request::Remove { packs } => packs.first().map(PackArg::as_str),
        Request::Upgrade { packs, .. } => packs.first().map(String::as_str),
        _ => None,
    };
    match pack {
        Some(pack) => ctx.engine_holding(pack),
        None => ctx.engine(),
    }
}

/// Whether `request` reads both stores: a report of every pack or target
/// inside a project (§15.5).
fn reads_both(request: &Request, ctx: &Ctx) -> bool {
    let both = matches!(
        request,
        Request::List
            | Request::Availability { pack: None }
            | Request::HarnessList
            | Request::HarnessStatus { pack: None }
    );
    both && matches!(ctx.project(), Ok(Some(_)))
}

/// `init [DIR]` (§15.3): no store is opened; the result is the new
/// project's.
fn init(dir: &std::path::Path, ctx: &Ctx) -> i32 {
    let done = ctx
        .user_home()
        .and_then(|home| crate::command::execute::init(dir, &home));
    match done {
        Ok(outcome) => {
            if let Outcome::Initialized(done) = &outcome {
                ctx.out.set_scope(ScopeTag {
                    scope: Scope::Project,
                    project: Some(done.project.clone()),
                });
            }
            print(&outcome, ctx)
        }
        Err(err) => ctx.fail(&err),
    }
}

/// In text mode, says on stderr which store the command acted on when it
/// was a project's (§15.1).
fn say_scope(ctx: &Ctx) {
    if ctx.out.json {
        return;
    }
    if let Some(ScopeTag {
        scope: Scope::Project,
        project: Some(path),
    }) = ctx.out.scope()
    {
        let _ = writeln!(
            anstream::stderr().lock(),
            "project: {}",
            terminal_safe(&path)
        );
    }
}

/// A report of both stores (§15.5): the project's items, then the user
/// store's, each with `"scope"`; in `list`, a user pack a project pack of
/// the same id shadows has `"shadowed": true`. Text: each store's report
/// under its name.
fn run_both(request: &Request, ctx: &Ctx) -> i32 {
    let flags = &ctx.out.flags;
    let outcomes = ctx.engine().and_then(|project| {
        let ours = execute(&project, request, flags)?;
        let user = ctx.user_engine()?;
        let theirs = execute(&user, request, flags)?;
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
    let code = ours.exit_code().max(theirs.exit_code());
    if !ctx.out.json {
        let text = format!(
            "project {}:\n{ours}\nuser store:\n{theirs}",
            project.unwrap_or_default()
        );
        write_text(&text);
        return code;
    }
    let key = match request {
        Request::HarnessList | Request::HarnessStatus { .. } => "targets",
        _ => "packs",
    };
    let mut doc = serde_json::to_value(&ours).unwrap_or_default();
    let other = serde_json::to_value(&theirs).unwrap_or_default();
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
    code
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

/// Writes a report's words to stdout in one write: styled on a terminal,
/// plain elsewhere (a long list is not written line by line).
fn write_text(text: &str) {
    let stdout = anstream::stdout();
    if stdout.current_choice() == anstream::ColorChoice::Never {
        let plain = crate::command::style::plain(text);
        let _ = std::io::stdout().lock().write_all(plain.as_bytes());
    } else {
        let _ = write!(stdout.lock(), "{text}");
    }
}

/// `outcome` on stdout; its notes, then its error, on stderr.
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
        write_text(&outcome.to_string());
        let notes = outcome.notes();
        if !notes.is_empty() {
            let _ = write!(anstream::stderr().lock(), "{notes}");
        }
        if let Some(err) = outcome.error() {
            ctx.out.error(&err);
        }
    }
    outcome.exit_code()
}
