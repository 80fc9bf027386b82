//! The screen: where each pane goes ([`areas`], also used by `update` to
//! map clicks and to scroll), and [`draw`], which only reads the state.
//!
//! ```text
//! ┌ Packs ─────────────┐┌ Availability ───────────────┐
//! │ browser            ││ matrix                      │
//! │                    │└─────────────────────────────┘
//! │                    │┌ Details │ Lint │ Output ────┐
//! │                    ││ the tab in front            │
//! └────────────────────┘└─────────────────────────────┘
//!  status line                                 spinner
//!  key bar
//! ```

use crate::tui::app::App;
use crate::tui::keymap;
use crate::tui::keys::{Cmd, KEYS};
use crate::tui::pane::Pane;
use crate::tui::panes;
use crate::tui::text;
use crate::tui::theme::SPINNER;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Below this size the TUI shows only a message.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 15;

/// Where everything goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub browser: Rect,
    pub matrix: Rect,
    pub lower: Rect,
    pub status: Rect,
    pub keybar: Rect,
}

/// The areas for the app's terminal size; `None` below the minimum.
pub fn areas(app: &App) -> Option<Areas> {
    areas_in(Rect::new(0, 0, app.size.0, app.size.1))
}

/// The areas inside `area`; `None` below the minimum.
pub fn areas_in(area: Rect) -> Option<Areas> {
    let (w, h) = (area.width, area.height);
    if w < MIN_WIDTH || h < MIN_HEIGHT {
        return None;
    }
    let main_h = h - 2;
    let browser_w = (w * 2 / 5).max(30).min(w - 30);
    let right_w = w - browser_w;
    let matrix_h = (main_h * 2 / 5).max(6);
    let (x, y) = (area.x, area.y);
    Some(Areas {
        browser: Rect::new(x, y, browser_w, main_h),
        matrix: Rect::new(x + browser_w, y, right_w, matrix_h),
        lower: Rect::new(x + browser_w, y + matrix_h, right_w, main_h - matrix_h),
        status: Rect::new(x, y + main_h, w, 1),
        keybar: Rect::new(x, y + main_h + 1, w, 1),
    })
}

/// Whether the browser shows the filter input line.
pub fn shows_filter(app: &App) -> bool {
    app.packs.filter.editing || !app.packs.filter.query.is_empty()
}

/// How many pack rows the browser shows.
pub fn browser_rows(app: &App) -> usize {
    areas(app).map_or(0, |a| {
        let chrome = 3 + u16::from(shows_filter(app));
        a.browser.height.saturating_sub(chrome) as usize
    })
}

/// The first screen row of the browser's pack rows.
fn browser_first_row(app: &App, a: &Areas) -> u16 {
    a.browser.y + 2 + u16::from(shows_filter(app))
}

/// The index into `visible` of the browser row at screen row `row`.
pub fn browser_row_at(app: &App, row: u16) -> Option<usize> {
    let a = areas(app)?;
    let first = browser_first_row(app, &a);
    if row < first || row >= first + browser_rows(app) as u16 {
        return None;
    }
    let i = app.packs.offset + (row - first) as usize;
    (i < app.packs.visible.len()).then_some(i)
}

/// How many command rows the matrix shows, and the first one.
pub fn matrix_window(app: &App) -> (usize, usize) {
    let Some(a) = areas(app) else { return (0, 0) };
    let inner = a.matrix.height.saturating_sub(2) as usize;
    let commands = app.selected_view().map_or(0, |e| e.avail.commands.len());
    // Header, then rows, leaving at least two lines for the reasons.
    let rows = commands.min(inner.saturating_sub(3)).max(1);
    let first = app.matrix.selected().saturating_sub(rows - 1);
    (rows, first)
}

/// The command index of the matrix row at screen row `row`.
pub fn matrix_row_at(app: &App, row: u16) -> Option<usize> {
    let a = areas(app)?;
    let first_row = a.matrix.y + 2;
    let (rows, first) = matrix_window(app);
    if row < first_row || row >= first_row + rows as u16 {
        return None;
    }
    let i = first + (row - first_row) as usize;
    let commands = app.selected_view()?.avail.commands.len();
    (i < commands).then_some(i)
}

/// The pane at a screen position.
pub fn pane_at(app: &App, column: u16, row: u16) -> Option<Pane> {
    let a = areas(app)?;
    let hit = |r: Rect| column >= r.x && column < r.right() && row >= r.y && row < r.bottom();
    if hit(a.browser) {
        Some(Pane::Browser)
    } else if hit(a.matrix) {
        Some(Pane::Matrix)
    } else if hit(a.lower) {
        Some(app.focus.lower())
    } else {
        None
    }
}

/// The lower area's tabs: each pane with its title's column and width.
/// The titles are padded with a space each side where all four fit so
/// (the left one takes the focus mark), else with one on the left, else
/// not: a narrow window still shows every tab, `Log` included.
pub fn lower_tabs(lower: Rect) -> Vec<(Pane, u16, u16)> {
    let tabs = |pad: u16| {
        let mut x = lower.x + 1;
        let mut out = Vec::new();
        for pane in Pane::LOWER {
            let w = pane.title().len() as u16 + pad;
            out.push((pane, x, w));
            x += w + 1;
        }
        out
    };
    let fits =
        |tabs: &[(Pane, u16, u16)]| tabs.last().is_none_or(|&(_, x, w)| x + w < lower.right());
    [tabs(2), tabs(1)]
        .into_iter()
        .find(|t| fits(t))
        .unwrap_or_else(|| tabs(0))
}

/// The mark of the focused pane's title: it shows without colour
/// (`NO_COLOR`, a monochrome terminal, a snapshot).
pub const FOCUS_MARK: &str = "▶";

/// The tab whose title is at a screen position.
pub fn lower_tab_at(app: &App, column: u16, row: u16) -> Option<Pane> {
    let a = areas(app)?;
    if row != a.lower.y {
        return None;
    }
    lower_tabs(a.lower)
        .into_iter()
        .find(|(_, x, w)| column >= *x && column < x + w)
        .map(|(p, _, _)| p)
}

/// The width text panes lay their lines out to when `w` turned wrapping
/// off: the frame then cuts them at the pane's edge.
const NO_WRAP_WIDTH: usize = 1000;

/// The width a text pane lays its lines out to.
pub fn text_width(app: &App) -> usize {
    if !app.text.wrap {
        return NO_WRAP_WIDTH;
    }
    areas(app).map_or(1, |a| a.lower.width.saturating_sub(2).max(1) as usize)
}

/// How many lines of text the lower area shows.
pub fn text_rows(app: &App) -> usize {
    areas(app).map_or(0, |a| a.lower.height.saturating_sub(2) as usize)
}

/// The lines a text pane (Details, Lint, Output, Log) has now.
pub fn text_lines(app: &App, pane: Pane) -> usize {
    let width = text_width(app);
    match pane {
        Pane::Lint => panes::lint::lines(app, width).len(),
        Pane::Output => panes::output::lines(app, width).len(),
        Pane::Log => panes::log::lines(app, width).len(),
        _ => panes::details::lines(app, width).len(),
    }
}

/// A text pane's lines as plain text (for the search).
pub fn text_strings(app: &App, pane: Pane) -> Vec<String> {
    let width = text_width(app);
    let lines = match pane {
        Pane::Lint => panes::lint::lines(app, width),
        Pane::Output => panes::output::lines(app, width),
        Pane::Log => panes::log::lines(app, width),
        _ => panes::details::lines(app, width),
    };
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

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
    let scroll = (app.scroll_of(pane) as usize).min(last);
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

/// Draws the whole screen from the state.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    let Some(a) = areas_in(area) else {
        draw_too_small(frame, app);
        return;
    };
    panes::browser::draw(frame, a.browser, app);
    panes::matrix::draw(frame, a.matrix, app);
    match app.focus.lower() {
        Pane::Lint => panes::lint::draw(frame, a.lower, app),
        Pane::Output => panes::output::draw(frame, a.lower, app),
        Pane::Log => panes::log::draw(frame, a.lower, app),
        _ => panes::details::draw(frame, a.lower, app),
    }
    draw_lower_tabs(frame, a.lower, app);
    draw_status(frame, a.status, app);
    draw_keybar(frame, a.keybar, app);
    if let Some(dialog) = &app.dialog {
        panes::dialog::draw(frame, area, app, dialog);
    }
}

fn draw_lower_tabs(frame: &mut Frame<'_>, lower: Rect, app: &App) {
    let theme = app.theme();
    let buf = frame.buffer_mut();
    let tabs = lower_tabs(lower);
    if let Some(&(_, x, w)) = tabs.last()
        && app.focus.new_output()
    {
        // After the tabs, where it fits: Output has unseen output.
        let note = " new output ";
        let at = x + w + 1;
        if at + note.len() as u16 + 1 < lower.right() {
            buf.set_string(at, lower.y, note, theme.good().add_modifier(Modifier::BOLD));
        }
    }
    for (pane, x, w) in tabs {
        if x + w >= lower.right() {
            break;
        }
        let style = if pane == app.focus.lower() {
            let s = theme.title().add_modifier(Modifier::REVERSED);
            if app.focus.pane() == pane {
                s.add_modifier(Modifier::UNDERLINED)
            } else {
                s
            }
        } else {
            theme.dim()
        };
        let focused = app.focus.pane() == pane;
        let mark = if focused { FOCUS_MARK } else { " " };
        let label = match usize::from(w) - pane.title().len() {
            0 => pane.title().to_string(),
            1 => format!("{mark}{}", pane.title()),
            _ => format!("{mark}{} ", pane.title()),
        };
        buf.set_string(x, lower.y, label, style);
        if x + w < lower.right() - 1 {
            let border = if app.focus.pane() == app.focus.lower() && app.dialog.is_none() {
                theme.focus_border()
            } else {
                theme.border()
            };
            buf.set_string(x + w, lower.y, "│", border);
        }
    }
}

fn draw_status(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let theme = app.theme();
    let spinner = SPINNER[(app.ticks % SPINNER.len() as u64) as usize];
    let right = match (app.work.busy(), app.loads.loading()) {
        (Some(what), _) => format!("{spinner} {what}… "),
        (None, true) => format!("{spinner} loading… "),
        (None, false) => String::new(),
    };
    let right_w = text::width(&right);
    let left_w = (area.width as usize).saturating_sub(right_w + 1);
    let typing = app.cmdline.editing.then(|| {
        let mut line = format!(":{}▏", text::safe(&app.cmdline.input));
        if !app.cmdline.choices.is_empty() {
            line.push_str("   ");
            line.push_str(&app.cmdline.choices.join(" "));
        }
        (line, theme.bold())
    });
    let searching = typing.or(app.search.editing.then(|| {
        (
            format!(
                "/{}▏  search {} · Enter keeps, Esc clears",
                text::safe(&app.search.query),
                app.search.pane.map_or("", Pane::title)
            ),
            theme.bold(),
        )
    }));
    let (left, style) = match (app.status.notice(), searching) {
        (_, Some(searching)) => searching,
        (Some(n), None) => (
            n.text.clone(),
            if n.error { theme.bad() } else { theme.good() },
        ),
        (None, None) => (
            format!(
                "principal {} · {} pack{}{}",
                app.config.principal,
                app.packs.entries.len(),
                if app.packs.entries.len() == 1 {
                    ""
                } else {
                    "s"
                },
                if app.packs.marked.is_empty() {
                    String::new()
                } else {
                    format!(" · {} marked", app.packs.marked.len())
                }
            ),
            theme.dim(),
        ),
    };
    let line = Line::from(vec![
        Span::raw(" "),
        Span::styled(text::fit(&left, left_w), style),
        Span::styled(right, theme.hint()),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

/// The key bar: from the key table, what applies now; greyed what cannot
/// run for the selection (`enabled` is `Err`). While a dialog is open,
/// the dialog's keys.
fn draw_keybar(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let theme = app.theme();
    let owned: Vec<(&str, &str, bool)> = if let Some(dialog) = &app.dialog {
        keymap::dialog_bar(dialog)
            .into_iter()
            .map(|(key, what)| (key, what, true))
            .collect()
    } else if app.cmdline.editing {
        vec![
            ("type", "an hcpx command", true),
            ("Tab", "complete", true),
            ("Enter", "run", true),
            ("Esc", "cancel", true),
        ]
    } else if app.search.editing {
        vec![
            ("type", "search", true),
            ("Enter", "keep", true),
            ("Esc", "clear", true),
        ]
    } else if app.packs.filter.editing {
        vec![
            ("type", "filter", true),
            ("Enter", "keep", true),
            ("Esc", "clear", true),
            ("↑↓", "move", true),
        ]
    } else {
        KEYS.iter()
            .filter_map(|b| {
                let (key, word) = b.bar?;
                let info = app.command_info(b.cmd);
                let word = match b.cmd {
                    Cmd::Open => keymap::open_word(app.focus.pane()),
                    Cmd::Filter => keymap::slash_word(app.focus.pane()),
                    _ => word,
                };
                info.available.then_some((key, word, info.enabled.is_ok()))
            })
            .collect()
    };
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    for (key, what, enabled) in owned {
        let w = text::width(key) + text::width(what) + 3;
        if used + w > area.width as usize {
            break;
        }
        let (key_style, word_style) = if enabled {
            (theme.key(), theme.plain())
        } else {
            (theme.disabled(), theme.disabled())
        };
        spans.push(Span::styled(key.to_string(), key_style));
        spans.push(Span::styled(format!(" {what}  "), word_style));
        used += w;
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_too_small(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    let theme = app.theme();
    let msg = format!(
        "Terminal too small: {}×{}. hcpx tui needs at least {MIN_WIDTH}×{MIN_HEIGHT}. Resize, or press q to quit.",
        area.width, area.height
    );
    let lines: Vec<Line<'_>> = text::wrap(&msg, area.width.max(1) as usize)
        .into_iter()
        .map(|l| Line::styled(l, theme.warning()))
        .collect();
    let top = area.height.saturating_sub(lines.len() as u16) / 2;
    let rect = Rect::new(
        area.x,
        area.y + top,
        area.width,
        area.height.saturating_sub(top),
    );
    frame.render_widget(Paragraph::new(lines), rect);
}
