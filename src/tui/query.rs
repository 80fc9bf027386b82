//! The `:` line's reports: the `hcpx` subcommands that answer with a
//! document rather than a change the browser shows — `doctor [--fix]`
//! (§14.7), `verify` (§13.5), `why` (§11.3), `show` (§3, §4, §11.2),
//! `availability` (§11.2), `catalog` (§13.2), `sync` (§13.8) and `harness
//! list|status|sync` (§12.4–§12.8). Each runs in a worker by the engine
//! call its CLI subcommand makes; the result is the subcommand's JSON
//! document, pretty-printed, for the Output pane (pack text in it goes
//! through `terminal_safe` there, §14.5).

use crate::engine::error::Error;
use crate::engine::ops::Engine;
use crate::engine::ops::doctor;
use crate::engine::ops::sync::SyncOptions;
use crate::engine::policy::why::{self, Explanation};
use serde::Serialize;

/// One report subcommand and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    Doctor {
        fix: bool,
    },
    Verify(Vec<String>),
    Why {
        pack: String,
        verb: Option<String>,
    },
    Show(String),
    Availability(Option<String>),
    CatalogList,
    CatalogAdd(String),
    CatalogRemove(String),
    CatalogUpdate,
    Sync {
        lockfile: String,
        frozen: bool,
        prune: bool,
        /// Accept replacements with more reach (§13.8).
        yes: bool,
    },
    HarnessList,
    HarnessStatus(Option<String>),
    HarnessSync,
}

/// What a report answered.
#[derive(Debug, Clone)]
pub enum Answer {
    /// The subcommand's JSON document, pretty-printed.
    Json(String),
    /// `why`: rendered by the app, whose fix lines carry its flags.
    Why(Explanation),
}

impl Query {
    /// The `hcpx` words (without the program name).
    pub fn args(&self) -> Vec<String> {
        let s = |w: &str| w.to_string();
        match self {
            Query::Doctor { fix } => {
                let mut v = vec![s("doctor")];
                if *fix {
                    v.push(s("--fix"));
                }
                v
            }
            Query::Verify(ids) => std::iter::once(s("verify")).chain(ids.clone()).collect(),
            Query::Why { pack, verb } => std::iter::once(s("why"))
                .chain(std::iter::once(pack.clone()))
                .chain(verb.clone())
                .collect(),
            Query::Show(id) => vec![s("show"), id.clone()],
            Query::Availability(id) => std::iter::once(s("availability"))
                .chain(id.clone())
                .collect(),
            Query::CatalogList => vec![s("catalog"), s("list")],
            Query::CatalogAdd(src) => vec![s("catalog"), s("add"), src.clone()],
            Query::CatalogRemove(src) => vec![s("catalog"), s("remove"), src.clone()],
            Query::CatalogUpdate => vec![s("catalog"), s("update")],
            Query::Sync {
                lockfile,
                frozen,
                prune,
                yes,
            } => {
                let mut v = vec![s("sync"), lockfile.clone()];
                if *frozen {
                    v.push(s("--frozen"));
                }
                if *prune {
                    v.push(s("--prune"));
                }
                if *yes {
                    v.push(s("--yes"));
                }
                v
            }
            Query::HarnessList => vec![s("harness"), s("list")],
            Query::HarnessStatus(id) => vec![s("harness"), s("status")]
                .into_iter()
                .chain(id.clone())
                .collect(),
            Query::HarnessSync => vec![s("harness"), s("sync")],
        }
    }

    /// Whether it may change the store, so the browser reads it again.
    pub fn changes(&self) -> bool {
        matches!(
            self,
            Query::Doctor { fix: true }
                | Query::CatalogAdd(_)
                | Query::CatalogRemove(_)
                | Query::CatalogUpdate
                | Query::Sync { .. }
                | Query::HarnessSync
        )
    }

    /// Whether it asks y/n first.
    pub fn asks(&self) -> bool {
        matches!(self, Query::Doctor { fix: true } | Query::Sync { .. })
    }

    /// The question asked before it runs.
    pub fn question(&self) -> String {
        match self {
            Query::Doctor { .. } => {
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

fn json<T: Serialize>(doc: &T) -> Answer {
    Answer::Json(serde_json::to_string_pretty(doc).unwrap_or_else(|e| e.to_string()))
}

/// Runs the query by the engine call its subcommand makes.
pub fn run(engine: &Engine, query: &Query) -> Result<Answer, Error> {
    use serde_json::json;
    Ok(match query {
        Query::Doctor { fix } => {
            let (report, fixed) = if *fix {
                let done = doctor::fix(engine)?;
                (done.report, Some(done.fixed))
            } else {
                (doctor::run(engine), None)
            };
            json(&json!({ "ok": report.ok(), "report": report, "fixed": fixed }))
        }
        Query::Verify(ids) => json(&engine.verify(ids)?),
        Query::Why { pack, verb } => {
            let view = engine.pack_view(pack)?;
            let state = engine.store().read_state()?;
            let avail = engine.pack_availability(&view, &state);
            let dir = view.dir().map(|d| d.display().to_string());
            let answer = why::explain(
                &avail,
                view.manifest(),
                verb.as_deref(),
                engine.principal(),
                dir.as_deref(),
            );
            if answer.reason() == Some(&why::WhyReason::NotFound) {
                let mut err = Error::new(
                    crate::engine::error::ErrorCode::NotFound,
                    answer.explanation.clone(),
                )
                .pack(pack);
                if let Some(verb) = verb {
                    err = err.verb(verb.clone());
                }
                return Err(err);
            }
            Answer::Why(answer)
        }
        Query::Show(id) => json(&crate::engine::ops::show::show(engine, id)?),
        Query::Availability(id) => json(&json!({ "packs": engine.availability(id.as_deref())? })),
        Query::CatalogList => json(&json!({ "catalogs": engine.catalog_list()? })),
        Query::CatalogAdd(src) => json(&engine.catalog_add(src)?),
        Query::CatalogRemove(src) => json(&engine.catalog_remove(src)?),
        Query::CatalogUpdate => json(&json!({ "catalogs": engine.catalog_update()? })),
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
            json(&json!({ "ok": true, "results": results }))
        }
        Query::HarnessList => json(&json!({ "targets": engine.harness_list()? })),
        Query::HarnessStatus(id) => {
            json(&json!({ "targets": engine.harness_status(id.as_deref())? }))
        }
        Query::HarnessSync => json(&json!({ "targets": engine.harness_sync(false)? })),
    })
}
