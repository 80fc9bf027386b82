//! Skill rules of HCP.md §5: frontmatter, `name`, `description`, a non-empty
//! body, and a mention of every verb_key.

use crate::engine::lint::diagnostic::{Diagnostic, Findings, Position, Rule};
use crate::engine::lint::files::printable;
use crate::engine::lint::text_position;
use crate::engine::pack::document::{self, Node};
use crate::engine::pack::grammar;
use crate::engine::pack::skill;

pub const FILE: &str = "SKILL.md";

/// Checks `SKILL.md` given as bytes; `keys` are the pack's verb_keys.
pub fn check(bytes: &[u8], keys: &[&str], out: &mut Vec<Diagnostic>) {
    let mut f = Findings::new(FILE, out);
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            f.report(
                Rule::SkillFrontmatter,
                Some(text_position(bytes, err.valid_up_to())),
                "SKILL.md is not valid UTF-8",
            );
            return;
        }
    };
    let Some(parts) = skill::split(text) else {
        f.report(
            Rule::SkillFrontmatter,
            Some(Position { line: 1, column: 1 }),
            "SKILL.md must start with YAML frontmatter between two `---` lines",
        )
        .with_hint("start the file with:\n---\nname: my-pack\ndescription: What this pack lets an agent do.\n---");
        return;
    };
    frontmatter(&mut f, &parts);
    if parts.body.trim().is_empty() {
        f.report(
            Rule::SkillEmptyBody,
            Some(Position {
                line: parts.body_line,
                column: 1,
            }),
            "SKILL.md has nothing after its frontmatter",
        )
        .with_hint("explain to an agent when and how to use this pack's commands");
        return;
    }
    for key in keys {
        if !skill::mentions(parts.body, key) {
            f.report(
                Rule::SkillCommandUndocumented,
                None,
                format!("the body never mentions the command `{key}`"),
            )
            .with_hint(format!("tell the agent when to run `{key}`"));
        }
    }
}

/// The frontmatter: YAML, a mapping, the `manifest.text` rule, and the
/// `name` and `description` fields (§5.1–§5.2).
fn frontmatter(f: &mut Findings<'_>, parts: &skill::SkillParts<'_>) {
    let shift = |p: Position| Position {
        line: p.line + parts.frontmatter_line - 1,
        column: p.column,
    };
    match document::parse_yaml(parts.frontmatter) {
        Err(err) => {
            f.report(
                Rule::SkillFrontmatter,
                Some(shift(err.pos.unwrap_or(Position { line: 1, column: 1 }))),
                format!("the frontmatter is not valid YAML: {}", err.message),
            );
        }
        Ok(doc) if doc.as_map().is_none() => {
            f.report(
                Rule::SkillFrontmatter,
                Some(Position { line: 1, column: 1 }),
                format!(
                    "the frontmatter must be a mapping, found {}",
                    doc.type_name()
                ),
            );
        }
        Ok(doc) => {
            use crate::engine::lint::text;
            text::check(&doc, text::Source::SkillFrontmatter, f, &shift);
            let fence = Position { line: 1, column: 1 };
            field(f, &doc, "name", Rule::SkillName, fence, &shift, |s| {
                grammar::is_skill_name(s).then_some(()).ok_or_else(|| {
                    format!(
                        "`name` `{}` must be 1 to 64 characters: words of a-z and 0-9 joined by single hyphens (no leading, trailing or double `-`)",
                        printable(s)
                    )
                })
            });
            field(
                f,
                &doc,
                "description",
                Rule::SkillDescription,
                fence,
                &shift,
                |s| {
                    (1..=1024)
                        .contains(&s.chars().count())
                        .then_some(())
                        .ok_or_else(|| {
                            format!(
                                "`description` must be 1 to 1,024 characters, found {}",
                                s.chars().count()
                            )
                        })
                },
            );
        }
    }
}

fn field(
    f: &mut Findings<'_>,
    doc: &Node,
    key: &str,
    rule: Rule,
    fence: Position,
    shift: &dyn Fn(Position) -> Position,
    valid: impl Fn(&str) -> Result<(), String>,
) {
    match doc.entry(key) {
        None => {
            f.report(rule, Some(fence), format!("the frontmatter has no `{key}`"));
        }
        Some((_, value)) => match value.as_str() {
            None => {
                f.report(
                    rule,
                    Some(shift(value.pos)),
                    format!("`{key}` must be a string, found {}", value.type_name()),
                );
            }
            Some(s) => {
                if let Err(why) = valid(s) {
                    f.report(rule, Some(shift(value.pos)), why);
                }
            }
        },
    }
}
