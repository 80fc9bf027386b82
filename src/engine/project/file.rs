//! `hcp.yaml` (HCP.md §15.2): parsing and editing it.
//!
//! STAND-IN until the real module (branch `projectfile`) is merged: the
//! agreed API, with a plain implementation that re-writes the file from
//! what it parsed (comments are not kept here).

use crate::engine::error::{Error, Result};
use crate::engine::pack::document::{self, Node};

pub const FILE_NAME: &str = "hcp.yaml";

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProjectFile {
    pub packs: Vec<Entry>,
    pub harnesses: Option<Vec<String>>,
    pub warnings: Vec<FileWarning>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub source: String,
    pub activate: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWarning {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn bad(node: Option<&Node>, message: &str) -> Error {
    let (line, column) = node.map_or((1, 1), |n| (n.pos.line, n.pos.column));
    Error::usage(format!("{FILE_NAME}:{line}:{column}: {message}")).path(FILE_NAME)
}

/// Errors are `ErrorCode::Usage` naming `hcp.yaml`, line and column.
pub fn parse(text: &str) -> Result<ProjectFile> {
    let doc = document::parse_yaml(text).map_err(|e| {
        let (line, column) = e.pos.map_or((1, 1), |p| (p.line, p.column));
        Error::usage(format!("{FILE_NAME}:{line}:{column}: {}", e.message)).path(FILE_NAME)
    })?;
    let mut file = ProjectFile::default();
    if matches!(doc.value, document::Value::Null) {
        return Ok(file);
    }
    if doc.as_map().is_none() {
        return Err(bad(Some(&doc), "expected a mapping"));
    }
    if let Some(packs) = doc.get("packs") {
        let items = packs
            .as_seq()
            .ok_or_else(|| bad(Some(packs), "`packs` must be a list"))?;
        for item in items {
            let id = item
                .get("id")
                .and_then(Node::as_str)
                .ok_or_else(|| bad(Some(item), "an entry of `packs` has no `id`"))?;
            let source = item
                .get("source")
                .and_then(Node::as_str)
                .ok_or_else(|| bad(Some(item), "an entry of `packs` has no `source`"))?;
            if source.starts_with('/') {
                return Err(bad(
                    item.get("source"),
                    "an absolute path is not portable; write it relative to the project",
                ));
            }
            let activate = !matches!(
                item.get("activate").map(|n| &n.value),
                Some(document::Value::Bool(false))
            );
            file.packs.push(Entry {
                id: id.to_string(),
                source: source.to_string(),
                activate,
            });
        }
    }
    if let Some(names) = doc.get("harnesses") {
        let items = names
            .as_seq()
            .ok_or_else(|| bad(Some(names), "`harnesses` must be a list"))?;
        file.harnesses = Some(items.iter().map(Node::scalar_text).collect());
    }
    Ok(file)
}

fn render(file: &ProjectFile) -> String {
    let mut out = String::from("hcp: \"1\"\n");
    if file.packs.is_empty() {
        out.push_str("packs: []\n");
    } else {
        out.push_str("packs:\n");
        for e in &file.packs {
            out.push_str(&format!("  - id: {}\n    source: {:?}\n", e.id, e.source));
            if !e.activate {
                out.push_str("    activate: false\n");
            }
        }
    }
    if let Some(names) = &file.harnesses {
        out.push_str(&format!("harnesses: [{}]\n", names.join(", ")));
    }
    out
}

/// `text` with `entry` added (or the entry of that id replaced), comments kept.
pub fn with_entry(text: &str, entry: &Entry) -> Result<String> {
    let mut file = parse(text)?;
    match file.packs.iter_mut().find(|e| e.id == entry.id) {
        Some(e) => *e = entry.clone(),
        None => file.packs.push(entry.clone()),
    }
    Ok(render(&file))
}

/// `text` without the entry of `id` (Ok(text unchanged) if absent).
pub fn without_entry(text: &str, id: &str) -> Result<String> {
    let mut file = parse(text)?;
    if !file.packs.iter().any(|e| e.id == id) {
        return Ok(text.to_string());
    }
    file.packs.retain(|e| e.id != id);
    Ok(render(&file))
}

/// `text` with `activate:` of entry `id` set (`true` removes the key).
pub fn with_activate(text: &str, id: &str, activate: bool) -> Result<String> {
    let mut file = parse(text)?;
    match file.packs.iter_mut().find(|e| e.id == id) {
        Some(e) if e.activate != activate => e.activate = activate,
        _ => return Ok(text.to_string()),
    }
    Ok(render(&file))
}

/// `text` with `harnesses` set to `names`.
pub fn with_harnesses(text: &str, names: &[String]) -> Result<String> {
    let mut file = parse(text)?;
    file.harnesses = Some(names.to_vec());
    Ok(render(&file))
}

/// The text `init` writes.
pub fn initial(harnesses: &[String]) -> String {
    render(&ProjectFile {
        harnesses: Some(harnesses.to_vec()),
        ..ProjectFile::default()
    })
}
