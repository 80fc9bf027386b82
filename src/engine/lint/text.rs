//! The `manifest.text` rule (HCP.md §10.5, §14.5): no string of the
//! manifest or of the Skill frontmatter may hold a control character (a
//! `description` may hold newlines and tabs) or a bidirectional override
//! or isolate (U+202A–U+202E, U+2066–U+2069). Keys are strings too, but an
//! unknown top-level key of the manifest is left to `manifest.unknown-key`,
//! which already names it (escaped): one problem, one finding. Each
//! offending string is one finding, at the string's line and column.

use crate::engine::lint::diagnostic::{Findings, Position, Rule};
use crate::engine::pack::document::{Node, Value};
use crate::engine::pack::text::is_bidi_control;

/// Where the strings come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The manifest: its unknown top-level keys are reported elsewhere.
    Manifest,
    /// The Skill's frontmatter, where any key is allowed.
    SkillFrontmatter,
}

/// Checks every string under `doc`; `shift` maps a position in the parsed
/// text to one in the file (the Skill's frontmatter starts on line 2).
pub fn check(
    doc: &Node,
    source: Source,
    f: &mut Findings<'_>,
    shift: &dyn Fn(Position) -> Position,
) {
    if let (Source::Manifest, Value::Map(entries)) = (source, &doc.value) {
        for (key, value) in entries {
            let place = Place::Key(&Place::Root, key);
            if let Value::Str(k) = &key.value
                && k.starts_with("x-")
            {
                string(k, key.pos, &place, true, false, f, shift);
            }
            walk(value, &place, is_description(key), f, shift);
        }
        return;
    }
    walk(doc, &Place::Root, false, f, shift);
}

/// Where a string is in the document, as a chain up to the root: written
/// out (`commands[0].summary`) only when a finding names it, since almost
/// every string is clean.
enum Place<'a> {
    Root,
    Key(&'a Place<'a>, &'a Node),
    Index(&'a Place<'a>, usize),
}

impl Place<'_> {
    /// The path: keys joined by `.`, indexes as `[i]`.
    fn render(&self) -> String {
        match self {
            Place::Root => String::new(),
            Place::Key(parent, key) => {
                let parent = parent.render();
                let name = key.scalar_text();
                if parent.is_empty() {
                    name
                } else {
                    format!("{parent}.{name}")
                }
            }
            Place::Index(parent, i) => format!("{}[{i}]", parent.render()),
        }
    }
}

fn is_description(key: &Node) -> bool {
    key.as_str() == Some("description")
}

fn walk(
    node: &Node,
    place: &Place<'_>,
    in_description: bool,
    f: &mut Findings<'_>,
    shift: &dyn Fn(Position) -> Position,
) {
    match &node.value {
        Value::Str(s) => string(s, node.pos, place, false, in_description, f, shift),
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &Place::Index(place, i), false, f, shift);
            }
        }
        Value::Map(entries) => {
            for (key, value) in entries {
                let child = Place::Key(place, key);
                if let Value::Str(k) = &key.value {
                    string(k, key.pos, &child, true, false, f, shift);
                }
                walk(value, &child, is_description(key), f, shift);
            }
        }
        _ => {}
    }
}

/// The first character of `s` that `manifest.text` refuses, if any.
pub fn first_refused(s: &str, in_description: bool) -> Option<char> {
    s.chars().find(|&c| {
        let allowed_space = in_description && (c == '\n' || c == '\t');
        (c.is_control() && !allowed_space) || is_bidi_control(c)
    })
}

/// Checks one string, at `place` (the key there when `key_of`).
fn string(
    s: &str,
    pos: Position,
    place: &Place<'_>,
    key_of: bool,
    in_description: bool,
    f: &mut Findings<'_>,
    shift: &dyn Fn(Position) -> Position,
) {
    let Some(c) = first_refused(s, in_description) else {
        return;
    };
    let what = if is_bidi_control(c) {
        "a bidirectional override"
    } else {
        "a control character"
    };
    let path = if key_of {
        format!("key of {}", place.render())
    } else {
        place.render()
    };
    let shown = crate::engine::lint::files::printable(&path);
    f.report(
        Rule::ManifestText,
        Some(shift(pos)),
        format!("`{shown}` holds U+{:04X}, {what}", u32::from(c)),
    )
    .with_hint(if in_description {
        "remove it: text may hold no control characters (a description may hold newlines and tabs) and no bidirectional overrides (HCP §10.5)"
    } else {
        "remove it: text may hold no control characters and no bidirectional overrides (HCP §10.5)"
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::lint::diagnostic::Diagnostic;
    use crate::engine::pack::document::parse_yaml;

    fn findings(yaml: &str) -> Vec<Diagnostic> {
        let doc = parse_yaml(yaml).unwrap_or_else(|e| panic!("{e:?}"));
        let mut out = Vec::new();
        let mut f = Findings::new("pack.yaml", &mut out);
        check(&doc, Source::SkillFrontmatter, &mut f, &|p| p);
        out
    }

    #[test]
    fn control_and_bidi_characters_are_found_with_their_place() {
        let out = findings(
            "name: \"a\\e]0;x\\a\"\ndescription: \"two\\nlines\\tok\"\ncommands:\n  - summary: \"r\\u202Eevil\"\n    args: [{name: a, description: \"b\\u0085\"}]\n\"k\\x01\": 1\n",
        );
        let places: Vec<_> = out
            .iter()
            .map(|d| (d.rule.id(), d.line, d.column, d.message.as_str()))
            .collect();
        assert_eq!(
            places,
            [
                (
                    "manifest.text",
                    Some(1),
                    Some(7),
                    "`name` holds U+001B, a control character"
                ),
                (
                    "manifest.text",
                    Some(4),
                    Some(14),
                    "`commands[0].summary` holds U+202E, a bidirectional override"
                ),
                (
                    "manifest.text",
                    Some(5),
                    Some(35),
                    "`commands[0].args[0].description` holds U+0085, a control character"
                ),
                (
                    "manifest.text",
                    Some(6),
                    Some(1),
                    "`key of k\\u{1}` holds U+0001, a control character"
                ),
            ]
        );
    }

    #[test]
    fn manifest_keys_x_and_nested_are_checked_unknown_top_level_left_to_unknown_key() {
        let doc = parse_yaml("\"a\\e\": 1\n\"x-\\e\": 2\nbinding: {\"h\\e\": 3}\n")
            .unwrap_or_else(|e| panic!("{e:?}"));
        let mut out = Vec::new();
        let mut f = Findings::new("pack.yaml", &mut out);
        check(&doc, Source::Manifest, &mut f, &|p| p);
        let lines: Vec<_> = out.iter().map(|d| d.line).collect();
        assert_eq!(lines, [Some(2), Some(3)], "{out:?}");
    }

    #[test]
    fn newline_and_tab_only_in_a_description() {
        assert!(findings("description: \"a\\n\\tb\"\n").is_empty());
        assert_eq!(findings("name: \"a\\tb\"\n").len(), 1);
        assert_eq!(findings("summary: \"a\\nb\"\n").len(), 1);
        assert_eq!(findings("description: \"a\\rb\"\n").len(), 1);
    }
}
