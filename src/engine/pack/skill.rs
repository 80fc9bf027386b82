//! The Skill (HCP.md §5): `SKILL.md` split into YAML frontmatter and a
//! Markdown body. Lint checks it (`engine::lint::skill`); activation copies
//! the file byte for byte (§5.4). A Skill pack (§2.6) — `SKILL.md` and no
//! manifest — is read with the implicit manifest built here from the
//! frontmatter ([`implicit_manifest`], [`implicit_document`]).

use crate::engine::pack::document::{Node, Value};
use crate::engine::pack::manifest::{Manifest, PackKind};

/// The `hcp` version of a Skill pack's implicit manifest (§2.6).
pub const IMPLICIT_HCP: &str = "1";
/// The version of a Skill pack whose frontmatter gives no SemVer
/// `metadata.version` (§2.6).
pub const IMPLICIT_VERSION: &str = "0.0.0";

/// The fields of a Skill pack's implicit manifest that come from the
/// frontmatter `front` (§2.6): the `name` (id and name), the version and
/// the `description`; a field that is not a string is empty.
fn implicit_fields(front: &Node) -> (String, String, String) {
    let text = |node: Option<&Node>| node.and_then(Node::as_str).unwrap_or_default().to_string();
    let version = front
        .get("metadata")
        .and_then(|m| m.get("version"))
        .and_then(Node::as_str)
        .filter(|v| semver::Version::parse(v).is_ok())
        .unwrap_or(IMPLICIT_VERSION);
    (
        text(front.get("name")),
        version.to_string(),
        text(front.get("description")),
    )
}

/// The implicit manifest of a Skill pack whose frontmatter is `front`
/// (§2.6): `hcp: "1"`, id and name the Skill's `name`, the version, the
/// description, `sense_only`, Binding `public`, no commands.
pub fn implicit_manifest(front: &Node) -> Manifest {
    let (name, version, description) = implicit_fields(front);
    Manifest {
        kind: PackKind::Skill,
        hcp: IMPLICIT_HCP.into(),
        id: name.clone(),
        name,
        version,
        description,
        sense_only: true,
        ..Manifest::default()
    }
}

/// The implicit manifest of [`implicit_manifest`] as a document, for the
/// readers that take a field or two of a manifest document (catalog scans,
/// shell completion). Every node sits at the frontmatter's position.
pub fn implicit_document(front: &Node) -> Node {
    let (name, version, description) = implicit_fields(front);
    let pos = front.pos;
    let node = |value| Node { value, pos };
    let entry = |key: &str, value| (node(Value::Str(key.into())), node(value));
    node(Value::Map(vec![
        entry("hcp", Value::Str(IMPLICIT_HCP.into())),
        entry("id", Value::Str(name.clone())),
        entry("name", Value::Str(name)),
        entry("version", Value::Str(version)),
        entry("description", Value::Str(description)),
        entry("sense_only", Value::Bool(true)),
    ]))
}

/// `SKILL.md` split at its frontmatter fences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillParts<'a> {
    /// The text between the two `---` lines.
    pub frontmatter: &'a str,
    /// 1-based line on which the frontmatter text starts.
    pub frontmatter_line: usize,
    pub body: &'a str,
    /// 1-based line on which the body starts.
    pub body_line: usize,
}

/// Splits `SKILL.md`; `None` when it does not start with a `---` line
/// followed, later, by a closing `---` line.
pub fn split(text: &str) -> Option<SkillParts<'_>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = first.len();
    let mut offset = start;
    for (index, line) in lines.enumerate() {
        if line.trim_end() == "---" {
            return Some(SkillParts {
                frontmatter: &text[start..offset],
                frontmatter_line: 2,
                body: &text[offset + line.len()..],
                body_line: index + 3,
            });
        }
        offset += line.len();
    }
    None
}

/// What a front-end shows of a Skill: the frontmatter's `name` and
/// `description` (when they are strings) and the body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SkillDoc {
    pub name: Option<String>,
    pub description: Option<String>,
    pub body: String,
}

/// Reads a Skill's text for display; `None` when it has no frontmatter
/// fences. Frontmatter that is not valid YAML leaves `name` and
/// `description` empty (lint reports why).
pub fn parse(text: &str) -> Option<SkillDoc> {
    let parts = split(text)?;
    let doc = crate::engine::pack::document::parse_yaml(parts.frontmatter).ok();
    let field = |key: &str| {
        doc.as_ref()
            .and_then(|d| d.get(key))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    Some(SkillDoc {
        name: field("name"),
        description: field("description"),
        body: parts.body.to_string(),
    })
}

/// Whether `body` mentions `key` as a whole word: not inside a longer
/// identifier (`list` is not mentioned by `listing` or `issues.list`... but
/// `issues.list` is mentioned by "run issues.list.").
pub fn mentions(body: &str, key: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    body.match_indices(key).any(|(at, _)| {
        let before = body[..at].chars().next_back();
        let after_text = &body[at + key.len()..];
        let mut after = after_text.chars();
        let ok_before = before.is_none_or(|c| !ident(c) && c != '.');
        let ok_after = match after.next() {
            None => true,
            Some('.') => after.next().is_none_or(|c| !ident(c)),
            Some(c) => !ident(c),
        };
        ok_before && ok_after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_frontmatter_and_body() {
        let parts = split("---\nname: x\n---\n# Title\n").unwrap_or_else(|| panic!("no split"));
        assert_eq!(parts.frontmatter, "name: x\n");
        assert_eq!(parts.body, "# Title\n");
        assert_eq!(parts.body_line, 4);
    }

    #[test]
    fn parses_name_description_and_body() {
        let doc = parse("---\nname: x\ndescription: Does x.\n---\n# Title\n")
            .unwrap_or_else(|| panic!("no doc"));
        assert_eq!(doc.name.as_deref(), Some("x"));
        assert_eq!(doc.description.as_deref(), Some("Does x."));
        assert_eq!(doc.body, "# Title\n");
        let broken = parse("---\nname: [\n---\nbody\n").unwrap_or_else(|| panic!("no doc"));
        assert_eq!(broken.name, None);
        assert_eq!(broken.body, "body\n");
        assert_eq!(parse("# no frontmatter\n"), None);
    }

    #[test]
    fn implicit_manifest_of_a_skill() {
        let front = |yaml: &str| {
            crate::engine::pack::document::parse_yaml(yaml).unwrap_or_else(|e| panic!("{e:?}"))
        };
        let m = implicit_manifest(&front(
            "name: pdf-tools\ndescription: Reads PDFs.\nmetadata: {version: 1.2.0}\n",
        ));
        assert_eq!(
            (m.kind, m.id.as_str(), m.name.as_str(), m.version.as_str()),
            (PackKind::Skill, "pdf-tools", "pdf-tools", "1.2.0")
        );
        assert_eq!((m.hcp.as_str(), m.sense_only), ("1", true));
        assert_eq!(m.description, "Reads PDFs.");
        assert!(m.commands.is_empty());
        for other in ["metadata: {version: v1}", "metadata: {version: 1.0}", ""] {
            let m = implicit_manifest(&front(&format!("name: a-b\n{other}\n")));
            assert_eq!(m.version, "0.0.0", "{other}");
        }
        let doc = implicit_document(&front("name: a-b\ndescription: D.\n"));
        assert_eq!(doc.get("id").and_then(Node::as_str), Some("a-b"));
        assert_eq!(doc.get("version").and_then(Node::as_str), Some("0.0.0"));
    }

    #[test]
    fn no_frontmatter() {
        assert_eq!(split("# Title\n"), None);
        assert_eq!(split("---\nname: x\n"), None);
    }

    #[test]
    fn mentions_whole_keys_only() {
        assert!(mentions("Run `list` to see them.", "list"));
        assert!(mentions("Use issues.list.", "issues.list"));
        assert!(!mentions("A listing of things", "list"));
        assert!(!mentions("Run issues.list", "list"));
        assert!(!mentions("Run list.all", "list"));
        assert!(mentions("list", "list"));
    }
}
