//! Pack commands as MCP tools (HCP.md §16.2), pure: the commands the one
//! availability function reports `executable` → the `tools/list` entries.
//!
//! - **Name**: `<pack_id>__<verb_key>` with every `.` written `_`
//!   (`demo.git` `log.short` → `demo_git__log_short`), which matches
//!   `^[a-zA-Z0-9_-]{1,64}$` for every valid id and key. A pack id never
//!   holds `_`, so the first `__` always ends it. Two commands can still
//!   map to one name (`a.b` and `a_b` in one pack), and a long pair can
//!   pass 64 characters: the commands are taken in (pack_id, verb_key)
//!   order, the first keeps the plain name, and any later one, like any
//!   name over 64, is cut to 55 characters and gets `_` and 8 hex digits
//!   of a hash of its pack_id and verb_key — the same every run.
//! - **title** the summary, **description** the summary and the pack's
//!   name, id, version and description; pack text goes out with control
//!   characters and bidirectional overrides replaced (§14.5): the client
//!   receives it as data, never as something that drives a terminal.
//! - **inputSchema** from `args`; **annotations** explicit booleans;
//!   **`_meta`** `hcp/pack_id`, `hcp/verb_key`, `hcp/effect` (and
//!   `hcp/version`, which the call checks, §16.4, and `hcp/scope`, the
//!   store holding the pack, §15.5).

use crate::engine::pack::manifest::{Adapter, Arg, ArgType, Command, Effect, Manifest};
use crate::engine::pack::text::terminal_safe;
use crate::engine::policy::availability::PackAvailability;
use rmcp::model::{JsonObject, MetaObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::Arc;

/// The longest tool name MCP allows.
pub const MAX_NAME: usize = 64;

/// One tool and the command it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolEntry {
    pub tool: Tool,
    pub pack_id: String,
    pub verb_key: String,
    /// The pack's version when the tool was built (§16.4).
    pub version: String,
    /// Which of the server's stores holds the pack (0: the project's
    /// inside a project, else the user store; 1: the user store).
    pub store: usize,
}

impl ToolEntry {
    pub fn name(&self) -> &str {
        &self.tool.name
    }
}

/// Which commands of the packs given are tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Those executable now: the tools listed (§16.2).
    Executable,
    /// Every command of an activated pack: the tools that exist, under the
    /// names they would be listed by (§16.3: a call to one that is not
    /// executable is a refusal, not an unknown tool).
    Activated,
}

/// The tools of the commands `which` names, named uniquely.
pub fn tool_list_of<'a>(
    packs: impl IntoIterator<Item = (&'a PackAvailability, &'a Manifest)>,
    which: Which,
) -> Vec<ToolEntry> {
    let mut commands: Vec<(&Manifest, &Command)> = Vec::new();
    for (avail, manifest) in packs {
        let keep = |c: &&crate::engine::policy::availability::CommandAvailability| match which {
            Which::Executable => c.mcp_tool(),
            Which::Activated => avail.activated,
        };
        for cmd in avail.commands.iter().filter(keep) {
            if let Some(command) = manifest.command(&cmd.verb_key) {
                commands.push((manifest, command));
            }
        }
    }
    commands.sort_by(|a, b| (&a.0.id, &a.1.key).cmp(&(&b.0.id, &b.1.key)));
    let mut used = HashSet::new();
    commands
        .into_iter()
        .map(|(manifest, command)| {
            let name = unique_name(&manifest.id, &command.key, &mut used);
            tool_entry(name, manifest, command)
        })
        .collect()
}

/// `<pack_id>__<verb_key>`, dots as `_` (before collisions are handled).
pub fn plain_name(pack_id: &str, verb_key: &str) -> String {
    format!(
        "{}__{}",
        pack_id.replace('.', "_"),
        verb_key.replace('.', "_")
    )
}

/// The plain name when it is free and short enough; else the hashed one.
fn unique_name(pack_id: &str, verb_key: &str, used: &mut HashSet<String>) -> String {
    let plain = plain_name(pack_id, verb_key);
    if plain.len() <= MAX_NAME && used.insert(plain.clone()) {
        return plain;
    }
    let cut: String = plain.chars().take(MAX_NAME - 9).collect();
    let mut salt = 0u64;
    loop {
        let hash = fnv1a(format!("{pack_id}\0{verb_key}\0{salt}").as_bytes());
        let name = format!("{cut}_{:08x}", hash & 0xffff_ffff);
        if used.insert(name.clone()) {
            return name;
        }
        salt += 1;
    }
}

/// FNV-1a, 64 bits: a stable hash (std's is seeded per process).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn tool_entry(name: String, manifest: &Manifest, command: &Command) -> ToolEntry {
    let summary = terminal_safe(&command.summary).into_owned();
    let description = format!(
        "{summary}\n\nFrom the pack {} ({} {}): {}",
        terminal_safe(&manifest.name),
        manifest.id,
        terminal_safe(&manifest.version),
        terminal_safe(&manifest.description)
    );
    let annotations = ToolAnnotations::with_title(summary.clone())
        .read_only(command.effect == Effect::Read)
        .destructive(command.effect == Effect::Write)
        .open_world(matches!(command.adapter, Adapter::Http { .. }));
    let mut meta = JsonObject::new();
    meta.insert("hcp/pack_id".into(), json!(manifest.id));
    meta.insert("hcp/verb_key".into(), json!(command.key));
    meta.insert("hcp/effect".into(), json!(command.effect.as_str()));
    meta.insert("hcp/version".into(), json!(manifest.version));
    let tool = Tool::new(name, description, Arc::new(input_schema(command)))
        .with_title(summary)
        .with_annotations(annotations)
        .with_meta(MetaObject(meta));
    ToolEntry {
        tool,
        pack_id: manifest.id.clone(),
        verb_key: command.key.clone(),
        version: manifest.version.clone(),
        store: 0,
    }
}

impl ToolEntry {
    /// The entry of a pack held by store `store` of scope `scope`
    /// (`_meta` `hcp/scope`, §15.5).
    pub fn in_store(mut self, store: usize, scope: &str) -> ToolEntry {
        self.store = store;
        let mut meta = self.tool.meta.take().unwrap_or_default();
        meta.0.insert("hcp/scope".into(), json!(scope));
        self.tool.meta = Some(meta);
        self
    }
}

/// The JSON Schema object of a command's `args` (§16.2).
pub fn input_schema(command: &Command) -> JsonObject {
    let mut properties = JsonObject::new();
    for arg in &command.args {
        properties.insert(arg.name.clone(), Value::Object(arg_schema(arg)));
    }
    let required: Vec<&str> = command
        .args
        .iter()
        .filter(|a| a.required)
        .map(|a| a.name.as_str())
        .collect();
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

fn arg_schema(arg: &Arg) -> JsonObject {
    let mut schema = JsonObject::new();
    let kind = match arg.kind {
        ArgType::String | ArgType::Enum => "string",
        ArgType::Integer => "integer",
        ArgType::Number => "number",
        ArgType::Boolean => "boolean",
    };
    schema.insert("type".into(), json!(kind));
    if arg.kind == ArgType::Enum {
        schema.insert("enum".into(), json!(arg.values));
    }
    if let Some(default) = &arg.default {
        schema.insert("default".into(), default.clone());
    }
    if let Some(description) = &arg.description {
        schema.insert(
            "description".into(),
            json!(terminal_safe(description).into_owned()),
        );
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_valid_unique_and_stable() {
        let re = regex::Regex::new("^[a-zA-Z0-9_-]{1,64}$").unwrap_or_else(|_| unreachable!());
        let mut used = HashSet::new();
        let a = unique_name("a.b", "x.y", &mut used);
        let b = unique_name("a.b", "x_y", &mut used);
        assert_eq!(a, "a_b__x_y");
        assert_ne!(a, b);
        assert!(re.is_match(&b), "{b}");
        let mut again = HashSet::new();
        unique_name("a.b", "x.y", &mut again);
        assert_eq!(unique_name("a.b", "x_y", &mut again), b);
        let long = unique_name(&"p".repeat(64), &"v".repeat(64), &mut used);
        assert!(re.is_match(&long), "{long}");
    }
}
