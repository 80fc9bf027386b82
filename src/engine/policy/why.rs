//! `why PACK [VERB]`: the first unmet condition for a command, in plain
//! words, and the exact `hcpx` command that fixes it. Reads the same
//! availability as everything else (§11.2).

use crate::engine::pack::manifest::{BindingKind, Manifest};
use crate::engine::policy::availability::{PackAvailability, Refusal, Status};
use serde::Serialize;

/// The explanation for one pack or command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    pub pack_id: String,
    pub verb_key: Option<String>,
    pub executable: bool,
    /// The first unmet condition (a §11.3 reason, or `not_installed`,
    /// `unavailable`), if any.
    pub reason: Option<String>,
    pub explanation: String,
    /// The command that fixes it, when hcpx can.
    pub fix: Option<String>,
}

/// Explains why `verb_key` (or, without one, the pack) is not executable.
pub fn explain(
    avail: &PackAvailability,
    manifest: Option<&Manifest>,
    verb_key: Option<&str>,
    principal: &str,
    pack_dir: Option<&str>,
) -> Explanation {
    let id = avail.pack_id.as_str();
    let mut out = Explanation {
        pack_id: id.to_string(),
        verb_key: verb_key.map(str::to_string),
        executable: false,
        reason: None,
        explanation: String::new(),
        fix: None,
    };
    if avail.status == Status::Unavailable {
        out.reason = Some("unavailable".into());
        let first = avail
            .problems
            .first()
            .map(String::as_str)
            .unwrap_or("it fails lint");
        out.explanation = format!("the installed copy of {id} is broken: {first}");
        out.fix = pack_dir.map(|d| format!("hcpx lint {d}"));
        return out;
    }
    if !avail.installed {
        out.reason = Some("not_installed".into());
        out.explanation = format!("{id} is in a catalog but not installed");
        out.fix = Some(format!("hcpx install {id}"));
        return out;
    }
    let command = match verb_key {
        Some(key) => match avail.command(key) {
            Some(c) => Some(c),
            None => {
                out.reason = Some("not_found".into());
                let keys: Vec<&str> = avail.commands.iter().map(|c| c.verb_key.as_str()).collect();
                out.explanation = if keys.is_empty() {
                    format!("{id} has no commands")
                } else {
                    format!("{id} has no command `{key}`; it has: {}", keys.join(", "))
                };
                return out;
            }
        },
        None => avail
            .commands
            .iter()
            .find(|c| c.executable)
            .or(avail.commands.first()),
    };
    let Some(command) = command else {
        let sense_only = manifest.is_some_and(|m| m.sense_only);
        out.reason = sense_only.then(|| "sense_only".into());
        out.explanation = if sense_only {
            format!("{id} is sense_only: its Skill is for reading, it has no commands to run")
        } else {
            format!("{id} has no commands")
        };
        return out;
    };
    let Some(reason) = command.reasons.first() else {
        out.executable = true;
        out.explanation = match verb_key {
            Some(key) => format!("{id} {key} is executable for `{principal}`"),
            None => format!(
                "{id} is ready: `{}` is executable for `{principal}`",
                command.verb_key
            ),
        };
        return out;
    };
    out.reason = Some(reason.to_string());
    let (explanation, fix) = describe(reason, id, &command.verb_key, manifest, principal);
    out.explanation = explanation;
    out.fix = fix;
    out
}

/// One unmet condition in plain words, and the `hcpx` command that fixes it
/// when there is one: what `explain` says for the first reason, for any
/// reason (the TUI's matrix shows every one).
pub fn describe(
    reason: &Refusal,
    id: &str,
    verb: &str,
    manifest: Option<&Manifest>,
    principal: &str,
) -> (String, Option<String>) {
    match reason {
        Refusal::NotActivated => (
            format!("{id} is installed but not activated"),
            Some(format!("hcpx activate {id}")),
        ),
        Refusal::NotConnected => match manifest.map(|m| &m.binding) {
            Some(b) if b.kind == BindingKind::Env => (
                format!(
                    "{id} is not connected: its env binding needs {} set",
                    b.env.join(", ")
                ),
                Some(format!("hcpx connect {id}")),
            ),
            Some(b) if b.kind == BindingKind::Secret => (
                format!("{id} is not connected: it needs a secret"),
                Some(format!("hcpx connect {id} --secret-stdin")),
            ),
            _ => (
                format!("{id} is not connected"),
                Some(format!("hcpx connect {id}")),
            ),
        },
        Refusal::GrantMissing(cap) => (
            format!("principal `{principal}` does not hold `{cap}` for {id}"),
            Some(format!("hcpx grant {principal} {cap}:{id}")),
        ),
        Refusal::AdapterUnsupported { kind } => (
            format!("`{verb}` uses the `{kind}` adapter, which hcpx cannot run"),
            None,
        ),
        Refusal::ProgramNotFound { program, .. } => (
            format!("`{verb}` runs `{program}`, which is not found on PATH or in the pack"),
            None,
        ),
        Refusal::SenseOnly => (
            format!("{id} is sense_only: its commands are described, never run"),
            None,
        ),
    }
}
