//! What every pane is drawn in: its frame and title (the focused one
//! marked), and a text pane's lines scrolled, with the search's matches
//! highlighted.

use crate::tui::app::App;
use crate::tui::layout::{FOCUS_MARK, NO_WRAP_WIDTH};
use crate::tui::pane::Pane;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// `line` with every case-insensitive occurrence of `query` inside one
/// span drawn in the match style.
fn highlight<'a>(line: Line<'a>, query: &str, style: ratatui::style::Style) -> Line<'a> {
    let needle = query.to_lowercase();
    let mut spans = Vec::new();
    for span in line.spans {
        let lower = span.content.to_lowercase();
        // Only where lowercasing keeps byte offsets (ASCII-like text).
        if lower.len() != span.content.len() || !lower.contains(&needle) {
            spans.push(span);
            continue;
        }
        let content = span.content.to_string();
        let mut from = 0;
        while let Some(at) = lower[from..].find(&needle).map(|i| i + from) {
            if at > from {
                spans.push(Span::styled(content[from..at].to_string(), span.style));
            }
            let end = at + needle.len();
            spans.push(Span::styled(
                content[at..end].to_string(),
                span.style.patch(style),
            ));
            from = end;
        }
        if from < content.len() {
            spans.push(Span::styled(content[from..].to_string(), span.style));
        }
    }
    Line::from(spans).style(line.style)
}

/// Draws a text pane in its frame, scrolled down by its offset (kept
/// within the last full page); `lines` is given the width to lay out to.
pub fn draw_text_pane<'a>(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    pane: Pane,
    lines: impl FnOnce(usize) -> Vec<Line<'a>>,
) {
    let block = pane_block(app, pane, Vec::new());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = if app.text.wrap {
        inner.width.max(1) as usize
    } else {
        NO_WRAP_WIDTH
    };
    let mut lines = lines(width);
    if let Some(query) = app.search.active_in(pane) {
        let style = app.theme().matched();
        lines = lines
            .into_iter()
            .map(|l| highlight(l, query, style))
            .collect();
    }
    let last = lines.len().saturating_sub(inner.height as usize);
    // A running command's tail, while Output follows it (`less +F`).
    let scroll = if pane == Pane::Output && app.following() {
        last
    } else {
        (app.scroll_of(pane) as usize).min(last)
    };
    let shown: Vec<Line<'_>> = lines
        .into_iter()
        .skip(scroll)
        .take(inner.height as usize)
        .collect();
    frame.render_widget(Paragraph::new(shown), inner);
}

/// A pane's frame: focused panes get a bold, coloured border.
pub fn pane_block<'a>(app: &App, pane: Pane, title: Vec<Span<'a>>) -> Block<'a> {
    let theme = app.theme();
    let focused = app.focus.pane() == pane && app.dialog.is_none();
    let border = if focused {
        theme.focus_border()
    } else {
        theme.border()
    };
    let mut spans = vec![Span::raw(" ")];
    spans.extend(title);
    spans.push(Span::raw(" "));
    Block::new()
        .borders(Borders::ALL)
        .border_style(border)
        .title(Line::from(spans))
}

/// The title of a pane: its name, bold, with [`FOCUS_MARK`] when focused.
pub fn pane_title<'a>(app: &App, pane: Pane) -> Span<'a> {
    let theme = app.theme();
    if app.focus.pane() == pane {
        let style = theme.title().add_modifier(Modifier::UNDERLINED);
        return Span::styled(format!("{FOCUS_MARK} {}", pane.title()), style);
    }
    Span::styled(pane.title(), theme.title())
}
