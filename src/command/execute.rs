//! A [`Request`] run by the engine call its subcommand makes (HCP.md §10,
//! §11): the one place the CLI, the TUI's `:` line and its report keys turn
//! a report request into an [`Outcome`].

use crate::command::outcome::Outcome;
use crate::command::request::Request;
use crate::engine::error::{Error, ErrorCode};
use crate::engine::ops::{Engine, doctor, list, show};
use crate::engine::policy::why::{self, WhyReason};
use crate::fixline::{FixFlags, command_line};

/// Runs `request`; `flags` are the `--principal` and `--catalog` a fix's
/// command line repeats (the ones the front-end was given).
pub fn execute(engine: &Engine, request: &Request, flags: &FixFlags) -> Result<Outcome, Error> {
    Ok(match request {
        Request::Doctor { fix } => {
            let (mut report, fixed) = if *fix {
                let done = doctor::fix(engine)?;
                (done.report, Some(done.fixed))
            } else {
                (doctor::run(engine), None)
            };
            report.render(&|fix| command_line(fix, flags));
            Outcome::Doctor { report, fixed }
        }
        Request::Verify { packs } => {
            let report = engine.verify(packs)?;
            let error = report.error().map(|mut err| {
                err.context.hint = err
                    .context
                    .hint
                    .map(|h| h.rendered(&|fix| command_line(fix, flags)));
                err
            });
            Outcome::Verify(report, error)
        }
        Request::Show { pack } => Outcome::Show(Box::new(show::show(engine, pack)?)),
        Request::Availability { pack } => Outcome::Availability {
            principal: engine.principal().to_string(),
            packs: engine.availability(pack.as_deref())?,
        },
        Request::Why { pack, verb } => why_not(engine, pack, verb.as_deref(), flags)?,
        Request::List => Outcome::List(list::list(engine)?),
        Request::CatalogList => Outcome::Catalogs(engine.catalog_list()?),
        Request::CatalogUpdate => Outcome::Catalogs(engine.catalog_update()?),
        Request::HarnessList => Outcome::HarnessList(engine.harness_list()?),
        Request::HarnessStatus { pack } => {
            Outcome::HarnessStatus(engine.harness_status(pack.as_deref())?)
        }
        Request::Outdated { offline: true } => Outcome::Outdated(engine.outdated_offline()?),
        Request::Outdated { offline: false } => Outcome::Outdated(engine.outdated()?),
        Request::Grant {
            principal,
            grant,
            revoke,
        } => {
            let (changed, enforced_now) = if *revoke {
                (engine.revoke(principal, grant)?, false)
            } else {
                let change = engine.grant(principal, grant)?;
                (change.changed, change.enforced_now)
            };
            Outcome::Granted {
                principal: principal.clone(),
                grant: grant.clone(),
                revoke: *revoke,
                changed,
                enforced_now,
            }
        }
    })
}

/// `why`: the pack's (or command's) unmet conditions; a pack or verb that
/// is not there is `not_found`.
fn why_not(
    engine: &Engine,
    pack: &str,
    verb: Option<&str>,
    flags: &FixFlags,
) -> Result<Outcome, Error> {
    let view = engine.pack_view(pack)?;
    let state = engine.store().read_state()?;
    let avail = engine.pack_availability(&view, &state);
    let dir = view.dir().map(|d| d.display().to_string());
    let answer = why::explain(
        &avail,
        view.manifest(),
        verb,
        engine.principal(),
        dir.as_deref(),
    );
    if answer.reason() == Some(&WhyReason::NotFound) {
        let mut err = Error::new(ErrorCode::NotFound, answer.explanation.clone()).pack(pack);
        if let Some(verb) = verb {
            err = err.verb(verb);
        }
        return Err(err);
    }
    let fixes = answer
        .unmet
        .iter()
        .map(|u| u.fix.as_ref().map(|f| command_line(f, flags)))
        .collect();
    Ok(Outcome::Why { answer, fixes })
}
