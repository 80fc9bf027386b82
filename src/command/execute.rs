//! A [`Request`] run by the engine call its subcommand makes (HCP.md §10,
//! §11): the one place the CLI, the TUI's `:` line and its report keys turn
//! a request into an [`Outcome`].
//!
//! What only a front-end can do reaches a lifecycle request as an
//! [`Interaction`] of the engine's own kinds (a secret source, a
//! `Chooser`, a `FetchObserver`, a sink for `exec`'s output): no terminal
//! code is here. A pack word that is not an id is refused here, in its
//! turn, as the engine has always refused it (`not_found`, naming the
//! closest known id for the commands that did).

use crate::command::docs::UninstallLine;
use crate::command::outcome::Outcome;
use crate::command::request::{PackArg, Request, SourceArg, Targets};
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::exec::OutputMode;
use crate::engine::lint::{LintOptions, lint_pack};
use crate::engine::ops::bootstrap::is_bootstrap_copy;
use crate::engine::ops::sources::{Chooser, PackResult, SourceRun};
use crate::engine::ops::sync::{SyncOptions, SyncResult};
use crate::engine::ops::upgrade::{Expected, UpgradeOptions, UpgradeResult};
use crate::engine::ops::{
    Engine, FetchObserver, InstallOptions, SecretInput, doctor, list, not_found, show,
};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::SecretSpec;
use crate::engine::policy::why::{self, WhyReason};
use crate::engine::project::Scope;
use crate::fixline::{FixFlags, command_line, shell_quote, with_hint};
use std::io::Write;
use std::path::PathBuf;

/// What a front-end lends a lifecycle request; each piece is optional.
#[derive(Default)]
pub struct Interaction<'a> {
    /// Where a `secret` Binding's secret comes from (`connect`); without
    /// it such a connect is refused as `usage`.
    pub secret: Option<SecretInput<'a>>,
    /// Asked which packs of a collection to install when none were named
    /// (`install`); without it such a collection is `usage`.
    pub chooser: Option<Chooser>,
    /// Told when a git fetch starts (`install`, `catalog add`).
    pub on_fetch: Option<FetchObserver>,
    /// Where `exec`'s command writes its output as it runs (§6.7); without
    /// it the output is captured into the outcome.
    pub passthrough: Option<&'a mut dyn Write>,
    /// Asked yes or no (default no) when a `sync` needs consent (§13.8,
    /// §15.6), shown the diffs in words; without it such a sync is refused
    /// (`confirmation_required`) unless `--yes`.
    pub confirm: Option<Confirm<'a>>,
}

/// A yes/no question: shown what it is about (the diffs, in words), it
/// answers whether the user said yes.
pub type Confirm<'a> = Box<dyn Fn(&str) -> bool + 'a>;

/// Runs a report `request`; `flags` are the `--principal` and `--catalog`
/// a fix's command line repeats (the ones the front-end was given).
pub fn execute(engine: &Engine, request: &Request, flags: &FixFlags) -> Result<Outcome> {
    execute_with(engine, request, flags, Interaction::default())
}

/// Runs `request`, report or lifecycle, with what the front-end lends it.
/// An `Err` is the error of a subcommand that did nothing else (one pack,
/// one source); a run that stopped part-way is an outcome with its error.
pub fn execute_with(
    engine: &Engine,
    request: &Request,
    flags: &FixFlags,
    io: Interaction<'_>,
) -> Result<Outcome> {
    if let Some(outcome) = lifecycle(engine, request, flags, io) {
        return outcome;
    }
    report(engine, request, flags)
}

/// A store-free request (`lint`), which needs no engine: `None` for any
/// other.
pub fn without_store(request: &Request) -> Option<Outcome> {
    match request {
        Request::Lint {
            paths,
            deny_warnings,
        } => Some(lint(paths, *deny_warnings)),
        _ => None,
    }
}

fn report(engine: &Engine, request: &Request, flags: &FixFlags) -> Result<Outcome> {
    Ok(match request {
        Request::Doctor { fix, .. } => {
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
            let ids = packs.iter().map(checked).collect::<Result<Vec<_>>>()?;
            let report = engine.verify(&ids)?;
            let error = report.error().map(|mut err| {
                err.context.hint = err
                    .context
                    .hint
                    .map(|h| h.rendered(&|fix| command_line(fix, flags)));
                err
            });
            Outcome::Verify(report, error)
        }
        Request::Show { pack } => Outcome::Show(Box::new(show::show(engine, &checked(pack)?)?)),
        Request::Availability { pack } => Outcome::Availability {
            principal: engine.principal().to_string(),
            packs: engine.availability(checked_some(pack.as_ref())?.as_ref())?,
        },
        Request::Why { pack, verb } => why_not(engine, &checked(pack)?, verb.as_deref(), flags)?,
        Request::List => Outcome::List(list::list(engine)?),
        Request::Search { words } => Outcome::Search {
            words: words.clone(),
            hits: list::search(engine, words)?,
            catalogs: engine.catalogs().len(),
        },
        Request::CatalogList => Outcome::Catalogs(engine.catalog_list()?),
        Request::CatalogUpdate => Outcome::Catalogs(engine.catalog_update()?),
        Request::HarnessList => Outcome::HarnessList(engine.harness_list()?),
        Request::HarnessStatus { pack } => {
            Outcome::HarnessStatus(engine.harness_status(checked_some(pack.as_ref())?.as_ref())?)
        }
        Request::Context(ask) => Outcome::Context(engine.context(&ask.0)?),
        Request::Outdated { offline: true } => Outcome::Outdated(engine.outdated_offline()?),
        Request::Outdated { offline: false } => Outcome::Outdated(engine.outdated()?),
        Request::Grant {
            principal,
            grant,
            revoke,
        } => {
            let who = principal.principal.clone()?;
            let (changed, written_from) = if *revoke {
                (engine.revoke(&who, &grant.text)?, None)
            } else {
                let change = engine.grant(&who, &grant.grant.clone()?)?;
                (change.changed, change.written_from)
            };
            Outcome::Granted {
                principal: principal.text.clone(),
                grant: grant.text.clone(),
                revoke: *revoke,
                changed,
                written_from,
            }
        }
        other => {
            return Err(Error::usage(format!(
                "`{}` is not run by the command layer",
                other.words().join(" ")
            )));
        }
    })
}

/// A lifecycle request's outcome; `None` for a report.
fn lifecycle(
    engine: &Engine,
    request: &Request,
    flags: &FixFlags,
    io: Interaction<'_>,
) -> Option<Result<Outcome>> {
    Some(match request {
        Request::Activate { packs } => Ok(toggle(engine, packs, true, flags)),
        Request::Deactivate { packs } => Ok(toggle(engine, packs, false, flags)),
        Request::Uninstall { packs } => uninstall(engine, packs, flags),
        Request::Connect { pack } => connect(engine, pack, io.secret),
        Request::Exec { pack, verb, words } => {
            let id = checked(pack);
            let (mode, sink) = match io.passthrough {
                Some(sink) => (OutputMode::Inherit, Some(sink)),
                None => (OutputMode::Capture, None),
            };
            id.and_then(|id| engine.exec_to(&id, verb, words, mode, sink))
                .map(|r| Outcome::Executed(Box::new(r)))
        }
        Request::Install { .. } | Request::Add { .. } => {
            install_or_add(engine, request, flags, &io)
        }
        Request::Remove { packs } => Ok(remove(engine, packs, flags)),
        Request::Init { .. } => Err(Error::usage(
            "init makes a folder a project: run it in a shell",
        )),
        Request::Lint {
            paths,
            deny_warnings,
        } => Ok(lint(paths, *deny_warnings)),
        Request::Upgrade { .. } => Ok(upgrade(engine, request, flags)),
        Request::Sync { .. } => sync(engine, request, flags, io.confirm.as_ref()),
        Request::CatalogAdd { source } => {
            if let Some(say) = io.on_fetch.as_ref().filter(|_| is_git(source)) {
                say(source);
            }
            engine
                .catalog_add(source)
                .map(|change| Outcome::CatalogChanged {
                    change,
                    added: true,
                })
        }
        Request::CatalogRemove { source } => {
            engine
                .catalog_remove(source)
                .map(|change| Outcome::CatalogChanged {
                    change,
                    added: false,
                })
        }
        Request::HarnessEnable { targets } => match targets {
            Targets::Named(names) => Ok(names.clone()),
            Targets::Detected => engine.detected_harnesses(),
        }
        .and_then(|names| engine.harness_enable(&names))
        .map(|change| Outcome::HarnessChanged {
            change,
            enabled: true,
        }),
        Request::HarnessDisable { targets } => {
            let change = engine.harness_disable(targets);
            change.map(|change| Outcome::HarnessChanged {
                change,
                enabled: false,
            })
        }
        Request::HarnessSync { force } => engine.harness_sync(*force).map(Outcome::HarnessSynced),
        _ => return None,
    })
}

/// The id of a pack word, or the plain `not_found` of a word that is not
/// one (`connect`, `exec`).
fn checked(pack: &PackArg) -> Result<PackId> {
    match pack {
        PackArg::Id(id) => Ok(id.clone()),
        PackArg::NotAnId(word) => Err(not_found(word)),
    }
}

/// [`checked`] of an optional pack word.
fn checked_some(pack: Option<&PackArg>) -> Result<Option<PackId>> {
    pack.map(checked).transpose()
}

/// `activate`/`deactivate`: the ids before the first word that is not one,
/// then that word's `not_found`, naming the closest known id.
fn toggle(engine: &Engine, packs: &[PackArg], activate: bool, flags: &FixFlags) -> Outcome {
    let end = packs
        .iter()
        .position(|p| matches!(p, PackArg::NotAnId(_)))
        .unwrap_or(packs.len());
    let ids: Vec<PackId> = packs[..end]
        .iter()
        .filter_map(|p| match p {
            PackArg::Id(id) => Some(id.clone()),
            PackArg::NotAnId(_) => None,
        })
        .collect();
    // Even with no id before the bad word, the change runs (on none): it
    // takes the lock and reads the state first, so a store that cannot be
    // read is the error, as it always was.
    let (done, error) = if activate {
        engine.activate(&ids)
    } else {
        engine.deactivate(&ids)
    };
    let error = error.or_else(|| packs.get(end).map(|bad| engine.not_found(bad.as_str())));
    Outcome::Toggled {
        activate,
        done,
        error: error.map(|e| with_hint(&e, flags)),
    }
}

/// `why`: the pack's (or command's) unmet conditions; a pack or verb that
/// is not there is `not_found`.
fn why_not(
    engine: &Engine,
    pack: &PackId,
    verb: Option<&str>,
    flags: &FixFlags,
) -> Result<Outcome> {
    let view = engine.pack_view(pack)?;
    let state = engine.store().read_state()?;
    let in_force = engine.grants_in_force(&state)?;
    let avail = engine.pack_availability(&view, &state, &in_force);
    let dir = view.dir().map(|d| d.display().to_string());
    let answer = why::explain(
        &avail,
        view.manifest(),
        verb,
        engine.principal(),
        dir.as_deref(),
    );
    if answer.reason() == Some(&WhyReason::NotFound) {
        let mut err =
            Error::new(ErrorCode::NotFound, answer.explanation.clone()).pack(pack.as_str());
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

/// `uninstall`: each pack its own change, one failing leaves the others
/// done. One pack's failure is the error; several are each a line, each
/// failure's fix rendered as its hint (the document holds them as they are).
fn uninstall(engine: &Engine, packs: &[PackArg], flags: &FixFlags) -> Result<Outcome> {
    let one = |pack: &PackArg| match pack {
        PackArg::Id(id) => engine.uninstall(id),
        PackArg::NotAnId(word) => Err(engine.uninstall_not_an_id(word)),
    };
    if let [pack] = packs {
        return one(pack).map(Outcome::Uninstalled);
    }
    let lines: Vec<UninstallLine> = packs
        .iter()
        .map(|pack| match one(pack) {
            Ok(outcome) => UninstallLine::Done { ok: true, outcome },
            Err(error) => UninstallLine::Failed {
                ok: false,
                pack_id: pack.as_str().to_string(),
                error: with_hint(&error, flags),
            },
        })
        .collect();
    let error = lines.iter().find_map(|l| match l {
        UninstallLine::Failed { error, .. } => Some(error.clone()),
        UninstallLine::Done { .. } => None,
    });
    Ok(Outcome::UninstalledSeveral { lines, error })
}

/// `connect`, the secret (if the Binding takes one) from `secret`.
fn connect(engine: &Engine, pack: &PackArg, secret: Option<SecretInput<'_>>) -> Result<Outcome> {
    let id = checked(pack)?;
    let mut none = |_: &SecretSpec| -> Result<String> {
        Err(Error::usage(format!(
            "{id} needs a secret, which this front-end cannot ask for"
        ))
        .pack(id.as_str()))
    };
    let input: &mut dyn FnMut(&SecretSpec) -> Result<String> = match secret {
        Some(input) => input,
        None => &mut none,
    };
    engine.connect(&id, input).map(Outcome::Connected)
}

/// `install`: each SOURCE in turn. One source that comes to one pack (or
/// one listing) is that pack's outcome, or its error; anything else is
/// one result per pack.
fn install(
    sources: &[SourceArg],
    options: impl Fn(crate::engine::ops::InstallSource) -> InstallOptions,
    flags: &FixFlags,
    run: impl Fn(&InstallOptions) -> Result<SourceRun>,
) -> Result<Outcome> {
    let mut runs: Vec<SourceRun> = sources
        .iter()
        .map(|arg| {
            let failed = |err: Error| {
                SourceRun::Done(vec![PackResult::failed(arg.shown.clone(), None, None, err)])
            };
            match &arg.source {
                Ok(source) => match run(&options(source.clone())) {
                    Ok(run) => run,
                    Err(err) => failed(err),
                },
                Err(err) => failed(err.clone()),
            }
        })
        .collect();
    if let [run] = runs.as_mut_slice() {
        match run {
            SourceRun::Listed(listing) => return Ok(Outcome::Listed(listing.clone())),
            SourceRun::Done(results) if results.len() == 1 => {
                return match results.remove(0) {
                    PackResult::Installed(done) => Ok(Outcome::Installed(Box::new(done.outcome))),
                    PackResult::Failed(failed) => Err(failed.error),
                };
            }
            SourceRun::Done(_) => {}
        }
    }
    Ok(Outcome::InstalledSeveral {
        runs,
        flags: flags.clone(),
    })
}

/// `sync LOCKFILE` on the user store; `sync` without LOCKFILE is a
/// project's (§15.3), so it needs a project, and `sync LOCKFILE` inside
/// one needs `-g`.
fn sync(
    engine: &Engine,
    request: &Request,
    flags: &FixFlags,
    confirm: Option<&Confirm<'_>>,
) -> Result<Outcome> {
    let (Request::Sync { lockfile, .. }, Some(mut options)) = (request, request.sync_options())
    else {
        return Err(Error::usage("not a sync"));
    };
    let in_project = engine.scope() == Scope::Project;
    let run = |options: &SyncOptions| match lockfile {
        None => engine.sync_project(options),
        Some(_) => engine.sync(options),
    };
    let (mut results, mut error) = match (lockfile, in_project) {
        (None, true) => run(&options),
        (None, false) => {
            return Err(Error::usage(
                "sync needs a LOCKFILE outside a project (no hcp.yaml here or above)",
            )
            .hint(
                Hint::from("pass another machine's hcp.lock, or run ")
                    .cmd(Fix::Init)
                    .say(" to make this folder a project"),
            ));
        }
        (Some(_), true) => {
            return Err(Error::usage(
                "sync LOCKFILE inside a project needs -g (it acts on the user store)",
            )
            .hint(
                Hint::from("run ")
                    .cmd(Fix::Sync)
                    .say(" to sync the project to its hcp.yaml and hcp.lock, or add -g"),
            ));
        }
        (Some(_), false) => run(&options),
    };
    // Asked, the user consents to exactly the diffs shown.
    if let Some(confirm) = confirm
        && let Some(expect) = asks_consent(&results, error.as_ref())
    {
        let mut words = String::new();
        let _ = crate::command::text::sync::write(&mut words, &results);
        if confirm(&words) {
            options.yes = true;
            options.expect = expect;
            (results, error) = run(&options);
        }
    }
    // A project target reached through a link got nothing: said after the
    // rest was done, exit 1 (§15.4).
    let error = error
        .or_else(|| in_project.then(|| engine.harness_link_error()).flatten())
        .map(|e| with_hint(&e, flags));
    Ok(Outcome::Synced { results, error })
}

/// The digests a sync refused for want of consent shows (each pack's new
/// one), when that is why it stopped.
fn asks_consent(results: &[SyncResult], error: Option<&Error>) -> Option<Vec<Expected>> {
    let refused = error.is_some_and(|e| e.code == ErrorCode::ConfirmationRequired);
    let shown: Vec<Expected> = results
        .iter()
        .filter(|r| r.action.is_none())
        .filter_map(|r| {
            Some(Expected {
                pack_id: r.pack_id.clone(),
                digest: r.diff.as_ref()?.to_digest.clone(),
            })
        })
        .collect();
    (refused && !shown.is_empty()).then_some(shown)
}

/// `remove`: each pack in turn, stopping at the first failure (its fix
/// rendered as its hint).
fn remove(engine: &Engine, packs: &[PackArg], flags: &FixFlags) -> Outcome {
    let mut results = Vec::new();
    let mut error = None;
    for pack in packs {
        match engine.remove(pack.as_str()) {
            Ok(done) => results.push(done),
            Err(err) => {
                error = Some(with_hint(&err, flags));
                break;
            }
        }
    }
    Outcome::Removed { results, error }
}

/// `init DIR` (§15.3): writes the project's files; `user_home` is the user
/// store, which a project may not be inside.
pub fn init(dir: &std::path::Path, user_home: &std::path::Path) -> Result<Outcome> {
    let Some(env) = crate::engine::harness::HarnessEnv::from_process() else {
        return Err(Error::usage(
            "no home folder is known: set HOME so hcpx can find the harnesses' folders",
        ));
    };
    crate::engine::ops::project::init(dir, user_home, &env).map(Outcome::Initialized)
}

/// `install` (with `force`) or `add` (which also activates, §15.3) of
/// each SOURCE, with the front-end's picker and fetch lines.
fn install_or_add(
    engine: &Engine,
    request: &Request,
    flags: &FixFlags,
    io: &Interaction<'_>,
) -> Result<Outcome> {
    let (sources, selection, (force, yes), add) = match request {
        Request::Install {
            sources,
            selection,
            force,
            yes,
        } => (sources, selection, (*force, *yes), false),
        Request::Add {
            sources,
            selection,
            yes,
        } => (sources, selection, (false, *yes), true),
        _ => return Err(Error::usage("not an install")),
    };
    let options = |source| InstallOptions {
        force,
        yes,
        selection: selection.clone(),
        on_fetch: io.on_fetch.clone(),
        chooser: io.chooser.clone(),
        ..InstallOptions::new(source)
    };
    install(sources, options, flags, |o| {
        if add {
            engine.add(o).map(SourceRun::Done)
        } else {
            engine.install_source(o)
        }
    })
}

/// `lint`: each path, `ok` under `--deny-warnings` when given.
fn lint(paths: &[PathBuf], deny_warnings: bool) -> Outcome {
    let reports = paths
        .iter()
        .map(|p| {
            let bootstrap = is_bootstrap_copy(p);
            // The root of a git repository is named by whoever cloned it,
            // not by the Skill's author (§2.6: no `skill.name-folder`).
            let folder_name_free = p.join(".git").symlink_metadata().is_ok();
            let mut report = lint_pack(
                p,
                LintOptions {
                    bootstrap,
                    folder_name_free,
                },
            );
            report.ok = report.passes(deny_warnings);
            report
        })
        .collect();
    Outcome::Linted(reports)
}

/// `upgrade`; a refusal that shows a diff gets the command line that
/// confirms exactly that diff as its hint.
fn upgrade(engine: &Engine, request: &Request, flags: &FixFlags) -> Outcome {
    let Request::Upgrade {
        packs,
        dry_run,
        yes,
        expect,
        offline,
    } = request
    else {
        return Outcome::Upgraded {
            results: Vec::new(),
            problems: Vec::new(),
            error: None,
            dry_run: false,
        };
    };
    let pack_ids = match packs.iter().map(checked).collect::<Result<Vec<_>>>() {
        Ok(ids) => ids,
        Err(err) => {
            return Outcome::Upgraded {
                results: Vec::new(),
                problems: Vec::new(),
                error: Some(with_hint(&err, flags)),
                dry_run: *dry_run,
            };
        }
    };
    let options = UpgradeOptions {
        pack_ids,
        dry_run: *dry_run,
        yes: *yes,
        expect: expect.clone(),
        offline: *offline,
    };
    let run = engine.upgrade(&options);
    let results = run.results;
    let error = run
        .error
        .map(|err| confirm_hint(flags, &results, with_hint(&err, flags)));
    Outcome::Upgraded {
        results,
        problems: run.problems,
        error,
        dry_run: *dry_run,
    }
}

/// A refusal that shows a diff (an escalating upgrade, or a new version
/// that is not the one expected), with the command line that confirms
/// exactly that diff as its hint.
fn confirm_hint(flags: &FixFlags, results: &[UpgradeResult], err: Error) -> Error {
    let shown = !results.is_empty() && results.iter().all(|r| !r.applied);
    if err.code != ErrorCode::ConfirmationRequired || !shown {
        return err;
    }
    let mut line = String::from("hcpx upgrade");
    let mut push = |word: &str| {
        line.push(' ');
        line.push_str(&shell_quote(word));
    };
    for r in results {
        push(&r.pack_id);
    }
    push("--yes");
    for r in results {
        push("--expect");
        push(&format!("{}={}", r.pack_id, r.to_digest));
    }
    for catalog in &flags.catalogs {
        push("--catalog");
        push(catalog);
    }
    err.hint(format!(
        "review the changes, then install exactly these versions: {line}"
    ))
}

/// Whether `catalog add SOURCE` fetches.
fn is_git(source: &str) -> bool {
    source.starts_with("git+") || source.starts_with("github:")
}
