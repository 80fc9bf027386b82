//! The `:` line's subcommands that run in a worker and answer in the Output
//! pane (HCP.md §11.5): every [`Request`] of the command layer, report or
//! change, run by `command::execute` with the default `Interaction` (no
//! terminal prompt: a line that would prompt in a shell runs as with its
//! input closed), so its outcome, words and `--json` document are the
//! CLI's. `init` (§15.3) opens no store: it is told the user store's
//! folder, as the CLI's is. Here too is how the TUI says any answer of the
//! command layer, a `:` line's or a lifecycle key's (`Job::Stage`): its
//! words and document as `hcpx` prints them ([`texts`], an error's
//! [`error_document`]), its `hcpx` words ([`args`]), and the one line the
//! status line and the log say it with ([`summary`], [`change_summary`]).

use crate::command::both::{self, Both};
use crate::command::execute::{self, Interaction};
use crate::command::{Outcome, Request};
use crate::engine::error::Error;
use crate::engine::ops::Engine;
use crate::engine::ops::sources::Selection;
use crate::fixline::FixFlags;
use serde::Serialize;
use std::path::Path;

/// One request, the flags its fix lines repeat, and whether its document
/// shows first (`--json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub request: Request,
    pub flags: FixFlags,
    pub json: bool,
}

/// What it answered: the command layer's [`Answer`] — one outcome, or
/// inside a project the outcomes of both stores for a request the CLI
/// runs on both (`command::both`) — whose document is `hcpx --json`'s,
/// `"scope"` (and `"project"`) included (HCP.md §15.1).
pub use crate::command::workspace::Answer;

/// The words (styles dropped) and the `--json` document of `answer`.
pub fn answer_texts(answer: &Answer) -> (String, String) {
    match answer {
        Answer::One { outcome, .. } => {
            let (words, _) = texts(outcome);
            (words, pretty(&answer.document()))
        }
        Answer::Both { .. } => (
            crate::command::style::plain(&answer.words()),
            pretty(&answer.document()),
        ),
    }
}

/// An outcome's words (styles dropped) and its `--json` document, as
/// `hcpx` prints them: the words are what a terminal shows, its notes
/// (the warnings the CLI writes to stderr) after its stdout.
pub fn texts(outcome: &Outcome) -> (String, String) {
    let mut words = crate::command::style::plain(&outcome.to_string());
    words.push_str(&crate::command::style::plain(&outcome.notes()));
    (words, pretty(outcome))
}

/// The `--json` document `hcpx` prints for an error a request answered
/// with: `{"ok": false, "error": ...}`, its fix rendered as its hint with
/// `flags`.
pub fn error_document(err: &Error, flags: &FixFlags) -> String {
    pretty(&crate::engine::ops::docs::Failure::new(
        &crate::fixline::with_hint(err, flags),
    ))
}

/// The line the status line and the log say an answer with: its words
/// when they are one line, else where they are (`hcpx SUB: see Output`).
/// `args` are the request's `hcpx` words.
pub fn summary(words: &str, args: &[String]) -> String {
    match words.trim_end().lines().collect::<Vec<_>>()[..] {
        [one] => one.to_string(),
        _ => format!(
            "hcpx {}: see Output",
            args.first().map_or("", String::as_str)
        ),
    }
}

/// The line the status line and the log say a change's words with (a
/// lifecycle key, its `:` line, the Harnesses view's toggle, `U`'s
/// upgrade): their lines joined with `; `, as in `acme.a: activated;
/// acme.b: already activated`, each without the spaces that indent it or
/// pad its columns.
pub fn change_summary(words: &str) -> String {
    let lines: Vec<String> = words
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("; ")
}

/// The `hcpx` words of `request` (without the program name), flags
/// included.
pub fn args(request: &Request) -> Vec<String> {
    let mut words = request.words();
    words.extend(flag_words(request));
    words
}

impl Query {
    /// The `hcpx` words (without the program name), flags included.
    pub fn args(&self) -> Vec<String> {
        args(&self.request)
    }

    /// Whether it may change the store, so the browser reads it again.
    pub fn changes(&self) -> bool {
        self.request.changes()
    }

    /// Whether it asks y/n first: `doctor --fix`, as in the CLI; `sync`,
    /// which may install and uninstall many packs; `remove`, which
    /// uninstalls, as `u` and `:uninstall` ask.
    pub fn asks(&self) -> bool {
        asks(&self.request)
    }

    /// The question asked before it runs.
    pub fn question(&self) -> String {
        match &self.request {
            Request::Sync {
                lockfile, prune, ..
            } => format!(
                "Make the store hold exactly the packs of {}{}?",
                lockfile
                    .as_ref()
                    .map_or("the project's hcp.yaml and hcp.lock".to_string(), |l| {
                        l.display().to_string()
                    }),
                if *prune {
                    ", uninstalling packs it does not name"
                } else {
                    ""
                }
            ),
            Request::Remove { packs } => format!(
                "Remove {}? This deactivates and uninstalls each (in the project's store, it leaves hcp.yaml and hcp.lock too).",
                packs
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => "Repair what an interrupted change left, record installed packs hcp.lock does not list, and set a corrupt hcp.lock aside (hcpx doctor --fix)?".into(),
        }
    }

    /// What the spinner says.
    pub fn label(&self) -> String {
        crate::tui::text::safe(&format!("running hcpx {}", self.args().join(" ")))
    }
}

/// Whether the TUI asks y/n before it runs `request` (see [`Query::asks`]).
pub fn asks(request: &Request) -> bool {
    request.asks() || matches!(request, Request::Sync { .. } | Request::Remove { .. })
}

/// The flags of a change request, as typed on the CLI (`Request::words`
/// leaves them to the front-end).
fn flag_words(request: &Request) -> Vec<String> {
    let mut words = Vec::new();
    let mut on = |set: bool, flag: &str| {
        if set {
            words.push(flag.to_string());
        }
    };
    match request {
        Request::Install {
            selection, force, ..
        } => {
            return [selection_words(selection), force_word(*force)].concat();
        }
        Request::Add { selection, .. } => return selection_words(selection),
        Request::Upgrade {
            dry_run,
            yes,
            expect,
            offline,
            ..
        } => {
            on(*dry_run, "--dry-run");
            on(*yes, "--yes");
            for e in expect {
                words.extend([
                    "--expect".to_string(),
                    format!("{}={}", e.pack_id, e.digest),
                ]);
            }
            if *offline {
                words.push("--offline".into());
            }
        }
        Request::Sync {
            frozen,
            prune,
            yes,
            expect,
            ..
        } => {
            on(*frozen, "--frozen");
            on(*prune, "--prune");
            on(*yes, "--yes");
            for e in expect {
                words.extend([
                    "--expect".to_string(),
                    format!("{}={}", e.pack_id, e.digest),
                ]);
            }
        }
        Request::HarnessEnable { targets } => match targets {
            crate::command::request::Targets::Named(names) => {
                words.extend(names.iter().map(|t| t.as_str().to_string()));
            }
            crate::command::request::Targets::Detected => words.push("--detected".into()),
        },
        Request::HarnessDisable { targets } => {
            words.extend(targets.iter().map(|t| t.as_str().to_string()));
        }
        Request::HarnessSync { force } => return force_word(*force),
        _ => {}
    }
    words
}

fn selection_words(selection: &Selection) -> Vec<String> {
    match selection {
        Selection::Default => Vec::new(),
        Selection::List => vec!["--list".into()],
        Selection::All => vec!["--all".into()],
        Selection::Skills(ids) => ids
            .iter()
            .flat_map(|id| ["--skill".to_string(), id.clone()])
            .collect(),
    }
}

fn force_word(force: bool) -> Vec<String> {
    if force {
        vec!["--force".into()]
    } else {
        Vec::new()
    }
}

fn pretty<T: Serialize>(doc: &T) -> String {
    serde_json::to_string_pretty(doc).unwrap_or_else(|e| e.to_string())
}

/// Runs the query through the command layer; `user_home` is the user
/// store's folder, which `init` keeps a project out of.
pub fn run(engine: &Engine, user_home: &Path, query: &Query) -> Result<Answer, Error> {
    if let Request::Init { dir } = &query.request {
        // The result is the new project's (§15.3), as the CLI's.
        let outcome = execute::init(dir, user_home)?;
        let project = match &outcome {
            Outcome::Initialized(done) => Some(done.project.clone()),
            _ => None,
        };
        return Ok(Answer::One {
            scope: crate::engine::project::Scope::Project,
            project,
            outcome: Box::new(outcome),
        });
    }
    let outcome =
        execute::execute_with(engine, &query.request, &query.flags, Interaction::default())?;
    let project = match engine.scope() {
        crate::engine::project::Scope::Project => {
            engine.project().map(|p| p.root().display().to_string())
        }
        crate::engine::project::Scope::User => None,
    };
    Ok(Answer::One {
        scope: engine.scope(),
        project,
        outcome: Box::new(outcome),
    })
}

/// Inside a project, a query the CLI runs on both stores (the project's
/// `project`, the user's `user`: `command::both`), run on both, as the
/// CLI runs it; `None` for any other.
pub fn run_both(project: &Engine, user: &Engine, query: &Query) -> Option<Result<Answer, Error>> {
    let store = project.store().root();
    if !both::runs_on_both(&query.request, store) {
        return None;
    }
    let (ours, theirs) = both::split(&query.request, store);
    let side = |engine: &Engine, request: Option<Request>| {
        request
            .map(|r| execute::execute_with(engine, &r, &query.flags, Interaction::default()))
            .transpose()
    };
    let both = side(project, ours).and_then(|ours| {
        Ok(Both {
            ours,
            theirs: side(user, theirs)?,
        })
    });
    let folder = project.project();
    Some(both.map(|both| Answer::both(&query.request, both, folder.as_ref())))
}
