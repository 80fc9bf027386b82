//! `hcp.yaml`, what a project wants (HCP.md §15.2): read with the line and
//! column of every problem, and edited in place.
//!
//! ```yaml
//! hcp: "1"
//! packs:
//!   - id: pdf
//!     source: github:anthropics/skills//skills/pdf
//!   - id: acme.notes
//!     source: ./tools/notes
//!     activate: false
//! harnesses: [agents, claude-code]
//! ```
//!
//! [`parse`] checks the shape: `hcp` is `"1"` or `"1.N"`; `packs` a list
//! of mappings with an `id` (a pack id, §3.2, not the runtime's own) and a
//! portable `source`, and an optional `activate` (a boolean, default true);
//! `harnesses` a list of names. Unknown keys, at the top or in an entry,
//! are [`FileWarning`]s naming the key; `x-` keys are ignored. Anything
//! else — bad YAML, the wrong shape, a second entry with the same id — is a
//! `usage` error worded `hcp.yaml:LINE:COL: ...`.
//!
//! A portable `source` is one a teammate's clone resolves the same way: a
//! git source of §13.1 (`git+URL[//SUBDIR][#REF]`, `github:OWNER/REPO..`,
//! `OWNER/REPO..`, `https://github.com/OWNER/REPO..`) or a folder relative
//! to the project ([`ProjectSource`]). An absolute or `~` path is refused,
//! and so is a URL holding a credential (`https://user:token@..`): the file
//! is committed. A folder outside the project (`../shared/notes`) is a
//! warning: teammates need the same layout beside it.
//!
//! Bounds: a file over [`MAX_BYTES`] (1 MiB) is refused before it is
//! parsed; anchors and aliases are refused (no YAML bomb expands); nesting
//! and node counts are bounded by the document reader.
//!
//! The edits ([`with_entry`], [`without_entry`], [`with_activate`],
//! [`with_harnesses`]) never re-serialise the document: they splice new
//! text at the byte spans of the nodes they change, so comments, blank
//! lines, key order, quoting and line endings (CRLF too) of every other
//! line stay as they were. Each result is read back and must hold exactly
//! the intended packs and harnesses, and every other key as before; an
//! edit the file's layout does not allow (a document written as one flow
//! mapping `{hcp: .., packs: ..}`, a flow entry `{id: .., x-k: ..}` with
//! keys of its own) is a `usage` error that changes nothing. A `packs`
//! written as a flow list `[{id: .., source: ..}]` is edited in flow style.

mod edit;
mod spans;

use crate::engine::error::{Error, Result};
use crate::engine::pack::document::{self, Node, Value};
use crate::engine::pack::grammar;
use crate::engine::pack::text::terminal_safe;
use crate::engine::store::source::{self, GitSource, InstallSource};
use std::path::{Component, Path, PathBuf};

pub use edit::{with_activate, with_entry, with_harnesses, without_entry};

/// The project file's name.
pub const FILE_NAME: &str = "hcp.yaml";

/// The largest `hcp.yaml` read, in bytes.
pub const MAX_BYTES: usize = 1024 * 1024;

/// What `hcp.yaml` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFile {
    /// The `packs` entries, in file order.
    pub packs: Vec<Entry>,
    /// The `harnesses` list; `None` when the key is absent or empty-valued.
    pub harnesses: Option<Vec<String>>,
    /// Unknown keys and folders outside the project.
    pub warnings: Vec<FileWarning>,
}

/// One `packs` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// A pack id (§3.2).
    pub id: String,
    /// The portable source, as written ([`source_of`] classifies it).
    pub source: String,
    /// Whether the pack is to be activated (`activate:`, default true).
    pub activate: bool,
}

impl Entry {
    /// An entry that is activated (the default).
    pub fn new(id: impl Into<String>, source: impl Into<String>) -> Entry {
        Entry {
            id: id.into(),
            source: source.into(),
            activate: true,
        }
    }
}

/// A problem in `hcp.yaml` that does not stop it being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWarning {
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
}

/// What an entry's `source` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectSource {
    /// A git source (`git+..`, `github:..`, `https://github.com/..`).
    Git(GitSource),
    /// A folder, relative to the project (a bare word such as `notes` is
    /// one too: `hcp.yaml` records where a pack came from, never a catalog
    /// id).
    Folder(PathBuf),
    /// `OWNER/REPO[/SUBDIR][#REF]`: the folder when it exists in the
    /// project, else that GitHub repository (§13.1).
    FolderOrGithub(PathBuf, GitSource),
}

/// The spec versions read: `"1"` and `"1.N"`.
fn is_supported_hcp(s: &str) -> bool {
    match s.split_once('.') {
        None => s == "1",
        Some((major, minor)) => {
            major == "1" && !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit())
        }
    }
}

/// A `usage` error at a place in `hcp.yaml`.
fn at(line: usize, column: usize, message: impl AsRef<str>) -> Error {
    Error::usage(format!("{FILE_NAME}:{line}:{column}: {}", message.as_ref()))
}

fn at_node(node: &Node, message: impl AsRef<str>) -> Error {
    at(node.pos.line, node.pos.column, message)
}

/// A key or value from the file, fit for a message.
fn shown(text: &str) -> String {
    let safe = terminal_safe(text);
    let mut out: String = safe.chars().take(80).collect();
    if safe.chars().count() > 80 {
        out.push('…');
    }
    out
}

/// Reads `hcp.yaml`'s text.
///
/// Errors are `usage`, worded `hcp.yaml:LINE:COL: ...`.
pub fn parse(text: &str) -> Result<ProjectFile> {
    read(text).map(|read| read.file)
}

/// A read file: what it says, its document and where each node lies.
pub(crate) struct Read {
    pub file: ProjectFile,
    pub doc: Node,
    pub spans: spans::Spanned,
}

/// Parses and checks `text` (a leading byte order mark is skipped by the
/// caller of the edits, here only for reading).
pub(crate) fn read(text: &str) -> Result<Read> {
    if text.len() > MAX_BYTES {
        return Err(Error::usage(format!(
            "{FILE_NAME} is {} bytes: at most {} (1 MiB) is read",
            text.len(),
            MAX_BYTES
        )));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc = document::parse_yaml(text).map_err(|err| match err.pos {
        Some(pos) => at(pos.line, pos.column, &err.message),
        None => Error::usage(format!("{FILE_NAME}: {}", err.message)),
    })?;
    let file = check(&doc)?;
    let spans = match spans::build(text) {
        Ok(Some(spans)) => spans,
        Ok(None) => return Err(Error::usage(format!("{FILE_NAME}: not a YAML document"))),
        Err(refused) => {
            return Err(at(
                refused.line,
                refused.column,
                "anchors and aliases (`&name`, `*name`) are not accepted in hcp.yaml: write each value out",
            ));
        }
    };
    Ok(Read { file, doc, spans })
}

/// The top-level keys of `hcp.yaml`.
const TOP_KEYS: &[&str] = &["hcp", "packs", "harnesses"];
/// The keys of a `packs` entry.
const ENTRY_KEYS: &[&str] = &["id", "source", "activate"];

fn check(doc: &Node) -> Result<ProjectFile> {
    let Some(map) = doc.as_map() else {
        let what = if doc.value == Value::Null {
            "the file is empty".to_string()
        } else {
            format!("the file must be a mapping, not {}", doc.type_name())
        };
        return Err(at_node(doc, format!("{what}: it starts with hcp: \"1\"")));
    };
    let mut warnings = Vec::new();
    unknown_keys(map, TOP_KEYS, "", &mut warnings);
    check_hcp(doc)?;
    let packs = match doc.get("packs") {
        None => Vec::new(),
        Some(node) if node.value == Value::Null => Vec::new(),
        Some(node) => check_packs(node, &mut warnings)?,
    };
    let harnesses = match doc.get("harnesses") {
        None => None,
        Some(node) if node.value == Value::Null => None,
        Some(node) => Some(check_harnesses(node)?),
    };
    Ok(ProjectFile {
        packs,
        harnesses,
        warnings,
    })
}

fn check_hcp(doc: &Node) -> Result<()> {
    let Some(node) = doc.get("hcp") else {
        return Err(at_node(
            doc,
            "`hcp` is missing: the file starts with hcp: \"1\"",
        ));
    };
    let Some(version) = node.as_str() else {
        return Err(at_node(
            node,
            format!(
                "`hcp` must be the string \"1\" (in quotes), not {}",
                node.type_name()
            ),
        ));
    };
    if !is_supported_hcp(version) {
        return Err(at_node(
            node,
            format!(
                "unsupported version hcp: \"{}\": this runtime reads \"1\" and \"1.N\"",
                shown(version)
            ),
        ));
    }
    Ok(())
}

/// A warning for each key of `map` that is neither known nor `x-`.
fn unknown_keys(map: &[(Node, Node)], known: &[&str], what: &str, out: &mut Vec<FileWarning>) {
    for (key, _) in map {
        let name = key.scalar_text();
        if known.contains(&name.as_str()) || name.starts_with("x-") {
            continue;
        }
        out.push(FileWarning {
            line: key.pos.line,
            column: key.pos.column,
            message: format!("unknown key `{}`{what} (ignored)", shown(&name)),
        });
    }
}

fn check_packs(node: &Node, warnings: &mut Vec<FileWarning>) -> Result<Vec<Entry>> {
    let items = node.as_seq().ok_or_else(|| {
        at_node(
            node,
            format!(
                "`packs` must be a list of entries (`- id: ID` and `source: SOURCE`), not {}",
                node.type_name()
            ),
        )
    })?;
    let mut entries: Vec<Entry> = Vec::with_capacity(items.len());
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    for item in items {
        let entry = check_entry(item, warnings)?;
        if !seen.insert(entry.id.clone()) {
            let place = item.get("id").unwrap_or(item);
            return Err(at_node(
                place,
                format!(
                    "a second entry for `{}`: each pack is listed once",
                    entry.id
                ),
            ));
        }
        entries.push(entry);
    }
    Ok(entries)
}

fn check_entry(item: &Node, warnings: &mut Vec<FileWarning>) -> Result<Entry> {
    let Some(map) = item.as_map() else {
        return Err(at_node(
            item,
            format!(
                "each entry of `packs` must be a mapping with `id` and `source`, not {}",
                item.type_name()
            ),
        ));
    };
    let id_node = item
        .get("id")
        .ok_or_else(|| at_node(item, "an entry without `id`: name the pack (id: ID)"))?;
    let id = id_node.as_str().ok_or_else(|| {
        at_node(
            id_node,
            format!("`id` must be a pack id, not {}", id_node.type_name()),
        )
    })?;
    id_problem(id).map_or(Ok(()), |why| Err(at_node(id_node, why)))?;
    let source_node = item.get("source").ok_or_else(|| {
        at_node(
            item,
            format!("the entry `{id}` has no `source`: say where the pack comes from"),
        )
    })?;
    let source = source_node.as_str().ok_or_else(|| {
        at_node(
            source_node,
            format!(
                "`source` must be a string (a git source or a folder), not {}",
                source_node.type_name()
            ),
        )
    })?;
    match check_source(source) {
        Ok(Some(warning)) => warnings.push(FileWarning {
            line: source_node.pos.line,
            column: source_node.pos.column,
            message: warning,
        }),
        Ok(None) => {}
        Err(why) => return Err(at_node(source_node, why)),
    }
    let activate = match item.get("activate") {
        None => true,
        Some(node) => match node.value {
            Value::Bool(b) => b,
            _ => {
                return Err(at_node(
                    node,
                    format!("`activate` must be true or false, not {}", node.type_name()),
                ));
            }
        },
    };
    unknown_keys(map, ENTRY_KEYS, &format!(" in the entry `{id}`"), warnings);
    Ok(Entry {
        id: id.to_string(),
        source: source.to_string(),
        activate,
    })
}

/// What is wrong with an entry's id, if anything.
fn id_problem(id: &str) -> Option<String> {
    if !grammar::is_pack_id(id) {
        return Some(format!(
            "`{}` is not a pack id: lowercase letters and digits, `.` or `-` between them, 2-64 characters",
            shown(id)
        ));
    }
    if grammar::is_reserved_pack_id(id) {
        return Some(format!(
            "`{id}` is reserved for the runtime's own pack, which lives in the user store"
        ));
    }
    None
}

fn check_harnesses(node: &Node) -> Result<Vec<String>> {
    let items = node.as_seq().ok_or_else(|| {
        at_node(
            node,
            format!(
                "`harnesses` must be a list of names (e.g. [agents, claude-code]), not {}",
                node.type_name()
            ),
        )
    })?;
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(name) if harness_name_ok(name) => Ok(name.to_string()),
            Some(name) => Err(at_node(
                item,
                format!("`{}` is not a harness name", shown(name)),
            )),
            None => Err(at_node(
                item,
                format!(
                    "each of `harnesses` must be a name, not {}",
                    item.type_name()
                ),
            )),
        })
        .collect()
}

/// A harness name: a word of letters, digits, `-`, `_` and `.` (which
/// names are known is the harness table's business).
fn harness_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

/// Checks that `source` is portable: `Ok(Some(warning))` for a folder
/// outside the project, `Err(why)` for what is refused.
fn check_source(source: &str) -> std::result::Result<Option<String>, String> {
    source_kind(source).map(|(_, warning)| warning)
}

/// Classifies an entry's `source` (as [`parse`] accepted it, or as it is
/// about to be recorded): a `usage` error when it is not portable.
pub fn source_of(source: &str) -> Result<ProjectSource> {
    source_kind(source)
        .map(|(kind, _)| kind)
        .map_err(|why| Error::usage(format!("{FILE_NAME}: {why}")))
}

fn source_kind(source: &str) -> std::result::Result<(ProjectSource, Option<String>), String> {
    if source.is_empty() {
        return Err("`source` is empty: a git source or a folder of the project".into());
    }
    if source.chars().any(char::is_control) {
        return Err("`source` holds a control character".into());
    }
    if let Some(credential_free) = without_credentials(source) {
        return Err(format!(
            "`{}` holds a credential, which would be committed with hcp.yaml: remove it and let git's credential helper supply it",
            shown(&credential_free)
        ));
    }
    if source.starts_with('/') || source.starts_with('~') || source.starts_with('\\') {
        return Err(format!(
            "`{}` is an absolute path: write the folder relative to the project (teammates' clones live elsewhere)",
            shown(source)
        ));
    }
    let parsed = InstallSource::parse(source).map_err(|err| err.message)?;
    let kind = match parsed {
        InstallSource::Git(git) => {
            let local = git
                .url
                .get(..7)
                .is_some_and(|s| s.eq_ignore_ascii_case("file://"))
                || !git.url.contains(':');
            let warning = local.then(|| {
                format!(
                    "`{}` is a repository on this machine: teammates need it at the same place",
                    shown(source)
                )
            });
            return Ok((ProjectSource::Git(git), warning));
        }
        InstallSource::DirOrGithub(path, git) => ProjectSource::FolderOrGithub(path, git),
        InstallSource::Dir(path) => ProjectSource::Folder(path),
        InstallSource::Catalog(id) => ProjectSource::Folder(PathBuf::from(id.as_str())),
    };
    let path = match &kind {
        ProjectSource::Folder(path) | ProjectSource::FolderOrGithub(path, _) => path,
        ProjectSource::Git(_) => return Ok((kind, None)),
    };
    let warning = leaves_project(path).then(|| {
        format!(
            "`{}` is outside the project: teammates need the same folders beside their clone",
            shown(source)
        )
    });
    Ok((kind, warning))
}

/// Whether a relative path climbs above its start (`../x`, `a/../../x`).
fn leaves_project(path: &Path) -> bool {
    let mut depth: usize = 0;
    for part in path.components() {
        match part {
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            },
            Component::Normal(_) => depth += 1,
            _ => {}
        }
    }
    false
}

/// The source without its URL's credentials, when it holds any.
fn without_credentials(source: &str) -> Option<String> {
    let url = source.strip_prefix("git+").unwrap_or(source);
    if source::url_credentials(url).is_empty() {
        return None;
    }
    let prefix = if url.len() < source.len() { "git+" } else { "" };
    Some(format!("{prefix}{}", source::redact_url(url)))
}

/// The text of `hcp.yaml`'s bytes: a `usage` error naming the line when
/// they are not UTF-8.
pub fn decode(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|err| {
        let valid = &bytes[..err.valid_up_to()];
        let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
        let start = valid.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&valid[start..]).chars().count() + 1;
        at(line, column, "not valid UTF-8 text")
    })
}

/// What `hcpx init` writes: the version, no packs, and these harnesses.
pub fn initial(harnesses: &[String]) -> String {
    let names: Vec<String> = harnesses
        .iter()
        .map(|name| edit::scalar(name, true))
        .collect();
    format!(
        "# The packs this project's agents use (hcpx add / hcpx remove edit this file;\n\
         # `hcpx sync` installs them into .hcp/ and places their Skills).\n\
         hcp: \"1\"\n\
         packs: []\n\
         harnesses: [{}]\n",
        names.join(", ")
    )
}

impl std::fmt::Display for FileWarning {
    /// `hcp.yaml:LINE:COL: message`, as errors are worded.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{FILE_NAME}:{}:{}: {}",
            self.line, self.column, self.message
        )
    }
}

#[cfg(test)]
mod tests;
