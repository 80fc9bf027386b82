//! The capability diff of an upgrade (HCP.md §13.7): a pure function over
//! the old and the new manifest, listing what changes in the pack's reach,
//! each change saying whether it **escalates** (grants the pack more reach
//! than the user agreed to): a new `write` command, `read`→`write`, a new
//! program, a new host, a new env name or secret, a binding kind other than
//! `public`, plane `control`, `sense_only` dropped.
//!
//! Where the spec is silent:
//! - programs are the `process` adapters' programs (as written: a bare name
//!   or `./path`) and `requires.bins`;
//! - hosts are the authority (`host[:port]`, no user info) of each `http`
//!   adapter's URL and of the binding's `base_url`; a URL without
//!   `scheme://` contributes no host of its own (it is relative to
//!   `base_url`);
//! - an env name or secret counts when the binding reads it (kind `env` or
//!   `secret`); a renamed secret is `secret_added`;
//! - the order is fixed: binding, plane, sense_only, env, secret, commands
//!   added, removed, effects, programs, hosts.

use crate::engine::pack::manifest::{Adapter, BindingKind, Effect, Manifest, Plane};
use serde::Serialize;
use std::collections::BTreeSet;

/// One change of a pack's reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    CommandAdded {
        verb_key: String,
        effect: Effect,
    },
    CommandRemoved {
        verb_key: String,
    },
    EffectChanged {
        verb_key: String,
        from: Effect,
        to: Effect,
    },
    BindingChanged {
        from: BindingKind,
        to: BindingKind,
    },
    EnvAdded {
        name: String,
    },
    SecretAdded {
        name: String,
    },
    ProgramAdded {
        program: String,
    },
    HostAdded {
        host: String,
    },
    PlaneChanged {
        from: Plane,
        to: Plane,
    },
    SenseOnlyDropped,
}

/// A change and whether it escalates: `{"kind": K, ..., "escalates": b}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CapabilityChange {
    #[serde(flatten)]
    pub change: Change,
    pub escalates: bool,
}

impl Change {
    /// Whether this change grants the pack more reach (§13.7).
    pub fn escalates(&self) -> bool {
        match self {
            Change::CommandAdded { effect, .. } => *effect == Effect::Write,
            Change::CommandRemoved { .. } => false,
            Change::EffectChanged { from, to, .. } => *from == Effect::Read && *to == Effect::Write,
            Change::BindingChanged { to, .. } => *to != BindingKind::Public,
            Change::EnvAdded { .. }
            | Change::SecretAdded { .. }
            | Change::ProgramAdded { .. }
            | Change::HostAdded { .. }
            | Change::SenseOnlyDropped => true,
            Change::PlaneChanged { to, .. } => *to == Plane::Control,
        }
    }
}

/// Whether any change escalates.
pub fn escalates(changes: &[CapabilityChange]) -> bool {
    changes.iter().any(|c| c.escalates)
}

/// The capability diff of `old` → `new`.
pub fn diff(old: &Manifest, new: &Manifest) -> Vec<CapabilityChange> {
    let mut changes = Vec::new();
    if old.binding.kind != new.binding.kind {
        changes.push(Change::BindingChanged {
            from: old.binding.kind,
            to: new.binding.kind,
        });
    }
    if old.plane != new.plane {
        changes.push(Change::PlaneChanged {
            from: old.plane,
            to: new.plane,
        });
    }
    if old.sense_only && !new.sense_only {
        changes.push(Change::SenseOnlyDropped);
    }
    for name in added(&env_names(old), &env_names(new)) {
        changes.push(Change::EnvAdded { name });
    }
    for name in added(&secret_names(old), &secret_names(new)) {
        changes.push(Change::SecretAdded { name });
    }
    for command in &new.commands {
        if old.command(&command.key).is_none() {
            changes.push(Change::CommandAdded {
                verb_key: command.key.clone(),
                effect: command.effect,
            });
        }
    }
    for command in &old.commands {
        match new.command(&command.key) {
            None => changes.push(Change::CommandRemoved {
                verb_key: command.key.clone(),
            }),
            Some(now) if now.effect != command.effect => changes.push(Change::EffectChanged {
                verb_key: command.key.clone(),
                from: command.effect,
                to: now.effect,
            }),
            Some(_) => {}
        }
    }
    for program in added(&programs(old), &programs(new)) {
        changes.push(Change::ProgramAdded { program });
    }
    for host in added(&hosts(old), &hosts(new)) {
        changes.push(Change::HostAdded { host });
    }
    changes
        .into_iter()
        .map(|change| CapabilityChange {
            escalates: change.escalates(),
            change,
        })
        .collect()
}

/// What `new` has that `old` has not, in order.
fn added(old: &BTreeSet<String>, new: &BTreeSet<String>) -> Vec<String> {
    new.difference(old).cloned().collect()
}

fn env_names(m: &Manifest) -> BTreeSet<String> {
    match m.binding.kind {
        BindingKind::Env => m.binding.env.iter().cloned().collect(),
        _ => BTreeSet::new(),
    }
}

fn secret_names(m: &Manifest) -> BTreeSet<String> {
    match (&m.binding.kind, &m.binding.secret) {
        (BindingKind::Secret, Some(secret)) => BTreeSet::from([secret.name.clone()]),
        _ => BTreeSet::new(),
    }
}

fn programs(m: &Manifest) -> BTreeSet<String> {
    let mut all: BTreeSet<String> = m.requires.bins.iter().cloned().collect();
    for command in &m.commands {
        if let Adapter::Process { program, .. } = &command.adapter {
            all.insert(program.clone());
        }
    }
    all
}

fn hosts(m: &Manifest) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    let urls = m
        .commands
        .iter()
        .filter_map(|c| match &c.adapter {
            Adapter::Http { url, .. } => Some(url.as_str()),
            _ => None,
        })
        .chain(m.binding.base_url.as_deref());
    for url in urls {
        if let Some(host) = host_of(url) {
            all.insert(host);
        }
    }
    all
}

/// `scheme://user@host:port/path` → `host:port`.
fn host_of(url: &str) -> Option<String> {
    let rest = &url[url.find("://")? + 3..];
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pack::manifest::{Binding, Command, OutputKind, SecretSpec};

    fn command(key: &str, effect: Effect, adapter: Adapter) -> Command {
        Command {
            key: key.into(),
            summary: "s".into(),
            effect,
            args: Vec::new(),
            adapter,
            timeout_ms: 1000,
            output: OutputKind::Text,
        }
    }

    fn process(program: &str) -> Adapter {
        Adapter::Process {
            program: program.into(),
            argv: Vec::new(),
            env: Default::default(),
        }
    }

    fn http(url: &str) -> Adapter {
        Adapter::Http {
            method: "GET".into(),
            url: url.into(),
            headers: Default::default(),
            body: None,
        }
    }

    fn base() -> Manifest {
        Manifest {
            id: "acme.x".into(),
            version: "1.0.0".into(),
            commands: vec![
                command("list", Effect::Read, process("ls")),
                command("get", Effect::Read, http("https://api.example.com/x")),
            ],
            ..Manifest::default()
        }
    }

    fn kinds(changes: &[CapabilityChange]) -> Vec<(String, bool)> {
        changes
            .iter()
            .map(|c| {
                let v = serde_json::to_value(c).unwrap_or_default();
                (v["kind"].as_str().unwrap_or("?").to_string(), c.escalates)
            })
            .collect()
    }

    #[test]
    fn every_kind_and_whether_it_escalates() {
        type Edit = fn(&mut Manifest);
        type Case = (&'static str, Edit, Vec<(&'static str, bool)>);
        let table: Vec<Case> = vec![
            ("nothing", |_| {}, vec![]),
            (
                "read command added",
                |m| {
                    m.commands
                        .push(command("more", Effect::Read, process("ls")))
                },
                vec![("command_added", false)],
            ),
            (
                "write command added",
                |m| m.commands.push(command("rm", Effect::Write, process("ls"))),
                vec![("command_added", true)],
            ),
            (
                "command removed",
                |m| {
                    m.commands.remove(0);
                },
                vec![("command_removed", false)],
            ),
            (
                "read to write",
                |m| m.commands[0].effect = Effect::Write,
                vec![("effect_changed", true)],
            ),
            (
                "write to read",
                |m| m.commands[0].effect = Effect::Read,
                vec![],
            ),
            (
                "binding to env",
                |m| {
                    m.binding.kind = BindingKind::Env;
                    m.binding.env = vec!["TOKEN".into()];
                },
                vec![("binding_changed", true), ("env_added", true)],
            ),
            (
                "binding to secret",
                |m| {
                    m.binding.kind = BindingKind::Secret;
                    m.binding.secret = Some(SecretSpec {
                        name: "api".into(),
                        prompt: None,
                    });
                },
                vec![("binding_changed", true), ("secret_added", true)],
            ),
            (
                "binding to local",
                |m| m.binding.kind = BindingKind::Local,
                vec![("binding_changed", true)],
            ),
            (
                "plane to control",
                |m| m.plane = Plane::Control,
                vec![("plane_changed", true)],
            ),
            (
                "plane to runtime",
                |m| m.plane = Plane::Runtime,
                vec![("plane_changed", false)],
            ),
            (
                "program added",
                |m| m.commands[0].adapter = process("curl"),
                vec![("program_added", true)],
            ),
            (
                "required bin added",
                |m| m.requires.bins.push("jq".into()),
                vec![("program_added", true)],
            ),
            (
                "host added",
                |m| m.commands[1].adapter = http("https://evil.example.net:8443/x"),
                vec![("host_added", true)],
            ),
            (
                "same host, other path",
                |m| m.commands[1].adapter = http("https://API.example.com/other"),
                vec![],
            ),
        ];
        for (name, edit, want) in table {
            let old = base();
            let mut new = base();
            edit(&mut new);
            let got = diff(&old, &new);
            let want: Vec<(String, bool)> = want.into_iter().map(|(k, e)| (k.into(), e)).collect();
            assert_eq!(kinds(&got), want, "{name}");
            assert_eq!(escalates(&got), want.iter().any(|(_, e)| *e), "{name}");
        }
    }

    #[test]
    fn dropping_sense_only_and_leaving_a_binding_for_public() {
        let mut old = base();
        old.sense_only = true;
        old.binding = Binding {
            kind: BindingKind::Env,
            env: vec!["A".into()],
            ..Binding::default()
        };
        let new = base();
        let got = diff(&old, &new);
        assert_eq!(
            kinds(&got),
            vec![
                ("binding_changed".into(), false),
                ("sense_only_dropped".into(), true)
            ]
        );
        let mut more_env = old.clone();
        more_env.binding.env.push("B".into());
        let got = diff(&old, &more_env);
        assert_eq!(kinds(&got), vec![("env_added".into(), true)]);
    }

    #[test]
    fn changes_serialize_with_their_fields() {
        let mut new = base();
        new.commands[0].effect = Effect::Write;
        new.commands[1].adapter = http("https://u:p@other.example.org/x");
        let got = serde_json::to_value(diff(&base(), &new)).unwrap_or_default();
        assert_eq!(
            got,
            serde_json::json!([
                {"kind": "effect_changed", "verb_key": "list", "from": "read", "to": "write", "escalates": true},
                {"kind": "host_added", "host": "other.example.org", "escalates": true}
            ])
        );
    }
}
