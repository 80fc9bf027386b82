//! The screen: [`draw`], which only reads the state, puts each pane where
//! `tui::layout` says, with the status line and the key bar; and the text
//! panes' lines ([`text_lines`], [`text_strings`]), which `update` scrolls
//! and searches.
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
use crate::tui::layout::{FOCUS_MARK, MIN_HEIGHT, MIN_WIDTH, areas_in, lower_tabs, text_width};
use crate::tui::pane::Pane;
use crate::tui::panes;
use crate::tui::text;
use crate::tui::theme::SPINNER;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

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
                "principal {} ({}) · {} pack{}{}",
                app.config.principal,
                app.config.powers.source(&app.config.principal),
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
        dialog
            .bar()
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
