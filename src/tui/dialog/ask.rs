//! The one-line prompts of the session's settings: `P` asks for a
//! principal name (HCP.md §9.1, shown as typed), `e` for the value of an
//! `env` Binding's variable (§8.3, masked like the secret input: only its
//! length is ever drawn, and `Debug` shows the length, never the text,
//! §14.3). Its keys are every text input's; its key bar and drawing are
//! here.

use crate::tui::config::Config;
use crate::tui::dialog::lines::wrap;
use crate::tui::text;
use ratatui::text::{Line, Span};

/// What the prompt asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// The principal the TUI acts for from now on.
    Principal,
    /// The value of `name`, for `pack_id`'s `env` Binding.
    Env { pack_id: String, name: String },
}

/// A one-line input; see the module docs.
pub struct AskPrompt {
    pub asked: Asked,
    input: String,
}

impl AskPrompt {
    pub fn new(asked: Asked) -> AskPrompt {
        AskPrompt {
            asked,
            input: String::with_capacity(64),
        }
    }

    /// Whether the text is a secret (drawn as bullets).
    pub fn masked(&self) -> bool {
        matches!(self.asked, Asked::Env { .. })
    }

    /// What the input line shows: the text, or one bullet per character.
    pub fn shown(&self) -> String {
        match self.masked() {
            true => "•".repeat(self.input.chars().count()),
            false => crate::tui::text::safe(&self.input).to_string(),
        }
    }

    pub fn push(&mut self, c: char) {
        self.input.push(c);
    }

    pub fn pop(&mut self) {
        self.input.pop();
    }

    pub fn clear(&mut self) {
        self.input.clear();
    }

    /// The text typed, leaving the prompt empty.
    pub fn take(&mut self) -> String {
        std::mem::take(&mut self.input)
    }
}

impl std::fmt::Debug for AskPrompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AskPrompt")
            .field("asked", &self.asked)
            .field("typed", &self.input.chars().count())
            .finish()
    }
}

/// The prompt's key bar (its keys are every text input's).
pub const BAR: &[(&str, &str)] = &[("Enter", "set"), ("Ctrl-U", "clear"), ("Esc", "cancel")];

// Drawing.

/// `P` or `e`: what is asked, the input line (masked for a value), keys.
pub fn title_lines<'a>(
    config: &Config,
    prompt: &AskPrompt,
    width: usize,
) -> (String, Vec<Line<'a>>) {
    let theme = config.theme;
    let (title, what, meaning) = match &prompt.asked {
        Asked::Principal => (
            "Principal".to_string(),
            format!("Act as which principal? (now {})", config.principal),
            "Letters, digits and _.@- (HCP.md principals); availability, fixes and keys follow it."
                .to_string(),
        ),
        Asked::Env { pack_id, name } => (
            format!("Set {name}"),
            format!("Value of {name} for {pack_id}"),
            format!(
                "Kept in memory for this session only and passed to {pack_id}'s commands as {name}; never shown, stored or logged."
            ),
        ),
    };
    let mut lines = wrap(&what, width, theme.bold());
    lines.extend(wrap(&meaning, width, theme.dim()));
    lines.push(Line::raw(""));
    let mut shown = prompt.shown();
    let room = width.saturating_sub(4);
    if text::width(&shown) > room {
        shown = text::fit(&shown, room);
    }
    lines.push(Line::from(vec![
        Span::styled("> ", theme.key()),
        Span::styled(format!("{shown}▏"), theme.bold()),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key()),
        Span::raw(" set   "),
        Span::styled("Esc", theme.key()),
        Span::raw(" cancel"),
    ]));
    (title, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_masked_value_shows_only_its_length() {
        let mut p = AskPrompt::new(Asked::Env {
            pack_id: "acme.env".into(),
            name: "TOKEN".into(),
        });
        "v4lue".chars().for_each(|c| p.push(c));
        assert_eq!(p.shown(), "•••••");
        let debug = format!("{p:?}");
        assert!(
            !debug.contains("v4lue") && debug.contains("typed: 5"),
            "{debug}"
        );
        assert_eq!(p.take(), "v4lue");
    }
}
