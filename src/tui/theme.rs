//! Colours and text attributes. With `NO_COLOR` set (and non-empty) the TUI
//! uses no colour at all: only bold, reversed, underlined and dim text, and
//! the symbols every status and cell carries anyway.

use crate::engine::policy::availability::Status;
use ratatui::style::{Color, Modifier, Style};

/// The styles the panes draw with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to a non-empty value.
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { color: !no_color }
    }

    pub const COLOR: Theme = Theme { color: true };
    pub const NO_COLOR: Theme = Theme { color: false };

    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    pub fn plain(self) -> Style {
        Style::new()
    }

    pub fn bold(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn dim(self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    /// The row under the cursor.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// Characters the filter matched.
    pub fn matched(self) -> Style {
        self.fg(Color::Yellow)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// The border of the focused pane.
    pub fn focus_border(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn border(self) -> Style {
        self.dim()
    }

    pub fn title(self) -> Style {
        self.bold()
    }

    pub fn good(self) -> Style {
        self.fg(Color::Green)
    }

    pub fn bad(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn warning(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    pub fn hint(self) -> Style {
        self.fg(Color::Cyan)
    }

    /// A key name in the key bar and help.
    pub fn key(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// A key the key bar shows but that cannot run for the selection.
    pub fn disabled(self) -> Style {
        self.dim()
    }

    pub fn status(self, status: Status) -> Style {
        match status {
            Status::Executable => self.fg(Color::Green).add_modifier(Modifier::BOLD),
            Status::Connected => self.fg(Color::Green),
            Status::Activated => self.fg(Color::Blue),
            Status::Installed => self.fg(Color::Magenta),
            Status::Available => self.dim(),
            Status::Unavailable => self.bad(),
        }
    }
}

/// The symbol in front of each status badge, so the status reads without
/// colour too.
pub fn status_symbol(status: Status) -> &'static str {
    match status {
        Status::Available => "○",
        Status::Installed => "◌",
        Status::Activated => "◐",
        Status::Connected => "◑",
        Status::Executable => "●",
        Status::Unavailable => "✗",
    }
}

/// A met or unmet condition.
pub fn check(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

/// Spinner frames, one per tick.
pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
