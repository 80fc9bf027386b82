//! Manifest rules: the fields of HCP.md §3, the commands and args of §4, the
//! adapters of §6 (no placeholder in an `http` url's origin, of `url` or of
//! `base_url` + `url`, §6.4), the Binding of §8 and the plane rules of §2.5. Every check
//! reports with the position of the offending key or value and goes on, so one
//! run finds every problem; the [`Manifest`] is built along the way.

use crate::engine::lint::diagnostic::{Diagnostic, Findings, Position, Rule};
use crate::engine::lint::files::printable;
use crate::engine::pack::document::{Node, Value};
use crate::engine::pack::grammar::{self, Piece};
use crate::engine::pack::manifest::{
    Adapter, Arg, ArgType, Binding, BindingKind, Command, DEFAULT_TIMEOUT_MS, Effect, HTTP_METHODS,
    MAX_TIMEOUT_MS, Manifest, OutputKind, Plane, Requires, SecretSpec,
};
use crate::engine::pack::url;
use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

/// Top-level keys of §3.1.
const KNOWN_KEYS: &[&str] = &[
    "hcp",
    "id",
    "name",
    "version",
    "description",
    "plane",
    "binding",
    "sense_only",
    "requires",
    "commands",
    "license",
    "homepage",
    "authors",
    "keywords",
];

/// What the manifest rules need to know besides the document.
pub struct Context<'a> {
    /// The manifest's file name (`pack.yaml` or `pack.json`).
    pub file: &'a str,
    /// Regular files of the pack, relative to its root (for `./` programs).
    pub files: &'a [PathBuf],
    /// True only for the runtime's own bootstrap pack (§11.4).
    pub bootstrap: bool,
}

/// Checks a parsed manifest and builds the model.
pub fn check(doc: &Node, ctx: &Context<'_>, out: &mut Vec<Diagnostic>) -> Manifest {
    let mut checker = Checker {
        f: Findings::new(ctx.file, out),
        ctx,
    };
    let manifest = checker.manifest(doc);
    use crate::engine::lint::text;
    text::check(doc, text::Source::Manifest, &mut checker.f, &|p| p);
    manifest
}

struct Checker<'a, 'c> {
    f: Findings<'a>,
    ctx: &'c Context<'c>,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

impl Checker<'_, '_> {
    fn report(&mut self, rule: Rule, pos: Position, message: impl Into<String>) -> &mut Diagnostic {
        self.f.report(rule, Some(pos), message)
    }

    fn wrong_type(&mut self, what: &str, node: &Node, expected: &str) {
        let found = node.type_name();
        let d = self.report(
            Rule::ManifestType,
            node.pos,
            format!("`{what}` must be {expected}, found {found}"),
        );
        if expected == "a string" && matches!(node.value, Value::Int(_) | Value::Float(_)) {
            d.with_hint(format!(
                "quote the value: {what}: \"{}\"",
                node.scalar_text()
            ));
        }
    }

    /// A required field; reports `rule` at the mapping when absent.
    fn required<'n>(
        &mut self,
        map: &'n Node,
        key: &str,
        rule: Rule,
        what: &str,
    ) -> Option<&'n Node> {
        let found = map.get(key);
        if found.is_none() {
            self.report(rule, map.pos, format!("missing required field `{what}`"));
        }
        found
    }

    /// A string field; reports `manifest.type` when it is something else.
    fn string<'n>(&mut self, node: &'n Node, what: &str) -> Option<&'n str> {
        let s = node.as_str();
        if s.is_none() {
            self.wrong_type(what, node, "a string");
        }
        s
    }

    fn bool_field(&mut self, map: &Node, key: &str, what: &str) -> Option<bool> {
        let node = map.get(key)?;
        match node.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.wrong_type(what, node, "true or false");
                None
            }
        }
    }

    fn manifest(&mut self, doc: &Node) -> Manifest {
        let mut m = Manifest::default();
        let Some(entries) = doc.as_map() else {
            self.report(
                Rule::ManifestParse,
                doc.pos,
                format!("the manifest must be a mapping, found {}", doc.type_name()),
            );
            return m;
        };
        for (key, _) in entries {
            self.top_level_key(key);
        }

        self.identity(doc, &mut m);
        m.sense_only = self
            .bool_field(doc, "sense_only", "sense_only")
            .unwrap_or(false);
        if let Some(node) = doc.get("requires") {
            m.requires = self.requires(node);
        }
        let plane_node = doc.get("plane");
        if let Some(node) = plane_node {
            m.plane = self.plane(node);
        }
        if let Some(node) = doc.get("binding") {
            m.binding = self.binding(node);
        }
        if let Some(node) = plane_node {
            self.plane_binding_rule(m.plane, &m.binding, node, doc.get("binding"));
        }
        m.commands = self.commands(doc, &m);
        self.probe(doc, &m);
        // Informative fields (§3.1): kept when they are strings, never checked.
        m.license = doc
            .get("license")
            .and_then(Node::as_str)
            .map(str::to_string);
        m.homepage = doc
            .get("homepage")
            .and_then(Node::as_str)
            .map(str::to_string);
        m
    }

    /// The required string fields of §3.1 that name the pack: `hcp`, `id`,
    /// `name`, `version`, `description`.
    fn identity(&mut self, doc: &Node, m: &mut Manifest) {
        if let Some(node) = self.required(doc, "hcp", Rule::ManifestMissingField, "hcp")
            && let Some(s) = self.string(node, "hcp")
        {
            m.hcp = s.to_string();
            if !is_supported_hcp(s) {
                self.report(
                    Rule::ManifestHcpVersion,
                    node.pos,
                    format!(
                        "unsupported spec version `{s}`: this runtime reads HCP \"1\" and \"1.N\""
                    ),
                )
                .with_hint("set hcp: \"1\"");
            }
        }
        if let Some(node) = self.required(doc, "id", Rule::ManifestMissingField, "id")
            && let Some(s) = self.string(node, "id")
        {
            m.id = s.to_string();
            self.pack_id(s, node.pos);
        }
        if let Some(node) = self.required(doc, "name", Rule::ManifestMissingField, "name")
            && let Some(s) = self.string(node, "name")
        {
            m.name = s.to_string();
            if !(1..=64).contains(&chars(s)) {
                self.report(
                    Rule::ManifestName,
                    node.pos,
                    format!("`name` must be 1 to 64 characters, found {}", chars(s)),
                );
            }
        }
        if let Some(node) = self.required(doc, "version", Rule::ManifestMissingField, "version")
            && let Some(s) = self.string(node, "version")
        {
            m.version = s.to_string();
            if let Err(err) = semver::Version::parse(s) {
                self.report(
                    Rule::ManifestVersion,
                    node.pos,
                    format!("`version` `{s}` is not SemVer 2.0: {err}"),
                )
                .with_hint("use MAJOR.MINOR.PATCH, e.g. version: 1.0.0");
            }
        }
        if let Some(node) = self.required(
            doc,
            "description",
            Rule::ManifestMissingField,
            "description",
        ) && let Some(s) = self.string(node, "description")
        {
            m.description = s.to_string();
            if !(1..=1024).contains(&chars(s)) {
                self.report(
                    Rule::ManifestDescription,
                    node.pos,
                    format!(
                        "`description` must be 1 to 1,024 characters, found {}",
                        chars(s)
                    ),
                );
            }
        }
    }

    fn top_level_key(&mut self, key: &Node) {
        let Some(name) = key.as_str() else {
            let text = key.scalar_text();
            self.report(
                Rule::ManifestUnknownKey,
                key.pos,
                format!("unknown top-level key `{text}`"),
            );
            return;
        };
        if KNOWN_KEYS.contains(&name) || name.starts_with("x-") {
            return;
        }
        let shown = printable(name);
        let d = self.report(
            Rule::ManifestUnknownKey,
            key.pos,
            format!("unknown top-level key `{shown}`"),
        );
        match closest(name, KNOWN_KEYS) {
            Some(best) => d.with_hint(format!("did you mean `{best}`?")),
            None => d.with_hint("prefix extension keys with `x-`"),
        }
    }

    fn pack_id(&mut self, id: &str, pos: Position) {
        if !grammar::is_pack_id(id) {
            let shown = printable(id);
            self.report(
                Rule::ManifestIdFormat,
                pos,
                format!("`{shown}` is not a valid pack_id: 2 to 64 characters of a-z, 0-9, separated by single `.` or `-`"),
            )
            .with_hint("e.g. id: acme.notes");
        }
        if grammar::is_reserved_pack_id(id) && !self.ctx.bootstrap {
            self.report(
                Rule::ManifestIdReserved,
                pos,
                format!("`{id}` is reserved for the runtime's bootstrap pack (`hcp-cli`, `hcp.*`)"),
            )
            .with_hint("choose an id under your own name, e.g. acme.cli");
        }
    }

    fn plane(&mut self, node: &Node) -> Plane {
        match node.as_str().and_then(Plane::parse) {
            Some(plane) => plane,
            None => {
                self.report(
                    Rule::ManifestPlane,
                    node.pos,
                    format!("unknown plane `{}`", node.scalar_text()),
                )
                .with_hint("plane is one of tool, runtime, control");
                Plane::Tool
            }
        }
    }

    fn plane_binding_rule(
        &mut self,
        plane: Plane,
        binding: &Binding,
        plane_node: &Node,
        binding_node: Option<&Node>,
    ) {
        let pos = binding_node
            .and_then(|b| b.get("kind"))
            .map_or(plane_node.pos, |k| k.pos);
        match plane {
            Plane::Runtime if binding.kind != BindingKind::Local => {
                self.report(
                    Rule::ManifestPlane,
                    pos,
                    format!(
                        "a `runtime` plane pack must have Binding `local`, found `{}`",
                        binding.kind.as_str()
                    ),
                )
                .with_hint("set binding: {kind: local}");
            }
            Plane::Control if binding.kind == BindingKind::Public => {
                self.report(
                    Rule::ManifestPlane,
                    pos,
                    "a `control` plane pack must not have Binding `public`",
                )
                .with_hint("use binding kind local, env or secret");
            }
            _ => {}
        }
    }

    fn requires(&mut self, node: &Node) -> Requires {
        let mut requires = Requires::default();
        if node.as_map().is_none() {
            self.wrong_type("requires", node, "a mapping");
            return requires;
        }
        if let Some(req) = node.get("hcpx") {
            match req.as_str() {
                Some(s) => match semver::VersionReq::parse(s) {
                    Ok(_) => requires.hcpx = Some(s.to_string()),
                    Err(err) => {
                        self.report(
                            Rule::ManifestRequires,
                            req.pos,
                            format!("`requires.hcpx` `{s}` is not a SemVer requirement: {err}"),
                        )
                        .with_hint("e.g. hcpx: \">=0.1\"");
                    }
                },
                None => {
                    self.report(
                        Rule::ManifestRequires,
                        req.pos,
                        format!(
                            "`requires.hcpx` must be a SemVer requirement string, found {}",
                            req.type_name()
                        ),
                    );
                }
            }
        }
        if let Some(bins) = node.get("bins") {
            match bins.as_seq() {
                Some(items) => {
                    for item in items {
                        match item.as_str() {
                            Some(s) if grammar::is_program_name(s) => {
                                requires.bins.push(s.to_string())
                            }
                            _ => {
                                let shown = printable(&item.scalar_text());
                                self.report(
                                    Rule::ManifestRequires,
                                    item.pos,
                                    format!("`{shown}` is not a program name"),
                                )
                                .with_hint("list bare program names found on PATH, e.g. git");
                            }
                        }
                    }
                }
                None => {
                    self.report(
                        Rule::ManifestRequires,
                        bins.pos,
                        format!(
                            "`requires.bins` must be a list of program names, found {}",
                            bins.type_name()
                        ),
                    );
                }
            }
        }
        requires
    }

    fn binding(&mut self, node: &Node) -> Binding {
        let mut binding = Binding::default();
        if node.as_map().is_none() {
            self.wrong_type("binding", node, "a mapping");
            return binding;
        }
        match node.get("kind") {
            None => {
                self.report(Rule::BindingKind, node.pos, "the binding has no `kind`")
                    .with_hint("kind is one of public, local, env, secret");
            }
            Some(kind) => match kind.as_str().and_then(BindingKind::parse) {
                Some(k) => binding.kind = k,
                None => {
                    self.report(
                        Rule::BindingKind,
                        kind.pos,
                        format!("unknown binding kind `{}`", kind.scalar_text()),
                    )
                    .with_hint("kind is one of public, local, env, secret");
                    // Keep checking as the strictest kind, so nothing is skipped.
                    binding.kind = BindingKind::Local;
                }
            },
        }
        if binding.kind == BindingKind::Env {
            binding.env = self.binding_env(node);
        }
        if binding.kind == BindingKind::Secret {
            binding.secret = self.binding_secret(node);
        }
        if let Some(probe) = node.get("probe")
            && let Some(s) = self.string(probe, "binding.probe")
        {
            binding.probe = Some(s.to_string());
        }
        if let Some(base) = node.get("base_url")
            && let Some(s) = self.string(base, "binding.base_url")
        {
            if let Some(p) = url::placeholder_in_origin(s) {
                self.origin_placeholder("the binding's `base_url`", &p, base.pos);
            }
            binding.base_url = Some(s.to_string());
        }
        binding
    }

    fn binding_env(&mut self, node: &Node) -> Vec<String> {
        let Some(list) = node.get("env") else {
            self.report(
                Rule::BindingEnv,
                node.pos,
                "an `env` binding needs `env`: a non-empty list of variable names",
            )
            .with_hint("e.g. env: [API_TOKEN]");
            return Vec::new();
        };
        let Some(items) = list.as_seq().filter(|items| !items.is_empty()) else {
            self.report(
                Rule::BindingEnv,
                list.pos,
                "`binding.env` must be a non-empty list of variable names",
            )
            .with_hint("e.g. env: [API_TOKEN]");
            return Vec::new();
        };
        let mut names = Vec::new();
        for item in items {
            match item.as_str() {
                Some(s) if grammar::is_env_name(s) => names.push(s.to_string()),
                _ => {
                    let shown = printable(&item.scalar_text());
                    self.report(
                        Rule::BindingEnv,
                        item.pos,
                        format!("`{shown}` is not an environment variable name (A-Z, 0-9, _)"),
                    );
                }
            }
        }
        names
    }

    fn binding_secret(&mut self, node: &Node) -> Option<SecretSpec> {
        let Some(secret) = node.get("secret") else {
            self.report(
                Rule::BindingSecret,
                node.pos,
                "a `secret` binding needs `secret.name`",
            )
            .with_hint("e.g. secret: {name: API_TOKEN, prompt: \"API token\"}");
            return None;
        };
        let Some(name) = secret.get("name") else {
            self.report(Rule::BindingSecret, secret.pos, "`secret` has no `name`")
                .with_hint("e.g. secret: {name: API_TOKEN, prompt: \"API token\"}");
            return None;
        };
        let Some(name_str) = name.as_str().filter(|s| grammar::is_env_name(s)) else {
            self.report(
                Rule::BindingSecret,
                name.pos,
                format!(
                    "`secret.name` must be an environment variable name (A-Z, 0-9, _), found `{}`",
                    printable(&name.scalar_text())
                ),
            );
            return None;
        };
        let prompt = secret
            .get("prompt")
            .and_then(|p| self.string(p, "secret.prompt"))
            .map(str::to_string);
        Some(SecretSpec {
            name: name_str.to_string(),
            prompt,
        })
    }

    fn probe(&mut self, doc: &Node, m: &Manifest) {
        let Some(probe) = doc.get("binding").and_then(|b| b.get("probe")) else {
            return;
        };
        let Some(key) = probe.as_str() else { return };
        match m.command(key) {
            None => {
                self.report(
                    Rule::BindingProbe,
                    probe.pos,
                    format!("the probe `{key}` is not a command of this pack"),
                );
            }
            Some(cmd) if cmd.effect != Effect::Read => {
                self.report(
                    Rule::BindingProbe,
                    probe.pos,
                    format!(
                        "the probe `{key}` must have effect `read`, not `{}`",
                        cmd.effect.as_str()
                    ),
                );
            }
            Some(_) => {}
        }
    }

    fn commands(&mut self, doc: &Node, m: &Manifest) -> Vec<Command> {
        let list = doc.get("commands");
        let items = match list {
            None => &[][..],
            Some(node) => match node.as_seq() {
                Some(items) => items,
                None if node.value == Value::Null => &[][..],
                None => {
                    self.wrong_type("commands", node, "a list");
                    return Vec::new();
                }
            },
        };
        if items.is_empty() && !m.sense_only {
            let pos = list.map_or(doc.pos, |n| n.pos);
            self.report(Rule::CommandNone, pos, "the pack has no commands")
                .with_hint("add commands, or set sense_only: true for a Skill-only pack");
        }
        let mut seen: HashMap<String, Position> = HashMap::new();
        let mut commands = Vec::new();
        for (index, item) in items.iter().enumerate() {
            if item.as_map().is_none() {
                self.wrong_type(&format!("commands[{index}]"), item, "a mapping");
                continue;
            }
            let cmd = self.command(item, index, &m.binding);
            if let Some((key_node, _)) = item.entry("key")
                && !cmd.key.is_empty()
            {
                if let Some(first) = seen.get(&cmd.key) {
                    let line = first.line;
                    self.report(
                        Rule::CommandKeyDuplicate,
                        key_node.pos,
                        format!("two commands share the key `{}`", cmd.key),
                    )
                    .with_hint(format!(
                        "the first is on line {line}; verb_keys are unique in a pack"
                    ));
                } else {
                    seen.insert(cmd.key.clone(), key_node.pos);
                }
            }
            commands.push(cmd);
        }
        commands
    }

    fn command(&mut self, node: &Node, index: usize, binding: &Binding) -> Command {
        let mut cmd = Command {
            key: String::new(),
            summary: String::new(),
            effect: Effect::Read,
            args: Vec::new(),
            adapter: Adapter::Other {
                kind: String::new(),
            },
            timeout_ms: DEFAULT_TIMEOUT_MS,
            output: OutputKind::Text,
        };
        let label = format!("commands[{index}]");
        cmd.key = self.command_key(node, &label);
        let name = if cmd.key.is_empty() {
            label
        } else {
            format!("command `{}`", cmd.key)
        };
        cmd.summary = self.command_summary(node, &name);
        cmd.effect = self.command_effect(node, &name);
        if let Some(ms) = node.get("timeout_ms").and_then(|t| self.command_timeout(t)) {
            cmd.timeout_ms = ms;
        }
        if let Some(o) = node.get("output") {
            match o.as_str() {
                Some("text") => cmd.output = OutputKind::Text,
                Some("json") => cmd.output = OutputKind::Json,
                _ => self.wrong_type("output", o, "`text` or `json`"),
            }
        }
        if let Some(args) = node.get("args") {
            cmd.args = self.args(args, &name);
        }
        match node.get("adapter") {
            None => {
                self.report(
                    Rule::CommandAdapter,
                    node.pos,
                    format!("{name} has no `adapter`"),
                )
                .with_hint("e.g. adapter: {kind: process, program: git, argv: [status]}");
            }
            Some(a) => cmd.adapter = self.adapter(a, &name, &cmd.args, binding),
        }
        cmd
    }

    /// A command's `key` (§4): a verb_key, else reported (and kept as text).
    fn command_key(&mut self, node: &Node, label: &str) -> String {
        let Some(key) = node.get("key") else {
            self.report(Rule::CommandKey, node.pos, format!("{label} has no `key`"));
            return String::new();
        };
        match key.as_str() {
            Some(s) if grammar::is_verb_key(s) => s.to_string(),
            _ => {
                let shown = printable(&key.scalar_text());
                self.report(
                    Rule::CommandKey,
                    key.pos,
                    format!("`{shown}` is not a valid verb_key: lowercase words of a-z, 0-9, `_`, `-`, joined by `.`, at most 64 characters"),
                )
                .with_hint("e.g. key: issues.list");
                key.scalar_text()
            }
        }
    }

    /// A command's `summary` (§4): 1 to 200 characters.
    fn command_summary(&mut self, node: &Node, name: &str) -> String {
        let mut summary = String::new();
        match node.get("summary") {
            None => {
                self.report(
                    Rule::CommandSummary,
                    node.pos,
                    format!("{name} has no `summary`"),
                );
            }
            Some(s) => match s.as_str() {
                Some(text) if (1..=200).contains(&chars(text)) => summary = text.to_string(),
                Some(text) => {
                    summary = text.to_string();
                    self.report(
                        Rule::CommandSummary,
                        s.pos,
                        format!(
                            "the summary of {name} must be 1 to 200 characters, found {}",
                            chars(text)
                        ),
                    );
                }
                None => self.wrong_type("summary", s, "a string"),
            },
        }
        summary
    }

    /// A command's `effect` (§4): `read` or `write`; an unknown one counts
    /// as `write`, which needs the stricter grant (a missing one, reported,
    /// as `read`).
    fn command_effect(&mut self, node: &Node, name: &str) -> Effect {
        match node.get("effect") {
            None => {
                self.report(
                    Rule::CommandEffect,
                    node.pos,
                    format!("{name} has no `effect`"),
                )
                .with_hint("effect: read, or effect: write");
                Effect::Read
            }
            Some(e) => match e.as_str().and_then(Effect::parse) {
                Some(effect) => effect,
                None => {
                    self.report(
                        Rule::CommandEffect,
                        e.pos,
                        format!(
                            "`effect` must be `read` or `write`, found `{}`",
                            e.scalar_text()
                        ),
                    );
                    // A command of unknown effect needs the stricter grant.
                    Effect::Write
                }
            },
        }
    }

    /// A command's `timeout_ms` (§4): 1 to 600,000; `None` when reported.
    fn command_timeout(&mut self, t: &Node) -> Option<u64> {
        match t.value {
            Value::Int(ms) if (1..=MAX_TIMEOUT_MS as i64).contains(&ms) => return Some(ms as u64),
            Value::Int(ms) => {
                self.report(
                    Rule::CommandTimeout,
                    t.pos,
                    format!("`timeout_ms` must be 1 to 600,000, found {ms}"),
                );
            }
            // An integer past i64 (e.g. 10^29) reads as a whole float:
            // it is out of range, not of the wrong type.
            Value::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() >= 9.2e18 => {
                self.report(
                    Rule::CommandTimeout,
                    t.pos,
                    format!(
                        "`timeout_ms` must be 1 to 600,000, found {}",
                        t.scalar_text()
                    ),
                );
            }
            _ => self.wrong_type("timeout_ms", t, "an integer"),
        }
        None
    }

    fn args(&mut self, node: &Node, cmd: &str) -> Vec<Arg> {
        let Some(items) = node.as_seq() else {
            if node.value != Value::Null {
                self.wrong_type("args", node, "a list");
            }
            return Vec::new();
        };
        let mut args: Vec<Arg> = Vec::new();
        for item in items {
            if item.as_map().is_none() {
                self.report(
                    Rule::CommandArg,
                    item.pos,
                    format!("each arg of {cmd} must be a mapping with `name` and `type`"),
                );
                continue;
            }
            let mut arg = Arg {
                name: self.arg_name(item, cmd, &args),
                ..Arg::default()
            };
            if let Some(t) = item.get("type") {
                match t.as_str().and_then(ArgType::parse) {
                    Some(kind) => arg.kind = kind,
                    None => {
                        self.report(
                            Rule::CommandArg,
                            t.pos,
                            format!("unknown arg type `{}`", t.scalar_text()),
                        )
                        .with_hint("type is one of string, integer, number, boolean, enum");
                    }
                }
            }
            arg.required = self
                .bool_field(item, "required", "required")
                .unwrap_or(false);
            if let Some(d) = item.get("description") {
                arg.description = self.string(d, "description").map(str::to_string);
            }
            arg.values = self.arg_values(item, &arg);
            if let Some(d) = item.get("default") {
                arg.default = self.arg_default(d, &arg);
            }
            args.push(arg);
        }
        args
    }

    /// An arg's `name` (§4): the grammar, and once per command.
    fn arg_name(&mut self, item: &Node, cmd: &str, earlier: &[Arg]) -> String {
        match item.get("name") {
            None => {
                self.report(
                    Rule::CommandArg,
                    item.pos,
                    format!("an arg of {cmd} has no `name`"),
                );
            }
            Some(n) => match n.as_str() {
                Some(s) if grammar::is_arg_name(s) => {
                    if earlier.iter().any(|a| a.name == s) {
                        self.report(
                            Rule::CommandArg,
                            n.pos,
                            format!("{cmd} declares the arg `{s}` twice"),
                        );
                    }
                    return s.to_string();
                }
                _ => {
                    let shown = printable(&n.scalar_text());
                    self.report(
                        Rule::CommandArg,
                        n.pos,
                        format!("`{shown}` is not a valid arg name (a-z, then a-z, 0-9, _)"),
                    );
                }
            },
        }
        String::new()
    }

    /// An arg's `values` (§4): a non-empty list of strings, for `enum` args
    /// only.
    fn arg_values(&mut self, item: &Node, arg: &Arg) -> Vec<String> {
        match item.get("values") {
            Some(v) if arg.kind != ArgType::Enum => {
                self.report(
                    Rule::CommandArg,
                    v.pos,
                    format!(
                        "`values` is only for `enum` args; `{}` is {}",
                        arg.name,
                        arg.kind.as_str()
                    ),
                );
            }
            Some(v) => {
                let items = v.as_seq().unwrap_or_default();
                if items.is_empty() || items.iter().any(|i| i.as_str().is_none()) {
                    self.report(
                        Rule::CommandArg,
                        v.pos,
                        format!(
                            "the enum arg `{}` needs `values`: a non-empty list of strings",
                            arg.name
                        ),
                    );
                }
                return items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect();
            }
            None if arg.kind == ArgType::Enum => {
                self.report(
                    Rule::CommandArg,
                    item.pos,
                    format!("the enum arg `{}` has no `values`", arg.name),
                )
                .with_hint("e.g. values: [asc, desc]");
            }
            None => {}
        }
        Vec::new()
    }

    /// An arg's `default` (§4): it fits the arg's type and values.
    fn arg_default(&mut self, d: &Node, arg: &Arg) -> Option<serde_json::Value> {
        if !default_fits(&d.value, arg.kind, &arg.values) {
            let expected = match arg.kind {
                ArgType::Enum => format!("one of {}", arg.values.join(", ")),
                ArgType::Integer => "an integer".to_string(),
                kind => format!("a {}", kind.as_str()),
            };
            self.report(
                Rule::CommandArgDefault,
                d.pos,
                format!(
                    "the default `{}` of `{}` is not {expected}",
                    d.scalar_text(),
                    arg.name
                ),
            );
        } else {
            return Some(d.to_json());
        }
        None
    }

    fn adapter(&mut self, node: &Node, name: &str, args: &[Arg], binding: &Binding) -> Adapter {
        let other = Adapter::Other {
            kind: String::new(),
        };
        if node.as_map().is_none() {
            self.wrong_type("adapter", node, "a mapping");
            return other;
        }
        let Some(kind_node) = node.get("kind") else {
            self.report(Rule::CommandAdapter, node.pos, "the adapter has no `kind`")
                .with_hint("kind is process, http or builtin");
            return other;
        };
        let Some(kind) = kind_node.as_str() else {
            self.report(
                Rule::CommandAdapter,
                kind_node.pos,
                format!(
                    "the adapter `kind` must be a string, found {}",
                    kind_node.type_name()
                ),
            );
            return other;
        };
        match kind {
            "process" => self.process_adapter(node, args),
            "http" => self.http_adapter(node, name, args, binding),
            "builtin" => {
                if !self.ctx.bootstrap {
                    self.report(
                        Rule::CommandAdapterBuiltin,
                        kind_node.pos,
                        "the `builtin` adapter is only for the runtime's bootstrap pack",
                    )
                    .with_hint("use kind: process or kind: http");
                }
                let op = self.adapter_string(node, "op").unwrap_or_default();
                Adapter::Builtin { op }
            }
            other => {
                let shown = printable(other);
                self.report(
                    Rule::AdapterUnknownKind,
                    kind_node.pos,
                    format!("hcpx cannot run adapter kind `{shown}`; its commands will not be executable"),
                )
                .with_hint("this runtime runs process and http adapters");
                Adapter::Other {
                    kind: other.to_string(),
                }
            }
        }
    }

    /// A required string field of an adapter (`command.adapter` when absent).
    fn adapter_string(&mut self, node: &Node, key: &str) -> Option<String> {
        match node.get(key) {
            None => {
                let kind = node.get("kind").map(Node::scalar_text).unwrap_or_default();
                self.report(
                    Rule::CommandAdapter,
                    node.pos,
                    format!("the {kind} adapter needs `{key}`"),
                );
                None
            }
            Some(v) => self.string(v, key).map(str::to_string),
        }
    }

    fn process_adapter(&mut self, node: &Node, args: &[Arg]) -> Adapter {
        let program = self.adapter_string(node, "program").unwrap_or_default();
        if let Some(p) = node.get("program")
            && !program.is_empty()
        {
            self.program(&program, p.pos);
        }
        let mut argv = Vec::new();
        if let Some(list) = node.get("argv") {
            match list.as_seq() {
                Some(items) => {
                    for item in items {
                        match item.value {
                            Value::Seq(_) | Value::Map(_) | Value::Null => {
                                self.wrong_type("argv element", item, "a string");
                            }
                            _ => {
                                let text = item.scalar_text();
                                self.placeholders(&text, item.pos, args, &[], false);
                                argv.push(text);
                            }
                        }
                    }
                }
                None => self.wrong_type("argv", list, "a list"),
            }
        }
        let env = self.string_map(node, "env", true);
        Adapter::Process { program, argv, env }
    }

    /// Checks a `program`: a bare name, or `./path` inside the pack (§6.3).
    fn program(&mut self, program: &str, pos: Position) {
        if !program.contains('/') {
            if !grammar::is_program_name(program) {
                self.report(
                    Rule::CommandProgram,
                    pos,
                    format!("`{}` is not a program name", printable(program)),
                );
            }
            return;
        }
        let Some(rel) = program.strip_prefix("./") else {
            self.report(
                Rule::CommandProgram,
                pos,
                format!("`{program}` must be a bare name looked up on PATH or a `./` path inside the pack"),
            )
            .with_hint("e.g. program: git, or program: ./bin/run.sh");
            return;
        };
        let Some(normal) = normalize_inside(Path::new(rel)) else {
            self.report(
                Rule::CommandProgram,
                pos,
                format!("`{program}` leaves the pack directory"),
            )
            .with_hint("a `./` program must be a file inside the pack");
            return;
        };
        if !self.ctx.files.iter().any(|f| f == &normal) {
            self.report(
                Rule::CommandProgram,
                pos,
                format!("`{program}` does not exist in the pack"),
            )
            .with_hint("add the file to the pack, or use a program on PATH");
        }
    }

    fn http_adapter(
        &mut self,
        node: &Node,
        name: &str,
        args: &[Arg],
        binding: &Binding,
    ) -> Adapter {
        let method = match node.get("method") {
            None => {
                self.report(
                    Rule::CommandAdapter,
                    node.pos,
                    "the http adapter needs `method`",
                )
                .with_hint("method is GET, POST, PUT, PATCH or DELETE");
                String::new()
            }
            Some(m) => match m.as_str() {
                Some(s) if HTTP_METHODS.contains(&s) => s.to_string(),
                _ => {
                    self.report(
                        Rule::CommandAdapter,
                        m.pos,
                        format!("unsupported HTTP method `{}`", m.scalar_text()),
                    )
                    .with_hint("method is GET, POST, PUT, PATCH or DELETE");
                    String::new()
                }
            },
        };
        let url = self.adapter_string(node, "url").unwrap_or_default();
        if let Some(u) = node.get("url") {
            self.placeholders(&url, u.pos, args, &[], false);
            if let Some(p) = url::origin_placeholder(&url, binding.base_url.as_deref()) {
                self.origin_placeholder(&format!("{name}: its `url`"), &p, u.pos);
            }
            if !url::is_absolute(&url) && binding.base_url.is_none() && !url.is_empty() {
                self.report(
                    Rule::CommandAdapter,
                    u.pos,
                    format!("the url `{url}` is relative but the binding has no `base_url`"),
                )
                .with_hint("add binding.base_url, or use an absolute http:// or https:// url");
            }
        }
        let material = binding.material_names();
        let headers = self.string_map(node, "headers", false);
        if let Some(h) = node.get("headers").and_then(Node::as_map) {
            for (_, value) in h {
                if let Some(text) = value.as_str() {
                    self.placeholders(text, value.pos, args, &material, true);
                }
            }
        }
        let body = node.get("body").map(|b| {
            self.body_placeholders(b, args);
            b.to_json()
        });
        Adapter::Http {
            method,
            url,
            headers,
            body,
        }
    }

    /// A placeholder in a url's scheme, userinfo, host or port (§6.4).
    fn origin_placeholder(&mut self, field: &str, placeholder: &str, pos: Position) {
        let shown = printable(placeholder);
        self.report(
            Rule::CommandPlaceholder,
            pos,
            format!(
                "{field} has the placeholder `{shown}` in its scheme, userinfo, host or port, so an argument could choose where the request and the binding's material go"
            ),
        )
        .with_hint("write the host out; a placeholder may stand in the url's path, query or fragment only");
    }

    fn body_placeholders(&mut self, node: &Node, args: &[Arg]) {
        match &node.value {
            Value::Str(s) => self.placeholders(s, node.pos, args, &[], false),
            Value::Seq(items) => items.iter().for_each(|i| self.body_placeholders(i, args)),
            Value::Map(entries) => entries
                .iter()
                .for_each(|(_, v)| self.body_placeholders(v, args)),
            _ => {}
        }
    }

    /// A mapping of names to strings (`env`, `headers`).
    fn string_map(&mut self, node: &Node, key: &str, env_names: bool) -> BTreeMap<String, String> {
        let mut map = BTreeMap::new();
        let Some(m) = node.get(key) else { return map };
        let Some(entries) = m.as_map() else {
            self.wrong_type(key, m, "a mapping");
            return map;
        };
        for (k, v) in entries {
            let name = k.scalar_text();
            if env_names && !grammar::is_env_name(&name) {
                self.report(
                    Rule::CommandAdapter,
                    k.pos,
                    format!(
                        "`{}` is not an environment variable name (A-Z, 0-9, _)",
                        printable(&name)
                    ),
                );
            }
            match v.value {
                Value::Seq(_) | Value::Map(_) | Value::Null => {
                    self.wrong_type(&format!("{key}.{name}"), v, "a string");
                }
                _ => {
                    map.insert(name, v.scalar_text());
                }
            }
        }
        map
    }

    /// `{arg}` must name a declared arg; `${NAME}` must name Binding material
    /// and is allowed only where `material_ok`.
    fn placeholders(
        &mut self,
        text: &str,
        pos: Position,
        args: &[Arg],
        material: &[&str],
        material_ok: bool,
    ) {
        for piece in grammar::template_pieces(text) {
            match piece {
                Piece::Arg(name) if !args.iter().any(|a| a.name == name) => {
                    let declared: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
                    let d = self.report(
                        Rule::CommandPlaceholder,
                        pos,
                        format!("the placeholder `{{{name}}}` names no declared arg"),
                    );
                    if declared.is_empty() {
                        d.with_hint(format!(
                            "declare it under args: - {{name: {name}, type: string}}"
                        ));
                    } else {
                        d.with_hint(format!("declared args: {}", declared.join(", ")));
                    }
                }
                Piece::Material(name) if !material_ok => {
                    self.report(
                        Rule::CommandPlaceholder,
                        pos,
                        format!("`${{{name}}}` is only allowed in http headers"),
                    );
                }
                Piece::Material(name) if !material.contains(&name) => {
                    let shown = printable(name);
                    let d = self.report(
                        Rule::CommandPlaceholder,
                        pos,
                        format!("`${{{shown}}}` names no material of the binding"),
                    );
                    if material.is_empty() {
                        d.with_hint("only an env binding's `env` names or a secret binding's `secret.name` may be used");
                    } else {
                        d.with_hint(format!("the binding declares: {}", material.join(", ")));
                    }
                }
                _ => {}
            }
        }
    }
}

/// `"1"` or `"1.N"` (§3.1).
fn is_supported_hcp(s: &str) -> bool {
    match s.split_once('.') {
        None => s == "1",
        Some((major, minor)) => {
            major == "1" && !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit())
        }
    }
}

/// Whether a default value fits its arg's type (§4).
pub fn default_fits(value: &Value, kind: ArgType, values: &[String]) -> bool {
    match (kind, value) {
        (ArgType::String, Value::Str(_)) => true,
        (ArgType::Integer, Value::Int(_)) => true,
        (ArgType::Number, Value::Int(_)) => true,
        (ArgType::Number, Value::Float(f)) => f.is_finite(),
        (ArgType::Boolean, Value::Bool(_)) => true,
        (ArgType::Enum, Value::Str(s)) => values.contains(s),
        _ => false,
    }
}

/// Resolves `a/./b/../c` without touching the disk; `None` if it climbs out.
fn normalize_inside(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// The known key closest to a typo, if it is close enough to suggest.
fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .map(|k| (strsim::jaro(name, k), *k))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}
