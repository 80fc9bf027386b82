//! The `manifest.text` rule (HCP.md §10.5, §14.5): no string of the
//! manifest or of the Skill frontmatter may hold a control character or a
//! bidirectional override or isolate (U+202A–U+202E, U+2066–U+2069).
//! Newlines and tabs are text, not control, in a `description`, in a
//! `process` adapter's `argv` elements and `env` values (a multi-line
//! script is a normal argv element), and in an `http` adapter's `body`. Keys are strings too, but an
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

/// Whether `place` is `commands[i].adapter` of the manifest.
fn is_adapter(place: &Place<'_>) -> bool {
    let Place::Key(Place::Index(Place::Key(Place::Root, commands), _), adapter) = place else {
        return false;
    };
    commands.as_str() == Some("commands") && adapter.as_str() == Some("adapter")
}

/// Whether the value of `key` in the mapping `entries` at `place` may hold
/// newlines and tabs: a `description` anywhere; `argv` and `env` of a
/// `process` adapter, `body` of an `http` one.
fn multiline_value(place: &Place<'_>, entries: &[(Node, Node)], key: &Node) -> bool {
    if is_description(key) {
        return true;
    }
    if !is_adapter(place) {
        return false;
    }
    let kind = entries
        .iter()
        .find(|(k, _)| k.as_str() == Some("kind"))
        .and_then(|(_, v)| v.as_str());
    matches!(
        (kind, key.as_str()),
        (Some("process"), Some("argv" | "env")) | (Some("http"), Some("body"))
    )
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

/// Checks every string under `node`, at `place`; `multiline`: the strings
/// of this value (not its keys) may hold newlines and tabs.
fn walk(
    node: &Node,
    place: &Place<'_>,
    multiline: bool,
    f: &mut Findings<'_>,
    shift: &dyn Fn(Position) -> Position,
) {
    match &node.value {
        Value::Str(s) => string(s, node.pos, place, false, multiline, f, shift),
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &Place::Index(place, i), multiline, f, shift);
            }
        }
        Value::Map(entries) => {
            for (key, value) in entries {
                let child = Place::Key(place, key);
                if let Value::Str(k) = &key.value {
                    string(k, key.pos, &child, true, false, f, shift);
                }
                let multiline = multiline || multiline_value(place, entries, key);
                walk(value, &child, multiline, f, shift);
            }
        }
        _ => {}
    }
}

/// The first character of `s` that `manifest.text` refuses, if any;
/// `multiline`: newline and tab are allowed.
pub fn first_refused(s: &str, multiline: bool) -> Option<char> {
    s.chars().find(|&c| {
        let allowed_space = multiline && (c == '\n' || c == '\t');
        (c.is_control() && !allowed_space) || is_bidi_control(c)
    })
}

/// Checks one string, at `place` (the key there when `key_of`).
fn string(
    s: &str,
    pos: Position,
    place: &Place<'_>,
    key_of: bool,
    multiline: bool,
    f: &mut Findings<'_>,
    shift: &dyn Fn(Position) -> Position,
) {
    let Some(c) = first_refused(s, multiline) else {
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
    .with_hint(if multiline {
        "remove it: text may hold no control characters (only newlines and tabs here) and no bidirectional overrides (HCP §10.5)"
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

    fn manifest_findings(yaml: &str) -> Vec<(Option<usize>, String)> {
        let doc = parse_yaml(yaml).unwrap_or_else(|e| panic!("{e:?}"));
        let mut out = Vec::new();
        let mut f = Findings::new("pack.yaml", &mut out);
        check(&doc, Source::Manifest, &mut f, &|p| p);
        out.into_iter().map(|d| (d.line, d.message)).collect()
    }

    #[test]
    fn newline_and_tab_in_process_argv_env_and_http_body_only() {
        let clean = "commands:\n  - adapter:\n      kind: process\n      program: sh\n      argv: [-c, \"a\\n\\tb\"]\n      env: {S: \"x\\ny\"}\n  - adapter:\n      kind: http\n      body: {text: \"a\\nb\", list: [\"c\\td\"]}\n";
        assert_eq!(manifest_findings(clean), []);
        // ESC stays refused in argv; a newline in a program, an env key, a
        // header, a URL or a summary too.
        let dirty = "commands:\n  - summary: \"a\\nb\"\n    adapter:\n      kind: process\n      program: \"s\\nh\"\n      argv: [\"\\e[31m\"]\n      env: {\"K\\n\": v}\n  - adapter:\n      kind: http\n      url: \"https://x/\\n\"\n      headers: {A: \"b\\nc\"}\n      argv: [\"a\\nb\"]\n";
        let lines: Vec<_> = manifest_findings(dirty)
            .into_iter()
            .map(|(l, _)| l)
            .collect();
        assert_eq!(
            lines,
            [
                Some(2),
                Some(5),
                Some(6),
                Some(7),
                Some(10),
                Some(11),
                Some(12)
            ]
        );
        // Outside `commands[i].adapter`, `argv` is no argv.
        assert_eq!(
            manifest_findings("x-extra: {kind: process, argv: [\"a\\nb\"]}\n").len(),
            1
        );
    }

    #[test]
    fn newline_and_tab_only_in_a_description() {
        assert!(findings("description: \"a\\n\\tb\"\n").is_empty());
        assert_eq!(findings("name: \"a\\tb\"\n").len(), 1);
        assert_eq!(findings("summary: \"a\\nb\"\n").len(), 1);
        assert_eq!(findings("description: \"a\\rb\"\n").len(), 1);
    }
}
