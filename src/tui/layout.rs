//! Where everything goes on the screen, from the terminal's size and the
//! state: the panes' [`Areas`], how many rows each shows, and what is at a
//! screen position. `draw` puts the panes there; `update` uses the same
//! numbers to map clicks, to scroll and to keep the selection in view.
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
use crate::tui::pane::Pane;
use ratatui::layout::Rect;

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
pub const NO_WRAP_WIDTH: usize = 1000;

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
