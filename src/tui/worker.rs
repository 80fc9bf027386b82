//! Work that runs off the UI loop, on tokio's blocking pool: loading the
//! snapshot, linting, the lifecycle stages and exec. Each [`Job`] calls the
//! engine function the matching `hcpx` subcommand calls and reports one
//! typed [`JobResult`] back over the action channel; a lifecycle stage (a
//! key, its `:` line, the picker's choice) runs the command layer's
//! requests (`command::execute_with`), as `hcpx` does, and reports their
//! outcomes; so do the Harnesses view's toggle (`hcpx harness
//! enable|disable TARGET`) and `U`'s upgrade (`hcpx upgrade IDS --dry-run`,
//! then `--yes` expecting the digests of the diff shown). No lifecycle
//! decision is made here: preconditions, grants and errors are the
//! engine's.
//!
//! Inside a project a job runs on the engine of the store it is about
//! (`tui::scope`, HCP.md §15.1): `Job::In` names it (`Job::PerStore`
//! runs one per store in turn, for marked packs of both); a pack read
//! again goes to the store that holds it; the snapshot, the stamp, the
//! marks, the updates and the harness targets read both stores.

use crate::command::execute::{Interaction, execute_with};
use crate::command::request::SourceArg;
use crate::command::{Outcome, Request};
use crate::engine::error::{Error, ErrorCode};
use crate::engine::exec::live::Tap;
use crate::engine::ops::sources::{ListedKind, Selection};
use crate::engine::ops::{Engine, checked_id};
use crate::engine::pack::manifest::SecretSpec;
use crate::engine::pack::skill::{self};
use crate::engine::policy::grants::InForce;
use crate::engine::store::catalog;
use crate::engine::store::snapshot::{self};
use crate::engine::store::source::InstallSource;
use crate::fixline::FixFlags;
use crate::tui::action::{Action, SecretRequest};
use crate::tui::files::{self, Bundled};
use crate::tui::job::*;
use crate::tui::marks::{self};
use crate::tui::scope::Stores;
use crate::tui::targets;
use std::io::Read;
use std::path::Path;
use tokio::sync::{mpsc::UnboundedSender, oneshot};

/// Most bytes of a `SKILL.md` shown (the §2.3 limit).
const MAX_SKILL_BYTES: u64 = 256 * 1024;

/// Runs a job on `stores`; `actions` carries secret requests to the UI.
pub fn run(stores: &Stores, job: Job, actions: &UnboundedSender<Action>) -> JobResult {
    let engine = &stores.main;
    match job {
        Job::In { store, job } => run_in(stores, store, *job, actions),
        Job::PerStore(jobs) => per_store(stores, jobs, actions),
        Job::Load => {
            let (stamp, result) = match &stores.user {
                Some(user) => load_both(engine, user),
                None => load_fresh(engine),
            };
            JobResult::Loaded { stamp, result }
        }
        Job::Stamp => JobResult::Stamp(Stamp::read_all(&stores.all())),
        Job::Inspect { rows, lint } => JobResult::Inspected {
            lint,
            result: inspect(stores, &rows),
        },
        Job::Stage {
            stage,
            ids,
            requests,
            flags,
        } => JobResult::Stage(run_stage(engine, (stage, ids), &requests, &flags, actions)),
        Job::InstallChosen {
            ids,
            request,
            flags,
            ..
        } => JobResult::InstalledChosen(run_stage(
            engine,
            (Stage::Install, ids),
            std::slice::from_ref(&request),
            &flags,
            actions,
        )),
        Job::Harnesses => JobResult::Harnesses(read_targets(stores)),
        Job::Scoped {
            principal,
            catalogs,
            job,
        } => {
            let scoped = |e: &Engine| e.scoped(principal.as_ref(), &catalogs);
            let stores = Stores {
                main: scoped(&stores.main),
                user: stores.user.as_ref().map(scoped),
            };
            run(&stores, *job, actions)
        }
        Job::Query(query) => JobResult::Queried {
            result: run_query(stores, &query),
            query,
        },
        Job::Marks => JobResult::Marks(read_marks(stores)),
        Job::Outdated => JobResult::Outdated(outdated(stores)),
        Job::Upgrade { .. } | Job::HarnessToggle { .. } => run_change(engine, job),
        Job::Exec {
            run,
            scope,
            pack_id,
            verb,
            args,
        } => exec_live(engine, actions, (run, scope), pack_id, verb, args),
    }
}

/// `U`'s upgrade (`Job::Upgrade`) or the Harnesses view's toggle
/// (`Job::HarnessToggle`): its request run by the command layer, as
/// `hcpx` runs it; after a toggle, every target read again.
fn run_change(engine: &Engine, job: Job) -> JobResult {
    let run = |request: &Request, flags: &FixFlags| {
        execute_with(engine, request, flags, Interaction::default()).map(Box::new)
    };
    match job {
        Job::Upgrade {
            ids,
            yes,
            confirmed,
            flags,
        } => JobResult::Upgraded {
            answer: run(&upgrade_request(&ids, yes, &confirmed), &flags),
            ids,
            yes,
            flags,
        },
        Job::HarnessToggle { request, flags } => JobResult::HarnessToggled {
            answer: run(&request, &flags),
            request,
            flags,
            rows: targets::read(engine),
            store: engine.scope(),
        },
        other => JobResult::Panicked(format!("not a change: {}", other.label())),
    }
}

/// `hcpx exec PACK VERB` of run `run` in `scope`, its output sent to the
/// UI as it comes (`Action::ExecOutput`).
fn exec_live(
    engine: &Engine,
    actions: &UnboundedSender<Action>,
    (run, scope): (u64, crate::engine::exec::process::Scope),
    pack_id: String,
    verb: String,
    args: Vec<(String, String)>,
) -> JobResult {
    let tx = actions.clone();
    let tap = Tap::new(move |chunk| {
        let _ = tx.send(Action::ExecOutput { run, chunk });
    });
    let result = scope.run(|| {
        checked_id(&pack_id).and_then(|id| engine.exec_named_live(&id, &verb, &args, &tap))
    });
    JobResult::Executed {
        run,
        pack_id,
        verb,
        args,
        result,
    }
}

/// A `:` line's request: inside a project with no store named, on both
/// stores when the CLI runs it on both; else on the main store.
fn run_query(
    stores: &Stores,
    query: &crate::tui::query::Query,
) -> Result<crate::tui::query::Answer, Error> {
    let engine = &stores.main;
    let both = stores
        .user
        .as_ref()
        .and_then(|user| crate::tui::query::run_both(engine, user, query));
    // The user store's folder (`init` keeps a project out of it).
    let user = stores.user.as_ref().unwrap_or(engine);
    both.unwrap_or_else(|| crate::tui::query::run(engine, user.store().root(), query))
}

/// `job` on the engine of `store` alone (HCP.md §15.1); a change it makes
/// is stamped over every store, as this process's own.
fn run_in(
    stores: &Stores,
    store: crate::tui::scope::Store,
    job: Job,
    actions: &UnboundedSender<Action>,
) -> JobResult {
    let mut result = run(&Stores::one(stores.of(store).clone()), job, actions);
    match &mut result {
        JobResult::Stage(report) | JobResult::InstalledChosen(report) => {
            report.stamp = Stamp::read_all(&stores.all());
        }
        // The view shows every store's targets.
        JobResult::HarnessToggled { rows, .. } => *rows = read_targets(stores),
        _ => {}
    }
    result
}

/// The harness targets of every store: the project's, then the user
/// store's, as `hcpx harness status` reads both in a project (HCP.md
/// §15.5, `command::both::reads_both`).
fn read_targets(stores: &Stores) -> Result<Vec<targets::HarnessRow>, Error> {
    let mut rows = Vec::new();
    for engine in stores.all() {
        rows.extend(targets::read(engine)?);
    }
    Ok(rows)
}

/// `Job::PerStore`: each store's stage in turn, on its engine; the
/// reports together (a job that is no stage answers as it is).
fn per_store(stores: &Stores, jobs: Vec<Job>, actions: &UnboundedSender<Action>) -> JobResult {
    let mut reports = Vec::with_capacity(jobs.len());
    for job in jobs {
        match run(stores, job, actions) {
            JobResult::Stage(report) => reports.push(report),
            other => return other,
        }
    }
    JobResult::Stages(reports)
}

/// `r` and every reload: the catalogs read again from `config.yaml` (a
/// catalog added or removed, here or by another process, shows), then the
/// snapshot with them, and the principal's powers.
fn load_fresh(engine: &Engine) -> (Stamp, Result<Loaded, Error>) {
    let mut fresh;
    let engine = match engine.read_catalogs() {
        Ok(catalogs) if catalogs != engine.catalogs() => {
            fresh = engine.clone();
            fresh.set_catalogs(catalogs);
            &fresh
        }
        // A config.yaml that does not read: the catalogs known so far.
        _ => engine,
    };
    let stamp = Stamp::read(engine);
    let result = engine.store().read_state().and_then(|state| {
        Ok(Loaded {
            rows: load(engine)?,
            catalogs: engine.catalogs().to_vec(),
            powers: crate::tui::session::Powers::of(
                &engine.grants_in_force(&state)?,
                engine.principal(),
            ),
        })
    });
    (stamp, result)
}

/// Inside a project: both stores read with the catalogs of both
/// `config.yaml`s (the user store's, then the project's own, then the
/// `--catalog` ones), their rows merged (`scope::merge`); the principal's
/// powers are those of the project's store.
fn load_both(project: &Engine, user: &Engine) -> (Stamp, Result<Loaded, Error>) {
    let read = |e: &Engine| e.read_catalogs().unwrap_or_else(|_| e.catalogs().to_vec());
    let mut catalogs = read(user);
    for dir in read(project) {
        if !catalogs.contains(&dir) {
            catalogs.push(dir);
        }
    }
    let (mut project, mut user) = (project.clone(), user.clone());
    project.set_catalogs(catalogs.clone());
    user.set_catalogs(catalogs.clone());
    let stamp = Stamp::read_all(&[&project, &user]);
    let result = project.store().read_state().and_then(|state| {
        let rows = crate::tui::scope::merge(load(&project)?, load(&user)?);
        Ok(Loaded {
            rows,
            catalogs,
            powers: crate::tui::session::Powers::of(
                &project.grants_in_force(&state)?,
                project.principal(),
            ),
        })
    });
    (stamp, result)
}

/// The browser's marks of every store: the user store's apart for the
/// packs the project holds too.
fn read_marks(stores: &Stores) -> marks::Marks {
    let mut all = marks::read(&stores.main);
    if let Some(user) = &stores.user {
        let held = std::fs::read_dir(stores.main.store().packs_dir())
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect();
        all.add(marks::read(user), &held);
    }
    all
}

/// `hcpx outdated` of every store: a user pack the project shadows is
/// left out.
fn outdated(stores: &Stores) -> Result<Vec<crate::engine::ops::upgrade::OutdatedPack>, Error> {
    let mut packs = stores.main.outdated()?;
    if let Some(user) = &stores.user {
        for pack in user.outdated()? {
            if !packs.iter().any(|p| p.pack_id == pack.pack_id) {
                packs.push(pack);
            }
        }
    }
    Ok(packs)
}

/// The snapshot, and each pack's availability (the same calls as
/// `hcpx list` and `hcpx availability`), as browser rows.
pub fn load(engine: &Engine) -> Result<Vec<Row>, Error> {
    let check = crate::engine::ops::runnable_memo();
    let inherited = engine.inherited_grants()?;
    engine.map_packs(|view, state| {
        let skill = view.dir().map(|d| skill_start(&d)).unwrap_or_default();
        let in_force = InForce::resolve(state.grants.as_ref(), inherited.as_ref());
        Row::new(
            view,
            &engine.pack_availability_with(view, state, &in_force, &check),
            &skill,
        )
        .in_store(engine.scope(), false)
    })
}

/// Reads packs again: the installed copy and the catalog copy (each linted
/// as the snapshot lints them), the availability, the Skill.
pub fn inspect(stores: &Stores, rows: &[Row]) -> Result<Inspected, Error> {
    let mut out = Inspected::default();
    for row in rows {
        let (engine, store) = stores.holding(row.id(), row.held);
        let state = engine.store().read_state()?;
        let catalogs: Vec<_> = row
            .catalog_dir
            .iter()
            .map(|dir| catalog::load(dir.parent().unwrap_or(dir), dir.to_path_buf()))
            .collect();
        let Some(view) = snapshot::load_pack(engine.store(), &catalogs, row.id()) else {
            out.gone.push(row.key());
            continue;
        };
        let in_force = engine.grants_in_force(&state)?;
        let avail = engine.pack_availability(&view, &state, &in_force);
        let skill = view
            .dir()
            .map_or_else(|| SkillText::Missing("no files".into()), |d| read_skill(&d));
        let files = view
            .dir()
            .map_or_else(Bundled::default, |d| files::read(&d));
        let harnesses = avail.installed.then(|| targets::for_pack(engine, row.id()));
        out.found.push(Inspection {
            entry: Entry { view, avail },
            skill,
            harnesses,
            files,
            store,
            shadowed: row.shadowed,
        });
    }
    Ok(out)
}

/// The start of `dir/SKILL.md` for `/` ([`SEARCH_SKILL_BYTES`]); empty
/// when it does not read. Never a link's target nor a FIFO (§2.3).
fn skill_start(dir: &Path) -> String {
    let mut bytes = Vec::new();
    let read = crate::engine::lint::files::open_regular(&dir.join("SKILL.md"))
        .and_then(|f| f.take(SEARCH_SKILL_BYTES).read_to_end(&mut bytes));
    match read {
        Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    }
}

fn read_skill(dir: &Path) -> SkillText {
    let path = dir.join("SKILL.md");
    let mut bytes = Vec::new();
    // Never a link's target nor a FIFO that would block the worker (§2.3).
    let read = crate::engine::lint::files::open_regular(&path)
        .and_then(|f| f.take(MAX_SKILL_BYTES).read_to_end(&mut bytes));
    if let Err(err) = read {
        return SkillText::Missing(format!("cannot read SKILL.md: {}", err.kind()));
    }
    let text = String::from_utf8_lossy(&bytes);
    match skill::parse(&text) {
        Some(doc) => SkillText::Parsed(doc),
        None => SkillText::Raw(text.into_owned()),
    }
}

/// A stage's requests (`Job::Stage`, `Job::InstallChosen`), each run in
/// turn by the command layer as `hcpx` runs it, stopping at the first
/// error: a `connect` takes its secret from the masked input, an
/// `install` of a collection lists it for the picker first. `ids` are the
/// words the stage was asked for (an install's: its sources as typed).
fn run_stage(
    engine: &Engine,
    (stage, ids): (Stage, Vec<String>),
    requests: &[Request],
    flags: &FixFlags,
    actions: &UnboundedSender<Action>,
) -> StageReport {
    let mut report = StageReport {
        stage,
        ids,
        ran: Vec::new(),
        outcomes: Vec::new(),
        error: None,
        cancelled: false,
        stamp: Stamp(Vec::new()),
        store: engine.scope(),
        flags: flags.clone(),
    };
    // `install SOURCE`'s source as typed (a password and all), for the
    // picker's choice.
    let typed = match (report.ids.as_slice(), requests) {
        (
            [one],
            [
                Request::Install {
                    selection: Selection::Default,
                    ..
                },
            ],
        ) => Some(one.clone()),
        _ => None,
    };
    for request in requests {
        let mut cancelled = false;
        let (ran, answer) = match request {
            Request::Connect { pack } => {
                let id = pack.as_str().to_string();
                let mut input = |spec: &SecretSpec| ask_secret(actions, &id, spec, &mut cancelled);
                let io = Interaction {
                    secret: Some(&mut input),
                    ..Interaction::default()
                };
                (request.clone(), execute_with(engine, request, flags, io))
            }
            _ => install_or_pick(engine, request, typed.as_deref(), flags, actions),
        };
        report.ran.push(ran);
        match answer {
            Ok(outcome) => {
                report.error = outcome.failure();
                report.outcomes.push(outcome);
            }
            Err(err) => {
                report.error = Some(err);
                report.cancelled = cancelled;
            }
        }
        if report.error.is_some() {
            break;
        }
    }
    report.stamp = Stamp::read(engine);
    tracing::info!(
        stage = stage.subcommand(),
        packs = report.ids.len(),
        answered = report.outcomes.len(),
        error = report.error.as_ref().map(|e| e.code.as_str()),
        "stage finished"
    );
    report
}

/// Runs `request`; `install SOURCE` of one source that is no catalog pack
/// (`typed`: a folder, a git URL) is first `install SOURCE --list`: a
/// collection of several packs (§13.1) is then not installed, its listing
/// goes to the picker, whose choice comes back as `Job::InstallChosen`
/// (`install SOURCE --skill ID...`). The engine's chooser is never lent:
/// it would wait on the UI from this worker. Returns the request that
/// answered, and its answer.
fn install_or_pick(
    engine: &Engine,
    request: &Request,
    typed: Option<&str>,
    flags: &FixFlags,
    actions: &UnboundedSender<Action>,
) -> (Request, Result<Outcome, Error>) {
    let run = |r: &Request| execute_with(engine, r, flags, Interaction::default());
    let (Some(typed), Some(list)) = (typed, listing_of(request)) else {
        return (request.clone(), run(request));
    };
    match run(&list) {
        Ok(Outcome::Listed(listing)) if listing.packs.len() > 1 => {
            let items = listing.packs.iter().cloned().map(picker_item).collect();
            let _ = actions.send(Action::PickFrom {
                source: typed.to_string(),
                items,
            });
            (list, Ok(Outcome::Listed(listing)))
        }
        // One pack (or a listing that failed, which the install says
        // again as its own error).
        _ => (request.clone(), run(request)),
    }
}

/// `install SOURCE --list` of `install SOURCE` (one source, no flag) when
/// the source is no catalog pack; `None` else.
fn listing_of(request: &Request) -> Option<Request> {
    let Request::Install {
        sources,
        selection: Selection::Default,
        force: false,
        yes: false,
    } = request
    else {
        return None;
    };
    match sources.as_slice() {
        [
            SourceArg {
                source: Ok(source), ..
            },
        ] if !matches!(source, InstallSource::Catalog(_)) => Some(Request::Install {
            sources: sources.clone(),
            selection: Selection::List,
            force: false,
            yes: false,
        }),
        _ => None,
    }
}

fn picker_item(
    pack: crate::engine::ops::sources::ListedPack,
) -> crate::tui::dialog::picker::PickerItem {
    use crate::tui::dialog::picker::{ItemKind, PickerItem};
    PickerItem {
        id: pack.pack_id,
        kind: match pack.kind {
            ListedKind::Pack => ItemKind::Pack,
            ListedKind::Skill => ItemKind::Skill,
        },
        path: pack.path,
        description: pack.description,
        lint_ok: pack.lint_ok,
    }
}

/// Asks the UI for a secret and waits for the masked input's answer;
/// `cancelled` is set when the user cancelled it (`Esc`, or the prompt
/// closed).
fn ask_secret(
    actions: &UnboundedSender<Action>,
    pack_id: &str,
    spec: &SecretSpec,
    cancelled: &mut bool,
) -> Result<String, Error> {
    let cancelled_error = || {
        Error::new(
            ErrorCode::Usage,
            format!("connecting {pack_id} was cancelled; nothing was recorded"),
        )
        .pack(pack_id)
    };
    let (reply, answer) = oneshot::channel();
    let request = SecretRequest {
        pack_id: pack_id.to_string(),
        prompt: spec
            .prompt
            .clone()
            .unwrap_or_else(|| format!("Secret for {pack_id} ({})", spec.name)),
        name: spec.name.clone(),
        reply,
    };
    actions
        .send(Action::SecretNeeded(request))
        .map_err(|_| cancelled_error())?;
    match answer.blocking_recv() {
        Ok(Some(secret)) => Ok(secret),
        Ok(None) | Err(_) => {
            *cancelled = true;
            Err(cancelled_error())
        }
    }
}
