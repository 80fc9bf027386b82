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
use crate::command::execute::{Interaction, without_store};
use crate::command::workspace::Answer;
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
        && ctx.workspace().runs_on_both(request)
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
            match ctx.workspace().execute_on(&engine, &request, io) {
                Ok(answer) => {
                    let code = print_answer(&answer, ctx, &flags);
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

/// The engine of the store `request` runs on (see the module doc and
/// `Workspace::engine_for`); a report that reads the user store alone
/// because the project's store is not ours says so (§15.2).
pub fn engine_for(request: &Request, ctx: &Ctx) -> Result<Engine> {
    if ctx.store_refused().is_some() && refused::reads_only(request) {
        ctx.warn_store_refused();
    }
    let engine = ctx.workspace().engine_for(request)?;
    Ok(ctx.tagged(engine))
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

/// `answer` on stdout (its document carries its `"scope"`, §15.1); its
/// notes, then its error, on stderr.
fn print_answer(answer: &Answer, ctx: &Ctx, flags: &crate::fixline::FixFlags) -> i32 {
    match answer {
        Answer::One { outcome, .. } if !ctx.out.json => print_with(outcome, ctx, flags),
        _ => {
            ctx.out.json_answer(answer);
            for outcome in answer.outcomes() {
                let notes = outcome.json_notes();
                if !notes.is_empty() {
                    let _ = write!(anstream::stderr().lock(), "{notes}");
                }
            }
            answer.exit_code()
        }
    }
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
