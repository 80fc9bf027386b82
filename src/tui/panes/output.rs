//! The last exec's output (HCP.md §6.7): the equivalent `hcpx exec`
//! command, the exit code, stdout and stderr; or, for a refused or failed
//! exec, the engine's error in the words of §10 with its exit code (§10.3).

use crate::tui::action::Pane;
use crate::tui::app::App;
use crate::tui::text;
use crate::tui::ui::draw_text_pane;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    draw_text_pane(frame, area, app, Pane::Output, app.scroll_output, |width| {
        lines(app, width)
    });
}

fn lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut running: Vec<Line<'a>> = app
        .running
        .iter()
        .flat_map(|what| text::wrap(&format!("running {what} · X cancels it"), width))
        .map(|l| Line::styled(l, theme.hint()))
        .collect();
    if running.is_empty() {
        return finished(app, width);
    }
    if app.output.is_some() {
        running.append(&mut finished(app, width));
    }
    running
}

/// The last finished exec.
fn finished<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let Some(out) = &app.output else {
        return text::wrap(
            "Nothing run yet. Select a command in Availability (Tab, j/k), then press x.",
            width,
        )
        .into_iter()
        .map(|l| Line::styled(l, theme.dim()))
        .collect();
    };
    let mut lines: Vec<Line<'a>> = text::wrap(&format!("$ {}", out.command), width)
        .into_iter()
        .map(|l| Line::styled(l, theme.hint()))
        .collect();
    match &out.result {
        Ok(r) => {
            let mut status = format!("exit {}", r.exit_code);
            if app.config.show_timings {
                status.push_str(&format!(" in {} ms", r.duration_ms));
            }
            lines.push(Line::styled(
                status,
                if r.exit_code == 0 {
                    theme.good()
                } else {
                    theme.bad()
                },
            ));
            for (name, stream) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
                if stream.is_empty() {
                    continue;
                }
                lines.push(Line::styled(format!("── {name} ──"), theme.dim()));
                for raw in stream.lines() {
                    lines.push(Line::raw(text::truncate(&expand_tabs(raw), width)));
                }
            }
            if r.stdout.is_empty() && r.stderr.is_empty() {
                lines.push(Line::styled("(no output)", theme.dim()));
            }
        }
        Err(err) => {
            lines.push(Line::styled(
                format!(
                    "{} (hcpx exec would exit {})",
                    err.code.as_str(),
                    err.code.exec_exit_code()
                ),
                theme.bad(),
            ));
            lines.extend(text::wrap(&err.message, width).into_iter().map(Line::raw));
            if let Some(hint) = &err.context.hint {
                lines.extend(
                    text::wrap(&format!("hint: {hint}"), width)
                        .into_iter()
                        .map(|l| Line::styled(l, theme.hint())),
                );
            }
        }
    }
    lines
}

fn expand_tabs(s: &str) -> String {
    s.replace('\t', "    ")
}
