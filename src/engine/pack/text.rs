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
    fn clean_text_is_borrowed() {
        assert!(matches!(terminal_safe("Plain – text ✓"), Cow::Borrowed(_)));
        assert_eq!(terminal_safe_char('é'), 'é');
        assert_eq!(terminal_safe_char('\u{85}'), REPLACEMENT);
    }
}
