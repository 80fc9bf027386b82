//! Codex's Skill listing rule (HCP.md §17.3), read from Codex's public
//! source: `codex-rs/core-skills/src/render.rs` of openai/codex at commit
//! 0899b7c42bf11847f78710966b362f756337c17d (our own code, written from
//! what that file does):
//!
//! - the budget is 2% of the model's context window in tokens
//!   (⌊window × 2 / 100⌋, at least 1);
//! - each Skill is one line `- NAME: DESCRIPTION (file: PATH)` (`- NAME:
//!   (file: PATH)` with no description), PATH the absolute path of its
//!   `SKILL.md`, and a line costs ⌈bytes of the line and its newline / 4⌉
//!   tokens (4 bytes a token);
//! - past the budget Codex shortens the descriptions, then drops them, then
//!   leaves Skills out.
//!
//! The ledger gives these in characters as Codex counts them: a token is 4
//! bytes, so the budget is 4 × its tokens and a line costs 4 × its tokens.

use super::read::Front;

/// The share of the context window, in percent.
pub const CONTEXT_WINDOW_PERCENT: u64 = 2;
/// Bytes a token, as Codex estimates them.
pub const BYTES_PER_TOKEN: u64 = 4;

/// The budget in characters (4 × ⌊tokens × 2 / 100⌋, at least 4).
pub fn budget_chars(context_tokens: u64) -> u64 {
    (context_tokens.saturating_mul(CONTEXT_WINDOW_PERCENT) / 100).max(1) * BYTES_PER_TOKEN
}

/// NAME and DESCRIPTION as Codex's loader keeps them: on one line, each run
/// of white space one space; NAME the frontmatter's `name`, else the
/// folder's. `None` when there is no description (Codex skips the Skill).
pub fn name_and_description(folder: &str, front: &Front) -> (String, Option<String>) {
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let name = front
        .name
        .as_deref()
        .map(one_line)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| folder.to_string());
    let description = front
        .description
        .as_deref()
        .map(one_line)
        .filter(|d| !d.is_empty());
    (name, description)
}

/// The line of one Skill.
pub fn line(name: &str, description: &str, path: &str) -> String {
    if description.is_empty() {
        format!("- {name}: (file: {path})")
    } else {
        format!("- {name}: {description} (file: {path})")
    }
}

/// What a line costs, in characters: 4 × ⌈(bytes + 1) / 4⌉.
pub fn line_cost(line: &str) -> u64 {
    (line.len() as u64 + 1).div_ceil(BYTES_PER_TOKEN) * BYTES_PER_TOKEN
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 200,000 tokens: 4,000 tokens, 16,000 characters; 272,000: 5,440
    /// tokens; a tiny window still has one token.
    #[test]
    fn the_budget_is_two_percent_of_the_window() {
        assert_eq!(budget_chars(200_000), 16_000);
        assert_eq!(budget_chars(272_000), 21_760);
        assert_eq!(budget_chars(10), 4);
    }

    /// `- pdf: Reads PDFs (file: /s/pdf/SKILL.md)` is 41 bytes, 42 with
    /// its newline: 11 tokens, 44 characters; `é` is two bytes.
    #[test]
    fn a_line_costs_its_bytes_in_tokens() {
        let l = line("pdf", "Reads PDFs", "/s/pdf/SKILL.md");
        assert_eq!(l, "- pdf: Reads PDFs (file: /s/pdf/SKILL.md)");
        assert_eq!(l.len(), 41);
        assert_eq!(line_cost(&l), 44);
        assert_eq!(line_cost("abc"), 4);
        assert_eq!(line_cost("abcé"), 8);
        assert_eq!(line("a", "", "/p"), "- a: (file: /p)");
        let front = Front {
            description: Some("  two\n  lines ".into()),
            ..Front::default()
        };
        assert_eq!(
            name_and_description("f", &front),
            ("f".to_string(), Some("two lines".to_string()))
        );
    }
}
