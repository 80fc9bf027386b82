//! Every subcommand the command layer runs (the reports and the lifecycle:
//! HCP.md §10, §11): a [`Request`] parsed from the clap tree, run by the
//! command layer with what only a terminal lends it (an [`Interaction`]),
//! its [`Outcome`] printed as its `--json` document or its words on stdout
//! and its notes on stderr (§10.1), exiting with its code (§10.2).
//!
//! Which store a request runs on is chosen here (HCP.md §15.1, §15.5):
//! the scope's (the project's inside one, unless `-g`), the store that
//! holds the pack for a request on one pack, the user store for catalog
//! changes; inside a project the reports of every pack or target read both
//! stores (`both`).
//! `init` opens no store.

use crate::cli::both;
use crate::cli::context::Ctx;
use crate::cli::output::{ScopeTag, one_line};
use crate::cli::refused::{self, Route};
use crate::command::args::Command;
use crate::command::execute::{Interaction, execute_with, without_store};
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
    let adopted;
    let mut ctx = ctx;
    if let Ok(request) = &parsed {
        match refused::route(request, ctx) {
            Route::Go | Route::UserStore => {}
            Route::Adopted(now) => {
                adopted = now;
                ctx = &adopted;
            }
            Route::Done(code) => return code,
        }
    }
    if let Ok(request) = &parsed
        && both::reads_both(request, ctx)
    {
        return both::run(request, ctx);
    }
    let engine = match &parsed {
        Ok(request) => engine_for(request, ctx),
        Err(_) => ctx.engine(),
    };
    match engine.and_then(|engine| Ok((engine, parsed?))) {
        Ok((engine, request)) => {
            let flags = ctx.flags_for(&engine);
            match execute_with(&engine, &request, &flags, io) {
                Ok(outcome) => {
                    let code = print_with(&outcome, ctx, &flags);
                    say_scope(ctx);
                    code
                }
                Err(err) => {
                    ctx.out.error_with(&err, &flags);
                    err.code.exit_code()
                }
            }
        }
        Err(err) => ctx.fail(&err),
    }
}

/// The engine of the store `request` runs on (see the module doc).
pub fn engine_for(request: &Request, ctx: &Ctx) -> Result<Engine> {
    // A project store that is not ours: a report or exec reads the user
    // store alone (§15.2).
    if ctx.store_refused().is_some() && refused::reads_only(request) {
        ctx.warn_store_refused();
        return match request {
            Request::Doctor { .. } => ctx.user_engine_for_doctor(),
            _ => ctx.user_engine(),
        };
    }
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
        Request::Upgrade { packs, .. } => packs.first().map(PackArg::as_str),
        _ => None,
    };
    match pack {
        Some(pack) => ctx.engine_holding(pack),
        None => ctx.engine(),
    }
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

/// In text mode inside a project, says on stderr which store the command
/// read or acted on: the project's, or the user store's (§15.1). Outside a
/// project there is one store, and nothing is said. (`exec` passes the
/// command's own streams through and adds nothing; its `--json` result
/// carries `scope`.)
fn say_scope(ctx: &Ctx) {
    if ctx.out.json || !matches!(ctx.project(), Ok(Some(_))) {
        return;
    }
    let said = match ctx.out.scope() {
        Some(ScopeTag {
            scope: Scope::Project,
            project: Some(path),
        }) => format!("project: {}", one_line(&path)),
        Some(ScopeTag {
            scope: Scope::User, ..
        }) => match ctx.user_home() {
            Ok(home) => format!("user store: {}", one_line(&home.display().to_string())),
            Err(_) => return,
        },
        _ => return,
    };
    let _ = writeln!(anstream::stderr().lock(), "{said}");
}

/// `outcome` on stdout; its notes, then its error, on stderr.
pub fn print(outcome: &Outcome, ctx: &Ctx) -> i32 {
    print_with(outcome, ctx, &ctx.out.flags)
}

/// [`print`], the error's fix repeating `flags`.
fn print_with(outcome: &Outcome, ctx: &Ctx, flags: &crate::fixline::FixFlags) -> i32 {
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
        crate::cli::output::write_text(&outcome.to_string());
        let notes = outcome.notes();
        if !notes.is_empty() {
            let _ = write!(anstream::stderr().lock(), "{notes}");
        }
        if let Some(err) = outcome.error() {
            ctx.out.error_with(&err, flags);
        }
    }
    if ctx.out.json {
        let notes = outcome.json_notes();
        if !notes.is_empty() {
            let _ = write!(anstream::stderr().lock(), "{notes}");
        }
    }
    outcome.exit_code()
}
