//! What a subcommand answered (HCP.md §10.1): one [`Outcome`] per report
//! and lifecycle subcommand, with ONE `Serialize` — the exact `--json`
//! document of `hcpx`, built from the engine's documents
//! (`engine::ops::docs`, which the bootstrap pack's builtin operations
//! answer with too) and the command layer's own (`command::docs`) — and
//! ONE `Display`: the words the CLI prints on stdout and the TUI shows,
//! styled (see `command::style`). What goes beside the words (stderr on
//! the CLI: warnings, the error of one pack of several) is
//! [`Outcome::notes`], and the error that ended a run that stopped
//! part-way is [`Outcome::error`].

use crate::command::docs::{self as own, UninstallLine};
use crate::command::text;
use crate::engine::error::Error;
use crate::engine::harness::{TargetInfo, TargetStatus};
use crate::engine::lint::LintReport;
use crate::engine::ops::VerifyReport;
use crate::engine::ops::catalogs::CatalogChange;
use crate::engine::ops::catalogs::CatalogInfo;
use crate::engine::ops::context::ContextReport;
use crate::engine::ops::docs::{self, Success};
use crate::engine::ops::doctor::{DoctorReport, Fixed};
use crate::engine::ops::harness::HarnessChange;
use crate::engine::ops::list::{ListRow, SearchHit};
use crate::engine::ops::project::{InitOutcome, RemoveOutcome};
use crate::engine::ops::show::PackDetails;
use crate::engine::ops::sources::{Listing, PackResult, SourceRun};
use crate::engine::ops::sync::SyncResult;
use crate::engine::ops::upgrade::UpgradeResult;
use crate::engine::ops::upgrade::{OutdatedPack, problems_error};
use crate::engine::ops::{ConnectOutcome, ExecResult, InstallOutcome, Toggle, UninstallOutcome};
use crate::engine::policy::availability::PackAvailability;
use crate::engine::policy::grants::GrantsFrom;
use crate::engine::policy::why::Explanation;
use crate::fixline::{FixFlags, with_hint};
use serde::{Serialize, Serializer};
use std::fmt;

/// A subcommand's answer.
#[derive(Debug, Clone)]
pub enum Outcome {
    Doctor {
        report: DoctorReport,
        /// With `--fix`: what was repaired.
        fixed: Option<Vec<Fixed>>,
    },
    /// The report, and its `integrity` error (with its hint rendered).
    Verify(VerifyReport, Option<Error>),
    Show(Box<PackDetails>),
    Availability {
        principal: String,
        packs: Vec<PackAvailability>,
    },
    Why {
        answer: Explanation,
        /// The fix of each unmet condition as the front-end's command line.
        fixes: Vec<Option<String>>,
    },
    List(Vec<ListRow>),
    /// `search WORD...`: the catalog packs found, among how many catalogs.
    Search {
        words: Vec<String>,
        hits: Vec<SearchHit>,
        catalogs: usize,
    },
    Catalogs(Vec<CatalogInfo>),
    HarnessList(Vec<TargetInfo>),
    HarnessStatus(Vec<TargetStatus>),
    /// `context`: each harness's listing and its cost (§17).
    Context(ContextReport),
    Outdated(Vec<OutdatedPack>),
    /// `grant` or `revoke`: what changed.
    Granted {
        principal: String,
        grant: String,
        revoke: bool,
        changed: bool,
        /// When this grant created the store's `grants`: where what held
        /// until then was read (§9.4).
        written_from: Option<GrantsFrom>,
    },
    /// `activate` or `deactivate`: each pack done, then the error that
    /// stopped the run (its fix rendered as its hint).
    Toggled {
        activate: bool,
        done: Vec<Toggle>,
        error: Option<Error>,
    },
    /// `uninstall` of one pack.
    Uninstalled(UninstallOutcome),
    /// `uninstall` of several: each its own change; the first failure.
    UninstalledSeveral {
        lines: Vec<UninstallLine>,
        error: Option<Error>,
    },
    Connected(ConnectOutcome),
    /// `exec`: what the command did; without `--json` its output went to
    /// the front-end's sink as it ran, and what is here is what was
    /// captured (a builtin operation's text, the runtime's `hcpx:` lines).
    Executed(Box<ExecResult>),
    /// `install` of one source that came to one pack.
    Installed(Box<InstallOutcome>),
    /// `install --list` of one source.
    Listed(Listing),
    /// `install` of several sources or packs; `flags` render the fixes of
    /// the failures as the front-end's command lines.
    InstalledSeveral {
        runs: Vec<SourceRun>,
        flags: FixFlags,
    },
    /// `lint`: one report per path (`ok` already under `--deny-warnings`).
    Linted(Vec<LintReport>),
    /// `upgrade`: each pack looked at, and the error that stopped it.
    Upgraded {
        results: Vec<UpgradeResult>,
        /// The packs not compared (§13.6: `missing`, `not_checked`, ...).
        problems: Vec<OutdatedPack>,
        error: Option<Error>,
        dry_run: bool,
    },
    /// `sync`: each pack of the lock file, and the error that stopped it.
    Synced {
        results: Vec<SyncResult>,
        error: Option<Error>,
    },
    /// `catalog add` (`added`) or `catalog remove`.
    CatalogChanged {
        change: CatalogChange,
        added: bool,
    },
    /// `harness enable` (`enabled`) or `harness disable`.
    HarnessChanged {
        change: HarnessChange,
        enabled: bool,
    },
    /// `harness sync`: every enabled target afterwards.
    HarnessSynced(Vec<TargetStatus>),
    /// `init`: the project's files written (§15.3).
    Initialized(InitOutcome),
    /// `remove`: each pack removed, and the error that stopped it.
    Removed {
        results: Vec<RemoveOutcome>,
        error: Option<Error>,
    },
}

impl Outcome {
    /// The exit code of §10.2: 1 when doctor found a problem or a Skill is
    /// not placed, verify's `integrity` code, else 0.
    pub fn exit_code(&self) -> i32 {
        match self {
            Outcome::Doctor { report, .. } => i32::from(!report.ok()),
            Outcome::HarnessStatus(targets) | Outcome::HarnessSynced(targets) => {
                i32::from(!docs::HarnessReport::new(targets).ok)
            }
            Outcome::Verify(_, error) => error.as_ref().map_or(0, |e| e.code.exit_code()),
            // Over `--max-percent` (§17.5).
            Outcome::Context(report) => i32::from(!report.ok),
            Outcome::Executed(result) => result.exit_code,
            Outcome::Linted(reports) => i32::from(!reports.iter().all(|r| r.ok)),
            Outcome::InstalledSeveral { runs, .. } => first_failure(runs)
                .map_or(i32::from(runs.iter().any(run_through_link)), |e| {
                    e.code.exit_code()
                }),
            // A Skill a project target reached through a link did not get
            // (§15.4): said on stderr, exit 1.
            Outcome::Installed(o) => i32::from(through_link(&o.harnesses)),
            Outcome::Toggled { error, .. }
            | Outcome::UninstalledSeveral { error, .. }
            | Outcome::Upgraded { error, .. }
            | Outcome::Synced { error, .. }
            | Outcome::Removed { error, .. } => error.as_ref().map_or(0, |e| e.code.exit_code()),
            Outcome::Outdated(packs) => {
                problems_error(packs, false).map_or(0, |e| e.code.exit_code())
            }
            _ => 0,
        }
    }

    /// The error a subcommand that ran reports beside its answer (verify's
    /// `integrity`, the error that stopped a run part-way): in its document
    /// with `--json`, after its words and notes else.
    pub fn error(&self) -> Option<Error> {
        match self {
            Outcome::Verify(_, error) => error.clone(),
            Outcome::Toggled { error, .. }
            | Outcome::UninstalledSeveral { error, .. }
            | Outcome::Upgraded { error, .. }
            | Outcome::Synced { error, .. }
            | Outcome::Removed { error, .. } => error.clone(),
            Outcome::Outdated(packs) => problems_error(packs, false),
            _ => None,
        }
    }

    /// The error that makes its exit code that error's: [`Outcome::error`],
    /// or the first pack (or source) that failed of an `install` of
    /// several (whose words are among its notes, with its hint rendered
    /// with the run's flags). A front-end that says one error for a run
    /// (the TUI's error dialog) says this one.
    pub fn failure(&self) -> Option<Error> {
        match self {
            Outcome::InstalledSeveral { runs, flags } => {
                first_failure(runs).map(|e| with_hint(e, flags))
            }
            other => other.error(),
        }
    }

    /// The words that go beside the answer (stderr on the CLI), in order:
    /// warnings of the packs and of harness targets, and the error of a
    /// pack when the run went on past it; empty for most outcomes. An
    /// `exec`'s are the captured `stderr`, as it is.
    pub fn notes(&self) -> String {
        let mut w = String::new();
        let _ = match self {
            Outcome::Toggled { done, .. } => text::activate::write_notes(&mut w, done),
            Outcome::Uninstalled(o) => text::uninstall::write_notes(&mut w, o),
            Outcome::UninstalledSeveral { lines, .. } => {
                text::uninstall::write_line_notes(&mut w, lines)
            }
            Outcome::Installed(o) => text::install::write_notes(&mut w, o),
            Outcome::Upgraded { results, .. } => text::upgrade::write_notes(&mut w, results),
            Outcome::InstalledSeveral { runs, flags } => {
                text::install::write_run_notes(&mut w, &hinted(runs, flags))
            }
            Outcome::HarnessChanged { change, .. } => {
                text::harness::write_conflicts(&mut w, &change.targets)
            }
            Outcome::HarnessSynced(targets) => text::harness::write_conflicts(&mut w, targets),
            Outcome::Context(report) => text::context::write_notes(&mut w, report),
            Outcome::Initialized(done) => text::project::write_init_notes(&mut w, done),
            Outcome::Executed(result) => {
                w.push_str(&result.stderr);
                Ok(())
            }
            _ => Ok(()),
        };
        w
    }
}

impl Outcome {
    /// The notes that go on stderr under `--json` too: the harnesses over
    /// `context --max-percent`, which stderr names (§17.5).
    pub fn json_notes(&self) -> String {
        match self {
            Outcome::Context(_) => self.notes(),
            _ => String::new(),
        }
    }
}

/// The first pack (or source) of `runs` that failed, its error.
fn first_failure(runs: &[SourceRun]) -> Option<&Error> {
    runs.iter().find_map(|run| match run {
        SourceRun::Done(results) => results.iter().find_map(PackResult::error),
        SourceRun::Listed(_) => None,
    })
}

/// `runs` with each failure's fix rendered as its hint, for its words.
fn hinted(runs: &[SourceRun], flags: &FixFlags) -> Vec<SourceRun> {
    let mut runs = runs.to_vec();
    for run in &mut runs {
        if let SourceRun::Done(results) = run {
            for result in results {
                if let PackResult::Failed(failed) = result {
                    failed.error = with_hint(&failed.error, flags);
                }
            }
        }
    }
    runs
}

/// The JSON of one SOURCE of `install` of several: its listing with `ok`,
/// or one entry per pack.
fn run_values(run: &SourceRun) -> Vec<serde_json::Value> {
    let value = |v: serde_json::Result<serde_json::Value>| v.unwrap_or_default();
    match run {
        SourceRun::Listed(listing) => {
            let mut doc = value(serde_json::to_value(listing));
            if let Some(map) = doc.as_object_mut() {
                map.insert("ok".into(), true.into());
            }
            vec![doc]
        }
        SourceRun::Done(results) => results
            .iter()
            .map(|r| value(serde_json::to_value(r)))
            .collect(),
    }
}

impl Serialize for Outcome {
    /// A report's document here, a lifecycle subcommand's in
    /// [`Outcome::serialize_lifecycle`].
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Doctor { report, fixed } => docs::Doctor {
                ok: report.ok(),
                report,
                fixed: fixed.as_deref(),
            }
            .serialize(s),
            Outcome::Verify(report, error) => docs::Verify {
                ok: report.ok,
                packs: &report.packs,
                error: error.as_ref(),
            }
            .serialize(s),
            Outcome::Show(details) => Success::new(details).serialize(s),
            Outcome::Availability { principal, packs } => Success::new(docs::Packs {
                principal: Some(principal.clone()),
                packs: packs.iter().collect(),
            })
            .serialize(s),
            Outcome::Why { answer, fixes } => Success::new(docs::Why {
                principal: &answer.principal,
                grants_from: answer.grants_from,
                pack_id: &answer.pack_id,
                verb_key: answer.verb_key.as_deref(),
                executable: answer.executable,
                reason: answer.reason(),
                explanation: &answer.explanation,
                fix: fixes.first().cloned().flatten(),
                reasons: answer.unmet.iter().map(|u| &u.reason).collect(),
                fixes: fixes.clone(),
            })
            .serialize(s),
            Outcome::List(rows) => Success::new(docs::Packs {
                principal: None,
                packs: rows.iter().collect(),
            })
            .serialize(s),
            Outcome::Catalogs(all) => Success::new(docs::Catalogs { catalogs: all }).serialize(s),
            Outcome::Search { words, hits, .. } => Success::new(own::Search {
                query: words.join(" "),
                packs: hits,
            })
            .serialize(s),
            Outcome::HarnessList(targets) => Success::new(docs::Targets { targets }).serialize(s),
            Outcome::HarnessStatus(targets) => docs::HarnessReport::new(targets).serialize(s),
            Outcome::Context(report) => report.serialize(s),
            Outcome::Outdated(packs) => {
                let error = problems_error(packs, false);
                Success {
                    ok: error.is_none(),
                    body: docs::Outdated {
                        packs,
                        error: error.as_ref(),
                    },
                }
                .serialize(s)
            }
            Outcome::Granted {
                principal,
                grant,
                changed,
                written_from,
                ..
            } => Success::new(docs::Granted {
                principal,
                grant,
                changed: *changed,
                enforced_now: written_from.is_some(),
                written_from: *written_from,
            })
            .serialize(s),
            lifecycle => lifecycle.serialize_lifecycle(s),
        }
    }
}

impl Outcome {
    fn serialize_lifecycle<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Toggled { done, error, .. } => docs::Toggled {
                ok: error.is_none(),
                results: done,
                error: error.as_ref(),
            }
            .serialize(s),
            Outcome::Uninstalled(o) => Success::new(o).serialize(s),
            Outcome::UninstalledSeveral { lines, error } => own::Results {
                ok: error.is_none(),
                results: lines,
                error: error.as_ref(),
            }
            .serialize(s),
            Outcome::Connected(o) => Success::new(o).serialize(s),
            Outcome::Executed(result) => result.serialize(s),
            Outcome::Installed(o) => Success::new(o).serialize(s),
            Outcome::Listed(listing) => Success::new(listing).serialize(s),
            Outcome::InstalledSeveral { runs, flags } => {
                let error = first_failure(runs).map(|e| with_hint(e, flags));
                own::Several {
                    ok: error.is_none(),
                    results: hinted(runs, flags).iter().flat_map(run_values).collect(),
                    error: error.as_ref(),
                }
                .serialize(s)
            }
            Outcome::Linted(reports) => match reports.as_slice() {
                [one] => one.serialize(s),
                many => own::LintMany {
                    ok: many.iter().all(|r| r.ok),
                    results: many,
                }
                .serialize(s),
            },
            Outcome::Upgraded {
                results,
                problems,
                error,
                ..
            } => own::Upgraded {
                ok: error.is_none(),
                results,
                packs: problems,
                error: error.as_ref(),
            }
            .serialize(s),
            Outcome::Synced { results, error } => own::Results {
                ok: error.is_none(),
                results,
                error: error.as_ref(),
            }
            .serialize(s),
            Outcome::CatalogChanged { change, .. } => Success::new(change).serialize(s),
            Outcome::HarnessChanged { change, .. } => Success::new(own::HarnessChange {
                changed: change.changed.iter().map(|t| t.as_str()).collect(),
                targets: &change.targets,
            })
            .serialize(s),
            Outcome::HarnessSynced(targets) => docs::HarnessReport::new(targets).serialize(s),
            Outcome::Initialized(done) => Success::new(done).serialize(s),
            Outcome::Removed { results, error } => own::Results {
                ok: error.is_none(),
                results,
                error: error.as_ref(),
            }
            .serialize(s),
            // The reports' documents are [`Serialize::serialize`]'s.
            _ => s.serialize_unit(),
        }
    }

    /// The words of a lifecycle outcome.
    fn write_lifecycle(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Toggled { activate, done, .. } => text::activate::write(f, done, *activate),
            Outcome::Uninstalled(o) => text::uninstall::write(f, o),
            Outcome::UninstalledSeveral { lines, .. } => text::uninstall::write_lines(f, lines),
            Outcome::Connected(o) => text::connect::write(f, o),
            Outcome::Executed(result) => f.write_str(&result.stdout),
            Outcome::Installed(o) => text::install::write(f, o),
            Outcome::Listed(listing) => text::install::write_listing(f, listing),
            Outcome::InstalledSeveral { runs, .. } => text::install::write_runs(f, runs),
            Outcome::Linted(reports) => text::lint::write(f, reports),
            Outcome::Upgraded {
                results,
                problems,
                dry_run,
                ..
            } => text::upgrade::write(f, results, problems, *dry_run),
            Outcome::Synced { results, .. } => text::sync::write(f, results),
            Outcome::CatalogChanged { change, added } => {
                let verb = if *added { "added" } else { "removed" };
                text::catalog::write_change(f, change, verb)
            }
            Outcome::HarnessChanged { change, enabled } => {
                let verb = if *enabled { "enabled" } else { "disabled" };
                let changed: Vec<&str> = change.changed.iter().map(|t| t.as_str()).collect();
                text::harness::write_change(f, &changed, &change.targets, verb)
            }
            Outcome::HarnessSynced(targets) => text::harness::write_report(f, targets),
            Outcome::Initialized(done) => text::project::write_init(f, done),
            Outcome::Removed { results, .. } => text::project::write_removed(f, results),
            // The reports' words are [`fmt::Display::fmt`]'s.
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Doctor { report, fixed } => text::doctor::write(f, report, fixed.as_deref()),
            Outcome::Verify(report, _) => text::verify::write(f, &report.packs),
            Outcome::Show(details) => text::show::write(f, details),
            Outcome::Availability { principal, packs } => {
                text::availability::write(f, principal, packs)
            }
            Outcome::Why { answer, fixes } => text::why::write(f, answer, fixes),
            Outcome::List(rows) => text::list::write(f, rows),
            Outcome::Search {
                words,
                hits,
                catalogs,
            } => text::search::write(f, words, hits, *catalogs),
            Outcome::Catalogs(all) => text::catalog::write_list(f, all),
            Outcome::HarnessList(targets) => text::harness::write_list(f, targets),
            Outcome::HarnessStatus(targets) => text::harness::write_report(f, targets),
            Outcome::Context(report) => text::context::write(f, report),
            Outcome::Outdated(packs) => text::outdated::write(f, packs),
            Outcome::Granted {
                principal,
                grant,
                revoke,
                changed,
                written_from,
            } => text::grant::write(f, principal, grant, (*revoke, *changed, *written_from)),
            lifecycle => lifecycle.write_lifecycle(f),
        }
    }
}

/// Whether a Skill was not placed because its project target is reached
/// through a link (§15.4).
fn through_link(lines: &[crate::engine::harness::HarnessLine]) -> bool {
    lines
        .iter()
        .any(|l| matches!(l.taken, Some(crate::engine::harness::plan::Taken::Link(_))))
}

/// [`through_link`] for any pack of an `install` or `add` run.
fn run_through_link(run: &SourceRun) -> bool {
    match run {
        SourceRun::Done(results) => results.iter().any(|r| match r {
            PackResult::Installed(done) => through_link(&done.outcome.harnesses),
            PackResult::Failed(_) => false,
        }),
        SourceRun::Listed(_) => false,
    }
}
