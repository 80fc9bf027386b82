//! What a report answered (HCP.md §10.1): one [`Outcome`] per report, with
//! ONE `Serialize` — the exact `--json` document of `hcpx`, built from the
//! engine's documents (`engine::ops::docs`, which the bootstrap pack's
//! builtin operations answer with too) — and ONE `Display`: the words the
//! CLI prints and the TUI shows, styled (see `command::style`).

use crate::command::text;
use crate::engine::error::Error;
use crate::engine::harness::{TargetInfo, TargetStatus};
use crate::engine::ops::VerifyReport;
use crate::engine::ops::catalogs::CatalogInfo;
use crate::engine::ops::docs::{self, Success};
use crate::engine::ops::doctor::{DoctorReport, Fixed};
use crate::engine::ops::list::ListRow;
use crate::engine::ops::show::PackDetails;
use crate::engine::ops::upgrade::OutdatedPack;
use crate::engine::policy::availability::PackAvailability;
use crate::engine::policy::why::Explanation;
use serde::{Serialize, Serializer};
use std::fmt;

/// A report's answer.
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
    Catalogs(Vec<CatalogInfo>),
    HarnessList(Vec<TargetInfo>),
    HarnessStatus(Vec<TargetStatus>),
    Outdated(Vec<OutdatedPack>),
    /// `grant` or `revoke`: what changed.
    Granted {
        principal: String,
        grant: String,
        revoke: bool,
        changed: bool,
        enforced_now: bool,
    },
}

impl Outcome {
    /// The exit code of §10.2: 1 when doctor found a problem or a Skill is
    /// not placed, verify's `integrity` code, else 0.
    pub fn exit_code(&self) -> i32 {
        match self {
            Outcome::Doctor { report, .. } => i32::from(!report.ok()),
            Outcome::HarnessStatus(targets) => i32::from(!docs::HarnessReport::new(targets).ok),
            Outcome::Verify(_, error) => error.as_ref().map_or(0, |e| e.code.exit_code()),
            _ => 0,
        }
    }

    /// The error a report that ran reports beside its answer (verify's
    /// `integrity`): in its document with `--json`, after its words else.
    pub fn error(&self) -> Option<Error> {
        match self {
            Outcome::Verify(_, error) => error.clone(),
            _ => None,
        }
    }
}

impl Serialize for Outcome {
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
            Outcome::HarnessList(targets) => Success::new(docs::Targets { targets }).serialize(s),
            Outcome::HarnessStatus(targets) => docs::HarnessReport::new(targets).serialize(s),
            Outcome::Outdated(packs) => Success::new(docs::Outdated { packs }).serialize(s),
            Outcome::Granted {
                principal,
                grant,
                changed,
                enforced_now,
                ..
            } => Success::new(docs::Granted {
                principal,
                grant,
                changed: *changed,
                enforced_now: *enforced_now,
            })
            .serialize(s),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Doctor { report, fixed } => text::doctor::write(f, report, fixed.as_deref()),
            Outcome::Verify(report, _) => text::verify::write(f, &report.packs),
            Outcome::Show(details) => text::show::write(f, details),
            Outcome::Availability { packs, .. } => text::availability::write(f, packs),
            Outcome::Why { answer, fixes } => text::why::write(f, answer, fixes),
            Outcome::List(rows) => text::list::write(f, rows),
            Outcome::Catalogs(all) => text::catalog::write_list(f, all),
            Outcome::HarnessList(targets) => text::harness::write_list(f, targets),
            Outcome::HarnessStatus(targets) => text::harness::write_report(f, targets),
            Outcome::Outdated(packs) => text::outdated::write(f, packs),
            Outcome::Granted {
                principal,
                grant,
                revoke,
                changed,
                enforced_now,
            } => text::grant::write(f, principal, grant, (*revoke, *changed, *enforced_now)),
        }
    }
}
