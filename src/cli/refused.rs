//! Inside a project whose `.hcp/` is not ours (HCP.md §15.2: it came with
//! the repository, or an earlier release made it): which store each
//! request runs on. A report (`list`, `availability`, `show`, `why`,
//! `verify`, `harness list|status`) and `exec` go on with the user store,
//! saying on stderr (and in the document's `warnings`) why the project's
//! packs are not shown; `doctor` names the project's store as a failed
//! check beside the user store's report; `doctor --fix` adopts a `.hcp/`
//! of an earlier release after asking (off a terminal `--yes`); any other
//! command fails with the `store_corrupt` error naming `.hcp/` and the fix
//! (the store is opened by [`Ctx`], which refuses it).

use crate::cli::context::Ctx;
use crate::command::Request;
use crate::command::both::Both;
use crate::command::{Outcome, execute::execute};
use crate::engine::error::{Error, ErrorCode};
use crate::engine::ops::doctor::{Check, DoctorReport};
use crate::engine::project::ours;
use std::io::IsTerminal;

/// What to do with a request in a project whose store is refused.
pub enum Route {
    /// Nothing special: the store is ours, or the request is refused by
    /// the store's opening.
    Go,
    /// The project's store was adopted: go on with this context.
    Adopted(Box<Ctx>),
    /// Run on the user store alone (the warning is said).
    UserStore,
    /// Done, with this exit code.
    Done(i32),
}

/// Whether `request` only reads the store it runs on.
pub fn reads_only(request: &Request) -> bool {
    !request.changes() || matches!(request, Request::Exec { .. })
}

/// How `request` runs in this context (see the module doc).
pub fn route(request: &Request, ctx: &Ctx) -> Route {
    let (Some(refused), Ok(Some(project))) = (ctx.store_refused(), ctx.project()) else {
        return Route::Go;
    };
    match request {
        Request::Doctor { fix: true, yes } if ours::adoptable(project).is_ok() => {
            match adopt(project, *yes, ctx) {
                Ok(()) => Route::Adopted(Box::new(ctx.without_refusal())),
                Err(err) => Route::Done(ctx.fail(&err)),
            }
        }
        Request::Doctor { .. } => Route::Done(doctor(request, refused, ctx)),
        _ if reads_only(request) => {
            ctx.warn_store_refused();
            Route::UserStore
        }
        _ => Route::Go,
    }
}

/// Adopts the project's `.hcp/` of an earlier release once the user
/// agreed: `--yes`, or yes to the question on a terminal.
fn adopt(
    project: &crate::engine::project::Project,
    yes: bool,
    ctx: &Ctx,
) -> crate::engine::error::Result<()> {
    let dir = project.store_dir();
    let question = format!(
        "{}/ has no store id: an earlier hcpx made it, or it came with the repository. Adopt it as this project's store?",
        dir.display()
    );
    let agreed = yes
        || (std::io::stdin().is_terminal()
            && std::io::stderr().is_terminal()
            && !ctx.out.json
            && inquire::Confirm::new(&question)
                .with_default(false)
                .prompt()
                .unwrap_or(false));
    if !agreed {
        return Err(Error::new(
            ErrorCode::ConfirmationRequired,
            format!(
                "{}/ has no store id; adopting it as this project's store needs your consent",
                dir.display()
            ),
        )
        .path(dir.display().to_string())
        .hint("pass --yes if you made it with an earlier hcpx; otherwise remove it, and sync rebuilds it"));
    }
    ours::adopt(project, &ctx.user_home()?)?;
    ctx.out.warn(&format!(
        "adopted {}/ as this project's store",
        dir.display()
    ));
    Ok(())
}

/// `doctor` in a project whose store is refused: the user store's report
/// beside a failed check naming the project's store and the fix.
fn doctor(request: &Request, refused: &Error, ctx: &Ctx) -> i32 {
    let user = ctx
        .user_engine_for_doctor()
        .and_then(|engine| execute(&engine, request, &ctx.flags_for(&engine)));
    let theirs = match user {
        Ok(outcome) => outcome,
        Err(err) => return ctx.fail(&err),
    };
    let dir = ctx
        .project()
        .ok()
        .flatten()
        .map(|p| p.store_dir().display().to_string())
        .unwrap_or_default();
    let mut report = DoctorReport {
        store: dir,
        checks: vec![Check {
            check: "project.store".into(),
            ok: false,
            message: refused.message.clone(),
            fix: refused.context.hint.clone(),
        }],
    };
    report.render(&|fix| crate::cli::fix::command_line(fix, &ctx.out.flags));
    let ours = Outcome::Doctor {
        report,
        fixed: None,
    };
    crate::cli::both::print(
        request,
        &Both {
            ours: Some(ours),
            theirs: Some(theirs),
        },
        ctx,
    )
}
