//! The availability matrix of the selected pack (§11.2, §11.3): one row per
//! command, one column per condition of §11.2 for the current principal,
//! each cell ✓ or ✗, and under the table every unmet condition of the
//! selected command in words with the command that fixes it. An
//! executable command reads `✓ mcp` (where the column has room): an MCP
//! client of `hcpx mcp` as the same principal sees it as a tool (§16.2),
//! said in words under the table when it is selected. Columns that do not
//! fit are counted at the header's end (`+2 →`), and words cut by the
//! pane's bottom end in `…`. Everything
//! shown comes from the engine's availability function (`pack_availability`)
//! and `why`.

use crate::engine::error::Fix;
use crate::engine::pack::manifest::BindingKind;
use crate::engine::policy::availability::{CommandAvailability, Condition, Refusal, Status};
use crate::engine::policy::why;
use crate::tui::app::App;
use crate::tui::job::Entry;
use crate::tui::layout;
use crate::tui::pane::Pane;
use crate::tui::panes::frame::{pane_block, pane_title};
use crate::tui::text;
use crate::tui::theme::check;
use ratatui::Frame;
use ratatui::layout::Constraint;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row as TableRow, Table, TableState};

const EFFECT_W: usize = 6;
/// The narrowest summary column worth showing.
const MIN_SUMMARY_W: usize = 12;
/// Each condition column: its name and its width with one space.
const COLUMNS: [(&str, usize); 5] = [
    ("activated", 10),
    ("connected", 10),
    ("grant", 6),
    ("adapter", 8),
    ("executable", 11),
];
/// The same columns with short names, for narrow panes.
const SHORT_COLUMNS: [(&str, usize); 5] = [
    ("act", 4),
    ("conn", 5),
    ("grant", 6),
    ("adapt", 6),
    ("exec", 5),
];
/// Only whether each command is executable, for a pane too narrow for
/// every condition (the reasons below still name each unmet one).
const EXEC_ONLY: [(&str, usize); 1] = [("executable", 11)];
/// An executable command that an MCP client sees as a tool.
const MCP_MARK: &str = "✓ mcp";
/// The narrowest command column worth showing.
const MIN_KEY_W: usize = 6;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let theme = app.theme();
    let mut title = vec![pane_title(app, Pane::Matrix)];
    if let Some(entry) = app.selected_row() {
        title.push(Span::raw(format!(" {}", text::one_line(entry.id()))));
        title.push(Span::styled(
            format!(" · principal {}", app.config.principal),
            theme.dim(),
        ));
    }
    let block = pane_block(app, Pane::Matrix, title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(entry) = app.selected_view() else {
        let msg = match app.selected_row() {
            Some(row) => format!("reading {}…", text::one_line(row.id())),
            None if app.loaded() => "no pack selected".into(),
            None => String::new(),
        };
        frame.render_widget(Paragraph::new(Line::styled(msg, theme.dim())), inner);
        return;
    };
    let width = inner.width as usize;
    let avail = &entry.avail;
    if avail.commands.is_empty() {
        frame.render_widget(Paragraph::new(pack_level(app, entry, width)), inner);
        return;
    }

    let layout = Layout::fit(entry, width);
    let (rows, first) = layout::matrix_window(app);
    let table_h =
        ((1 + rows.min(avail.commands.len().saturating_sub(first))) as u16).min(inner.height);
    draw_table(
        frame,
        Rect::new(inner.x, inner.y, inner.width, table_h),
        app,
        entry,
        &layout,
    );
    let below = Rect::new(
        inner.x,
        inner.y + table_h,
        inner.width,
        inner.height.saturating_sub(table_h),
    );
    // Every unmet condition of the selected command, in words.
    let Some(cmd) = avail.commands.get(app.matrix.selected()) else {
        return;
    };
    let mut why_lines = pack_level(app, entry, width);
    if avail.installed {
        why_lines.extend(reasons(app, entry, cmd, width, false));
    } else if avail.status != Status::Unavailable {
        // Installing is said above, and activating and connecting follow
        // it; what would still hold the command back is said too.
        why_lines.extend(reasons(app, entry, cmd, width, true));
    }
    let rows = below.height as usize;
    frame.render_widget(Paragraph::new(fit_rows(why_lines, rows, width)), below);
}

/// At most `rows` of `lines`; when some do not fit, the last one shown
/// ends in `…`, so a fix line cut by the pane's edge is never taken for a
/// whole command (and copied as one).
fn fit_rows(mut lines: Vec<Line<'_>>, rows: usize, width: usize) -> Vec<Line<'_>> {
    if lines.len() <= rows {
        return lines;
    }
    lines.truncate(rows);
    if let Some(last) = lines.last_mut() {
        let words: String = last.spans.iter().map(|s| s.content.as_ref()).collect();
        let style = last.spans.first().map_or(last.style, |s| s.style);
        let mut cut = text::truncate(words.trim_end(), width.saturating_sub(1));
        if !cut.ends_with('…') {
            cut.push('…');
        }
        *last = Line::styled(cut, style);
    }
    lines
}

/// The table's column widths for the pane's width.
struct Layout {
    key_w: usize,
    columns: &'static [(&'static str, usize)],
    /// 0: no summary column.
    summary_w: usize,
    /// The columns left out for want of room (the conditions `EXEC_ONLY`
    /// drops, the summary): the header ends in `+N →` for them.
    hidden: usize,
}

impl Layout {
    fn fit(entry: &Entry, width: usize) -> Layout {
        let longest = entry
            .avail
            .commands
            .iter()
            .map(|c| text::width(&c.verb_key))
            .max()
            .unwrap_or(7)
            .max(7);
        let fixed =
            |cols: &[(&str, usize)]| EFFECT_W + 1 + cols.iter().map(|(_, w)| w).sum::<usize>();
        let columns: &'static [(&str, usize)] = if 2 + longest + fixed(&COLUMNS) <= width {
            &COLUMNS
        } else if 2 + MIN_KEY_W + fixed(&SHORT_COLUMNS) <= width {
            &SHORT_COLUMNS
        } else {
            &EXEC_ONLY
        };
        let key_w = longest.min(width.saturating_sub(fixed(columns) + 2).max(MIN_KEY_W));
        // The commands' summaries, where there is room.
        let used = 2 + key_w + 1 + fixed(columns);
        let summary_w = width.saturating_sub(used + 1);
        let summary_w = if summary_w >= MIN_SUMMARY_W {
            summary_w
        } else {
            0
        };
        let summaries = entry
            .view
            .manifest()
            .is_some_and(|m| m.commands.iter().any(|c| !c.summary.trim().is_empty()));
        let hidden = COLUMNS.len() - columns.len() + usize::from(summaries && summary_w == 0);
        Layout {
            key_w,
            columns,
            summary_w,
            hidden,
        }
    }

    /// The table's width as drawn: the mark, the key and the effect, each
    /// condition column (its width holds the space before it), the
    /// summary.
    fn used(&self) -> usize {
        let conditions: usize = self.columns.iter().map(|(_, w)| w).sum();
        let summary = if self.summary_w > 0 {
            self.summary_w + 1
        } else {
            0
        };
        1 + 1 + self.key_w + 1 + EFFECT_W + conditions + summary
    }
}

/// The commands in view as a `Table`, the selected one highlighted
/// through its `TableState`.
fn draw_table(frame: &mut Frame<'_>, area: Rect, app: &App, entry: &Entry, layout: &Layout) {
    let theme = app.theme();
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Length(layout.key_w as u16),
        Constraint::Length(EFFECT_W as u16),
    ];
    let mut header = vec![Cell::from(""), Cell::from("COMMAND"), Cell::from("EFFECT")];
    for &(name, w) in layout.columns {
        widths.push(Constraint::Length(w as u16 - 1));
        header.push(Cell::from(name));
    }
    if layout.summary_w > 0 {
        widths.push(Constraint::Length(layout.summary_w as u16));
        header.push(Cell::from("SUMMARY"));
    }
    let summary = |key: &str| {
        entry
            .view
            .manifest()
            .and_then(|m| m.commands.iter().find(|c| c.key == key))
            .map_or(String::new(), |c| text::fit(&c.summary, layout.summary_w))
    };
    let (rows, first) = layout::matrix_window(app);
    let table_rows: Vec<TableRow<'_>> = entry
        .avail
        .commands
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, cmd)| {
            let selected = i == app.matrix.selected();
            let mut cells = vec![
                Cell::from(if selected { "▶" } else { " " }),
                Cell::from(Span::styled(
                    text::fit(&cmd.verb_key, layout.key_w),
                    theme.bold(),
                )),
                Cell::from(text::fit(cmd.effect, EFFECT_W)),
            ];
            let conditions = if layout.columns.len() == 1 {
                &[][..]
            } else {
                &Condition::ALL[..]
            };
            for ok in conditions.iter().map(|c| cmd.meets(*c)) {
                let style = if ok { theme.good() } else { theme.bad() };
                cells.push(Cell::from(Span::styled(check(ok), style)));
            }
            cells.push(executable_cell(app, cmd, layout));
            if layout.summary_w > 0 {
                cells.push(Cell::from(Span::styled(
                    summary(&cmd.verb_key),
                    theme.dim(),
                )));
            }
            TableRow::new(cells)
        })
        .collect();
    let table = Table::new(table_rows, widths)
        .header(TableRow::new(header).style(theme.dim()))
        .column_spacing(1)
        .row_highlight_style(theme.selected());
    let mut state = TableState::new().with_selected(
        app.matrix
            .selected()
            .checked_sub(first)
            .filter(|&i| i < rows),
    );
    frame.render_stateful_widget(table, area, &mut state);
    more_mark(frame, area, app, layout);
}

/// `+N →` at the end of the header: N columns did not fit (a wider pane
/// shows them), where there is room for it.
fn more_mark(frame: &mut Frame<'_>, area: Rect, app: &App, layout: &Layout) {
    if layout.hidden == 0 || area.height == 0 {
        return;
    }
    let room = (area.width as usize).saturating_sub(layout.used());
    let n = layout.hidden;
    let Some(mark) = [format!("+{n} →"), format!("+{n}→"), format!("+{n}")]
        .into_iter()
        .find(|m| text::width(m) < room)
    else {
        return;
    };
    let w = text::width(&mark) as u16;
    let at = Rect::new(area.x + area.width - w, area.y, w, 1);
    frame.render_widget(Paragraph::new(Span::styled(mark, app.theme().hint())), at);
}

/// The `executable` cell: `✓ mcp` where the column has room for it —
/// `hcpx mcp` as the current principal lists the command as a tool
/// (`CommandAvailability::mcp_tool`, the server's own predicate).
fn executable_cell<'a>(app: &App, cmd: &CommandAvailability, layout: &Layout) -> Cell<'a> {
    let theme = app.theme();
    let ok = cmd.executable;
    let style = if ok { theme.good() } else { theme.bad() };
    let wide = layout
        .columns
        .last()
        .is_some_and(|(_, w)| *w > text::width(MCP_MARK));
    let mark = if cmd.mcp_tool() && wide {
        MCP_MARK
    } else {
        check(ok)
    };
    Cell::from(Span::styled(mark, style))
}

/// What holds the whole pack back (not installed, broken), if anything.
fn pack_level<'a>(app: &App, entry: &Entry, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let avail = &entry.avail;
    let manifest = entry.view.manifest();
    if avail.installed && avail.status != Status::Unavailable && !avail.commands.is_empty() {
        return Vec::new();
    }
    let dir = entry.view.dir().map(|d| d.display().to_string());
    let why = why::explain(avail, manifest, None, &app.config.principal, dir.as_deref());
    // A pack with nothing to run but its Skill (a Skill pack, §2.6; a
    // `sense_only` pack) is what it should be: no failure to show.
    let only_sense =
        avail.installed && why.reason() == Some(&why::WhyReason::Refused(Refusal::SenseOnly));
    let (mark, style) = if why.executable {
        ("✓", theme.good())
    } else if only_sense {
        ("·", theme.dim())
    } else {
        ("✗", theme.bad())
    };
    let mut out: Vec<Line<'a>> =
        text::wrap_hanging(&format!("{mark} {}", why.explanation), width, 2)
            .into_iter()
            .map(|l| Line::styled(l, style))
            .collect();
    if let Some(fix) = why.fix().filter(|_| avail.status != Status::Unavailable) {
        out.extend(fix_lines(app, fix, width));
    }
    for problem in avail.problems.iter().skip(1) {
        out.extend(
            text::wrap(&format!("  {problem}"), width)
                .into_iter()
                .map(|l| Line::styled(l, theme.dim())),
        );
    }
    out
}

/// The selected command's reasons, each in words and with its fix; with
/// `after_install`, only those installing, activating and connecting
/// would leave (for a pack not installed yet).
fn reasons<'a>(
    app: &App,
    entry: &Entry,
    cmd: &CommandAvailability,
    width: usize,
    after_install: bool,
) -> Vec<Line<'a>> {
    let theme = app.theme();
    let principal = &app.config.principal;
    if cmd.executable {
        return text::wrap_hanging(
            &format!(
                "✓ {} {} is executable for `{principal}` (x runs it){}",
                entry.id(),
                cmd.verb_key,
                if cmd.mcp_tool() {
                    format!("; mcp: `hcpx mcp --principal {principal}` lists it as a tool")
                } else {
                    String::new()
                }
            ),
            width,
            2,
        )
        .into_iter()
        .map(|l| Line::styled(l, theme.good()))
        .collect();
    }
    let mut out = Vec::new();
    let lifecycle = |r: &&crate::engine::policy::availability::Refusal| {
        after_install
            && matches!(
                r.condition(),
                Some(Condition::Activated | Condition::Connected)
            )
    };
    for reason in cmd.reasons.iter().filter(|r| !lifecycle(r)) {
        let (words, mut fix) = why::describe(
            reason,
            entry.id(),
            &cmd.verb_key,
            entry.view.manifest(),
            principal,
        );
        if *reason == Refusal::NotConnected {
            fix = env_fix(app, entry).or(fix);
        }
        let column = reason.condition().map_or("executable", Condition::as_str);
        out.extend(
            text::wrap_hanging(&format!("✗ {column}: {words} [{reason}]"), width, 2)
                .into_iter()
                .map(|l| Line::styled(l, theme.bad())),
        );
        if let Some(fix) = fix {
            out.extend(fix_lines(app, &fix, width));
        }
    }
    out
}

/// For an `env` pack whose variables are unset: `e` sets them (`c`
/// would be refused until then).
fn env_fix(app: &App, entry: &Entry) -> Option<Fix> {
    let m = entry.view.manifest()?;
    if m.binding.kind != BindingKind::Env {
        return None;
    }
    let names = app.env_unset(entry.id(), &m.binding.env);
    (!names.is_empty()).then_some(Fix::SetEnv { names })
}

fn fix_lines<'a>(app: &App, fix: &Fix, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let fix = app.fix_line(fix);
    text::wrap(&format!("  fix: {fix}"), width)
        .into_iter()
        .map(|l| Line::styled(l, theme.hint()))
        .collect()
}
