//! The requests of both stores inside a project, run by the CLI
//! (HCP.md §15.5, §15.1): which ones and how their outcomes merge is
//! `command::both`'s; here each store is opened (`doctor` opens both as
//! doctor does: a broken `config.yaml` is reported, not fatal; `--fix`
//! repairs both), and the merged document, or each store's words under
//! its name, is printed, then the notes and errors of both on stderr. The
//! exit code is the worse of the two.

use crate::cli::context::Ctx;
use crate::cli::output::ScopeTag;
use crate::cli::output::write_text;
use crate::command::both::{self, Both};
use crate::command::execute::execute;
use crate::command::{Outcome, Request};
use crate::engine::error::Result;
use crate::engine::ops::Engine;
use crate::engine::project::{Project, Scope};
use std::io::Write;

/// Whether `request` runs on both stores: inside a project (see
/// [`both::runs_on_both`]).
pub fn reads_both(request: &Request, ctx: &Ctx) -> bool {
    if ctx.store_refused().is_some() {
        return false;
    }
    match ctx.project() {
        Ok(Some(project)) => both::runs_on_both(request, &project.store_dir()),
        _ => false,
    }
}

/// Runs `request` on both stores and prints the merged report.
pub fn run(request: &Request, ctx: &Ctx) -> i32 {
    let outcomes = ctx.project().and_then(|project| {
        let store = project.map(Project::store_dir).unwrap_or_default();
        let (ours, theirs) = both::split(request, &store);
        let side = |request: Option<Request>, project: bool| -> Result<Option<Outcome>> {
            match request {
                Some(request) => {
                    let engine = open(&request, ctx, project)?;
                    execute(&engine, &request, &ctx.flags_for(&engine)).map(Some)
                }
                None => Ok(None),
            }
        };
        Ok(Both {
            ours: side(ours, true)?,
            theirs: side(theirs, false)?,
        })
    });
    match outcomes {
        Ok(both) => print(request, &both, ctx),
        Err(err) => ctx.fail(&err),
    }
}

/// Prints what both stores answered to `request`: the merged document, or
/// each store's words under its name, then the notes and errors of both
/// on stderr; returns the worse exit code.
pub fn print(request: &Request, both: &Both, ctx: &Ctx) -> i32 {
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
    if ctx.out.json {
        ctx.out.json(&both.document(request));
    } else {
        write_text(&both.words(&project.unwrap_or_default()));
        for outcome in both.outcomes() {
            let notes = outcome.notes();
            if !notes.is_empty() {
                let _ = write!(anstream::stderr().lock(), "{notes}");
            }
            if let Some(err) = outcome.error() {
                ctx.out.error(&err);
            }
        }
    }
    both.exit_code()
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
