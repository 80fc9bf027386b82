//! Terminal-safe text (HCP.md §14.5): pack text (ids, names, descriptions,
//! summaries, Skill text, lint messages quoting values) is shown only after
//! [`terminal_safe`] has replaced what could drive a terminal. The engine
//! keeps data as it is (JSON output escapes it); the front-ends apply this
//! when they render text.
//!
//! Replaced: control characters (C0 but newline and tab, DEL, C1: ESC starts
//! every CSI/OSC sequence, U+009B is a one-character CSI) and the
//! bidirectional overrides and isolates of §10.5's `manifest.text`
//! (U+202A–U+202E, U+2066–U+2069), which reorder what is shown. Each becomes
//! U+FFFD, one character for one: one column wide, so the TUI's widths hold;
//! visibly "something was here"; and not text a pack could forge into a
//! real sequence.
//!
//! In a one-line field — an id, a name, a path, a table cell, a status
//! line — [`one_line`] also replaces newline, tab and carriage return (and
//! the Unicode line and paragraph separators), each by one space, so a
//! folder named `a\nb` cannot forge a row of a table. The front-ends use it
//! for every such field, in the CLI as in the TUI (§14.5).

use std::borrow::Cow;

/// What an unsafe character is shown as.
pub const REPLACEMENT: char = '\u{fffd}';

/// U+202A–U+202E (embeddings, overrides) and U+2066–U+2069 (isolates).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whether `c` is replaced on a terminal: a control character other than
/// newline and tab, or a bidirectional control.
pub fn is_terminal_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// `c`, or [`REPLACEMENT`] when it is unsafe on a terminal.
pub fn terminal_safe_char(c: char) -> char {
    if is_terminal_unsafe(c) {
        REPLACEMENT
    } else {
        c
    }
}

/// `text` with every unsafe character replaced by [`REPLACEMENT`]; borrowed
/// when there is none.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    if text.chars().any(is_terminal_unsafe) {
        Cow::Owned(text.chars().map(terminal_safe_char).collect())
    } else {
        Cow::Borrowed(text)
    }
}

/// Whether `c` breaks a line or a column: replaced in a one-line field.
fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\t' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `c` as shown in a one-line field: a space for a line or column break,
/// else [`terminal_safe_char`].
pub fn one_line_char(c: char) -> char {
    if is_line_break(c) {
        ' '
    } else {
        terminal_safe_char(c)
    }
}

/// `text` for a one-line field: [`terminal_safe`], and newline, tab and
/// carriage return (and U+2028, U+2029) each replaced by one space;
/// borrowed when nothing is replaced.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if text
        .chars()
        .any(|c| is_line_break(c) || is_terminal_unsafe(c))
    {
        Cow::Owned(text.chars().map(one_line_char).collect())
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_c1_del_and_bidi_are_replaced_newline_and_tab_kept() {
        let hostile = "a\u{1b}]0;title\u{7}b\u{1b}[2J\u{9b}31m\u{7f}\r\u{202e}c\u{2066}\n\td";
        let safe = terminal_safe(hostile);
        assert_eq!(
            safe,
            "a\u{fffd}]0;title\u{fffd}b\u{fffd}[2J\u{fffd}31m\u{fffd}\u{fffd}\u{fffd}c\u{fffd}\n\td"
        );
        assert!(
            !safe
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t')
        );
    }

    #[test]
    fn a_one_line_field_has_no_line_or_column_break() {
        let forged = "a\nb\tc\r\nd\u{2028}e\u{1b}[2Jf\u{9b}g";
        let line = one_line(forged);
        assert_eq!(line, "a b c  d e\u{fffd}[2Jf\u{fffd}g");
        assert_eq!(line.chars().count(), forged.chars().count());
        assert!(matches!(one_line("acme.notes 1.2.0 ✓"), Cow::Borrowed(_)));
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(terminal_safe("Plain – text ✓"), Cow::Borrowed(_)));
        assert_eq!(terminal_safe_char('é'), 'é');
        assert_eq!(terminal_safe_char('\u{85}'), REPLACEMENT);
    }
}
