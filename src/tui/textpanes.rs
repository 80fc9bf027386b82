//! The state of the text panes (Details, Lint, Output, Log): each one's
//! scroll offset, whether long lines wrap (`w`), and whether Output
//! follows a running command's tail. Drawing keeps an
//! offset within the last full page (`frame::draw_text_pane`). What the
//! panes show is the engine's (HCP.md §10.4 lint, §6.7 exec output).

use crate::tui::pane::Pane;

/// Scroll offsets and wrapping of the four text panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPanes {
    pub details: u16,
    pub lint: u16,
    pub output: u16,
    pub log: u16,
    /// Whether long lines wrap, else they are cut at the pane's edge.
    pub wrap: bool,
    /// Whether Output follows the tail of a running command (`less +F`):
    /// set when a run starts, dropped when the user scrolls up, set again
    /// at the bottom (`G`, or scrolling down to the end).
    pub follow: bool,
}

impl Default for TextPanes {
    fn default() -> Self {
        TextPanes {
            details: 0,
            lint: 0,
            output: 0,
            log: 0,
            wrap: true,
            follow: true,
        }
    }
}

impl TextPanes {
    /// A pane's offset (Packs and Availability have none: Details').
    pub fn scroll(&self, pane: Pane) -> u16 {
        match pane {
            Pane::Lint => self.lint,
            Pane::Output => self.output,
            Pane::Log => self.log,
            _ => self.details,
        }
    }

    pub fn scroll_mut(&mut self, pane: Pane) -> &mut u16 {
        match pane {
            Pane::Lint => &mut self.lint,
            Pane::Output => &mut self.output,
            Pane::Log => &mut self.log,
            _ => &mut self.details,
        }
    }
}
