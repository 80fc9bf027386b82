//! The command log (`@`, lazygit's): every action and exec of the session,
//! oldest first, each with its outcome and the headless `hcpx` command that
//! does the same (the TUI teaches the CLI, HCP.md §11).

use crate::tui::app::App;
use crate::tui::log::Outcome;
use crate::tui::pane::Pane;
use crate::tui::panes::frame::draw_text_pane;
use crate::tui::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    draw_text_pane(frame, area, app, Pane::Log, |width| lines(app, width));
}

pub fn lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    if app.log.entries.is_empty() {
        return text::wrap(
            "Nothing done yet. Every action of this session shows here with the hcpx command that does the same.",
            width,
        )
        .into_iter()
        .map(|l| Line::styled(l, theme.dim()))
        .collect();
    }
    let mut out = Vec::new();
    for (n, entry) in app.log.entries.iter().enumerate() {
        let style = match entry.outcome {
            Outcome::Done => theme.good(),
            Outcome::Failed | Outcome::Refused => theme.bad(),
            Outcome::Cancelled | Outcome::Warning => theme.warning(),
        };
        let number = format!("{:>3} {} ", n + 1, entry.outcome.as_str());
        let head = format!("{number}{}", entry.text);
        // A long line goes on under its text, clear of the number and
        // outcome; the command under `hcpx`.
        out.extend(
            text::wrap_hanging(&head, width, text::width(&number))
                .into_iter()
                .map(|l| Line::styled(l, style)),
        );
        if let Some(command) = &entry.command {
            out.extend(
                text::wrap_hanging(&format!("    $ {command}"), width, 6)
                    .into_iter()
                    .map(|l| Line::styled(l, theme.hint())),
            );
        }
    }
    out
}
