//! The `:` line's subcommands that run in a worker and answer in the Output
//! pane (HCP.md §11.5): the reports of the command layer
//! (`command::Request`, run by `command::execute`: the same outcome, words
//! and `--json` document as the CLI's), and `catalog add|remove` (§13.2),
//! `sync` (§13.8) and `harness sync` (§12.7), whose documents are the
//! CLI's too.

use crate::command::{Outcome, Request, execute};
use crate::engine::error::Error;
use crate::engine::ops::Engine;
use crate::engine::ops::docs::{self, Success};
use crate::engine::ops::sync::SyncOptions;
use crate::fixline::FixFlags;
use serde::Serialize;

/// One subcommand and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// A report; `flags` are the ones its fix lines repeat; `json`
    /// shows its document first (`--json`).
    Report {
        request: Request,
        flags: FixFlags,
        json: bool,
    },
    CatalogAdd(String),
    CatalogRemove(String),
    Sync {
        lockfile: String,
        frozen: bool,
        prune: bool,
        /// Accept replacements with more reach (§13.8).
        yes: bool,
    },
    HarnessSync {
        force: bool,
    },
}

/// What it answered.
#[derive(Debug, Clone)]
pub enum Answer {
    /// A report's outcome: its words, and `J` its document.
    Outcome(Box<Outcome>),
    /// The subcommand's JSON document, pretty-printed.
    Json(String),
}

impl Answer {
    /// The words (styles dropped) and the `--json` document.
    pub fn texts(&self) -> (String, String) {
        match self {
            Answer::Outcome(outcome) => (
                crate::command::style::plain(&outcome.to_string()),
                pretty(outcome),
            ),
            Answer::Json(doc) => (doc.clone(), doc.clone()),
        }
    }
}

impl Query {
    /// The `hcpx` words (without the program name).
    pub fn args(&self) -> Vec<String> {
        let s = |w: &str| w.to_string();
        match self {
            Query::Report { request, .. } => request.words(),
            Query::CatalogAdd(src) => vec![s("catalog"), s("add"), src.clone()],
            Query::CatalogRemove(src) => vec![s("catalog"), s("remove"), src.clone()],
            Query::Sync {
                lockfile,
                frozen,
                prune,
                yes,
            } => {
                let mut v = vec![s("sync"), lockfile.clone()];
                for (on, flag) in [(frozen, "--frozen"), (prune, "--prune"), (yes, "--yes")] {
                    if *on {
                        v.push(s(flag));
                    }
                }
                v
            }
            Query::HarnessSync { force } => {
                let mut v = vec![s("harness"), s("sync")];
                if *force {
                    v.push(s("--force"));
                }
                v
            }
        }
    }

    /// Whether it may change the store, so the browser reads it again.
    pub fn changes(&self) -> bool {
        match self {
            Query::Report { request, .. } => request.changes(),
            _ => true,
        }
    }

    /// Whether it asks y/n first.
    pub fn asks(&self) -> bool {
        match self {
            Query::Report { request, .. } => request.asks(),
            Query::Sync { .. } => true,
            _ => false,
        }
    }

    /// The question asked before it runs.
    pub fn question(&self) -> String {
        match self {
            Query::Report { .. } => {
                "Repair what an interrupted change left, record installed packs hcp.lock does not list, and set a corrupt hcp.lock aside (hcpx doctor --fix)?".into()
            }
            Query::Sync {
                lockfile, prune, ..
            } => format!(
                "Make the store hold exactly the packs of {lockfile}{}?",
                if *prune {
                    ", uninstalling packs it does not name"
                } else {
                    ""
                }
            ),
            _ => String::new(),
        }
    }

    /// What the spinner says.
    pub fn label(&self) -> String {
        crate::tui::text::safe(&format!("running hcpx {}", self.args().join(" ")))
    }
}

fn pretty<T: Serialize>(doc: &T) -> String {
    serde_json::to_string_pretty(doc).unwrap_or_else(|e| e.to_string())
}

fn json<T: Serialize>(doc: &T) -> Answer {
    Answer::Json(pretty(doc))
}

/// Runs the query by the engine call its subcommand makes.
pub fn run(engine: &Engine, query: &Query) -> Result<Answer, Error> {
    Ok(match query {
        Query::Report { request, flags, .. } => {
            Answer::Outcome(Box::new(execute(engine, request, flags)?))
        }
        Query::CatalogAdd(src) => json(&Success::new(engine.catalog_add(src)?)),
        Query::CatalogRemove(src) => json(&Success::new(engine.catalog_remove(src)?)),
        Query::Sync {
            lockfile,
            frozen,
            prune,
            yes,
        } => {
            let (results, error) = engine.sync(&SyncOptions {
                lockfile: lockfile.into(),
                frozen: *frozen,
                prune: *prune,
                yes: *yes,
            });
            if let Some(err) = error {
                return Err(err);
            }
            json(&serde_json::json!({ "ok": true, "results": results }))
        }
        Query::HarnessSync { force } => {
            let targets = engine.harness_sync(*force)?;
            json(&docs::HarnessReport::new(&targets))
        }
    })
}
