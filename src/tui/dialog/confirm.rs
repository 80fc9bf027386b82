//! The y/n questions (uninstall, deactivating a connected pack, quit while
//! a command runs, a `:` command that changes something) and an engine error in the words of HCP.md §10
//! (code, message, hint).

use crate::tui::action::Action;
use crate::tui::config::Config;
use crate::tui::dialog::lines::wrap;
use crate::tui::keys::Key;
use crossterm::event::KeyCode;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// `y` / `n` on a question.
pub fn action(key: &Key) -> Option<Action> {
    match key.code {
        _ if key.ctrl || key.alt => None,
        KeyCode::Char('y') | KeyCode::Char('Y') => Some(Action::Confirm(true)),
        KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Some(Action::Confirm(false)),
        _ => None,
    }
}

/// The key bar of a question.
pub const BAR: &[(&str, &str)] = &[("y", "yes"), ("n Esc", "no")];

/// `y` goes on; any other key keeps things as they are (a question whose
/// `yes` undoes something, as deactivating a connected pack).
pub fn action_or_keep(key: &Key) -> Option<Action> {
    match key.code {
        KeyCode::Char('y') | KeyCode::Char('Y') if !key.ctrl && !key.alt => {
            Some(Action::Confirm(true))
        }
        _ => Some(Action::Confirm(false)),
    }
}

/// The key bar of [`action_or_keep`]'s question.
pub const BAR_OR_KEEP: &[(&str, &str)] = &[("y", "yes"), ("any other key", "no")];

// Drawing.

/// An engine error in the words of §10: code, message, hint.
/// `hint` is the error's fix as the TUI writes it (`App::hint`).
pub fn error<'a>(
    config: &Config,
    err: &crate::engine::error::Error,
    hint: Option<String>,
    width: usize,
) -> Vec<Line<'a>> {
    let theme = config.theme;
    let mut lines = vec![Line::styled(err.code.as_str().to_string(), theme.bad())];
    lines.extend(wrap(&err.message, width, Style::new()));
    if let Some(hint) = &hint {
        lines.push(Line::raw(""));
        lines.extend(wrap(&format!("hint: {hint}"), width, theme.hint()));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("any key closes", theme.dim()));
    lines
}

/// Whether to deactivate `ids`, of which `connected` lose a connection:
/// the title and the lines.
pub fn deactivate<'a>(
    config: &Config,
    ids: &[String],
    connected: &[String],
    width: usize,
) -> (String, Vec<Line<'a>>) {
    let text = |ids: &[String]| crate::tui::text::one_line(&ids.join(", "));
    let lines = lines(
        config,
        &format!("Deactivate {}?", text(ids)),
        &format!(
            "{} {} connected: deactivating also drops the connection, and it must be connected again (c) after activating.",
            text(connected),
            if connected.len() == 1 { "is" } else { "are" }
        ),
        ("deactivate", "keep it"),
        width,
    );
    ("Deactivate".to_string(), lines)
}

/// A y/n question: what, what it means, what `y` and `n` do.
pub fn lines<'a>(
    config: &Config,
    question: &str,
    meaning: &str,
    (yes, no): (&str, &str),
    width: usize,
) -> Vec<Line<'a>> {
    let theme = config.theme;
    let mut lines = wrap(question, width, theme.bold());
    lines.extend(wrap(meaning, width, Style::new()));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("y", theme.key()),
        Span::raw(format!(" {yes}   ")),
        Span::styled("n", theme.key()),
        Span::raw(" / "),
        Span::styled("Esc", theme.key()),
        Span::raw(format!(" {no}")),
    ]));
    lines
}
