//! Skill rules of HCP.md §5: frontmatter, `name`, `description`, a non-empty
//! body, and a mention of every verb_key; the names `hcp-cli` and `hcp-*`
//! kept for the bootstrap pack's Skill (§14.10); and where a Skill pack
//! (§2.6) differs: its `name` is its pack_id, a long `description` is a
//! warning, and a `name` other than its folder's is `skill.name-folder`.
//! `skill.control-char` (§14.5): the file may hold no ESC, no C1 control
//! and no C0 one but tab, newline and carriage return (CRLF line ends are
//! fine), so an agent is never served text that drives a terminal; one
//! finding, at the first such character, saying how many lines hold one.
//! DEL (U+007F, neither C0 nor C1) is left to the front-ends' replacement.

use crate::engine::lint::diagnostic::{Diagnostic, Findings, Position, Rule, Severity};
use crate::engine::lint::files::printable;
use crate::engine::lint::text_position;
use crate::engine::pack::document::{self, Node};
use crate::engine::pack::grammar;
use crate::engine::pack::skill;

pub const FILE: &str = "SKILL.md";

/// What the Skill rules need to know besides the file.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// The pack's verb_keys (none in a Skill pack).
    pub keys: &'a [&'a str],
    /// True only for the runtime's own bootstrap pack (§14.10).
    pub bootstrap: bool,
    /// Set when the pack is a Skill pack (§2.6).
    pub skill_pack: Option<SkillPack<'a>>,
}

/// The rules of a Skill pack (§2.6).
#[derive(Debug, Clone, Copy, Default)]
pub struct SkillPack<'a> {
    /// The pack folder's name, which the `name` should equal; `None` when
    /// the folder's name is not the pack's to choose (a git checkout's
    /// root).
    pub folder: Option<&'a str>,
}

/// Checks `SKILL.md` given as bytes; the frontmatter, when it is a YAML
/// mapping (what a Skill pack's implicit manifest is read from).
pub fn check(bytes: &[u8], ctx: &Context<'_>, out: &mut Vec<Diagnostic>) -> Option<Node> {
    let mut f = Findings::new(FILE, out);
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            f.report(
                Rule::SkillFrontmatter,
                Some(text_position(bytes, err.valid_up_to())),
                "SKILL.md is not valid UTF-8",
            );
            return None;
        }
    };
    control_chars(text, &mut f);
    let Some(parts) = skill::split(text) else {
        f.report(
            Rule::SkillFrontmatter,
            Some(Position { line: 1, column: 1 }),
            "SKILL.md must start with YAML frontmatter between two `---` lines",
        )
        .with_hint("start the file with:\n---\nname: my-pack\ndescription: What this pack lets an agent do.\n---");
        return None;
    };
    let front = frontmatter(&mut f, &parts, ctx);
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
        return front;
    }
    for key in ctx.keys {
        if !skill::mentions(parts.body, key) {
            f.report(
                Rule::SkillCommandUndocumented,
                None,
                format!("the body never mentions the command `{key}`"),
            )
            .with_hint(format!("tell the agent when to run `{key}`"));
        }
    }
    front
}

/// Whether `c` is refused in `SKILL.md`: C0 but tab, newline and carriage
/// return (ESC among them), and C1.
fn is_refused_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{80}'..='\u{9f}') && !matches!(c, '\t' | '\n' | '\r')
}

/// `skill.control-char`: at the first refused character.
fn control_chars(text: &str, f: &mut Findings<'_>) {
    let Some((offset, c)) = text.char_indices().find(|&(_, c)| is_refused_control(c)) else {
        return;
    };
    let lines = text
        .lines()
        .filter(|line| line.chars().any(is_refused_control))
        .count();
    let name = if c == '\u{1b}' { " (ESC)" } else { "" };
    let more = if lines > 1 {
        format!("; {lines} lines hold one")
    } else {
        String::new()
    };
    f.report(
        Rule::SkillControlChar,
        Some(text_position(text.as_bytes(), offset)),
        format!(
            "SKILL.md holds U+{:04X}{name}, a control character{more}",
            u32::from(c)
        ),
    )
    .with_hint("remove it: Skill text may hold tabs and line breaks, no other control characters");
}

/// The frontmatter: YAML, a mapping, the `manifest.text` rule, and the
/// `name` and `description` fields (§5.1–§5.2, §2.6); the document when it
/// is a mapping.
fn frontmatter(
    f: &mut Findings<'_>,
    parts: &skill::SkillParts<'_>,
    ctx: &Context<'_>,
) -> Option<Node> {
    let shift = |p: Position| Position {
        line: p.line + parts.frontmatter_line - 1,
        column: p.column,
    };
    let doc = match document::parse_yaml(parts.frontmatter) {
        Err(err) => {
            f.report(
                Rule::SkillFrontmatter,
                Some(shift(err.pos.unwrap_or(Position { line: 1, column: 1 }))),
                format!("the frontmatter is not valid YAML: {}", err.message),
            );
            return None;
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
            return None;
        }
        Ok(doc) => doc,
    };
    use crate::engine::lint::text;
    text::check(&doc, text::Source::SkillFrontmatter, f, &shift);
    let fence = Position { line: 1, column: 1 };
    let before = f.list.len();
    field(f, &doc, "name", Rule::SkillName, fence, &shift, |s| {
        name_problem(s, ctx)
    });
    if f.list.len() == before {
        name_folder(f, &doc, ctx, &shift);
    }
    let before = f.list.len();
    field(
        f,
        &doc,
        "description",
        Rule::SkillDescription,
        fence,
        &shift,
        description_problem,
    );
    // A harness may cut a long description of a Skill pack: a warning
    // there (§2.6), an error in a pack that has a manifest.
    let too_long = doc
        .get("description")
        .and_then(Node::as_str)
        .is_some_and(|d| d.chars().count() > MAX_DESCRIPTION);
    if ctx.skill_pack.is_some() && too_long {
        for d in &mut f.list[before..] {
            d.severity = Severity::Warning;
            d.hint =
                Some("a harness may cut it: keep the description under 1,024 characters".into());
        }
    }
    Some(doc)
}

/// The longest `description` (§5.2).
const MAX_DESCRIPTION: usize = 1024;

fn description_problem(s: &str) -> Result<(), String> {
    let n = s.chars().count();
    if (1..=MAX_DESCRIPTION).contains(&n) {
        return Ok(());
    }
    Err(format!(
        "`description` must be 1 to 1,024 characters, found {n}"
    ))
}

/// What is wrong with the Skill `name` `s`: its grammar (§5.2), a name
/// kept for the bootstrap pack's Skill (§14.10), or, in a Skill pack, not
/// a pack_id (§2.6, §3.2).
fn name_problem(s: &str, ctx: &Context<'_>) -> Result<(), String> {
    if !grammar::is_skill_name(s) {
        return Err(format!(
            "`name` `{}` must be 1 to 64 characters: words of a-z and 0-9 joined by single hyphens (no leading, trailing or double `-`)",
            printable(s)
        ));
    }
    if grammar::is_reserved_skill_name(s) && !ctx.bootstrap {
        return Err(format!(
            "`name` `{s}` is reserved for the runtime's bootstrap pack (`hcp-cli`, `hcp-*`)"
        ));
    }
    if ctx.skill_pack.is_some() && !grammar::is_pack_id(s) {
        return Err(format!(
            "`name` `{s}` is this Skill pack's id and must be a pack_id: at least 2 characters"
        ));
    }
    Ok(())
}

/// `skill.name-folder` (§2.6): a Skill pack's `name` differs from its
/// folder's name.
fn name_folder(
    f: &mut Findings<'_>,
    doc: &Node,
    ctx: &Context<'_>,
    shift: &dyn Fn(Position) -> Position,
) {
    let Some(folder) = ctx.skill_pack.and_then(|p| p.folder) else {
        return;
    };
    let Some(name) = doc.get("name").filter(|n| n.as_str() != Some(folder)) else {
        return;
    };
    let shown = printable(name.as_str().unwrap_or_default());
    f.report(
        Rule::SkillNameFolder,
        Some(shift(name.pos)),
        format!(
            "the Skill is named `{shown}` but its folder is `{}`",
            printable(folder)
        ),
    )
    .with_hint(format!(
        "harnesses find a Skill by its folder: rename the folder to `{shown}`, or the `name` to match it"
    ));
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
