//! Small text helpers for the panes: display-width truncation and padding,
//! word wrapping, and shell quoting for the equivalent `hcpx` commands.
//! Pack text is made terminal-safe here with the engine's one function
//! (HCP.md §14.5, `engine::pack::text`), as the CLI does; `truncate`,
//! `fit` and `one_line` are for one-line fields (newlines and tabs too).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The display width of `s`.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` cut to at most `max` columns, ending in `…` when cut. Control and
/// bidirectional characters are shown as U+FFFD so pack text can never move
/// the cursor (§14.5).
pub fn truncate(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    let total = width_clean(s);
    let budget = if total > max {
        max.saturating_sub(1)
    } else {
        max
    };
    for c in s.chars() {
        let c = clean(c);
        let w = c.width().unwrap_or(0);
        if used + w > budget {
            break;
        }
        out.push(c);
        used += w;
    }
    if total > max && max > 0 {
        out.push('…');
    }
    out
}

/// A character of a one-line field as shown (§14.5): terminal-safe, and a
/// newline or tab as a space, so a pack's text cannot break a row or its
/// columns ([`wrap`] expands a tab to four spaces instead).
fn clean(c: char) -> char {
    crate::engine::pack::text::one_line_char(c)
}

/// `s` made terminal-safe (§14.5), for text not cut or wrapped here.
pub fn safe(s: &str) -> String {
    crate::engine::pack::text::terminal_safe(s).into_owned()
}

/// `s` for a one-line field (an id, a path, a status line), not cut:
/// terminal-safe, newlines and tabs as spaces (§14.5).
pub fn one_line(s: &str) -> String {
    crate::engine::pack::text::one_line(s).into_owned()
}

fn width_clean(s: &str) -> usize {
    s.chars().map(|c| clean(c).width().unwrap_or(0)).sum()
}

/// `s` truncated and padded with spaces to exactly `cols` columns.
pub fn fit(s: &str, cols: usize) -> String {
    let mut out = truncate(s, cols);
    let w = width(&out);
    out.extend(std::iter::repeat_n(' ', cols.saturating_sub(w)));
    out
}

/// The first line of `s`, trimmed.
pub fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// Wraps `text` at word boundaries into lines of at most `cols` columns;
/// words longer than a line are cut. Blank lines are kept.
/// Joins the hard-wrapped lines of Markdown paragraphs and list items into
/// one line each, so they can be wrapped to a pane's width; blank lines,
/// headings, tables, code fences and code stay line for line.
pub fn unwrap_markdown(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_code = false;
    // Whether the last line is paragraph text that the next may continue.
    let mut open = false;
    for raw in body.lines() {
        let line = raw.trim_end();
        let bare = line.trim_start();
        let indented_code = line.starts_with("    ") && !open;
        if bare.starts_with("```") {
            in_code = !in_code;
        }
        let literal = in_code
            || bare.starts_with("```")
            || bare.is_empty()
            || bare.starts_with('#')
            || bare.starts_with('|')
            || indented_code;
        if literal {
            out.push(line.to_string());
            open = false;
            continue;
        }
        match out.last_mut() {
            Some(last) if open && !is_list_item(bare) => {
                last.push(' ');
                last.push_str(bare);
            }
            _ => {
                out.push(line.to_string());
                open = true;
            }
        }
    }
    out
}

/// `- x`, `* x`, `+ x`, `1. x`, `1) x`.
fn is_list_item(line: &str) -> bool {
    if ["- ", "* ", "+ "].iter().any(|m| line.starts_with(m)) {
        return true;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
}

pub fn wrap(text: &str, cols: usize) -> Vec<String> {
    let cols = cols.max(1);
    let mut out = Vec::new();
    for raw in text.lines() {
        let expanded = raw.replace('\t', "    ");
        let raw = expanded.trim_end();
        if raw.is_empty() {
            out.push(String::new());
            continue;
        }
        let indent: String = raw.chars().take_while(|c| *c == ' ').collect();
        let mut line = String::new();
        for word in raw.split(' ').filter(|w| !w.is_empty()) {
            let word: String = word.chars().map(clean).collect();
            let lead = if line.is_empty() {
                indent.as_str()
            } else {
                " "
            };
            if !line.is_empty() && width(&line) + width(lead) + width(&word) > cols {
                out.push(std::mem::take(&mut line));
            }
            let lead = if line.is_empty() {
                indent.as_str()
            } else {
                " "
            };
            line.push_str(lead);
            line.push_str(&word);
            while width(&line) > cols {
                let head = truncate_exact(&line, cols);
                let rest = line[head.len()..].to_string();
                out.push(head);
                line = rest;
            }
        }
        if !line.is_empty() {
            out.push(line);
        }
    }
    out
}

/// [`wrap`] with a hanging indent: the lines after the first start `hang`
/// columns in, under the text after a mark such as `✗ `.
pub fn wrap_hanging(text: &str, cols: usize, hang: usize) -> Vec<String> {
    let lines = wrap(text, cols);
    let Some(first) = lines.first() else {
        return lines;
    };
    let words: Vec<&str> = text.split_whitespace().collect();
    let taken = first.split_whitespace().count();
    // A word cut in two (wider than the line): keep the plain wrap.
    if lines.len() < 2
        || hang >= cols
        || words
            .get(..taken)
            .is_none_or(|w| w.join(" ") != first.trim())
    {
        return lines;
    }
    let rest = format!("{}{}", " ".repeat(hang), words[taken..].join(" "));
    let mut out = vec![first.clone()];
    out.extend(wrap(&rest, cols));
    out
}

/// `s` cut into pieces of at most `cols` columns, spaces kept (for
/// command output, whose alignment matters): a piece ends after the last
/// space that follows a word, so words stay whole; only a word wider than
/// the piece is cut. An empty `s` is one empty line. Control characters
/// are made safe as in [`truncate`].
pub fn chunks(s: &str, cols: usize) -> Vec<String> {
    let cols = cols.max(2);
    let mut out = Vec::new();
    let mut line: Vec<(char, usize)> = Vec::new();
    let mut used = 0;
    let text = |line: &[(char, usize)]| line.iter().map(|(c, _)| *c).collect::<String>();
    for c in s.chars().map(clean) {
        let w = c.width().unwrap_or(0);
        if used + w > cols {
            if c == ' ' {
                // The break falls on a space: it ends the piece.
                out.push(text(&line));
                line.clear();
                used = 0;
                continue;
            }
            let after_word = line
                .iter()
                .rposition(|(c, _)| *c == ' ')
                .filter(|&i| line[..i].iter().any(|(c, _)| *c != ' '));
            let rest = match after_word {
                Some(i) => line.split_off(i + 1),
                None => Vec::new(),
            };
            out.push(text(&line));
            line = rest;
            used = line.iter().map(|(_, w)| w).sum();
        }
        line.push((c, w));
        used += w;
    }
    out.push(text(&line));
    out
}

/// The longest prefix of `s` of at most `cols` columns (no ellipsis).
fn truncate_exact(s: &str, cols: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > cols {
            break;
        }
        used += w;
        out.push(c);
    }
    if out.is_empty() {
        out.extend(s.chars().next());
    }
    out
}

/// `n` and the noun, plural unless one: `1 Skill`, `5 Skills`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hanging_wrap_indents_the_lines_after_the_first() {
        assert_eq!(
            wrap_hanging(
                "✗ connected: the pack is not connected [not_connected]",
                24,
                2
            ),
            [
                "✗ connected: the pack is",
                "  not connected",
                "  [not_connected]"
            ]
        );
        assert_eq!(wrap_hanging("✓ short", 24, 2), ["✓ short"]);
    }

    #[test]
    fn a_count_is_plural_unless_one() {
        assert_eq!(count(0, "Skill"), "0 Skills");
        assert_eq!(count(1, "Skill"), "1 Skill");
        assert_eq!(count(5, "Skill"), "5 Skills");
    }

    #[test]
    fn markdown_paragraphs_are_joined_and_the_rest_kept() {
        let body = "# Title\n\nRun this\nthrough your shell:\n\n- one item\n  that wraps\n- two\n\n```sh\nhcpx exec a b\n```\n";
        assert_eq!(
            unwrap_markdown(body),
            [
                "# Title",
                "",
                "Run this through your shell:",
                "",
                "- one item that wraps",
                "- two",
                "",
                "```sh",
                "hcpx exec a b",
                "```"
            ]
        );
    }

    #[test]
    fn truncates_with_an_ellipsis_only_when_cut() {
        assert_eq!(truncate("abcdef", 6), "abcdef");
        assert_eq!(truncate("abcdefg", 6), "abcde…");
        assert_eq!(truncate("a\u{1b}[2Jb", 10), "a\u{fffd}[2Jb");
        assert_eq!(wrap("x\u{202e}y z", 10), vec!["x\u{fffd}y z"]);
        assert_eq!(fit("ab", 4), "ab  ");
        assert_eq!(fit("a\tb", 4), "a b ");
        assert_eq!(wrap("\tx", 10), vec!["    x"]);
        // Wide characters count two columns.
        assert_eq!(fit("日本", 5), "日本 ");
        assert_eq!(truncate("日本語", 5), "日本…");
    }

    #[test]
    fn output_pieces_end_at_a_word_and_keep_their_spaces() {
        assert_eq!(
            chunks("the quick brown fox", 12),
            ["the quick ", "brown fox"]
        );
        assert_eq!(chunks("  a    b", 20), ["  a    b"]);
        assert_eq!(chunks("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(chunks("", 4), [""]);
        assert_eq!(chunks("ab cd", 2), ["ab", "cd"]);
    }

    #[test]
    fn wraps_at_words_and_cuts_long_words() {
        assert_eq!(wrap("one two three", 7), vec!["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\n\nb", 5), vec!["a", "", "b"]);
        assert_eq!(wrap("  indented text", 20), vec!["  indented text"]);
    }
}
