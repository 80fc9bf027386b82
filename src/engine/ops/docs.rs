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

/// A failure document: `{"ok": false, "error": {...}}` (§10.1).
#[derive(Debug, Serialize)]
pub struct Failure<'a> {
    pub ok: bool,
    pub error: &'a Error,
}

impl<'a> Failure<'a> {
    pub fn new(error: &'a Error) -> Self {
        Failure { ok: false, error }
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
