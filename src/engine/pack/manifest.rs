//! The pack model: a manifest's fields as plain data (HCP.md §3, §4, §6, §8).
//!
//! A [`Manifest`] is built by lint (`engine::lint::manifest`) from the
//! document tree. Lint builds it even when it finds errors, filling what is
//! invalid with defaults, so front-ends can still show what a broken pack
//! declares; only a lint-clean manifest may be installed (§11.1 rule 2).
//! A Skill pack (§2.6) has no manifest file: lint builds its implicit
//! manifest from the Skill's frontmatter (`engine::pack::skill`), with
//! [`PackKind::Skill`].

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// What a pack acts on (§2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plane {
    #[default]
    Tool,
    Runtime,
    Control,
}

impl Plane {
    pub fn parse(s: &str) -> Option<Plane> {
        match s {
            "tool" => Some(Plane::Tool),
            "runtime" => Some(Plane::Runtime),
            "control" => Some(Plane::Control),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Plane::Tool => "tool",
            Plane::Runtime => "runtime",
            Plane::Control => "control",
        }
    }
}

/// How a pack reaches what it acts on (§8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BindingKind {
    #[default]
    Public,
    Local,
    Env,
    Secret,
}

impl BindingKind {
    pub fn parse(s: &str) -> Option<BindingKind> {
        match s {
            "public" => Some(BindingKind::Public),
            "local" => Some(BindingKind::Local),
            "env" => Some(BindingKind::Env),
            "secret" => Some(BindingKind::Secret),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BindingKind::Public => "public",
            BindingKind::Local => "local",
            BindingKind::Env => "env",
            BindingKind::Secret => "secret",
        }
    }
}

/// `secret: {name, prompt}` of a `secret` Binding (§8.1).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SecretSpec {
    /// The environment variable that carries the secret to the adapter.
    pub name: String,
    pub prompt: Option<String>,
}

/// A pack's Binding (§8).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Binding {
    pub kind: BindingKind,
    /// Variables an `env` Binding passes through.
    pub env: Vec<String>,
    pub secret: Option<SecretSpec>,
    /// A `read` verb_key run by connect (§8.2).
    pub probe: Option<String>,
    pub base_url: Option<String>,
}

impl Binding {
    /// Names of the Binding's material that `${NAME}` may refer to (§6.4).
    pub fn material_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        if self.kind == BindingKind::Env {
            names.extend(self.env.iter().map(String::as_str));
        }
        if self.kind == BindingKind::Secret {
            names.extend(self.secret.iter().map(|s| s.name.as_str()));
        }
        names
    }
}

/// `read` or `write`: selects the grant an exec needs (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    #[default]
    Read,
    Write,
}

impl Effect {
    pub fn parse(s: &str) -> Option<Effect> {
        match s {
            "read" => Some(Effect::Read),
            "write" => Some(Effect::Write),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
        }
    }
}

/// How stdout is reported (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputKind {
    #[default]
    Text,
    Json,
}

impl OutputKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OutputKind::Text => "text",
            OutputKind::Json => "json",
        }
    }
}

/// The type of an arg (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgType {
    #[default]
    String,
    Integer,
    Number,
    Boolean,
    Enum,
}

impl ArgType {
    pub fn parse(s: &str) -> Option<ArgType> {
        match s {
            "string" => Some(ArgType::String),
            "integer" => Some(ArgType::Integer),
            "number" => Some(ArgType::Number),
            "boolean" => Some(ArgType::Boolean),
            "enum" => Some(ArgType::Enum),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ArgType::String => "string",
            ArgType::Integer => "integer",
            ArgType::Number => "number",
            ArgType::Boolean => "boolean",
            ArgType::Enum => "enum",
        }
    }
}

/// One declared argument of a command (§4).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Arg {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ArgType,
    pub required: bool,
    pub default: Option<serde_json::Value>,
    pub values: Vec<String>,
    pub description: Option<String>,
}

/// HTTP methods the `http` adapter accepts (§6.4).
pub const HTTP_METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];

/// How a command is carried out (§6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Adapter {
    Process {
        program: String,
        argv: Vec<String>,
        env: BTreeMap<String, String>,
    },
    Http {
        method: String,
        url: String,
        headers: BTreeMap<String, String>,
        /// `body: null` is a body (`Some(Null)`), kept apart from no body
        /// when a report is read back from the lint cache.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        body: Option<serde_json::Value>,
    },
    Builtin {
        op: String,
    },
    /// A kind this runtime cannot run (§6.6).
    #[serde(untagged)]
    Other {
        kind: String,
    },
}

impl Adapter {
    pub fn kind(&self) -> &str {
        match self {
            Adapter::Process { .. } => "process",
            Adapter::Http { .. } => "http",
            Adapter::Builtin { .. } => "builtin",
            Adapter::Other { kind } => kind,
        }
    }
}

/// A field that is there, `null` included (absent is `None`, by `default`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

/// Default `timeout_ms` (§4).
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Largest `timeout_ms` (§4).
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// One command of a pack (§4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Command {
    pub key: String,
    pub summary: String,
    pub effect: Effect,
    pub args: Vec<Arg>,
    pub adapter: Adapter,
    pub timeout_ms: u64,
    pub output: OutputKind,
}

/// `requires` (§3.1).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Requires {
    /// A SemVer requirement on the runtime version.
    pub hcpx: Option<String>,
    /// Programs the pack needs on PATH.
    pub bins: Vec<String>,
}

/// What a pack folder is (§2.6): a pack with a manifest, or a plain Agent
/// Skill read with the implicit manifest of a Skill pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PackKind {
    /// A folder with `pack.yaml` or `pack.json`.
    #[default]
    Pack,
    /// A folder with `SKILL.md` and neither manifest (§2.6).
    Skill,
}

impl PackKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PackKind::Pack => "pack",
            PackKind::Skill => "skill",
        }
    }
}

/// A pack manifest (§3), or the implicit one of a Skill pack (§2.6).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Manifest {
    /// Whether the manifest was read from a file or implied by a Skill.
    pub kind: PackKind,
    pub hcp: String,
    pub id: String,
    pub name: String,
    pub version: String,
    pub description: String,
    pub plane: Plane,
    pub binding: Binding,
    pub sense_only: bool,
    pub requires: Requires,
    pub commands: Vec<Command>,
    /// Informative `license` (§3.1), when it is a string.
    pub license: Option<String>,
    /// Informative `homepage` (§3.1), when it is a string.
    pub homepage: Option<String>,
}

impl Manifest {
    pub fn command(&self, key: &str) -> Option<&Command> {
        self.commands.iter().find(|c| c.key == key)
    }
}
