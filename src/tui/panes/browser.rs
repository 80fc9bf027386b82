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
const MAX_ID_W: usize = 40;
const MAX_VERSION_W: usize = 12;
const STATUS_W: usize = 13;
/// The narrowest description worth showing.
const MIN_DESC_W: usize = 8;

/// The columns' widths (the status column is always [`STATUS_W`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub id: usize,
    pub version: usize,
    pub description: usize,
}

/// Fits the columns in `width` for the widest id and version of all packs
/// (so they stay put while scrolling). The description goes first, then
/// the version; the ids are cut last.
pub fn columns(widest: (usize, usize), width: usize) -> Columns {
    let id = widest.0.clamp(2, MAX_ID_W);
    let version = widest.1.clamp(7, MAX_VERSION_W);
    // Marker, id, space, version, space, status.
    let fixed =
        |id: usize, version: usize| 2 + id + 1 + version + usize::from(version > 0) + STATUS_W;
    if fixed(id, version) + 1 + MIN_DESC_W <= width {
        let description = width - fixed(id, version) - 1;
        return Columns {
            id,
            version,
            description,
        };
    }
    if fixed(id, version) <= width {
        return Columns {
            id,
            version,
            description: 0,
        };
    }
    let id = width.saturating_sub(fixed(0, 0)).clamp(2, id);
    Columns {
        id,
        version: 0,
        description: 0,
    }
}

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
                if let Some(hint) = &err.context.hint {
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

    let Columns {
        id: id_w,
        version: version_w,
        description: desc_w,
    } = columns(app.widest, width);
    lines.push(Line::styled(
        text::fit(
            &format!(
                "  {} {}{}{} {}",
                text::fit("ID", id_w),
                text::fit("VERSION", version_w),
                if version_w > 0 { " " } else { "" },
                text::fit("STATUS", STATUS_W),
                if desc_w > 0 { "DESCRIPTION" } else { "" }
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
                " {}{}",
                text::fit(entry.version.as_deref().unwrap_or("-"), version_w),
                if version_w > 0 { " " } else { "" }
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
        if desc_w > 0 {
            spans.push(Span::styled(
                format!(" {}", text::fit(&entry.description, desc_w)),
                base.patch(theme.dim()),
            ));
        }
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
    if app.only_bootstrap() && app.filter.query.is_empty() {
        lines.push(Line::raw(""));
        let help = "No packs but hcpx's own. Add a catalog (a folder of pack folders): start with hcpx tui --catalog DIR, or list it under catalogs: in $HCP_HOME/config.yaml; or install one pack folder with hcpx install DIR.";
        lines.extend(
            text::wrap(help, width)
                .into_iter()
                .map(|l| Line::styled(l, theme.hint())),
        );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_goes_first_then_the_version_and_ids_are_cut_last() {
        let wide = columns((20, 7), 80);
        assert_eq!((wide.id, wide.version), (20, 7));
        assert_eq!(wide.description, 80 - (2 + 20 + 1 + 7 + 1 + 13) - 1);
        let no_desc = columns((20, 7), 2 + 20 + 1 + 7 + 1 + 13 + 3);
        assert_eq!(
            (no_desc.id, no_desc.version, no_desc.description),
            (20, 7, 0)
        );
        let no_version = columns((20, 7), 2 + 20 + 1 + 13 + 2);
        assert_eq!((no_version.id, no_version.version), (20, 0));
        let cut = columns((20, 7), 30);
        assert_eq!((cut.id, cut.version, cut.description), (14, 0, 0));
    }
}
