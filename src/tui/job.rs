//! What the UI asks a worker to do and what it answers: the [`Job`]s,
//! their [`JobResult`]s, and the data they carry (the browser's [`Row`]s,
//! a pack read in full, the store's [`Stamp`]), and the command layer's
//! requests a lifecycle key, the Harnesses view's toggle and `U` make
//! ([`Stage::requests`], [`harness_request`], [`upgrade_request`]). Plain data every
//! part of the TUI may use; the worker that runs them is `tui::worker`.

use crate::command::Outcome;
use crate::command::Request;
use crate::command::request::{PackArg, SourceArg, Targets};
use crate::engine::error::Error;
use crate::engine::harness::TargetName;
use crate::engine::ops::upgrade::{Expected, OutdatedPack, UpgradeResult};
use crate::engine::ops::{Engine, ExecResult};
use crate::engine::pack::skill::SkillDoc;
use crate::engine::policy::availability::{PackAvailability, Status};
use crate::engine::project::Scope as Store;
use crate::engine::store::snapshot::PackView;
use crate::tui::files::Bundled;
use crate::tui::marks::Marks;
use crate::tui::targets::{HarnessRow, PackHarnesses};
use crate::tui::text::first_line;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::SystemTime;

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
    /// Connected through a Binding that is not `public` (HCP.md §8,
    /// §11.2): deactivating drops that connection, so `a` asks first.
    pub bound: bool,
    /// The folder of the catalog copy, if any.
    pub catalog_dir: Option<Box<Path>>,
    /// The commands' verb keys (for the `:` line's completion).
    pub verbs: Box<[Box<str>]>,
    /// What `/` searches besides the id, lowercased (see [`Haystack`]).
    pub haystack: Haystack,
    /// The store that holds the pack (HCP.md §15.1), `None` when it is
    /// installed in neither (a catalog pack).
    pub held: Option<Store>,
    /// A user store's pack that a project pack of the same id shadows
    /// (§15.5): its row follows the project's, and only this flag tells
    /// the two apart ([`Row::key`]).
    pub shadowed: bool,
}

/// What tells rows apart: the pack id, and whether the row is the shadowed
/// user copy of a pack the project holds too.
pub type RowKey = (Box<str>, bool);

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

/// The status a pack is shown with (§11.2.2): a Skill pack (§2.6) has no
/// connection to make, so its Binding `public` counts as nothing shown:
/// activated, not "connected".
pub fn shown_status(avail: &PackAvailability) -> Status {
    use crate::engine::pack::manifest::PackKind;
    match (avail.kind, avail.status) {
        (PackKind::Skill, Status::Connected) => Status::Activated,
        (_, status) => status,
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
            status: shown_status(avail),
            installed: avail.installed,
            activated: avail.activated,
            connected: avail.connected,
            bound: avail.connected
                && view.manifest().is_some_and(|m| {
                    m.binding.kind != crate::engine::pack::manifest::BindingKind::Public
                }),
            catalog_dir: view
                .catalog
                .as_ref()
                .map(|c| c.dir.clone().into_boxed_path()),
            verbs: view.manifest().map_or_else(Default::default, |m| {
                m.commands.iter().map(|c| c.key.as_str().into()).collect()
            }),
            haystack: Haystack::new(view, skill),
            held: None,
            shadowed: false,
        }
    }

    /// This row as read from `store`: held there when installed.
    pub fn in_store(mut self, store: Store, shadowed: bool) -> Row {
        self.held = self.installed.then_some(store);
        self.shadowed = shadowed;
        self
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// What tells this row from every other ([`RowKey`]).
    pub fn key(&self) -> RowKey {
        (self.id.clone(), self.shadowed)
    }

    /// Whether this is the row of `key`.
    pub fn is(&self, key: &RowKey) -> bool {
        *self.id == *key.0 && self.shadowed == key.1
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
    pub gone: Vec<RowKey>,
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
    /// The store it was read from, and whether its row is the shadowed
    /// user copy (see [`Row::shadowed`]).
    pub store: Store,
    pub shadowed: bool,
}

impl Inspection {
    /// The key of the row it read.
    pub fn key(&self) -> RowKey {
        (self.entry.id().into(), self.shadowed)
    }

    /// The row it read, as the browser shows it.
    pub fn row(&self) -> Row {
        Row::new(
            &self.entry.view,
            &self.entry.avail,
            self.skill.search_text(),
        )
        .in_store(self.store, self.shadowed)
    }
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

    /// The requests of the command layer the CLI makes for this stage of
    /// `ids` (HCP.md §11.1): `activate ID...`, `deactivate ID...`,
    /// `uninstall ID...` and `install SOURCE...` take them all at once;
    /// `connect` takes one pack, so each is its own `connect ID`.
    pub fn requests(self, ids: &[String]) -> Vec<Request> {
        let packs = || ids.iter().map(|id| PackArg::parse(id)).collect();
        match self {
            Stage::Activate => vec![Request::Activate { packs: packs() }],
            Stage::Deactivate => vec![Request::Deactivate { packs: packs() }],
            Stage::Uninstall => vec![Request::Uninstall { packs: packs() }],
            Stage::Connect => ids
                .iter()
                .map(|id| Request::Connect {
                    pack: PackArg::parse(id),
                })
                .collect(),
            Stage::Install => vec![Request::Install {
                sources: ids.iter().map(|s| SourceArg::parse(s)).collect(),
                selection: crate::engine::ops::sources::Selection::Default,
                force: false,
                yes: false,
            }],
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
    /// `job` on the store `store` alone (HCP.md §15.1): a stage, an exec
    /// or an upgrade of packs that store holds, an install into it.
    In { store: Store, job: Box<Job> },
    /// A change of packs of both stores (HCP.md §15.5), split as the CLI
    /// splits it (`command::both::split`): one `Job::In` per store, the
    /// project's first, run in turn, each whatever the other answered;
    /// their reports come back together (`JobResult::Stages`).
    PerStore(Vec<Job>),
    /// A lifecycle stage on packs (a key, or its `:` line): `requests`,
    /// its [`Stage::requests`], each run in turn by the command layer
    /// (`command::execute_with`), stopping at the first error; `flags` are
    /// the ones its fix lines repeat.
    Stage {
        stage: Stage,
        ids: Vec<String>,
        requests: Vec<Request>,
        flags: crate::fixline::FixFlags,
    },
    /// The packs chosen in the picker, installed from the collection
    /// `source` (HCP.md §13.1), by id: `request` is `install SOURCE
    /// --skill ID...`.
    InstallChosen {
        source: String,
        ids: Vec<String>,
        request: Request,
        flags: crate::fixline::FixFlags,
    },
    /// Every harness target and its Skills' states (`H`, §12.4–§12.8), of
    /// every store inside a project (§15.5).
    Harnesses,
    /// The browser's marks that need no network: verify, harness states.
    Marks,
    /// `hcpx outdated` (§13.6): may ask the network (git sources).
    Outdated,
    /// `hcpx upgrade IDS --dry-run` (`yes` false) or `--yes` (§13.7), run
    /// by the command layer ([`upgrade_request`]). With `yes`, the diff
    /// the user confirmed: the upgrade installs only the new versions it
    /// was computed on (their digests, as `--expect` takes them).
    Upgrade {
        ids: Vec<String>,
        yes: bool,
        confirmed: Vec<UpgradeResult>,
        flags: crate::fixline::FixFlags,
    },
    /// `hcpx harness enable|disable TARGET` (§12.5–§12.6): `request`
    /// ([`harness_request`]), run by the command layer, then every target
    /// read again.
    HarnessToggle {
        request: Request,
        flags: crate::fixline::FixFlags,
    },
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
            Job::Stage { stage, ids, .. } => {
                format!(
                    "{} {}",
                    stage.progress(),
                    ids_text(ids.iter().map(String::as_str))
                )
            }
            Job::InstallChosen { source, ids, .. } => format!(
                "installing {} from {}",
                ids_text(ids.iter().map(String::as_str)),
                crate::tui::dialog::picker::shown_source(source)
            ),
            Job::Exec { pack_id, verb, .. } => format!("running {pack_id} {verb}"),
            Job::Harnesses => "reading the harness targets".into(),
            Job::Query(q) => q.label(),
            Job::Scoped { job, .. } | Job::In { job, .. } => job.label(),
            Job::PerStore(jobs) => {
                let labels: Vec<String> = jobs.iter().map(Job::label).collect();
                labels.join(", ")
            }
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
            Job::HarnessToggle { request, .. } => match request {
                Request::HarnessEnable {
                    targets: Targets::Named(names),
                } => format!("enabling {}", ids_text(names.iter().map(|t| t.as_str()))),
                Request::HarnessDisable { targets } => {
                    format!("disabling {}", ids_text(targets.iter().map(|t| t.as_str())))
                }
                _ => format!("running hcpx {}", request.words().join(" ")),
            },
        }
    }
}

/// The request of `hcpx harness enable TARGET` (`enable`) or `hcpx
/// harness disable TARGET`, as the CLI builds it.
pub fn harness_request(target: TargetName, enable: bool) -> Request {
    if enable {
        Request::HarnessEnable {
            targets: Targets::Named(vec![target]),
        }
    } else {
        Request::HarnessDisable {
            targets: vec![target],
        }
    }
}

/// The request of `hcpx upgrade IDS --dry-run` (`yes` false), or of
/// `hcpx upgrade IDS --yes` expecting exactly the new versions of
/// `confirmed` (`--expect ID=DIGEST` each): when the source has moved on
/// since that diff was shown, the engine installs nothing.
pub fn upgrade_request(ids: &[String], yes: bool, confirmed: &[UpgradeResult]) -> Request {
    Request::Upgrade {
        packs: ids.iter().map(|id| PackArg::parse(id)).collect(),
        dry_run: !yes,
        yes,
        expect: confirmed
            .iter()
            .map(|r| Expected {
                pack_id: r.pack_id.clone(),
                digest: r.to_digest.clone(),
            })
            .collect(),
        offline: false,
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
pub struct Stamp(pub(crate) Vec<Option<(SystemTime, u64, u64)>>);

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

    /// The stamp of every store the TUI shows (both, in a project).
    pub fn read_all(engines: &[&Engine]) -> Stamp {
        Stamp(engines.iter().flat_map(|e| Stamp::read(e).0).collect())
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
    /// The requests that ran, in order (the last may have failed): the
    /// job's, but `install SOURCE --list` for a collection of several
    /// packs, whose listing went to the picker.
    pub ran: Vec<Request>,
    /// The outcome of each request that answered, in order: the CLI's
    /// words (`Display`) and `--json` document (`Serialize`).
    pub outcomes: Vec<Outcome>,
    /// What stopped it: the error of a request that answered none, or the
    /// failure its outcome holds ([`Outcome::failure`]).
    pub error: Option<Error>,
    /// `Esc` in the masked input ended it: nothing failed (`error` holds
    /// the engine's words for it, which are not shown as a failure).
    pub cancelled: bool,
    /// The store's stamp right after the stage: the change it made
    /// itself is not taken for another process's.
    pub stamp: Stamp,
    /// The store it ran on (inside a project, `Job::In`'s).
    pub store: Store,
    /// The flags its fix lines repeat (the job's).
    pub flags: crate::fixline::FixFlags,
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
    /// The stages of `Job::PerStore`, each store's report in turn.
    Stages(Vec<StageReport>),
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
    /// The upgrade (or its dry run) of `ids`: the command layer's answer
    /// (`Outcome::Upgraded`: every result, and the error that stopped
    /// it), or the error of a request that answered none.
    Upgraded {
        ids: Vec<String>,
        yes: bool,
        answer: Result<Box<Outcome>, Error>,
        flags: crate::fixline::FixFlags,
    },
    /// A report subcommand answered.
    Queried {
        query: crate::tui::query::Query,
        result: Result<crate::tui::query::Answer, Error>,
    },
    /// The harness targets, read (every store's, in a project).
    Harnesses(Result<Vec<HarnessRow>, Error>),
    /// A target enabled or disabled: the request that ran, its answer
    /// (`Outcome::HarnessChanged`, or its error), the flags its fix lines
    /// repeat; then the targets read again.
    HarnessToggled {
        request: Request,
        answer: Result<Box<Outcome>, Error>,
        flags: crate::fixline::FixFlags,
        rows: Result<Vec<HarnessRow>, Error>,
        /// The store it ran on (inside a project, `Job::In`'s).
        store: Store,
    },
    /// The worker panicked (a bug); the TUI reports it and quits.
    Panicked(String),
}

/// A snapshot read: its rows, the catalogs `config.yaml` lists now (with
/// the `--catalog` ones), and what the principal may do.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub rows: Vec<Row>,
    pub catalogs: Vec<std::path::PathBuf>,
    pub powers: crate::tui::session::Powers,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ops::upgrade::UpdateReason;

    /// The confirmed upgrade expects exactly the digests of the diff shown
    /// (`--expect`), the dry run none; the toggle is `harness
    /// enable|disable TARGET`.
    #[test]
    fn the_requests_are_the_clis() {
        let shown = UpgradeResult {
            pack_id: "acme.notes".into(),
            from: "1.2.0".into(),
            to: "1.3.0".into(),
            from_digest: "sha256:aa".into(),
            to_digest: "sha256:bb".into(),
            changes: Vec::new(),
            applied: false,
            reason: UpdateReason::Version,
            harnesses: Vec::new(),
        };
        let ids = vec!["acme.notes".to_string()];
        let args = |r: &Request| crate::tui::query::args(r).join(" ");
        assert_eq!(
            args(&upgrade_request(&ids, true, std::slice::from_ref(&shown))),
            "upgrade acme.notes --yes --expect acme.notes=sha256:bb"
        );
        assert_eq!(
            args(&upgrade_request(&ids, false, &[])),
            "upgrade acme.notes --dry-run"
        );
        assert_eq!(
            args(&harness_request(TargetName::ClaudeCode, true)),
            "harness enable claude-code"
        );
        assert_eq!(
            args(&harness_request(TargetName::Codex, false)),
            "harness disable codex"
        );
    }
}
