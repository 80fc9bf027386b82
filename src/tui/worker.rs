//! Work that runs off the UI loop, on tokio's blocking pool: loading the
//! snapshot, linting, the lifecycle stages and exec. Each [`Job`] calls the
//! engine function the matching `hcpx` subcommand calls and reports one
//! typed [`JobResult`] back over the action channel. No lifecycle decision
//! is made here: preconditions, grants and errors are the engine's.

use crate::engine::error::{Error, ErrorCode};
use crate::engine::exec::live::Tap;
use crate::engine::harness::TargetName;
use crate::engine::harness::plan::SkillState;
use crate::engine::ops::sources::{ListedKind, PackResult, Selection, SourceRun};
use crate::engine::ops::upgrade::{Expected, OutdatedPack, UpgradeOptions, UpgradeResult};
use crate::engine::ops::{ConnectOutcome, Engine, ExecResult, InstallOptions, checked_id};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::{BindingKind, SecretSpec};
use crate::engine::pack::skill::{self, SkillDoc};
use crate::engine::policy::availability::{PackAvailability, Status};
use crate::engine::store::catalog;
use crate::engine::store::snapshot::{self, PackView};
use crate::engine::store::source::InstallSource;
use crate::tui::action::{Action, SecretRequest};
use crate::tui::files::{self, Bundled};
use crate::tui::harnesses::{self, HarnessRow, PackHarnesses};
use crate::tui::marks::{self, Marks};
use crate::tui::text::first_line;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::SystemTime;
use tokio::sync::{mpsc::UnboundedSender, oneshot};

/// Most bytes of a `SKILL.md` shown (the §2.3 limit).
const MAX_SKILL_BYTES: u64 = 256 * 1024;
/// Most bytes of a `SKILL.md` the browser's `/` searches, per pack: its
/// start, read with the snapshot (10,000 packs stay a few MB).
pub const SEARCH_SKILL_BYTES: u64 = 2 * 1024;

/// One row of the browser: what the list shows and sorts by, taken from
/// the engine's view and availability when the snapshot loads. Rows are
/// small so that 10,000 packs stay cheap; the selected pack's full view is
/// read again on demand ([`Job::Inspect`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub id: Box<str>,
    /// A pack with a manifest, or a Skill pack (§2.6).
    pub kind: crate::engine::pack::manifest::PackKind,
    pub version: Option<Box<str>>,
    /// The first line of the description.
    pub description: Box<str>,
    pub status: Status,
    pub installed: bool,
    pub activated: bool,
    pub connected: bool,
    /// The folder of the catalog copy, if any.
    pub catalog_dir: Option<Box<Path>>,
    /// The commands' verb keys (for the `:` line's completion).
    pub verbs: Box<[Box<str>]>,
    /// What `/` searches besides the id, lowercased (see [`Haystack`]).
    pub haystack: Haystack,
}

/// The text the browser's `/` looks in besides the id, lowercased and
/// in rank order: the name, the description, the commands (keys and
/// summaries), the start of the Skill ([`SEARCH_SKILL_BYTES`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Haystack {
    text: Box<str>,
    /// Where the name, the description and the commands end in `text`.
    ends: [u32; 3],
}

/// A field `/` matched, in rank order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    Id,
    Name,
    Description,
    Command,
    Skill,
}

impl Field {
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Id => "id",
            Field::Name => "name",
            Field::Description => "description",
            Field::Command => "command",
            Field::Skill => "skill",
        }
    }
}

impl Haystack {
    pub fn new(view: &PackView, skill: &str) -> Haystack {
        let mut text = String::new();
        let mut ends = [0u32; 3];
        let mut end = |text: &String, i: usize| ends[i] = text.len() as u32;
        if let Some(m) = view.manifest() {
            text.push_str(&m.name.to_lowercase());
            end(&text, 0);
            text.push('\n');
            text.push_str(&m.description.to_lowercase());
            end(&text, 1);
            for c in &m.commands {
                text.push('\n');
                text.push_str(&c.key.to_lowercase());
                text.push(' ');
                text.push_str(&c.summary.to_lowercase());
            }
            end(&text, 2);
        }
        text.push('\n');
        text.push_str(&skill.to_lowercase());
        Haystack {
            text: text.into(),
            ends,
        }
    }

    /// The first field holding `needle` (already lowercased), if any.
    pub fn find(&self, needle: &str) -> Option<Field> {
        let at = self.text.find(needle)? as u32;
        let [name, description, commands] = self.ends;
        Some(if at < name {
            Field::Name
        } else if at < description {
            Field::Description
        } else if at < commands {
            Field::Command
        } else {
            Field::Skill
        })
    }
}

impl Row {
    /// A row; `skill`: the start of the pack's Skill text, for `/`.
    pub fn new(view: &PackView, avail: &PackAvailability, skill: &str) -> Row {
        Row {
            id: view.pack_id.as_str().into(),
            kind: avail.kind,
            version: avail.version.as_deref().map(Into::into),
            description: view
                .manifest()
                .map_or("", |m| first_line(&m.description))
                .into(),
            status: avail.status,
            installed: avail.installed,
            activated: avail.activated,
            connected: avail.connected,
            catalog_dir: view
                .catalog
                .as_ref()
                .map(|c| c.dir.clone().into_boxed_path()),
            verbs: view.manifest().map_or_else(Default::default, |m| {
                m.commands.iter().map(|c| c.key.as_str().into()).collect()
            }),
            haystack: Haystack::new(view, skill),
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }
}

/// One pack in full: the engine's view and its availability, computed by
/// the engine's availability function.
#[derive(Debug, Clone)]
pub struct Entry {
    pub view: PackView,
    pub avail: PackAvailability,
}

impl Entry {
    pub fn id(&self) -> &str {
        &self.view.pack_id
    }
}

/// Packs read again: those found, and the ids of those that are gone
/// (neither installed nor in a catalog any more).
#[derive(Debug, Clone, Default)]
pub struct Inspected {
    pub found: Vec<Inspection>,
    pub gone: Vec<String>,
}

/// The selected (or linted) pack read again: its full entry and its Skill.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub entry: Entry,
    pub skill: SkillText,
    /// Its Skill's state in each enabled harness target (§12.8).
    pub harnesses: PackHarnesses,
    /// Its files but the manifest and `SKILL.md` (§2.6), for Details.
    pub files: Bundled,
}

/// A lifecycle stage the TUI runs (§11.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Install,
    Activate,
    Deactivate,
    Connect,
    Uninstall,
}

impl Stage {
    /// The `hcpx` subcommand.
    pub fn subcommand(self) -> &'static str {
        match self {
            Stage::Install => "install",
            Stage::Activate => "activate",
            Stage::Deactivate => "deactivate",
            Stage::Connect => "connect",
            Stage::Uninstall => "uninstall",
        }
    }

    pub fn progress(self) -> &'static str {
        match self {
            Stage::Install => "installing",
            Stage::Activate => "activating",
            Stage::Deactivate => "deactivating",
            Stage::Connect => "connecting",
            Stage::Uninstall => "uninstalling",
        }
    }
}

/// Work for a worker.
#[derive(Debug, Clone)]
pub enum Job {
    /// Read the store and catalogs (`Engine::snapshot`) and every pack's
    /// availability.
    Load,
    /// Look at the store's modification times.
    Stamp,
    /// Read packs again from their files: view (linted afresh), availability
    /// and Skill. For the selected pack, and for `l` (`lint: true`).
    Inspect { rows: Vec<Row>, lint: bool },
    /// A lifecycle stage on packs, in order; stops at the first error.
    Stage { stage: Stage, ids: Vec<String> },
    /// The packs chosen in the picker, installed from the collection
    /// `source` (HCP.md §13.1), by id, as `--skill ID...` takes them.
    InstallChosen { source: String, ids: Vec<String> },
    /// Every harness target and its Skills' states (`H`, §12.4–§12.8).
    Harnesses,
    /// The browser's marks that need no network: verify, harness states.
    Marks,
    /// `hcpx outdated` (§13.6): may ask the network (git sources).
    Outdated,
    /// `hcpx upgrade IDS --dry-run` (`yes` false) or `--yes` (§13.7).
    /// With `yes`, the diff the user confirmed: the upgrade installs only
    /// the new versions it was computed on (their digests).
    Upgrade {
        ids: Vec<String>,
        yes: bool,
        confirmed: Vec<UpgradeResult>,
    },
    /// `hcpx harness enable|disable TARGET` (§12.5–§12.6), then every
    /// target read again.
    HarnessToggle { target: TargetName, enable: bool },
    /// A report subcommand from the `:` line (`tui::query`).
    Query(crate::tui::query::Query),
    /// A `:` line's job run with that line's `--principal` and
    /// `--catalog` (§9.1, §11.6) instead of the TUI's.
    Scoped {
        principal: Option<crate::engine::store::principal::Principal>,
        catalogs: Vec<std::path::PathBuf>,
        job: Box<Job>,
    },
    /// `hcpx exec PACK VERB -- WORDS`, output captured, and sent to the
    /// UI as it comes (`Action::ExecOutput` of run `run`).
    Exec {
        run: u64,
        /// The scope its commands run in (`X` cancels this run only).
        scope: crate::engine::exec::process::Scope,
        pack_id: String,
        verb: String,
        /// The form's `(name, value)` pairs.
        args: Vec<(String, String)>,
    },
}

impl Job {
    /// What the spinner says while it runs.
    pub fn label(&self) -> String {
        match self {
            Job::Load => "loading".into(),
            Job::Stamp => "checking the store".into(),
            Job::Inspect { rows, lint } => format!(
                "{} {}",
                if *lint { "linting" } else { "reading" },
                ids_text(rows.iter().map(Row::id))
            ),
            Job::Stage { stage, ids } => {
                format!(
                    "{} {}",
                    stage.progress(),
                    ids_text(ids.iter().map(String::as_str))
                )
            }
            Job::InstallChosen { source, ids } => format!(
                "installing {} from {}",
                ids_text(ids.iter().map(String::as_str)),
                crate::tui::picker::shown_source(source)
            ),
            Job::Exec { pack_id, verb, .. } => format!("running {pack_id} {verb}"),
            Job::Harnesses => "reading the harness targets".into(),
            Job::Query(q) => q.label(),
            Job::Scoped { job, .. } => job.label(),
            Job::Marks => "verifying".into(),
            Job::Outdated => "checking for updates".into(),
            Job::Upgrade { ids, yes, .. } => format!(
                "{} {}",
                if *yes {
                    "upgrading"
                } else {
                    "comparing the new version of"
                },
                ids_text(ids.iter().map(String::as_str))
            ),
            Job::HarnessToggle { target, enable } => format!(
                "{} {target}",
                if *enable { "enabling" } else { "disabling" }
            ),
        }
    }
}

fn ids_text<'a>(ids: impl Iterator<Item = &'a str>) -> String {
    let ids: Vec<&str> = ids.collect();
    match ids.len() {
        0..=3 => ids.join(", "),
        n => format!("{}, {} and {} more", ids[0], ids[1], n - 2),
    }
}

/// The modification stamp of the store and catalogs: `state.json`,
/// `packs/`, and each catalog folder. Another hcpx process changing the
/// store changes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp(Vec<Option<(SystemTime, u64, u64)>>);

impl Stamp {
    /// A stamp for the unit tests: `n` tells stamps apart.
    #[cfg(test)]
    pub(crate) fn at(n: u64) -> Stamp {
        Stamp(vec![Some((SystemTime::UNIX_EPOCH, n, n))])
    }

    pub fn read(engine: &Engine) -> Stamp {
        let store = engine.store();
        let mut paths = vec![store.state_path(), store.packs_dir(), store.config_path()];
        paths.extend(engine.catalogs().iter().cloned());
        Stamp(paths.iter().map(|p| meta(p)).collect())
    }
}

fn meta(path: &Path) -> Option<(SystemTime, u64, u64)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len(), m.ino()))
}

/// A `SKILL.md` for display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillText {
    Parsed(SkillDoc),
    /// No frontmatter: the raw text.
    Raw(String),
    /// Unreadable: why.
    Missing(String),
}

/// What a lifecycle stage did.
#[derive(Debug, Clone)]
pub struct StageReport {
    pub stage: Stage,
    /// The packs it was asked to act on.
    pub ids: Vec<String>,
    /// One line per pack done, in the words `hcpx` prints.
    pub done: Vec<String>,
    pub error: Option<Error>,
    /// `Esc` in the masked input ended it: nothing failed (`error` holds
    /// the engine's words for it, which are not shown as a failure).
    pub cancelled: bool,
    /// The store's stamp right after the stage: the change it made
    /// itself is not taken for another process's.
    pub stamp: Stamp,
}

/// A finished job.
#[derive(Debug, Clone)]
pub enum JobResult {
    Loaded {
        stamp: Stamp,
        /// The packs, and the catalogs and powers they were read with.
        result: Result<Loaded, Error>,
    },
    Stamp(Stamp),
    Inspected {
        lint: bool,
        result: Result<Inspected, Error>,
    },
    Stage(StageReport),
    /// The packs chosen from a collection, installed (or not).
    InstalledChosen(StageReport),
    Executed {
        /// The run's id (`Job::Exec`'s).
        run: u64,
        pack_id: String,
        verb: String,
        args: Vec<(String, String)>,
        result: Result<ExecResult, Error>,
    },
    /// The browser's marks (verify, harness states).
    Marks(Marks),
    /// Packs with a newer version in their recorded source.
    Outdated(Result<Vec<OutdatedPack>, Error>),
    /// The upgrade (or its dry run): every result, and the error that
    /// stopped it.
    Upgraded {
        ids: Vec<String>,
        yes: bool,
        results: Vec<UpgradeResult>,
        error: Option<Error>,
    },
    /// A report subcommand answered.
    Queried {
        query: crate::tui::query::Query,
        result: Result<crate::tui::query::Answer, Error>,
    },
    /// The harness targets, read.
    Harnesses(Result<Vec<HarnessRow>, Error>),
    /// A target enabled or disabled: what changed, in words; then the
    /// targets read again.
    HarnessToggled {
        target: TargetName,
        enable: bool,
        result: Result<String, Error>,
        rows: Result<Vec<HarnessRow>, Error>,
    },
    /// The worker panicked (a bug); the TUI reports it and quits.
    Panicked(String),
}

/// Runs a job; `actions` carries secret requests to the UI.
pub fn run(engine: &Engine, job: Job, actions: &UnboundedSender<Action>) -> JobResult {
    match job {
        Job::Load => {
            let (stamp, result) = load_fresh(engine);
            JobResult::Loaded { stamp, result }
        }
        Job::Stamp => JobResult::Stamp(Stamp::read(engine)),
        Job::Inspect { rows, lint } => JobResult::Inspected {
            lint,
            result: inspect(engine, &rows),
        },
        Job::Stage { stage, ids } => JobResult::Stage(run_stage(engine, stage, &ids, actions)),
        Job::InstallChosen { source, ids } => {
            JobResult::InstalledChosen(install_chosen(engine, &source, ids))
        }
        Job::Harnesses => JobResult::Harnesses(harnesses::read(engine)),
        Job::Scoped {
            principal,
            catalogs,
            job,
        } => run(&engine.scoped(principal.as_ref(), &catalogs), *job, actions),
        Job::Query(query) => JobResult::Queried {
            result: crate::tui::query::run(engine, &query),
            query,
        },
        Job::Marks => JobResult::Marks(marks::read(engine)),
        Job::Outdated => JobResult::Outdated(engine.outdated()),
        Job::Upgrade {
            ids,
            yes,
            confirmed,
        } => run_upgrade(engine, ids, yes, &confirmed),
        Job::HarnessToggle { target, enable } => {
            let result = toggle_harness(engine, target, enable);
            JobResult::HarnessToggled {
                target,
                enable,
                result,
                rows: harnesses::read(engine),
            }
        }
        Job::Exec {
            run,
            scope,
            pack_id,
            verb,
            args,
        } => {
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
    }
}

/// A snapshot read: its rows, the catalogs `config.yaml` lists now (with
/// the `--catalog` ones), and what the principal may do.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub rows: Vec<Row>,
    pub catalogs: Vec<std::path::PathBuf>,
    pub powers: crate::tui::session::Powers,
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
            powers: crate::tui::session::Powers::of(&state, engine.principal()),
        })
    });
    (stamp, result)
}

/// The snapshot, and each pack's availability (the same calls as
/// `hcpx list` and `hcpx availability`), as browser rows.
pub fn load(engine: &Engine) -> Result<Vec<Row>, Error> {
    let check = crate::engine::ops::runnable_memo();
    engine.map_packs(|view, state| {
        let skill = view.dir().map(|d| skill_start(&d)).unwrap_or_default();
        Row::new(
            view,
            &engine.pack_availability_with(view, state, &check),
            &skill,
        )
    })
}

/// Reads packs again: the installed copy and the catalog copy (each linted
/// as the snapshot lints them), the availability, the Skill.
pub fn inspect(engine: &Engine, rows: &[Row]) -> Result<Inspected, Error> {
    let state = engine.store().read_state()?;
    let mut out = Inspected::default();
    for row in rows {
        let catalogs: Vec<_> = row
            .catalog_dir
            .iter()
            .map(|dir| catalog::load(dir.parent().unwrap_or(dir), dir.to_path_buf()))
            .collect();
        let Some(view) = snapshot::load_pack(engine.store(), &catalogs, row.id()) else {
            out.gone.push(row.id().to_string());
            continue;
        };
        let avail = engine.pack_availability(&view, &state);
        let skill = view
            .dir()
            .map_or_else(|| SkillText::Missing("no files".into()), |d| read_skill(&d));
        let files = view
            .dir()
            .map_or_else(Bundled::default, |d| files::read(&d));
        let harnesses = avail
            .installed
            .then(|| harnesses::for_pack(engine, row.id()));
        out.found.push(Inspection {
            entry: Entry { view, avail },
            skill,
            harnesses,
            files,
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

impl SkillText {
    /// The start of the text for `/` (as [`skill_start`] reads it).
    pub fn search_text(&self) -> &str {
        let text = match self {
            SkillText::Parsed(doc) => doc.body.as_str(),
            SkillText::Raw(text) => text.as_str(),
            SkillText::Missing(_) => "",
        };
        let mut end = text.len().min(SEARCH_SKILL_BYTES as usize);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        &text[..end]
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

fn run_stage(
    engine: &Engine,
    stage: Stage,
    ids: &[String],
    actions: &UnboundedSender<Action>,
) -> StageReport {
    let mut report = StageReport {
        stage,
        ids: ids.to_vec(),
        done: Vec::new(),
        error: None,
        cancelled: false,
        stamp: Stamp(Vec::new()),
    };
    match stage {
        Stage::Activate | Stage::Deactivate => {
            let (ids, bad) = engine.pack_ids(ids);
            let (done, error) = if stage == Stage::Activate {
                engine.activate(&ids)
            } else {
                engine.deactivate(&ids)
            };
            let error = error.or(bad);
            let (changed, same) = if stage == Stage::Activate {
                ("activated", "already activated")
            } else {
                ("deactivated", "was not activated")
            };
            report.done = done
                .iter()
                .map(|t| format!("{}: {}", t.pack_id, if t.changed { changed } else { same }))
                .collect();
            report.error = error;
        }
        Stage::Install | Stage::Connect | Stage::Uninstall => {
            for id in ids {
                let mut cancelled = false;
                let line = match stage {
                    Stage::Install => install_or_pick(engine, actions, id),
                    Stage::Connect => {
                        let mut input =
                            |spec: &SecretSpec| ask_secret(actions, id, spec, &mut cancelled);
                        checked_id(id)
                            .and_then(|id| engine.connect(&id, &mut input))
                            .map(|o| connect_line(&o))
                    }
                    _ => match PackId::parse(id) {
                        Some(id) => engine.uninstall(&id),
                        None => Err(engine.uninstall_not_an_id(id)),
                    }
                    .map(|o| format!("uninstalled {}", o.pack_id)),
                };
                match line {
                    Ok(line) => report.done.push(line),
                    Err(err) => {
                        report.error = Some(err);
                        report.cancelled = cancelled;
                        break;
                    }
                }
            }
        }
    }
    report.stamp = Stamp::read(engine);
    tracing::info!(
        stage = stage.subcommand(),
        packs = ids.len(),
        done = report.done.len(),
        error = report.error.as_ref().map(|e| e.code.as_str()),
        "stage finished"
    );
    report
}

/// `hcpx install SOURCE --skill ID...` (§13.1): each chosen pack from its
/// folder in the collection, in order; each its own change, stopping at
/// the first error. The one place the picker's choice reaches the engine.
/// `:install SOURCE`: a catalog pack or a pack folder is installed; a
/// collection of several packs (§13.1) is listed, and the listing goes to
/// the picker, whose choice comes back as `Job::InstallChosen`.
fn install_or_pick(
    engine: &Engine,
    actions: &UnboundedSender<Action>,
    source: &str,
) -> Result<String, Error> {
    let from = InstallSource::parse(source)?;
    if matches!(from, InstallSource::Catalog(_)) {
        return engine
            .install_with(&InstallOptions::new(from))
            .map(|o| o.to_string());
    }
    let mut options = InstallOptions::new(from);
    options.selection = Selection::List;
    let SourceRun::Listed(listing) = engine.install_source(&options)? else {
        return Err(Error::new(
            ErrorCode::Io,
            "the listing of the source was not returned",
        ));
    };
    if listing.packs.len() == 1 {
        options.selection = Selection::Default;
        return engine.install_with(&options).map(|o| o.to_string());
    }
    let count = listing.packs.len();
    let items = listing.packs.into_iter().map(picker_item).collect();
    let _ = actions.send(Action::PickFrom {
        source: source.to_string(),
        items,
    });
    Ok(format!(
        "{count} packs in {}: choose in the picker",
        listing.source
    ))
}

fn picker_item(pack: crate::engine::ops::sources::ListedPack) -> crate::tui::picker::PickerItem {
    use crate::tui::picker::{ItemKind, PickerItem};
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

fn install_chosen(engine: &Engine, source: &str, ids: Vec<String>) -> StageReport {
    let mut report = StageReport {
        stage: Stage::Install,
        ids,
        done: Vec::new(),
        error: None,
        cancelled: false,
        stamp: Stamp(Vec::new()),
    };
    // One call, as `hcpx install SOURCE --skill ID...`: the engine finds
    // each id in the collection again (one fetch for a git source).
    let run = InstallSource::parse(source).and_then(|from| {
        let mut options = InstallOptions::new(from);
        options.selection = Selection::Skills(report.ids.clone());
        engine.install_source(&options)
    });
    match run {
        Ok(SourceRun::Done(results)) => {
            for result in results {
                match result {
                    PackResult::Installed(done) => report.done.push(done.outcome.to_string()),
                    PackResult::Failed(failed) if report.error.is_none() => {
                        report.error = Some(failed.error)
                    }
                    PackResult::Failed(_) => {}
                }
            }
        }
        Ok(SourceRun::Listed(_)) => {}
        Err(err) => report.error = Some(err),
    }
    report.stamp = Stamp::read(engine);
    tracing::info!(
        packs = report.ids.len(),
        done = report.done.len(),
        error = report.error.as_ref().map(|e| e.code.as_str()),
        "chosen packs installed"
    );
    report
}

/// `hcpx upgrade --dry-run`, or with `yes` the upgrade the user confirmed,
/// expecting the new versions whose diff was shown: when the engine finds
/// another (the source moved on meanwhile) it installs nothing, and the
/// new diff goes back to the user (`yes` false in the result).
fn run_upgrade(
    engine: &Engine,
    ids: Vec<String>,
    yes: bool,
    confirmed: &[UpgradeResult],
) -> JobResult {
    let expect = confirmed
        .iter()
        .map(|r| Expected {
            pack_id: r.pack_id.clone(),
            digest: r.to_digest.clone(),
        })
        .collect();
    let options = UpgradeOptions {
        pack_ids: ids.clone(),
        dry_run: !yes,
        yes,
        expect,
        offline: false,
    };
    let (results, error) = engine.upgrade(&options);
    let moved_on = error
        .as_ref()
        .is_some_and(|e| e.code == ErrorCode::ConfirmationRequired);
    if yes && moved_on && results.iter().all(|r| !r.applied) {
        return JobResult::Upgraded {
            ids,
            yes: false,
            results,
            error: None,
        };
    }
    JobResult::Upgraded {
        ids,
        yes,
        results,
        error,
    }
}

/// Enables or disables one target; says what it did in the words of
/// `hcpx harness enable|disable`.
fn toggle_harness(engine: &Engine, target: TargetName, enable: bool) -> Result<String, Error> {
    let change = if enable {
        engine.harness_enable(&[target])?
    } else {
        engine.harness_disable(&[target])?
    };
    let verb = if enable { "enabled" } else { "disabled" };
    if change.changed.is_empty() {
        return Ok(format!(
            "{target} was already {}",
            if enable { "enabled" } else { "disabled" }
        ));
    }
    if !enable {
        return Ok(format!(
            "{verb} {target}: the Skills hcpx placed there are removed"
        ));
    }
    let skills = change
        .targets
        .iter()
        .find(|t| t.name == target)
        .map(|t| t.skills.as_slice())
        .unwrap_or_default();
    let placed = skills
        .iter()
        .filter(|s| s.state == SkillState::Placed)
        .count();
    let conflicts = skills
        .iter()
        .filter(|s| matches!(s.state, SkillState::Conflict | SkillState::Modified))
        .count();
    let mut line = format!(
        "{verb} {target}: {} placed",
        crate::tui::text::count(placed, "Skill")
    );
    if conflicts > 0 {
        line.push_str(&format!(
            ", {conflicts} left alone (another file is there; hcpx harness status shows it)"
        ));
    }
    Ok(line)
}

fn connect_line(o: &ConnectOutcome) -> String {
    if o.binding == BindingKind::Public {
        return format!("{}: public binding, nothing to connect", o.pack_id);
    }
    let probe = o
        .probe
        .as_ref()
        .map(|p| format!("; probe {} passed", p.verb_key))
        .unwrap_or_default();
    if o.changed {
        format!(
            "connected {} ({} binding{probe})",
            o.pack_id,
            o.binding.as_str()
        )
    } else {
        format!(
            "{} is connected ({} binding{probe})",
            o.pack_id,
            o.binding.as_str()
        )
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
