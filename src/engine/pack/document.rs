//! A YAML/JSON document tree that keeps the 1-based line and column of every
//! node, so lint (HCP.md §10.4) can point at the offending key or value.
//!
//! YAML is read with `saphyr-parser` (a maintained, pure-Rust YAML 1.2 event
//! parser); JSON is first checked strictly with `serde_json` and then read
//! through the same event parser (JSON is YAML 1.2), so both formats give one
//! tree with positions. Hostile input is bounded: nesting deeper than
//! [`MAX_DEPTH`] and documents that expand (through aliases) to more than
//! [`MAX_NODES`] nodes are parse errors, found before they cost memory.

use saphyr_parser::{Event, Parser, ScalarStyle, Span};
use std::collections::{HashMap, HashSet};

/// A 1-based line and column in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// Deepest nesting of sequences and mappings a document may have.
pub const MAX_DEPTH: usize = 64;
/// Most nodes a document may hold once aliases are expanded.
pub const MAX_NODES: usize = 100_000;

/// A value in the tree, with where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub pos: Position,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// Why a document could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub pos: Option<Position>,
}

impl Node {
    /// The type name used in messages (`a string`, `a mapping`, ...).
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// Looks up `key` in a mapping; returns the key node and the value node.
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, v)| (k, v))
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// Converts to plain JSON (mapping keys that are not strings are
    /// rendered as their scalar text).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.scalar_text(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// The text of a scalar node (for keys and messages).
    pub fn scalar_text(&self) -> String {
        match &self.value {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => format!("{f:?}"),
            Value::Str(s) => s.clone(),
            Value::Seq(_) => "[...]".into(),
            Value::Map(_) => "{...}".into(),
        }
    }

    /// How many sequences and mappings deep the node goes (a scalar is 0).
    fn height(&self) -> usize {
        match &self.value {
            Value::Seq(items) => 1 + items.iter().map(Node::height).max().unwrap_or(0),
            Value::Map(entries) => {
                1 + entries
                    .iter()
                    .map(|(k, v)| k.height().max(v.height()))
                    .max()
                    .unwrap_or(0)
            }
            _ => 0,
        }
    }

    fn size(&self) -> usize {
        1 + match &self.value {
            Value::Seq(items) => items.iter().map(Node::size).sum(),
            Value::Map(entries) => entries.iter().map(|(k, v)| k.size() + v.size()).sum(),
            _ => 0,
        }
    }
}

/// Reads a YAML document.
pub fn parse_yaml(text: &str) -> Result<Node, ParseError> {
    Builder::default().run(Parser::new_from_str(text))
}

/// Reads a JSON document strictly (what `serde_json` accepts), with positions.
pub fn parse_json(text: &str) -> Result<Node, ParseError> {
    // Skipping into `IgnoredAny` does not recurse, so this cannot overflow;
    // the depth limit is applied by the YAML pass below.
    if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        let message = err.to_string();
        // serde_json appends " at line L column C"; keep the message short.
        let message = match message.rfind(" at line ") {
            Some(cut) => message[..cut].to_string(),
            None => message,
        };
        return Err(ParseError {
            message,
            pos: Some(Position {
                line: err.line().max(1),
                column: err.column().max(1),
            }),
        });
    }
    // Tabs are allowed as JSON whitespace but not everywhere in YAML.
    parse_yaml(&text.replace('\t', " "))
}

fn position(span: &Span) -> Position {
    Position {
        line: span.start.line(),
        column: span.start.col() + 1,
    }
}

enum Frame {
    Seq {
        items: Vec<Node>,
        pos: Position,
        anchor: usize,
    },
    Map {
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
        /// [`key_identity`] of every key so far, so duplicate keys are found
        /// in constant time per key rather than by a scan of the entries;
        /// built only once the mapping is past [`SMALL_MAP`] keys or has a
        /// key that is not a string (see [`Builder::is_duplicate`]).
        seen: Option<HashSet<String>>,
        pos: Position,
        anchor: usize,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    root: Option<Node>,
    documents: usize,
}

impl Builder {
    fn run(mut self, parser: Parser<'_, saphyr_parser::StrInput<'_>>) -> Result<Node, ParseError> {
        for event in parser {
            let (event, span) = event.map_err(|err| ParseError {
                message: err.info().to_string(),
                pos: Some(Position {
                    line: err.marker().line(),
                    column: err.marker().col() + 1,
                }),
            })?;
            let pos = position(&span);
            match event {
                Event::DocumentStart(_) => {
                    self.documents += 1;
                    if self.documents > 1 {
                        return Err(error(pos, "more than one document in the file"));
                    }
                }
                Event::Scalar(text, style, anchor, tag) => {
                    self.count(pos)?;
                    let value = resolve_scalar(&text, style, tag.as_deref());
                    self.push(Node { value, pos }, anchor)?;
                }
                Event::Alias(id) => self.alias(id, pos)?,
                Event::SequenceStart(anchor, _) => {
                    self.open(pos)?;
                    self.stack.push(Frame::Seq {
                        items: Vec::new(),
                        pos,
                        anchor,
                    });
                }
                Event::MappingStart(anchor, _) => {
                    self.open(pos)?;
                    self.stack.push(Frame::Map {
                        entries: Vec::new(),
                        key: None,
                        seen: None,
                        pos,
                        anchor,
                    });
                }
                Event::SequenceEnd | Event::MappingEnd => self.close(pos)?,
                Event::StreamEnd => break,
                _ => {}
            }
        }
        Ok(self.root.unwrap_or(Node {
            value: Value::Null,
            pos: Position { line: 1, column: 1 },
        }))
    }

    /// An alias: a copy of its anchor's node, within the depth and node
    /// limits.
    fn alias(&mut self, id: usize, pos: Position) -> Result<(), ParseError> {
        let node = self
            .anchors
            .get(&id)
            .ok_or_else(|| error(pos, "alias to an unknown anchor"))?;
        // An alias must not nest the tree deeper than MAX_DEPTH
        // either: chains of anchors would otherwise build a
        // tree deep enough to overflow the stack of anything
        // that walks it.
        if self.stack.len() + node.height() > MAX_DEPTH {
            return Err(error(
                pos,
                format!("nested more than {MAX_DEPTH} levels deep (through an alias)"),
            ));
        }
        let size = node.size();
        if self.nodes + size > MAX_NODES {
            return Err(too_many(pos));
        }
        self.nodes += size;
        let mut node = node.clone();
        node.pos = pos;
        self.push(node, 0)
    }

    /// The end of a sequence or mapping: the container becomes a node.
    fn close(&mut self, pos: Position) -> Result<(), ParseError> {
        let (node, anchor) = match self.stack.pop() {
            Some(Frame::Seq { items, pos, anchor }) => (
                Node {
                    value: Value::Seq(items),
                    pos,
                },
                anchor,
            ),
            Some(Frame::Map {
                entries,
                pos,
                anchor,
                ..
            }) => (
                Node {
                    value: Value::Map(entries),
                    pos,
                },
                anchor,
            ),
            None => return Err(error(pos, "unbalanced document")),
        };
        // The container was counted when opened and each of its
        // children when pushed.
        self.push(node, anchor)
    }

    fn open(&mut self, pos: Position) -> Result<(), ParseError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(error(
                pos,
                format!("nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        self.count(pos)
    }

    fn count(&mut self, pos: Position) -> Result<(), ParseError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(too_many(pos));
        }
        Ok(())
    }

    /// Places a node (already counted) in its parent.
    fn push(&mut self, node: Node, anchor: usize) -> Result<(), ParseError> {
        let pos = node.pos;
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries, key, seen, ..
            }) => match key.take() {
                None => {
                    if is_duplicate(entries, seen, &node.value) {
                        return Err(error(
                            pos,
                            format!("duplicate key `{}`", node.scalar_text()),
                        ));
                    }
                    *key = Some(node);
                }
                Some(k) => entries.push((k, node)),
            },
        }
        Ok(())
    }
}

/// Mappings up to this many keys, all strings, look for a duplicate key by
/// comparing the strings (a manifest's mappings are small); larger ones,
/// and any with another kind of key, by [`key_identity`] in a set.
const SMALL_MAP: usize = 16;

/// Whether `key` is already a key of the mapping whose `entries` are so far
/// (`seen` holds their identities once it is built); records it if not.
fn is_duplicate(entries: &[(Node, Node)], seen: &mut Option<HashSet<String>>, key: &Value) -> bool {
    if seen.is_none() {
        match key {
            // A string key equals another key only if that one is the
            // same string (identities of other kinds start otherwise).
            Value::Str(text)
                if entries.len() < SMALL_MAP
                    && entries
                        .iter()
                        .all(|(k, _)| matches!(k.value, Value::Str(_))) =>
            {
                return entries.iter().any(|(k, _)| k.as_str() == Some(text));
            }
            _ => {
                *seen = Some(
                    entries
                        .iter()
                        .map(|(k, _)| key_identity(&k.value))
                        .collect(),
                );
            }
        }
    }
    let set = seen.get_or_insert_with(HashSet::new);
    !set.insert(key_identity(key))
}

/// A text that is equal for two mapping keys exactly when they are the same
/// key. Its length is bounded by the key's node count, which [`MAX_NODES`]
/// bounds; the recursion by [`MAX_DEPTH`].
fn key_identity(value: &Value) -> String {
    use std::fmt::Write as _;
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Null => out.push('~'),
            Value::Bool(b) => out.push_str(if *b { "T" } else { "F" }),
            // Written in place (no `format!`): every key of every
            // mapping passes here.
            Value::Int(i) => {
                let _ = write!(out, "i{i};");
            }
            Value::Float(f) => {
                let _ = write!(out, "f{f:?};");
            }
            Value::Str(s) => {
                let _ = write!(out, "s{}:", s.len());
                out.push_str(s);
            }
            Value::Seq(items) => {
                out.push('[');
                items.iter().for_each(|i| write(&i.value, out));
                out.push(']');
            }
            Value::Map(entries) => {
                out.push('{');
                for (k, v) in entries {
                    write(&k.value, out);
                    write(&v.value, out);
                }
                out.push('}');
            }
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

fn error(pos: Position, message: impl Into<String>) -> ParseError {
    ParseError {
        message: message.into(),
        pos: Some(pos),
    }
}

fn too_many(pos: Position) -> ParseError {
    error(
        pos,
        format!("more than {MAX_NODES} nodes (aliases included); refusing to expand further"),
    )
}

/// Resolves a scalar by the YAML 1.2 core schema.
fn resolve_scalar(text: &str, style: ScalarStyle, tag: Option<&saphyr_parser::Tag>) -> Value {
    if let Some(tag) = tag
        && tag.is_yaml_core_schema()
        && tag.suffix == "str"
    {
        return Value::Str(text.to_string());
    }
    if style != ScalarStyle::Plain {
        return Value::Str(text.to_string());
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    if let Some(hex) = text.strip_prefix("0x")
        && let Ok(i) = i64::from_str_radix(hex, 16)
    {
        return Value::Int(i);
    }
    if let Some(oct) = text.strip_prefix("0o")
        && let Ok(i) = i64::from_str_radix(oct, 8)
    {
        return Value::Int(i);
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && let Ok(i) = text.parse::<i64>()
    {
        return Value::Int(i);
    }
    if looks_like_float(digits)
        && let Ok(f) = text.parse::<f64>()
    {
        return Value::Float(f);
    }
    Value::Str(text.to_string())
}

/// `[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?` or `\.[0-9]+...` (sign already cut).
fn looks_like_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac {
        Some(f) => digits(int) && digits(f) && !(int.is_empty() && f.is_empty()),
        None => !int.is_empty() && digits(int),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    #[test]
    fn keeps_positions_of_keys_and_values() {
        let doc = parse_yaml("id: acme.notes\ncommands:\n  - key: list\n    effect: read\n")
            .unwrap_or_else(|e| panic!("{e:?}"));
        let (k, v) = doc.entry("id").unwrap_or_else(|| panic!("no id"));
        assert_eq!((k.pos, v.pos), (pos(1, 1), pos(1, 5)));
        let cmds = doc
            .get("commands")
            .and_then(Node::as_seq)
            .unwrap_or_default();
        let effect = cmds[0]
            .entry("effect")
            .unwrap_or_else(|| panic!("no effect"));
        assert_eq!(effect.0.pos, pos(4, 5));
        assert_eq!(effect.1.as_str(), Some("read"));
    }

    #[test]
    fn resolves_core_schema_scalars() {
        let doc = parse_yaml("a: 12\nb: '12'\nc: true\nd: ~\ne: 1.5\nf: 1.0.0\ng: -3\n")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(doc.get("a").map(|n| &n.value), Some(&Value::Int(12)));
        assert_eq!(
            doc.get("b").map(|n| &n.value),
            Some(&Value::Str("12".into()))
        );
        assert_eq!(doc.get("c").map(|n| &n.value), Some(&Value::Bool(true)));
        assert_eq!(doc.get("d").map(|n| &n.value), Some(&Value::Null));
        assert_eq!(doc.get("e").map(|n| &n.value), Some(&Value::Float(1.5)));
        assert_eq!(
            doc.get("f").map(|n| &n.value),
            Some(&Value::Str("1.0.0".into()))
        );
        assert_eq!(doc.get("g").map(|n| &n.value), Some(&Value::Int(-3)));
    }

    #[test]
    fn json_errors_carry_line_and_column() {
        let err = parse_json("{\n  \"id\": \"x\",\n  oops\n}").unwrap_err();
        assert_eq!(err.pos.map(|p| p.line), Some(3));
    }

    #[test]
    fn json_values_have_positions() {
        let doc = parse_json("{\n\t\"id\": \"acme.x\",\n  \"n\": 1e3\n}")
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(doc.entry("id").map(|(k, _)| k.pos), Some(pos(2, 2)));
        assert_eq!(doc.get("n").map(|n| &n.value), Some(&Value::Float(1000.0)));
    }

    #[test]
    fn rejects_deep_nesting_without_recursing() {
        let text = "[".repeat(200_000);
        let err = parse_yaml(&text).unwrap_err();
        assert!(
            err.message.contains("nested") || err.message.contains("recursion limit"),
            "{}",
            err.message
        );
    }

    #[test]
    fn rejects_alias_bombs() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let err = parse_yaml(&text).unwrap_err();
        assert!(err.message.contains("nodes"), "{}", err.message);
    }

    #[test]
    fn aliases_cannot_nest_past_max_depth() {
        // a1 is 41 levels deep; placed 40 levels deep it would reach 81.
        let wrap = |inner: &str, n: usize| format!("{}{inner}{}", "[".repeat(n), "]".repeat(n));
        let text = format!(
            "a0: &a0 [x]\na1: &a1 {}\nuse: {}\n",
            wrap("*a0", 40),
            wrap("*a1", 39)
        );
        let err = parse_yaml(&text).unwrap_err();
        assert_eq!(err.pos, Some(pos(3, 45)));
        assert!(err.message.contains("nested"), "{}", err.message);
    }

    #[test]
    fn nodes_are_counted_once_however_deep() {
        // 30,000 scalars five levels down: well under MAX_NODES.
        let item = "- {a: {b: [x, y, z]}}\n";
        let text = format!("k:\n  l:\n{}", format!("    {item}").repeat(6_000));
        assert!(parse_yaml(&text).is_ok());
    }

    #[test]
    fn many_keys_are_checked_for_duplicates_quickly() {
        let text: String = (0..49_000).map(|i| format!("k{i}: 1\n")).collect();
        let started = std::time::Instant::now();
        assert!(parse_yaml(&text).is_ok());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        let err = parse_yaml(&format!("{text}k7: 2\n")).unwrap_err();
        assert_eq!(err.pos, Some(pos(49_001, 1)));
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let err = parse_yaml("id: a\nid: b\n").unwrap_err();
        assert_eq!(err.pos, Some(pos(2, 1)));
    }

    /// Small mappings of string keys compare strings; the others keep a
    /// set of identities: both find the same duplicates.
    #[test]
    fn duplicate_keys_in_small_large_and_mixed_mappings() {
        let keys = |n: usize| (0..n).map(|i| format!("k{i}: {i}\n")).collect::<String>();
        for n in [1, 15, 16, 17, 40] {
            assert!(parse_yaml(&keys(n)).is_ok(), "{n}");
            let err = parse_yaml(&format!("{}k0: again\n", keys(n))).unwrap_err();
            assert_eq!(err.pos, Some(pos(n + 1, 1)), "{n}");
        }
        // A string and an integer are different keys; the same integer,
        // float, null or list twice is a duplicate.
        assert!(parse_yaml("\"1\": a\n1: b\n'1.0': c\n1.0: d\n").is_ok());
        for doc in [
            "a: 1\n1: x\n1: y\n",
            "1: x\na: 1\n1: y\n",
            "1.5: x\n1.5: y\n",
            "~: x\nnull: y\n",
            "? [a, 1]\n: x\n? [a, 1]\n: y\n",
            "? [a, 1]\n: x\nb: 2\nb: 3\n",
        ] {
            assert!(
                parse_yaml(doc).is_err_and(|e| e.message.starts_with("duplicate key")),
                "{doc:?}"
            );
        }
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(parse_yaml("").map(|n| n.value), Ok(Value::Null));
    }
}
