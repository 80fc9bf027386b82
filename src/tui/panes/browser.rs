//! The pack browser: every installed and catalog pack, one row each with
//! its id, version, status badge (§11.2) and description; the fuzzy filter
//! with the matched characters highlighted; marks.

use crate::tui::action::Pane;
use crate::tui::app::App;
use crate::tui::text;
use crate::tui::theme::{SPINNER, status_symbol};
use crate::tui::ui::{self, pane_block, pane_title};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Columns of the id, version and status.
const MAX_ID_W: usize = 28;
const MAX_VERSION_W: usize = 12;
const STATUS_W: usize = 13;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let theme = app.theme();
    let mut title = vec![pane_title(app, Pane::Browser)];
    if app.loaded {
        let count = if app.filter.query.is_empty() {
            format!(" {}", app.entries.len())
        } else {
            format!(" {}/{}", app.visible.len(), app.entries.len())
        };
        title.push(Span::raw(count));
        title.push(Span::styled(
            format!(" · sort {}", app.sort.as_str()),
            theme.dim(),
        ));
        if !app.marked.is_empty() {
            title.push(Span::styled(
                format!(" · {} marked", app.marked.len()),
                theme.bold(),
            ));
        }
    }
    let block = pane_block(app, Pane::Browser, title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    let mut lines: Vec<Line<'_>> = Vec::new();

    if ui::shows_filter(app) {
        let cursor = if app.filter.editing { "▏" } else { "" };
        lines.push(Line::from(vec![
            Span::styled("/", theme.key()),
            Span::styled(
                text::truncate(
                    &format!("{}{cursor}", app.filter.query),
                    width.saturating_sub(1),
                ),
                theme.bold(),
            ),
        ]));
    }

    if !app.loaded {
        match &app.load_error {
            Some(err) => {
                lines.push(Line::styled("cannot read the store:", theme.bad()));
                let mut msg = format!("{}: {}", err.code.as_str(), err.message);
                if let Some(hint) = &crate::tui::fix::hint(err, &app.config) {
                    msg.push_str("\nhint: ");
                    msg.push_str(hint);
                }
                msg.push_str("\npress r to try again");
                lines.extend(text::wrap(&msg, width).into_iter().map(Line::raw));
            }
            None => {
                let spinner = SPINNER[(app.ticks % SPINNER.len() as u64) as usize];
                let msg = format!("{spinner} loading… reading the store and catalogs");
                lines.extend(
                    text::wrap(&msg, width)
                        .into_iter()
                        .map(|l| Line::styled(l, theme.hint())),
                );
            }
        }
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    }

    let shown = || {
        app.visible
            .iter()
            .skip(app.offset)
            .take(ui::browser_rows(app))
            .map(|&i| &app.entries[i])
    };
    let version_w = shown()
        .map(|r| text::width(r.version.as_deref().unwrap_or("-")))
        .max()
        .unwrap_or(0)
        .clamp(7, MAX_VERSION_W);
    let id_w = shown()
        .map(|e| text::width(e.id()))
        .max()
        .unwrap_or(2)
        .clamp(2, MAX_ID_W)
        .min(width.saturating_sub(2 + version_w + STATUS_W + 2).max(8));
    let desc_w = width.saturating_sub(2 + id_w + 1 + version_w + 1 + STATUS_W + 1);
    lines.push(Line::styled(
        text::fit(
            &format!(
                "  {} {} {} {}",
                text::fit("ID", id_w),
                text::fit("VERSION", version_w),
                text::fit("STATUS", STATUS_W),
                "DESCRIPTION"
            ),
            width,
        ),
        theme.dim(),
    ));

    if app.visible.is_empty() {
        let msg = if app.filter.query.is_empty() {
            "no packs".to_string()
        } else {
            format!("no pack id matches `{}`", app.filter.query)
        };
        lines.push(Line::styled(msg, theme.dim()));
    }

    for (row, &i) in app
        .visible
        .iter()
        .enumerate()
        .skip(app.offset)
        .take(ui::browser_rows(app))
    {
        let entry = &app.entries[i];
        let selected = row == app.selected;
        let marked = app.marked.contains(entry.id());
        let base = if selected {
            theme.selected()
        } else {
            Style::new()
        };
        let mut spans = vec![Span::styled(
            match (selected, marked) {
                (true, true) => "▶*",
                (true, false) => "▶ ",
                (false, true) => " *",
                (false, false) => "  ",
            },
            base.patch(theme.bold()),
        )];
        spans.extend(id_spans(app, entry.id(), id_w, base));
        spans.push(Span::styled(
            format!(
                " {} ",
                text::fit(entry.version.as_deref().unwrap_or("-"), version_w)
            ),
            base,
        ));
        let status = entry.status;
        spans.push(Span::styled(
            text::fit(
                &format!("{} {}", status_symbol(status), status.as_str()),
                STATUS_W,
            ),
            base.patch(theme.status(status)),
        ));
        let description = &entry.description;
        spans.push(Span::styled(
            format!(" {}", text::fit(description, desc_w)),
            base.patch(theme.dim()),
        ));
        if selected {
            // Reversed text on every column, whatever the colours.
            spans = spans
                .into_iter()
                .map(|s| {
                    let style = s.style.patch(theme.selected());
                    s.style(style)
                })
                .collect();
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The id, padded to `w`, with the filter's matched characters highlighted.
fn id_spans<'a>(app: &App, id: &str, w: usize, base: Style) -> Vec<Span<'a>> {
    let shown = text::fit(id, w);
    let matched = app.matched_indices(id);
    if matched.is_empty() {
        return vec![Span::styled(shown, base)];
    }
    let hl = base.patch(app.theme().matched());
    let mut spans = Vec::new();
    let mut run = String::new();
    let mut run_hl = false;
    for (i, c) in shown.chars().enumerate() {
        let is_hl = matched.contains(&i) && i < text::width(id);
        if is_hl != run_hl && !run.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut run),
                if run_hl { hl } else { base },
            ));
        }
        run_hl = is_hl;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, if run_hl { hl } else { base }));
    }
    spans
}
