//! The `--json` documents of the lifecycle subcommands that are the
//! command layer's own (HCP.md §10.1): the per-pack results of a run that
//! goes on past a failure or stops part-way (`uninstall` of several,
//! `install` of several, `upgrade` with the packs it could not compare,
//! `sync`), `lint` of several, and what
//! `harness enable|disable` changed. The rest are the engine's documents
//! (`engine::ops::docs`), which its builtin operations write too.

use crate::engine::error::Error;
use crate::engine::harness::TargetStatus;
use crate::engine::lint::LintReport;
use crate::engine::ops::UninstallOutcome;
use crate::engine::ops::upgrade::{OutdatedPack, UpgradeResult};
use serde::Serialize;

/// One pack's line of `uninstall` of several.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum UninstallLine {
    Done {
        ok: bool,
        #[serde(flatten)]
        outcome: UninstallOutcome,
    },
    Failed {
        ok: bool,
        pack_id: String,
        error: Error,
    },
}

/// `{"ok", "results", "error"?}`: the per-pack results of a run, and the
/// error that stopped it (or the first failure).
#[derive(Serialize)]
pub struct Results<'a, T> {
    pub ok: bool,
    pub results: &'a [T],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a Error>,
}

/// `upgrade`: `{"ok", "results", "packs"?, "error"?}` (HCP.md §13.7), with
/// `packs` the packs it could not compare — `missing`, `lint_failed`,
/// `renamed`, `not_checked`, each with its `reason`, `hint` and `source` as
/// `outdated` lists them (§13.6) — when there are any, so a caller need not
/// read them out of the error's message.
#[derive(Serialize)]
pub struct Upgraded<'a> {
    pub ok: bool,
    pub results: &'a [UpgradeResult],
    #[serde(skip_serializing_if = "<[OutdatedPack]>::is_empty")]
    pub packs: &'a [OutdatedPack],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a Error>,
}

/// `install` of several sources or packs: one entry per pack (or per
/// source that failed as a whole, or per listing).
#[derive(Serialize)]
pub struct Several<'a> {
    pub ok: bool,
    pub results: Vec<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a Error>,
}

/// `lint` of several paths.
#[derive(Serialize)]
pub struct LintMany<'a> {
    pub ok: bool,
    pub results: &'a [LintReport],
}

/// `harness enable|disable`: the targets whose flag changed, and every
/// enabled target.
#[derive(Serialize)]
pub struct HarnessChange<'a> {
    pub changed: Vec<&'static str>,
    pub targets: &'a [TargetStatus],
}

/// `search WORD...`: `{"ok": true, "query": "WORD ...", "packs": [...]}`.
#[derive(Debug, Clone, Serialize)]
pub struct Search<'a> {
    pub query: String,
    pub packs: &'a [crate::engine::ops::list::SearchHit],
}
