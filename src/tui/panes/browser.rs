//! The pack browser: every installed and catalog pack, one row each with
//! its id, version, status badge (§11.2) and description (a Skill pack's,
//! §2.6, tagged `skill`); the fuzzy filter
//! with the matched characters highlighted; marks. Inside a project
//! (§15.5) a SCOPE column says which store holds each pack (`project`,
//! `user`, `shadowed` for a user pack the project's of its id hides, `-`
//! for a catalog pack neither holds), and the title names the project and
//! where installs go (`S` switches it).

use crate::engine::pack::manifest::PackKind;
use crate::tui::app::App;
use crate::tui::job::Row;
use crate::tui::layout;
use crate::tui::pane::Pane;
use crate::tui::panes::frame::{pane_block, pane_title};
use crate::tui::scope::Scopes;
use crate::tui::text;
use crate::tui::theme::{SPINNER, status_symbol};
use ratatui::Frame;
use ratatui::layout::Constraint;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row as TableRow, Table, TableState};

/// Columns of the id, version and status.
const MAX_ID_W: usize = 40;
const MAX_VERSION_W: usize = 12;
const STATUS_W: usize = 13;
/// The status as its symbol alone (`●`), when the word would cut an id.
const STATUS_SYMBOL_W: usize = 1;
/// The narrowest description worth showing.
const MIN_DESC_W: usize = 8;
/// The SCOPE column inside a project (`shadowed`).
const SCOPE_W: usize = 8;

/// The columns' widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub id: usize,
    pub version: usize,
    /// [`STATUS_W`], or [`STATUS_SYMBOL_W`] in a narrow pane.
    pub status: usize,
    pub description: usize,
}

/// Fits the columns in `width` for the widest id and version of all packs
/// (so they stay put while scrolling). The description goes first, then
/// the version, then the status word (its symbol stays; Details names
/// it); the ids are cut last.
pub fn columns(widest: (usize, usize), width: usize) -> Columns {
    let id = widest.0.clamp(2, MAX_ID_W);
    let version = widest.1.clamp(7, MAX_VERSION_W);
    // Marker, id, space, version, space, status.
    let fixed = |id: usize, version: usize, status: usize| {
        2 + id + 1 + version + usize::from(version > 0) + status
    };
    let all = Columns {
        id,
        version,
        status: STATUS_W,
        description: 0,
    };
    if fixed(id, version, STATUS_W) + 1 + MIN_DESC_W <= width {
        let description = width - fixed(id, version, STATUS_W) - 1;
        return Columns { description, ..all };
    }
    if fixed(id, version, STATUS_W) <= width {
        return all;
    }
    if fixed(id, 0, STATUS_W) <= width {
        return Columns { version: 0, ..all };
    }
    let id = width
        .saturating_sub(fixed(0, 0, STATUS_SYMBOL_W))
        .clamp(2, id);
    Columns {
        id,
        version: 0,
        status: STATUS_SYMBOL_W,
        description: 0,
    }
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let block = pane_block(app, Pane::Browser, title(app));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    let mut above: Vec<Line<'_>> = Vec::new();
    if layout::shows_filter(app) {
        above.push(filter_line(app, width));
    }
    if !app.loaded() {
        above.extend(loading_lines(app, width));
        frame.render_widget(Paragraph::new(above), inner);
        return;
    }
    let filter_h = above.len() as u16;
    frame.render_widget(Paragraph::new(above), inner);
    let area = Rect::new(
        inner.x,
        inner.y + filter_h,
        inner.width,
        inner.height.saturating_sub(filter_h),
    );
    draw_table(frame, area, app);
}

/// The title: count (filtered / all), sort, marks.
fn title<'a>(app: &App) -> Vec<Span<'a>> {
    let theme = app.theme();
    let mut title = vec![pane_title(app, Pane::Browser)];
    if !app.loaded() {
        return title;
    }
    let count = if app.packs.filter.query.is_empty() {
        format!(" {}", app.packs.entries.len())
    } else {
        format!(" {}/{}", app.packs.visible.len(), app.packs.entries.len())
    };
    title.push(Span::raw(count));
    // Before the sort, which a narrow pane cuts first.
    if let Some(scope) = app.scopes().title() {
        title.push(Span::styled(format!(" · {scope}"), theme.bold()));
    }
    title.push(Span::styled(
        format!(" · sort {}", app.packs.sort.as_str()),
        theme.dim(),
    ));
    if !app.packs.marked.is_empty() {
        title.push(Span::styled(
            format!(" · {} marked", app.packs.marked.len()),
            theme.bold(),
        ));
    }
    title
}

fn filter_line<'a>(app: &App, width: usize) -> Line<'a> {
    let theme = app.theme();
    let cursor = if app.packs.filter.editing { "▏" } else { "" };
    Line::from(vec![
        Span::styled("/", theme.key()),
        Span::styled(
            text::truncate(
                &format!("{}{cursor}", app.packs.filter.query),
                width.saturating_sub(1),
            ),
            theme.bold(),
        ),
    ])
}

/// Before the first snapshot: loading, or why the store cannot be read.
fn loading_lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    match app.loads.error() {
        Some(err) => {
            let mut lines = vec![Line::styled("cannot read the store:", theme.bad())];
            let mut msg = format!("{}: {}", err.code.as_str(), err.message);
            if let Some(hint) = &app.hint(err) {
                msg.push_str("\nhint: ");
                msg.push_str(hint);
            }
            msg.push_str("\npress r to try again");
            lines.extend(text::wrap(&msg, width).into_iter().map(Line::raw));
            lines
        }
        None => {
            let spinner = SPINNER[(app.ticks % SPINNER.len() as u64) as usize];
            let msg = format!("{spinner} loading… reading the store and catalogs");
            text::wrap(&msg, width)
                .into_iter()
                .map(|l| Line::styled(l, theme.hint()))
                .collect()
        }
    }
}

/// The packs as a `Table`: only the rows in view are built (10,000 packs
/// stay cheap); the selected one is highlighted through its `TableState`.
fn draw_table(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let theme = app.theme();
    let width = area.width as usize;
    // A column for the marks (`!` `≠` `↑`) only while some pack has one.
    let flags = app.marks.any();
    let scope = app.scopes().project().is_some();
    let cols = columns(
        app.packs.widest,
        width.saturating_sub(2 * usize::from(flags) + (SCOPE_W + 1) * usize::from(scope)),
    );
    let (widths, header) = header(cols, flags, scope);
    let rows: Vec<TableRow<'_>> = app
        .packs
        .visible
        .iter()
        .enumerate()
        .skip(app.packs.offset)
        .take(layout::browser_rows(app))
        .map(|(n, &i)| {
            pack_row(
                app,
                &app.packs.entries[i],
                n == app.packs.selected,
                cols,
                (flags, scope),
            )
        })
        .collect();
    let empty = rows.is_empty();
    let table = Table::new(rows, widths)
        .header(TableRow::new(header).style(theme.dim()))
        .column_spacing(1)
        .row_highlight_style(theme.selected());
    let mut state = TableState::new().with_selected(
        app.packs
            .selected
            .checked_sub(app.packs.offset)
            .filter(|_| !empty),
    );
    frame.render_stateful_widget(table, area, &mut state);
    let below = below_table(app, width);
    let used = 1
        + (app.packs.visible.len().saturating_sub(app.packs.offset)).min(layout::browser_rows(app))
            as u16;
    if !below.is_empty() && used < area.height {
        let rest = Rect::new(area.x, area.y + used, area.width, area.height - used);
        frame.render_widget(Paragraph::new(below), rest);
    }
}

/// The table's column widths and header cells; the marks column only
/// with `flags`, the scope only with `scope`, version and description only
/// where they fit.
fn header(cols: Columns, flags: bool, scope: bool) -> (Vec<Constraint>, Vec<Cell<'static>>) {
    let mut widths = vec![Constraint::Length(1)];
    let mut header = vec![Cell::from("")];
    if flags {
        widths.push(Constraint::Length(1));
        header.push(Cell::from(""));
    }
    widths.push(Constraint::Length(cols.id as u16));
    header.push(Cell::from("ID"));
    if cols.version > 0 {
        widths.push(Constraint::Length(cols.version as u16));
        header.push(Cell::from("VERSION"));
    }
    widths.push(Constraint::Length(cols.status as u16));
    header.push(Cell::from(if cols.status < STATUS_W {
        ""
    } else {
        "STATUS"
    }));
    if scope {
        widths.push(Constraint::Length(SCOPE_W as u16));
        header.push(Cell::from("SCOPE"));
    }
    if cols.description > 0 {
        widths.push(Constraint::Length(cols.description as u16));
        header.push(Cell::from("DESCRIPTION"));
    }
    (widths, header)
}

/// What shows under the table: "no packs" (or no match), and how to add
/// packs when hcpx's own is the only one.
fn below_table(app: &App, width: usize) -> Vec<Line<'static>> {
    let theme = app.theme();
    let mut below: Vec<Line<'static>> = Vec::new();
    if app.packs.visible.is_empty() {
        let msg = if app.packs.filter.query.is_empty() {
            "no packs".to_string()
        } else {
            format!("no pack matches `{}`", app.packs.filter.query)
        };
        below.push(Line::styled(msg, theme.dim()));
    }
    if app.only_bootstrap() && app.packs.filter.query.is_empty() {
        below.push(Line::raw(""));
        let help = "No packs but hcpx's own. Add a catalog (a folder of pack folders): start with hcpx tui --catalog DIR, or list it under catalogs: in $HCP_HOME/config.yaml; or install one pack folder with hcpx install DIR.";
        below.extend(
            text::wrap(help, width)
                .into_iter()
                .map(|l| Line::styled(l, theme.hint())),
        );
    }
    below
}

/// One pack's row: marker, mark (with `flags`), id (filter matches
/// highlighted), version, status badge, scope (with `scope`), description.
fn pack_row<'a>(
    app: &App,
    entry: &Row,
    selected: bool,
    cols: Columns,
    (flags, scope): (bool, bool),
) -> TableRow<'a> {
    let theme = app.theme();
    let marked = app.packs.is_marked(entry);
    let marker = match (selected, marked) {
        (true, _) if !marked => "▶",
        (_, true) => "*",
        _ => " ",
    };
    let mut cells = vec![Cell::from(Span::styled(marker, theme.bold()))];
    if flags {
        cells.push(match app.marks.of_row(entry.id(), entry.shadowed) {
            Some(c @ '↑') => Cell::from(Span::styled(c.to_string(), theme.hint())),
            Some(c) => Cell::from(Span::styled(c.to_string(), theme.bad())),
            None => Cell::from(""),
        });
    }
    cells.push(Cell::from(Line::from(id_spans(
        app,
        entry.id(),
        cols.id,
        Style::new(),
    ))));
    if cols.version > 0 {
        cells.push(Cell::from(text::fit(
            entry.version.as_deref().unwrap_or("-"),
            cols.version,
        )));
    }
    let status = entry.status;
    let badge = if cols.status < STATUS_W {
        status_symbol(status).to_string()
    } else {
        format!("{} {}", status_symbol(status), status.as_str())
    };
    cells.push(Cell::from(Span::styled(
        text::fit(&badge, cols.status),
        theme.status(status),
    )));
    if scope {
        let style = match entry.shadowed {
            true => theme.dim(),
            false => Style::new(),
        };
        cells.push(Cell::from(Span::styled(Scopes::tag(entry), style)));
    }
    if cols.description > 0 {
        cells.push(Cell::from(description_spans(app, entry, cols.description)));
    }
    TableRow::new(cells)
}

/// The description cell, `w` wide: a Skill pack's (§2.6) starts with a
/// `skill` tag, so it reads apart from the packs that declare commands.
fn description_spans<'a>(app: &App, entry: &Row, w: usize) -> Line<'a> {
    let theme = app.theme();
    if let Some(field) = app.packs.matched_field(&entry.key()) {
        // While filtering: where the query was found, when not in the id.
        let tag = format!("in {} ", field.as_str());
        let rest = w.saturating_sub(tag.len());
        return Line::from(vec![
            Span::styled(text::fit(&tag, w.min(tag.len())), theme.hint()),
            Span::styled(text::fit(&entry.description, rest), theme.dim()),
        ]);
    }
    if entry.kind != PackKind::Skill {
        return Line::from(Span::styled(text::fit(&entry.description, w), theme.dim()));
    }
    let tag = "skill ";
    let rest = w.saturating_sub(tag.len());
    Line::from(vec![
        Span::styled(text::fit(tag, w.min(tag.len())), theme.hint()),
        Span::styled(text::fit(&entry.description, rest), theme.dim()),
    ])
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
        assert_eq!(no_version.status, 13);
        // The status word goes before an id is cut: 80 columns, 16-char ids.
        let symbol = columns((16, 7), 30);
        assert_eq!((symbol.id, symbol.version, symbol.status), (16, 0, 1));
        let cut = columns((20, 7), 20);
        assert_eq!((cut.id, cut.version, cut.description), (16, 0, 0));
    }
}
