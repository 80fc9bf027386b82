//! The `--json` documents of the subcommands (HCP.md §10.1, §11.3, §11.4),
//! each built once: the CLI prints them, and the bootstrap pack's builtin
//! operations answer with the same ones (`hcpx exec hcp-cli list` works
//! like `hcpx list --json`).

use crate::engine::error::Error;
use crate::engine::ops::Toggle;
use crate::engine::ops::doctor::{DoctorReport, Fixed};
use serde::Serialize;

/// A success document: `{"ok": true, ...fields of body}`.
#[derive(Debug, Serialize)]
pub struct Success<T: Serialize> {
    pub ok: bool,
    #[serde(flatten)]
    pub body: T,
}

impl<T: Serialize> Success<T> {
    pub fn new(body: T) -> Self {
        Success { ok: true, body }
    }
}

/// A failure document: `{"ok": false, "error": {...}}` (§10.1); a
/// refusal for want of consent also has the `results` of §13.7 it refused
/// (§11.1: an escalating replacement by `install`).
#[derive(Debug, Serialize)]
pub struct Failure<'a> {
    pub ok: bool,
    pub error: &'a Error,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub results: Option<&'a [serde_json::Value]>,
}

impl<'a> Failure<'a> {
    pub fn new(error: &'a Error) -> Self {
        Failure {
            ok: false,
            error,
            results: error.context.results.as_deref(),
        }
    }
}

/// `list` and `availability` (§11.3): the packs, and for availability the
/// principal they were computed for.
#[derive(Debug, Serialize)]
pub struct Packs<T: Serialize> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    pub packs: Vec<T>,
}

/// `activate` and `deactivate`: what was done, and the error that stopped
/// the rest.
#[derive(Debug, Serialize)]
pub struct Toggled<'a> {
    pub ok: bool,
    pub results: &'a [Toggle],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a Error>,
}

/// `doctor`: its checks, and with `--fix` what was repaired.
#[derive(Debug, Serialize)]
pub struct Doctor<'a> {
    pub ok: bool,
    #[serde(flatten)]
    pub report: &'a DoctorReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed: Option<&'a [Fixed]>,
}

/// `verify` (§13.5): each pack against the lock file, and the `integrity`
/// error beside them when one differs.
#[derive(Debug, Serialize)]
pub struct Verify<'a> {
    pub ok: bool,
    pub packs: &'a [crate::engine::ops::VerifyPack],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a Error>,
}

/// `why` (§11.3): the first unmet condition (`reason`, `explanation`,
/// `fix`) and every one (`reasons`, and `fixes` beside them: the command
/// line for each, `null` where there is none). The front-end renders the
/// fixes, with the flags it was given.
#[derive(Debug, Serialize)]
pub struct Why<'a> {
    pub principal: &'a str,
    pub grants_from: crate::engine::policy::grants::GrantsFrom,
    pub pack_id: &'a str,
    pub verb_key: Option<&'a str>,
    pub executable: bool,
    pub reason: Option<&'a crate::engine::policy::why::WhyReason>,
    pub explanation: &'a str,
    pub fix: Option<String>,
    pub reasons: Vec<&'a crate::engine::policy::why::WhyReason>,
    pub fixes: Vec<Option<String>>,
}

/// `outdated` (§13.6): the packs with a newer version or new content.
#[derive(Debug, Serialize)]
pub struct Outdated<'a> {
    pub packs: &'a [crate::engine::ops::upgrade::OutdatedPack],
    /// The packs that could not be compared (exit 1), named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a crate::engine::error::Error>,
}

/// `catalog list` and `catalog update` (§13.2).
#[derive(Debug, Serialize)]
pub struct Catalogs<'a> {
    pub catalogs: &'a [crate::engine::ops::catalogs::CatalogInfo],
}

/// `harness list` (§12.4): every target.
#[derive(Debug, Serialize)]
pub struct Targets<'a, T: Serialize> {
    pub targets: &'a [T],
}

/// `harness status` and `harness sync` (§12.6–§12.7): `ok` only when every
/// Skill is placed.
#[derive(Debug, Serialize)]
pub struct HarnessReport<'a> {
    pub ok: bool,
    pub targets: &'a [crate::engine::harness::TargetStatus],
}

impl<'a> HarnessReport<'a> {
    pub fn new(targets: &'a [crate::engine::harness::TargetStatus]) -> Self {
        use crate::engine::harness::plan::SkillState;
        let ok = targets
            .iter()
            .all(|t| t.skills.iter().all(|s| s.state == SkillState::Placed));
        HarnessReport { ok, targets }
    }
}

/// `grant` and `revoke` (§9.4): what changed.
#[derive(Debug, Serialize)]
pub struct Granted<'a> {
    pub principal: &'a str,
    pub grant: &'a str,
    pub changed: bool,
    /// True when this grant created the store's `grants`, writing first
    /// what held until then (§9.4).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub enforced_now: bool,
    /// Then: where what held until then was read (§9.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_from: Option<crate::engine::policy::grants::GrantsFrom>,
}
