//! `why PACK [VERB]` (HCP.md §11.2–§11.3, §10.1): every unmet condition for
//! a command, first one first (of a pack not installed, not the activation
//! and connection that installing comes before), each in plain words with the [`Fix`] that
//! meets it when hcpx has one. Reads the same availability as everything
//! else (§11.2); front-ends render the fixes as command lines. It names the
//! principal and where its grants were read (§9.3).

use crate::engine::error::Fix;
use crate::engine::pack::manifest::{BindingKind, Manifest};
use crate::engine::policy::availability::{PackAvailability, Refusal, Status};
use serde::{Serialize, Serializer};
use std::fmt;

/// Why a pack or command is not executable: a refusal of §11.3, or one of
/// the pack-level conditions before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhyReason {
    /// In a catalog, not installed (`not_installed`).
    NotInstalled,
    /// The installed copy fails lint (`unavailable`).
    Unavailable,
    /// The pack has no such command (`not_found`).
    NotFound,
    /// A refusal of §11.3 (its reason string).
    Refused(Refusal),
}

impl fmt::Display for WhyReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhyReason::NotInstalled => f.write_str("not_installed"),
            WhyReason::Unavailable => f.write_str("unavailable"),
            WhyReason::NotFound => f.write_str("not_found"),
            WhyReason::Refused(refusal) => refusal.fmt(f),
        }
    }
}

impl Serialize for WhyReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One unmet condition: what it is, in words, and what fixes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmet {
    pub reason: WhyReason,
    pub explanation: String,
    pub fix: Option<Fix>,
}

/// The explanation for one pack or command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    pub pack_id: String,
    /// The principal it was worked out for, and where its grants for the
    /// pack were read (§9.3).
    pub principal: String,
    pub grants_from: crate::engine::policy::grants::GrantsFrom,
    pub verb_key: Option<String>,
    pub executable: bool,
    /// In words: the first unmet condition, or what is executable.
    pub explanation: String,
    /// Every unmet condition, first one first; empty when executable (or
    /// when a pack without commands has nothing to meet).
    pub unmet: Vec<Unmet>,
}

impl Explanation {
    /// The first unmet condition.
    pub fn reason(&self) -> Option<&WhyReason> {
        self.unmet.first().map(|u| &u.reason)
    }

    /// The fix of the first unmet condition.
    pub fn fix(&self) -> Option<&Fix> {
        self.unmet.first().and_then(|u| u.fix.as_ref())
    }

    fn push(&mut self, reason: WhyReason, explanation: String, fix: Option<Fix>) {
        if self.unmet.is_empty() {
            self.explanation.clone_from(&explanation);
        }
        self.unmet.push(Unmet {
            reason,
            explanation,
            fix,
        });
    }
}

/// Explains why `verb_key` (or, without one, the pack: its first executable
/// command, else its first command) is not executable.
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
        principal: principal.to_string(),
        grants_from: avail.grants_from,
        verb_key: verb_key.map(str::to_string),
        executable: false,
        explanation: String::new(),
        unmet: Vec::new(),
    };
    if avail.status == Status::Unavailable {
        out.push(
            WhyReason::Unavailable,
            broken(avail),
            pack_dir.map(|d| Fix::Lint {
                path: d.to_string(),
            }),
        );
        return out;
    }
    let command = match verb_key {
        Some(key) => avail.command(key),
        None => avail
            .commands
            .iter()
            .find(|c| c.executable)
            .or(avail.commands.first()),
    };
    if !avail.installed {
        out.push(
            WhyReason::NotInstalled,
            format!("{id} is in a catalog but not installed"),
            Some(Fix::Install {
                pack: id.to_string(),
                force: false,
            }),
        );
    } else if let (Some(key), None) = (verb_key, command) {
        let keys: Vec<&str> = avail.commands.iter().map(|c| c.verb_key.as_str()).collect();
        let words = if keys.is_empty() {
            format!("{id} has no commands")
        } else {
            format!("{id} has no command `{key}`; it has: {}", keys.join(", "))
        };
        out.push(WhyReason::NotFound, words, None);
        return out;
    }
    let Some(command) = command else {
        if out.unmet.is_empty() {
            let skill = avail.kind == crate::engine::pack::manifest::PackKind::Skill;
            no_commands(&mut out, manifest.is_some_and(|m| m.sense_only), skill);
        }
        return out;
    };
    // A pack that is not installed is neither activated nor connected:
    // saying so too would say it is installed ("installed but not
    // activated"). Its other conditions (a grant, a program) hold apart.
    let follows_from_not_installed = |r: &Refusal| {
        !avail.installed && matches!(r, Refusal::NotActivated | Refusal::NotConnected)
    };
    for reason in command
        .reasons
        .iter()
        .filter(|r| !follows_from_not_installed(r))
    {
        let (words, fix) = describe(reason, id, &command.verb_key, manifest, principal);
        out.push(WhyReason::Refused(reason.clone()), words, fix);
    }
    if out.unmet.is_empty() {
        out.executable = true;
        out.explanation = match verb_key {
            Some(key) => format!("{id} {key} is executable for `{principal}`"),
            None => format!(
                "{id} is ready: `{}` is executable for `{principal}`",
                command.verb_key
            ),
        };
    }
    out
}

/// Why an `unavailable` pack is so, in words: its first problem.
fn broken(avail: &PackAvailability) -> String {
    let first = avail
        .problems
        .first()
        .map(String::as_str)
        .unwrap_or("it fails lint");
    let copy = if avail.installed {
        "installed"
    } else {
        "catalog"
    };
    format!("the {copy} copy of {} is broken: {first}", avail.pack_id)
}

/// What `why` says of an installed pack without commands; a Skill pack
/// (§2.6) is said as what it is, a Skill for harnesses to read.
fn no_commands(out: &mut Explanation, sense_only: bool, skill: bool) {
    let id = out.pack_id.clone();
    if skill {
        out.push(
            WhyReason::Refused(Refusal::SenseOnly),
            format!("{id} is a Skill pack: harnesses read its SKILL.md; it has no commands to run"),
            None,
        );
    } else if sense_only {
        out.push(
            WhyReason::Refused(Refusal::SenseOnly),
            format!("{id} is sense_only: its Skill is for reading, it has no commands to run"),
            None,
        );
    } else {
        out.explanation = format!("{id} has no commands");
    }
}

/// One unmet condition in plain words, and the fix when there is one: what
/// `explain` says for each reason (the TUI's matrix shows every one, exec
/// refuses with the first).
pub fn describe(
    reason: &Refusal,
    id: &str,
    verb: &str,
    manifest: Option<&Manifest>,
    principal: &str,
) -> (String, Option<Fix>) {
    let connect = |secret| {
        Some(Fix::Connect {
            pack: id.to_string(),
            secret,
        })
    };
    match reason {
        Refusal::NotActivated => (
            format!("{id} is installed but not activated"),
            Some(Fix::Activate {
                pack: id.to_string(),
            }),
        ),
        Refusal::NotConnected => match manifest.map(|m| &m.binding) {
            Some(b) if b.kind == BindingKind::Env => (
                format!(
                    "{id} is not connected: its env binding needs {} set",
                    b.env.join(", ")
                ),
                connect(false),
            ),
            Some(b) if b.kind == BindingKind::Secret => (
                format!("{id} is not connected: it needs a secret"),
                connect(true),
            ),
            _ => (format!("{id} is not connected"), connect(false)),
        },
        Refusal::GrantMissing(cap) => (
            format!("principal `{principal}` does not hold `{cap}` for {id}"),
            Some(Fix::Grant {
                principal: principal.to_string(),
                grant: format!("{cap}:{id}"),
            }),
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
