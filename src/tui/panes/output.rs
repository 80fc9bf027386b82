//! The last exec's output (HCP.md §6.7): the equivalent `hcpx exec`
//! command, the exit code, stdout and stderr (each with a line saying so
//! when the output cap cut it); or, for a refused or failed
//! exec, the engine's error in the words of §10 with its exit code (§10.3).
//! While a command runs: what it printed so far, under the time it has
//! run, and not the previous command's output.

use crate::engine::error::Error;
use crate::engine::ops::ExecResult;
use crate::tui::app::App;
use crate::tui::pane::Pane;
use crate::tui::panes::frame::draw_text_pane;
use crate::tui::runs::LiveRun;
use crate::tui::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    draw_text_pane(frame, area, app, Pane::Output, |width| lines(app, width));
}

pub fn lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    if let Some(live) = app.runs.live() {
        return live_lines(app, live, width);
    }
    let theme = app.theme();
    let mut running: Vec<Line<'a>> = app
        .work
        .running()
        .into_iter()
        .flat_map(|what| text::wrap(&format!("running {what} · X cancels it"), width))
        .map(|l| Line::styled(l, theme.hint()))
        .collect();
    if running.is_empty() {
        return finished(app, width);
    }
    if app.runs.output().is_some() {
        running.append(&mut finished(app, width));
    }
    running
}

/// `PACK VERB`, and for how long it has run (a clock that ticks).
fn running_for(app: &App, live: &LiveRun) -> String {
    let mut what = live.what.clone();
    if app.config.show_timings {
        let secs = live.started.elapsed().as_secs_f64();
        what.push_str(&format!(" — {secs:.1} s"));
    }
    what
}

/// The execs running, one line each, when there are several: the one
/// shown is marked, `J` shows the next, `X` cancels the one shown.
fn jobs_lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let lives = app.runs.lives();
    if lives.len() < 2 {
        return Vec::new();
    }
    let head = format!("{} commands running · J next · X cancels ▶", lives.len());
    let mut lines: Vec<Line<'a>> = text::wrap(&head, width)
        .into_iter()
        .map(|l| Line::styled(l, theme.bold()))
        .collect();
    for (i, live) in lives.iter().enumerate() {
        let mark = if i == app.runs.shown() { "▶" } else { " " };
        let line = text::truncate(&format!("{mark} {}", running_for(app, live)), width);
        lines.push(Line::styled(line, theme.hint()));
    }
    lines
}

/// The exec running now: what runs, for how long (a clock that ticks),
/// the command, and what it printed so far (redacted by the engine).
fn live_lines<'a>(app: &App, live: &LiveRun, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let head = format!("running {} · X cancels it", running_for(app, live));
    let mut lines = jobs_lines(app, width);
    lines.extend(
        text::wrap(&head, width)
            .into_iter()
            .map(|l| Line::styled(l, theme.hint())),
    );
    lines.extend(command_lines(app, &live.command, width));
    for (name, stream) in [("stdout", &live.stdout), ("stderr", &live.stderr)] {
        if !stream.is_empty() {
            lines.push(Line::styled(format!("── {name} ──"), theme.dim()));
            lines.extend(raw_lines(stream, width));
        }
    }
    lines
}

/// The last finished exec, or the last report, whichever came last.
fn finished<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    if let Some(report) = app.runs.report() {
        let mut lines = command_lines(app, &report.command, width);
        if !report.ok {
            lines.push(Line::styled("failed", theme.bad()));
        }
        lines.extend(raw_lines(report.shown(), width));
        // The other store's answer to the same key, under its own line.
        for also in &report.also {
            lines.extend(command_lines(app, &also.command, width));
            if !also.ok {
                lines.push(Line::styled("failed", theme.bad()));
            }
            lines.extend(raw_lines(also.shown_as(report.show_json), width));
        }
        return lines;
    }
    let Some(out) = app.runs.output() else {
        return text::wrap(
            "Nothing run yet. Select a command in Availability (Tab, j/k), then press x.",
            width,
        )
        .into_iter()
        .map(|l| Line::styled(l, theme.dim()))
        .collect();
    };
    let mut lines = command_lines(app, &out.command, width);
    match &out.result {
        Ok(r) => lines.extend(result_lines(app, r, width)),
        Err(err) => lines.extend(error_lines(app, err, width)),
    }
    lines
}

/// `$ COMMAND`, the equivalent `hcpx` command.
fn command_lines<'a>(app: &App, command: &str, width: usize) -> Vec<Line<'a>> {
    text::wrap(&format!("$ {command}"), width)
        .into_iter()
        .map(|l| Line::styled(l, app.theme().hint()))
        .collect()
}

/// Text as it came (terminal-safe already), tabs expanded, long lines
/// cut into pieces.
fn raw_lines<'a>(raw: &str, width: usize) -> Vec<Line<'a>> {
    raw.lines()
        .flat_map(|line| text::chunks(&expand_tabs(line), width))
        .map(Line::raw)
        .collect()
}

/// The command ran: its exit code, then stdout and stderr.
fn result_lines<'a>(app: &App, r: &ExecResult, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut status = format!("exit {}", r.exit_code);
    if app.config.show_timings {
        status.push_str(&format!(" in {} ms", r.duration_ms));
    }
    let style = if r.exit_code == 0 {
        theme.good()
    } else {
        theme.bad()
    };
    let mut lines = vec![Line::styled(status, style)];
    for (name, stream, cut) in [
        ("stdout", &r.stdout, r.stdout_truncated),
        ("stderr", &r.stderr, r.stderr_truncated),
    ] {
        if stream.is_empty() {
            continue;
        }
        lines.push(Line::styled(format!("── {name} ──"), theme.dim()));
        lines.extend(raw_lines(stream, width));
        if cut {
            lines.push(Line::styled(
                format!("({name} was cut at the output limit)"),
                theme.bad(),
            ));
        }
    }
    if r.stdout.is_empty() && r.stderr.is_empty() {
        lines.push(Line::styled("(no output)", theme.dim()));
    }
    lines
}

/// The exec was refused or failed: the error in the words of §10, with
/// the exit code `hcpx exec` would have (§10.3) and the hint.
fn error_lines<'a>(app: &App, err: &Error, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut lines = vec![Line::styled(
        format!(
            "{} (hcpx exec would exit {})",
            err.code.as_str(),
            err.code.exec_exit_code()
        ),
        theme.bad(),
    )];
    lines.extend(text::wrap(&err.message, width).into_iter().map(Line::raw));
    if let Some(hint) = &app.hint(err) {
        lines.extend(
            text::wrap(&format!("hint: {hint}"), width)
                .into_iter()
                .map(|l| Line::styled(l, theme.hint())),
        );
    }
    lines
}

fn expand_tabs(s: &str) -> String {
    s.replace('\t', "    ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::{Config, ExecOutput};

    fn shown(stdout_truncated: bool, stderr_truncated: bool) -> Vec<String> {
        let mut app = App::new(Config::new("tester"));
        app.runs.show_exec(ExecOutput {
            pack_id: "acme.x".into(),
            verb: "big".into(),
            command: "hcpx exec acme.x big".into(),
            result: Ok(ExecResult {
                ok: true,
                pack_id: "acme.x".into(),
                verb_key: "big".into(),
                exit_code: 0,
                duration_ms: 1,
                stdout: "xxxx\n".into(),
                stderr: "yyyy\n".into(),
                stdout_truncated,
                stderr_truncated,
                data: None,
            }),
        });
        lines(&app, 60)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn a_cut_stream_says_so() {
        let cut = "(stdout was cut at the output limit)".to_string();
        let lines = shown(true, false);
        assert!(lines.contains(&cut), "{lines:#?}");
        assert!(!lines.iter().any(|l| l.contains("stderr was cut")));
        let lines = shown(false, true);
        assert!(!lines.contains(&cut), "{lines:#?}");
        assert!(lines.iter().any(|l| l.contains("stderr was cut")));
    }
}
