//! Where each node of `hcp.yaml` lies in its text, as byte offsets, so an
//! edit can replace exactly a value or a list item and leave every other
//! byte (comments, blank lines, quoting) as it was.
//!
//! The tree mirrors [`document::parse_yaml`](crate::engine::pack::document)'s
//! node for node (the same saphyr-parser events, aliases refused), so the
//! two are walked side by side: the document gives values, this gives
//! places. It is built only from text that document already accepted, so
//! its depth and size are bounded there.

use saphyr_parser::{Event, Parser, ScalarStyle};

/// One node's place in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned {
    /// Byte offset of its first character (a block sequence: its first `-`;
    /// a block mapping: its first key; a flow collection: `[` or `{`).
    pub start: usize,
    /// Byte offset just past its last character: a scalar's own end
    /// (quotes included), a flow collection's closing bracket, a block
    /// collection's last child's end.
    pub end: usize,
    /// 0-based column of `start`, in characters.
    pub col: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Scalar(ScalarStyle),
    Seq {
        flow: bool,
        items: Vec<Spanned>,
    },
    Map {
        flow: bool,
        entries: Vec<(Spanned, Spanned)>,
    },
}

impl Spanned {
    pub fn items(&self) -> &[Spanned] {
        match &self.kind {
            Kind::Seq { items, .. } => items,
            _ => &[],
        }
    }

    pub fn entries(&self) -> &[(Spanned, Spanned)] {
        match &self.kind {
            Kind::Map { entries, .. } => entries,
            _ => &[],
        }
    }

    /// Whether a collection is written in flow style (`[..]`, `{..}`).
    pub fn is_flow(&self) -> bool {
        matches!(
            self.kind,
            Kind::Seq { flow: true, .. } | Kind::Map { flow: true, .. }
        )
    }
}

/// Why the tree could not be built: an anchor or alias (hcp.yaml takes
/// none), at a byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub line: usize,
    pub column: usize,
}

enum Open {
    Seq(Spanned),
    Map(Spanned, Option<Spanned>),
}

/// Byte offsets of character indexes (saphyr counts characters).
struct Offsets(Option<Vec<usize>>);

impl Offsets {
    fn new(text: &str) -> Offsets {
        if text.is_ascii() {
            return Offsets(None);
        }
        let mut table: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
        table.push(text.len());
        Offsets(Some(table))
    }

    fn byte(&self, index: usize) -> usize {
        match &self.0 {
            None => index,
            Some(table) => table
                .get(index)
                .copied()
                .unwrap_or_else(|| table.last().copied().unwrap_or(0)),
        }
    }
}

/// Builds the tree of `text` (which [`document::parse_yaml`] accepted);
/// `None` for text it could not have accepted.
pub fn build(text: &str) -> Result<Option<Spanned>, Refused> {
    let offsets = Offsets::new(text);
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    for event in Parser::new_from_str(text) {
        let Ok((event, span)) = event else {
            return Ok(None);
        };
        let start = offsets.byte(span.start.index());
        let col = span.start.col();
        let refused = || Refused {
            line: span.start.line(),
            column: col + 1,
        };
        let node = match event {
            Event::Alias(_) => return Err(refused()),
            Event::Scalar(_, _, anchor, _)
            | Event::SequenceStart(anchor, _)
            | Event::MappingStart(anchor, _)
                if anchor != 0 =>
            {
                return Err(refused());
            }
            Event::Scalar(_, style, _, _) => Spanned {
                start,
                end: scalar_end(text, start, style, offsets.byte(span.end.index())),
                col,
                kind: Kind::Scalar(style),
            },
            Event::SequenceStart(..) => {
                let flow = !span.is_empty();
                let (start, col) = if flow {
                    (start, col)
                } else {
                    dash(text, start, col)
                };
                stack.push(Open::Seq(Spanned {
                    start,
                    end: start,
                    col,
                    kind: Kind::Seq {
                        flow,
                        items: Vec::new(),
                    },
                }));
                continue;
            }
            Event::MappingStart(..) => {
                let flow = !span.is_empty();
                stack.push(Open::Map(
                    Spanned {
                        start,
                        end: start,
                        col,
                        kind: Kind::Map {
                            flow,
                            entries: Vec::new(),
                        },
                    },
                    None,
                ));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let mut node = match stack.pop() {
                    Some(Open::Seq(node) | Open::Map(node, _)) => node,
                    None => return Ok(None),
                };
                if node.is_flow() {
                    // The closing bracket is where the end event starts.
                    node.end = offsets.byte(span.start.index() + 1);
                }
                node
            }
            _ => continue,
        };
        place(&mut stack, &mut root, node);
    }
    Ok(root)
}

/// The end of a scalar: for a quoted one, just past its closing quote
/// (the parser's span runs on over a comment that follows it).
fn scalar_end(text: &str, start: usize, style: ScalarStyle, end: usize) -> usize {
    let bytes = text.as_bytes();
    let quote = match style {
        ScalarStyle::DoubleQuoted => b'"',
        ScalarStyle::SingleQuoted => b'\'',
        _ => return end,
    };
    if bytes.get(start) != Some(&quote) {
        return end;
    }
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if quote == b'"' => at += 2,
            b'\'' if quote == b'\'' && bytes.get(at + 1) == Some(&b'\'') => at += 2,
            b if b == quote => return at + 1,
            _ => at += 1,
        }
    }
    end
}

/// The `-` of a block sequence whose start event points past it (a list
/// not indented under its key starts at its first item's content): the
/// nearest `-` before `start` across blanks, with its column.
fn dash(text: &str, start: usize, col: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    if bytes.get(start) == Some(&b'-') {
        return (start, col);
    }
    let mut at = start;
    while at > 0 && matches!(bytes[at - 1], b' ' | b'\n' | b'\r') {
        at -= 1;
    }
    if at == 0 || bytes[at - 1] != b'-' {
        return (start, col);
    }
    let dash = at - 1;
    let line = bytes[..dash]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    (dash, text[line..dash].chars().count())
}

/// Puts a finished node into its parent (or makes it the root), growing
/// the parent's end when it is a block collection.
fn place(stack: &mut [Open], root: &mut Option<Spanned>, node: Spanned) {
    match stack.last_mut() {
        None => *root = Some(node),
        Some(Open::Seq(parent)) => {
            if !parent.is_flow() {
                parent.end = parent.end.max(node.end);
            }
            if let Kind::Seq { items, .. } = &mut parent.kind {
                items.push(node);
            }
        }
        Some(Open::Map(parent, key)) => {
            if !parent.is_flow() {
                parent.end = parent.end.max(node.end);
            }
            match key.take() {
                None => *key = Some(node),
                Some(k) => {
                    if let Kind::Map { entries, .. } = &mut parent.kind {
                        entries.push((k, node));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Spanned {
        build(text)
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("no tree for {text:?}"))
    }

    fn slice<'a>(text: &'a str, node: &Spanned) -> &'a str {
        &text[node.start..node.end]
    }

    #[test]
    fn scalars_span_their_text_quotes_included() {
        let text = "a: 'x y'\nb: \"q\"  # c\nc: plain\n";
        let root = tree(text);
        let values: Vec<&str> = root.entries().iter().map(|(_, v)| slice(text, v)).collect();
        assert_eq!(values, ["'x y'", "\"q\"", "plain"]);
    }

    #[test]
    fn flow_collections_end_at_their_bracket() {
        let text = "k: [a,\n  b]  # x\nm: {a: 1}\n";
        let root = tree(text);
        assert_eq!(slice(text, &root.entries()[0].1), "[a,\n  b]");
        assert_eq!(slice(text, &root.entries()[1].1), "{a: 1}");
        assert!(root.entries()[0].1.is_flow());
        assert!(!root.is_flow());
    }

    #[test]
    fn block_collections_end_at_their_last_child() {
        let text = "packs:\n  - id: é\n    source: b # c\n\nnext: 1\n";
        let root = tree(text);
        let packs = &root.entries()[0].1;
        assert_eq!(slice(text, packs), "- id: é\n    source: b");
        assert_eq!(packs.col, 2);
        assert_eq!(packs.items()[0].col, 4);
    }

    #[test]
    fn a_list_not_indented_under_its_key_starts_at_its_dash() {
        for text in ["k:\n- a: 1\n", "k:\n-\n  a: 1\n", "k:\n  - a: 1\n"] {
            let root = tree(text);
            let seq = &root.entries()[0].1;
            assert_eq!(&text[seq.start..seq.start + 1], "-", "{text:?}");
        }
    }

    #[test]
    fn quoted_scalars_end_at_their_quote() {
        let text = "a: \"x\\\" y\"  # c\nb: 'it''s'  # d\n";
        let root = tree(text);
        let values: Vec<&str> = root.entries().iter().map(|(_, v)| slice(text, v)).collect();
        assert_eq!(values, ["\"x\\\" y\"", "'it''s'"]);
    }

    #[test]
    fn anchors_and_aliases_are_refused_where_they_are() {
        assert_eq!(
            build("a: &x 1\nb: *x\n"),
            Err(Refused { line: 1, column: 4 })
        );
    }
}
