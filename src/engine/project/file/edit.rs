//! The edits of `hcp.yaml`: each one reads the file, finds the byte spans
//! of the nodes it changes ([`super::spans`]), splices new text there, and
//! reads the result back to check it holds exactly what was intended. No
//! other byte of the file changes.
//!
//! Layout rules: a new entry goes after the last one, indented like the
//! first (`  - id:` under `packs:`, or `- id:` when the list is not
//! indented; two spaces when there is none yet); a `packs` that is absent,
//! empty-valued or `[]` becomes a block list; lines end as the file's do
//! (`\r\n` when it uses them); a flow list `[{..}]` gets `, {id: ..}`.
//! A removed entry takes its lines with it (from its `-` to its last line,
//! comment lines indented under it included); comments above it stay.

use super::spans::{Kind, Spanned};
use super::{Entry, FILE_NAME, Read, id_problem, read, shown, source_kind};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::document::{self, Node, Value};
use saphyr_parser::ScalarStyle;
use std::collections::BTreeMap;

/// Adds `entry` after the last one, or, when an entry has its id, changes
/// that one's `source` and `activate` in place (its comments and other keys
/// stay).
pub fn with_entry(text: &str, entry: &Entry) -> Result<String> {
    check_entry(entry)?;
    let file = File::new(text)?;
    let mut expected = file.read.file.packs.clone();
    let splices = match expected.iter().position(|e| e.id == entry.id) {
        Some(index) => {
            if expected[index] == *entry {
                return Ok(text.to_string());
            }
            expected[index] = entry.clone();
            file.update_item(index, entry)?
        }
        None => {
            expected.push(entry.clone());
            file.append_entry(entry)?
        }
    };
    file.finish(splices, &expected, file.read.file.harnesses.as_deref())
}

/// Drops the entry `id` with its lines; the text unchanged when there is
/// none.
pub fn without_entry(text: &str, id: &str) -> Result<String> {
    let file = File::new(text)?;
    let mut expected = file.read.file.packs.clone();
    let Some(index) = expected.iter().position(|e| e.id == id) else {
        return Ok(text.to_string());
    };
    expected.remove(index);
    let splices = match file.packs()? {
        Packs::Block { key, seq } => {
            let (start, end) = file.item_region(seq, index);
            let mut splices = vec![Splice::new(start, end, "")];
            if seq.items().len() == 1 {
                splices.push(file.after_colon(key, " []"));
            }
            splices
        }
        Packs::Flow { seq, .. } => vec![flow_removal(seq, index)],
        Packs::Absent | Packs::Null { .. } => return Ok(text.to_string()),
    };
    file.finish(splices, &expected, file.read.file.harnesses.as_deref())
}

/// Item `index` of a flow list out, with the comma that joined it.
fn flow_removal(seq: &Spanned, index: usize) -> Splice {
    let items = seq.items();
    match (items.get(index), items.get(index + 1)) {
        (Some(item), Some(next)) => Splice::new(item.start, next.start, ""),
        (Some(item), None) => match index.checked_sub(1).and_then(|i| items.get(i)) {
            Some(prev) => Splice::new(prev.end, item.end, ""),
            None => Splice::new(seq.start, seq.end, "[]"),
        },
        _ => Splice::new(seq.end, seq.end, ""),
    }
}

/// Sets the entry `id`'s `activate`: `false` writes `activate: false`,
/// `true` removes the key (true is the default). `not_found` when there
/// is no such entry.
pub fn with_activate(text: &str, id: &str, activate: bool) -> Result<String> {
    let file = File::new(text)?;
    let mut expected = file.read.file.packs.clone();
    let Some(index) = expected.iter().position(|e| e.id == id) else {
        return Err(Error::new(
            ErrorCode::NotFound,
            format!("{FILE_NAME} has no entry for `{}`", shown(id)),
        )
        .pack(id));
    };
    if expected[index].activate == activate {
        return Ok(text.to_string());
    }
    expected[index].activate = activate;
    let entry = expected[index].clone();
    let splices = file.update_item(index, &entry)?;
    file.finish(splices, &expected, file.read.file.harnesses.as_deref())
}

/// Sets `harnesses` to `names`, in the list's own style (a flow list
/// `[a, b]` when it was one or was absent).
pub fn with_harnesses(text: &str, names: &[String]) -> Result<String> {
    if let Some(bad) = names.iter().find(|n| !super::harness_name_ok(n)) {
        return Err(Error::usage(format!(
            "`{}` is not a harness name",
            shown(bad)
        )));
    }
    let file = File::new(text)?;
    if file.read.file.harnesses.as_deref() == Some(names) {
        return Ok(text.to_string());
    }
    let splices = file.harness_splices(names)?;
    file.finish(splices, &file.read.file.packs, Some(names))
}

/// A value as YAML: plain when that reads back as the same string, else a
/// double-quoted (JSON) string. `flow`: inside `[..]` or `{..}`.
pub(super) fn scalar(value: &str, flow: bool) -> String {
    if plain_ok(value, flow) {
        value.to_string()
    } else {
        quoted(value)
    }
}

fn quoted(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| format!("{value:?}"))
}

fn plain_ok(value: &str, flow: bool) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let simple = !"-?:,[]{}#&*!|>'\"%@`".contains(first)
        && value.chars().all(|c| c.is_ascii_graphic() || c == ' ')
        && value.trim() == value
        && !value.ends_with(':')
        && !value.contains(": ")
        && !value.contains(" #")
        && !(flow && value.contains([',', '[', ']', '{', '}']));
    if !simple {
        return false;
    }
    let probe = if flow {
        format!("k: [{value}]")
    } else {
        format!("k: {value}")
    };
    let Ok(doc) = document::parse_yaml(&probe) else {
        return false;
    };
    let read = doc.get("k").map(|node| match (&node.value, flow) {
        (Value::Seq(items), true) if items.len() == 1 => items[0].as_str(),
        (_, false) => node.as_str(),
        _ => None,
    });
    read.flatten() == Some(value)
}

/// A new value for a scalar, in the old one's quoting where it can be.
fn restyled(old: &Spanned, value: &str, flow: bool) -> String {
    match old.kind {
        Kind::Scalar(ScalarStyle::DoubleQuoted) => quoted(value),
        Kind::Scalar(ScalarStyle::SingleQuoted) if !value.chars().any(char::is_control) => {
            format!("'{}'", value.replace('\'', "''"))
        }
        _ => scalar(value, flow),
    }
}

fn check_entry(entry: &Entry) -> Result<()> {
    if let Some(why) = id_problem(&entry.id) {
        return Err(Error::usage(format!("cannot record in {FILE_NAME}: {why}")));
    }
    source_kind(&entry.source)
        .map(|_| ())
        .map_err(|why| Error::usage(format!("cannot record in {FILE_NAME}: {why}")))
}

/// Replace `start..end` of the text with `with`.
#[derive(Debug)]
struct Splice {
    start: usize,
    end: usize,
    with: String,
}

impl Splice {
    fn new(start: usize, end: usize, with: impl Into<String>) -> Splice {
        Splice {
            start,
            end,
            with: with.into(),
        }
    }
}

/// Where the `packs` list is and how it is written.
enum Packs<'a> {
    Absent,
    /// `packs:`, `packs: ~`: no list yet.
    Null {
        key: &'a Spanned,
        value: &'a Spanned,
    },
    Block {
        key: &'a Spanned,
        seq: &'a Spanned,
    },
    Flow {
        key: &'a Spanned,
        seq: &'a Spanned,
    },
}

/// The text being edited, read.
struct File<'a> {
    /// A byte order mark, kept in front of the result.
    bom: &'a str,
    body: &'a str,
    eol: &'static str,
    read: Read,
}

impl<'a> File<'a> {
    fn new(text: &'a str) -> Result<File<'a>> {
        let read = read(text)?;
        let (bom, body) = match text.strip_prefix('\u{feff}') {
            Some(body) => (&text[..3], body),
            None => ("", text),
        };
        if read.spans.is_flow() {
            return Err(Error::usage(format!(
                "{FILE_NAME} is written as one flow mapping ({{hcp: ..., packs: [...]}}): hcpx edits the block form (one key per line); rewrite it so, then try again"
            )));
        }
        let eol = if body.contains("\r\n") { "\r\n" } else { "\n" };
        Ok(File {
            bom,
            body,
            eol,
            read,
        })
    }

    /// The top-level `key`: its key span, value span and value node.
    fn top(&self, key: &str) -> Option<(&Spanned, &Spanned, &Node)> {
        let nodes = self.read.doc.as_map()?;
        let at = nodes.iter().position(|(k, _)| k.as_str() == Some(key))?;
        let (k, v) = self.read.spans.entries().get(at)?;
        Some((k, v, &nodes[at].1))
    }

    fn packs(&self) -> Result<Packs<'_>> {
        let Some((key, value, node)) = self.top("packs") else {
            return Ok(Packs::Absent);
        };
        Ok(match (&value.kind, &node.value) {
            (Kind::Seq { flow: true, .. }, _) => Packs::Flow { key, seq: value },
            (Kind::Seq { .. }, _) => Packs::Block { key, seq: value },
            (_, Value::Null) => Packs::Null { key, value },
            _ => return Err(Error::usage(format!("{FILE_NAME}: `packs` is not a list"))),
        })
    }

    /// 1-based line and column of a byte offset.
    fn place(&self, at: usize) -> (usize, usize) {
        let before = &self.body[..at.min(self.body.len())];
        let line = before.matches('\n').count() + 1;
        let column = before[line_start(before, before.len())..].chars().count() + 1;
        (line, column)
    }

    fn item(&self, index: usize) -> Option<(&Spanned, &Node)> {
        let (_, seq, node) = self.top("packs")?;
        Some((seq.items().get(index)?, node.as_seq()?.get(index)?))
    }

    /// The entry `index`'s `source` and `activate` set to `entry`'s.
    fn update_item(&self, index: usize, entry: &Entry) -> Result<Vec<Splice>> {
        let (span, node) = self
            .item(index)
            .ok_or_else(|| Error::usage(format!("{FILE_NAME}: the entry moved")))?;
        if span.is_flow() {
            return self.rewrite_flow_item(span, node, entry);
        }
        let mut splices = Vec::new();
        if let Some((_, value, old)) = key_of(span, node, "source")
            && old.as_str() != Some(&entry.source)
        {
            splices.push(Splice::new(
                value.start,
                value.end,
                restyled(value, &entry.source, false),
            ));
        }
        splices.extend(self.activate_splice(span, node, entry.activate));
        Ok(splices)
    }

    /// `activate:` of a block entry set to `activate`.
    fn activate_splice(&self, span: &Spanned, node: &Node, activate: bool) -> Option<Splice> {
        let Some((key, value, old)) = key_of(span, node, "activate") else {
            if activate {
                return None;
            }
            let at = line_end(self.body, span.end.saturating_sub(1));
            let line = format!("{}activate: false{}", spaces(span.col), self.eol);
            return Some(self.insert_lines(at, &line));
        };
        if old.value == Value::Bool(activate) {
            return None;
        }
        let start = line_start(self.body, key.start);
        let first_on_line = self.body[start..key.start].bytes().all(|b| b == b' ');
        let first_key = span.entries().first().is_some_and(|(k, _)| k == key);
        if activate && first_on_line && !first_key {
            return Some(Splice::new(
                start,
                line_end(self.body, value.end.saturating_sub(1).max(key.end)),
                "",
            ));
        }
        let word = if activate { "true" } else { "false" };
        Some(Splice::new(value.start, value.end, word))
    }

    /// A flow entry (`- {id: a, source: b}`) written again with `entry`'s
    /// values, when it holds no other key.
    fn rewrite_flow_item(&self, span: &Spanned, node: &Node, entry: &Entry) -> Result<Vec<Splice>> {
        let others = node
            .as_map()
            .unwrap_or_default()
            .iter()
            .any(|(k, _)| !matches!(k.as_str(), Some("id" | "source" | "activate")));
        if others {
            let (line, column) = self.place(span.start);
            return Err(Error::usage(format!(
                "{FILE_NAME}:{line}:{column}: the entry `{}` is a flow mapping with keys of its own: write it as a block (`- id: ..` and one key per line), then try again",
                entry.id
            )));
        }
        let text = flow_entry(entry);
        Ok(vec![Splice::new(span.start, span.end, text)])
    }

    /// A new entry after the last one.
    fn append_entry(&self, entry: &Entry) -> Result<Vec<Splice>> {
        match self.packs()? {
            Packs::Absent => {
                let indent = self.read.spans.col;
                let mut lines = format!("{}packs:{}", spaces(indent), self.eol);
                lines.push_str(&self.entry_lines(entry, indent + 2, indent + 4));
                Ok(vec![self.insert_lines(self.body.len(), &lines)])
            }
            Packs::Null { key, value } => Ok(self.open_list(key, value, entry)),
            Packs::Flow { key, seq } if seq.items().is_empty() => {
                Ok(self.open_list(key, seq, entry))
            }
            Packs::Flow { seq, .. } => {
                let last = seq.items().last().map_or(seq.start + 1, |item| item.end);
                Ok(vec![Splice::new(
                    last,
                    last,
                    format!(", {}", flow_entry(entry)),
                )])
            }
            Packs::Block { seq, .. } => {
                let last = seq.items().len().saturating_sub(1);
                let (_, end) = self.item_region(seq, last);
                let content = match seq.items().first() {
                    Some(first)
                        if matches!(first.kind, Kind::Map { flow: false, .. })
                            && line_start(self.body, first.start)
                                == line_start(self.body, seq.start) =>
                    {
                        first.col
                    }
                    _ => seq.col + 2,
                };
                let lines = self.entry_lines(entry, seq.col, content);
                Ok(vec![self.insert_lines(end, &lines)])
            }
        }
    }

    /// `packs:` whose value is null or `[]` made a block list of `entry`:
    /// the old value goes, the entry follows the key's line.
    fn open_list(&self, key: &Spanned, value: &Spanned, entry: &Entry) -> Vec<Splice> {
        let mut splices = Vec::new();
        if value.end > value.start {
            let mut start = value.start;
            while start > key.end && self.body.as_bytes()[start - 1] == b' ' {
                start -= 1;
            }
            splices.push(Splice::new(start, value.end, ""));
        }
        let at = line_end(self.body, value.end.max(key.end).saturating_sub(1));
        let lines = self.entry_lines(entry, key.col + 2, key.col + 4);
        splices.push(self.insert_lines(at, &lines));
        splices
    }

    fn entry_lines(&self, entry: &Entry, dash: usize, content: usize) -> String {
        let eol = self.eol;
        let mut lines = format!(
            "{}-{}id: {}{eol}{}source: {}{eol}",
            spaces(dash),
            spaces(content.saturating_sub(dash + 1).max(1)),
            scalar(&entry.id, false),
            spaces(content.max(dash + 2)),
            scalar(&entry.source, false),
        );
        if !entry.activate {
            lines.push_str(&format!(
                "{}activate: false{eol}",
                spaces(content.max(dash + 2))
            ));
        }
        lines
    }

    /// Inserts whole lines at `at` (a line start, or the end of a file
    /// that may lack its last line break).
    fn insert_lines(&self, at: usize, lines: &str) -> Splice {
        let needs_break =
            at == self.body.len() && !self.body.is_empty() && !self.body.ends_with('\n');
        let with = if needs_break {
            format!("{}{lines}", self.eol)
        } else {
            lines.to_string()
        };
        Splice::new(at, at, with)
    }

    /// Inserts `text` just after the `:` that follows `key`.
    fn after_colon(&self, key: &Spanned, text: &str) -> Splice {
        let colon = self.body[key.end..]
            .find(':')
            .map_or(key.end, |at| key.end + at + 1);
        Splice::new(colon, colon, text)
    }

    /// The bytes of item `index` of a block list: from the start of its
    /// `-` line to the end of its last line, with the comment lines
    /// indented under it that follow.
    fn item_region(&self, seq: &Spanned, index: usize) -> (usize, usize) {
        let items = seq.items();
        let Some(item) = items.get(index) else {
            return (seq.end, seq.end);
        };
        let floor = match index.checked_sub(1).and_then(|i| items.get(i)) {
            Some(prev) => prev.end,
            None => 0,
        };
        let start = if index == 0 {
            line_start(self.body, seq.start)
        } else {
            self.dash_line(item.start, seq.col, floor)
        };
        let mut end = line_end(self.body, item.end.saturating_sub(1).max(item.start));
        while end < self.body.len() {
            let next = line_end(self.body, end);
            let line = &self.body[end..next];
            let indent = line.len() - line.trim_start_matches(' ').len();
            if line.trim_start().starts_with('#') && indent > seq.col {
                end = next;
            } else {
                break;
            }
        }
        (start, end)
    }

    /// The start of the line holding the `-` (at column `col`) of the item
    /// that starts at `at`: its own line or one above, not above `floor`.
    fn dash_line(&self, at: usize, col: usize, floor: usize) -> usize {
        let mut start = line_start(self.body, at);
        loop {
            let line = &self.body[start..];
            let is_dash = line.len() > col
                && line.as_bytes()[..col].iter().all(|b| *b == b' ')
                && line.as_bytes()[col] == b'-';
            if is_dash || start == 0 || start <= floor {
                return start;
            }
            start = line_start(self.body, start - 1);
        }
    }

    fn harness_splices(&self, names: &[String]) -> Result<Vec<Splice>> {
        let flow = format!(
            "[{}]",
            names
                .iter()
                .map(|n| scalar(n, true))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let Some((key, value, node)) = self.top("harnesses") else {
            let line = format!(
                "{}harnesses: {flow}{}",
                spaces(self.read.spans.col),
                self.eol
            );
            return Ok(vec![self.insert_lines(self.body.len(), &line)]);
        };
        Ok(match &value.kind {
            Kind::Seq { flow: false, items } if !items.is_empty() => {
                let start = line_start(self.body, value.start);
                let (_, end) = self.item_region(value, items.len() - 1);
                if names.is_empty() {
                    vec![Splice::new(start, end, ""), self.after_colon(key, " []")]
                } else {
                    let lines: String = names
                        .iter()
                        .map(|n| format!("{}- {}{}", spaces(value.col), scalar(n, false), self.eol))
                        .collect();
                    vec![Splice::new(start, end, lines)]
                }
            }
            _ if node.value == Value::Null && value.end == value.start => {
                vec![self.after_colon(key, &format!(" {flow}"))]
            }
            _ => vec![Splice::new(value.start, value.end, flow)],
        })
    }

    /// Applies the splices and checks the result reads back to `packs`
    /// and `harnesses`; refuses (changing nothing) when it does not.
    fn finish(
        &self,
        mut splices: Vec<Splice>,
        packs: &[Entry],
        harnesses: Option<&[String]>,
    ) -> Result<String> {
        splices.sort_by_key(|s| (s.start, s.end));
        let mut body = String::with_capacity(self.body.len() + 128);
        let mut at = 0;
        for splice in &splices {
            if splice.start < at || splice.end > self.body.len() {
                return Err(self.cannot_edit());
            }
            body.push_str(&self.body[at..splice.start]);
            body.push_str(&splice.with);
            at = splice.end;
        }
        body.push_str(&self.body[at..]);
        let out = format!("{}{body}", self.bom);
        let kept: Vec<&str> = packs.iter().map(|e| e.id.as_str()).collect();
        match read(&out) {
            Ok(back)
                if back.file.packs == packs
                    && back.file.harnesses.as_deref() == harnesses
                    && residue(&back.doc, &kept) == residue(&self.read.doc, &kept) =>
            {
                Ok(out)
            }
            _ => Err(self.cannot_edit()),
        }
    }

    fn cannot_edit(&self) -> Error {
        Error::usage(format!(
            "{FILE_NAME}: hcpx cannot make this change in place without changing other lines of the file; nothing was written"
        ))
        .hint(format!("edit {FILE_NAME} by hand"))
    }
}

/// What an edit leaves alone: every top-level key but `packs` and
/// `harnesses`, and the other keys (`x-..`) of the entries in `kept`.
fn residue(doc: &Node, kept: &[&str]) -> (serde_json::Value, BTreeMap<String, serde_json::Value>) {
    let mut top = serde_json::Map::new();
    let mut entries = BTreeMap::new();
    for (key, value) in doc.as_map().unwrap_or_default() {
        match key.as_str() {
            Some("harnesses") => {}
            Some("packs") => {
                for item in value.as_seq().unwrap_or_default() {
                    let Some(id) = item.get("id").and_then(Node::as_str) else {
                        continue;
                    };
                    let rest: serde_json::Map<String, serde_json::Value> = item
                        .as_map()
                        .unwrap_or_default()
                        .iter()
                        .filter(|(k, _)| !matches!(k.as_str(), Some("id" | "source" | "activate")))
                        .map(|(k, v)| (k.scalar_text(), v.to_json()))
                        .collect();
                    if kept.contains(&id) && !rest.is_empty() {
                        entries.insert(id.to_string(), serde_json::Value::Object(rest));
                    }
                }
            }
            _ => {
                top.insert(key.scalar_text(), value.to_json());
            }
        }
    }
    (serde_json::Value::Object(top), entries)
}

/// An entry as a flow mapping, `{id: ID, source: SOURCE}`.
fn flow_entry(entry: &Entry) -> String {
    let mut text = format!(
        "{{id: {}, source: {}",
        scalar(&entry.id, true),
        scalar(&entry.source, true)
    );
    if !entry.activate {
        text.push_str(", activate: false");
    }
    text.push('}');
    text
}

/// The key `name` of a mapping entry: key span, value span, value node.
fn key_of<'s>(
    span: &'s Spanned,
    node: &'s Node,
    name: &str,
) -> Option<(&'s Spanned, &'s Spanned, &'s Node)> {
    let nodes = node.as_map()?;
    let at = nodes.iter().position(|(k, _)| k.as_str() == Some(name))?;
    let (k, v) = span.entries().get(at)?;
    Some((k, v, &nodes[at].1))
}

fn spaces(n: usize) -> String {
    " ".repeat(n)
}

/// The start of the line holding byte `at`.
fn line_start(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1)
}

/// Just past the line break of the line holding byte `at` (the text's end
/// on its last line).
fn line_end(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[at..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(text.len(), |i| at + i + 1)
}
