//! Lint results of the selected pack (HCP.md §10.4, §10.5): each finding in
//! the CLI's text form `FILE:LINE:COL: SEVERITY[RULE]: MESSAGE` with its
//! hint; a clean pack says so. The report is the installed copy's, else the
//! catalog copy's, as the engine linted it (again on `l`, and after
//! install).

use crate::engine::lint::diagnostic::Diagnostic;
use crate::tui::app::App;
use crate::tui::pane::Pane;
use crate::tui::panes::frame::draw_text_pane;
use crate::tui::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    draw_text_pane(frame, area, app, Pane::Lint, |width| lines(app, width));
}

/// The location of a finding: `file:line:col`, `file:line` or `file`.
pub fn location(d: &Diagnostic) -> String {
    match (d.line, d.column) {
        (Some(l), Some(c)) => format!("{}:{l}:{c}", d.file),
        (Some(l), None) => format!("{}:{l}", d.file),
        _ => d.file.clone(),
    }
}

pub fn lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let Some(entry) = app.selected_view() else {
        return match app.selected_row() {
            Some(row) => vec![Line::styled(
                format!("reading {}…", text::one_line(row.id())),
                theme.dim(),
            )],
            None => Vec::new(),
        };
    };
    let Some(report) = entry.view.report() else {
        return vec![Line::styled("no lint report", theme.dim())];
    };
    let copy = if entry.view.installed.is_some() {
        "installed copy"
    } else {
        "catalog copy"
    };
    let counts = report.counts();
    let (errors, warnings) = (counts.errors, counts.warnings);
    let mut out: Vec<Line<'a>> = Vec::new();
    let summary = if report.diagnostics.is_empty() {
        format!(
            "✓ {} is clean: no errors, no warnings ({copy}; l lints again)",
            entry.id()
        )
    } else {
        format!(
            "{} {}: {counts} ({copy}; l lints again)",
            if errors > 0 { "✗" } else { "!" },
            entry.id()
        )
    };
    let style = if errors > 0 {
        theme.bad()
    } else if warnings > 0 {
        theme.warning()
    } else {
        theme.good()
    };
    out.extend(
        text::wrap(&summary, width)
            .into_iter()
            .map(|l| Line::styled(l, style)),
    );
    for d in &report.diagnostics {
        let sev = if d.is_error() { "error" } else { "warning" };
        let style = if d.is_error() {
            theme.bad()
        } else {
            theme.warning()
        };
        out.push(Line::raw(""));
        let head = format!("{}: {sev}[{}]: {}", location(d), d.rule.id(), d.message);
        out.extend(
            text::wrap(&head, width)
                .into_iter()
                .map(|l| Line::styled(l, style)),
        );
        if let Some(hint) = &d.hint {
            for (n, hint_line) in hint.lines().enumerate() {
                let prefix = if n == 0 { "  hint: " } else { "        " };
                out.extend(
                    text::wrap(&format!("{prefix}{hint_line}"), width)
                        .into_iter()
                        .map(|l| Line::styled(l, theme.hint())),
                );
            }
        }
    }
    out
}
