//! Details of the selected pack: its kind (a Skill pack, §2.6), name, version, plane and Binding (§2.5,
//! §8), its status, the equivalent `hcpx` command of the last action (so
//! the TUI teaches the CLI), its marks and its Skill's state in each
//! enabled harness target with the fix (§12.8, §13.5–§13.6), its bundled
//! `files` (§2.6: path, size, `x` for executable), then its Skill (§5):
//! frontmatter name and description, then the body.

use crate::engine::harness::plan::SkillState;
use crate::engine::pack::manifest::{BindingKind, Manifest, PackKind};
use crate::tui::app::App;
use crate::tui::dialog::run_form::arg_summary;
use crate::tui::files::{self, FileKind};
use crate::tui::job::{Entry, SkillText};
use crate::tui::pane::Pane;
use crate::tui::panes::frame::draw_text_pane;
use crate::tui::scope::Scopes;
use crate::tui::targets;
use crate::tui::text;
use crate::tui::theme::status_symbol;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    draw_text_pane(frame, area, app, Pane::Details, |width| lines(app, width));
}

pub fn lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut out: Vec<Line<'a>> = Vec::new();
    if let Some(cmd) = &app.last_command {
        out.extend(
            text::wrap(&format!("last action, as a command: $ {cmd}"), width)
                .into_iter()
                .map(|l| Line::styled(l, theme.hint())),
        );
        out.push(Line::raw(""));
    }
    let Some(entry) = app.selected_view() else {
        let msg = match app.selected_row() {
            Some(row) => format!("reading {}…", text::one_line(row.id())),
            None if app.loaded() => "no pack selected".into(),
            None => String::new(),
        };
        out.push(Line::styled(msg, theme.dim()));
        return out;
    };
    let wrap =
        |s: String| -> Vec<Line<'a>> { text::wrap(&s, width).into_iter().map(Line::raw).collect() };
    match entry.view.manifest() {
        Some(m) => {
            out.push(Line::from(vec![
                Span::styled(
                    text::one_line(&format!("{} {}", entry.id(), m.version)),
                    theme.bold(),
                ),
                Span::raw(text::one_line(&format!(" — {}", m.name))),
            ]));
            // A Skill pack (§2.6) says so first: it has no manifest file.
            let kind = match m.kind {
                PackKind::Skill => "skill pack (SKILL.md, no manifest) · ",
                PackKind::Pack => "",
            };
            out.extend(wrap(format!(
                "{kind}plane {} · binding {}",
                m.plane.as_str(),
                binding_text(m)
            )));
        }
        None => out.push(Line::styled(text::one_line(entry.id()), theme.bold())),
    }
    out.extend(status_lines(app, entry, width));
    let shadowed = app.selected_inspection().is_some_and(|i| i.shadowed);
    for mark in app.marks.explain_row(entry.id(), shadowed) {
        out.extend(
            text::wrap(&text::safe(&mark), width)
                .into_iter()
                .map(|l| Line::styled(l, theme.warning())),
        );
    }
    out.extend(harness_lines(app, width));
    if let Some(m) = entry.view.manifest() {
        out.push(Line::raw(""));
        out.extend(wrap(m.description.trim().to_string()));
        out.extend(command_lines(app, m, width));
    }
    out.extend(file_lines(app, width));
    out.push(Line::raw(""));

    out.extend(skill_lines(app, width));
    out
}

/// The Skill: frontmatter name and description, then the body.
fn skill_lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let wrap_as = |s: &str, style| -> Vec<Line<'a>> {
        text::wrap(s, width)
            .into_iter()
            .map(|l| Line::styled(l, style))
            .collect()
    };
    let mut out = vec![Line::styled("Skill (SKILL.md)", theme.bold())];
    match app.selected_skill() {
        None => out.push(Line::styled("reading…", theme.dim())),
        Some(SkillText::Missing(why)) => out.push(Line::styled(text::safe(why), theme.bad())),
        Some(SkillText::Raw(raw)) => {
            out.push(Line::styled(
                "(no frontmatter; lint says why)",
                theme.warning(),
            ));
            out.extend(wrap_as(raw, theme.plain()));
        }
        Some(SkillText::Parsed(doc)) => {
            let name = doc.name.as_deref().unwrap_or("(missing)");
            out.extend(wrap_as(&format!("name: {name}"), theme.hint()));
            let description = doc.description.as_deref().unwrap_or("(missing)");
            out.extend(wrap_as(
                &format!("description: {description}"),
                theme.hint(),
            ));
            out.push(Line::raw(""));
            out.extend(body_lines(app, &doc.body, width));
        }
    }
    out
}

fn status_lines<'a>(app: &App, entry: &Entry, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let a = &entry.avail;
    // A no-break space keeps each mark with its word when wrapped.
    let flag = |on: bool, name: &str| format!("{}\u{a0}{name}", if on { "✓" } else { "✗" });
    let status = crate::tui::job::shown_status(a);
    // A Skill pack has no connection to make (§2.6): none is shown.
    let connected = match a.kind {
        crate::engine::pack::manifest::PackKind::Skill => String::new(),
        _ => format!(" · {}", flag(a.connected, "connected")),
    };
    let text_line = format!(
        "{}\u{a0}{} · {} · {}{connected} · sense\u{a0}{}",
        status_symbol(status),
        status.as_str(),
        flag(a.installed, "installed"),
        flag(a.activated, "activated"),
        if a.sense.active { "active" } else { "inactive" },
    );
    let mut out: Vec<Line<'a>> = text::wrap(&text_line, width)
        .into_iter()
        .map(|l| Line::styled(l, theme.status(status)))
        .collect();
    let source = match (&entry.view.installed, &entry.view.catalog) {
        (Some(_), Some(_)) => "installed in the store; also in a catalog",
        (Some(_), None) => "installed in the store",
        (None, Some(_)) => "in a catalog, not installed",
        (None, None) => "",
    };
    match store_words(app) {
        Some(store) => out.extend(
            text::wrap(&source.replacen("the store", &store, 1), width)
                .into_iter()
                .map(|l| Line::styled(l, theme.dim())),
        ),
        None => out.push(Line::styled(source.to_string(), theme.dim())),
    }
    out
}

/// Inside a project, which store holds the selected pack (HCP.md §15.5),
/// in words; outside one, `None` (there is one store).
fn store_words(app: &App) -> Option<String> {
    app.scopes().project()?;
    let inspection = app.selected_inspection()?;
    Some(match (inspection.store, inspection.shadowed) {
        (_, true) => {
            "the user store (shadowed: the project's copy is the one hcpx exec runs)".into()
        }
        (store, false) => Scopes::store_words(store).into(),
    })
}

/// The pack's Skill in each enabled harness target (§12.8): its state,
/// and the `hcpx` command that fixes it.
fn harness_lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let Some(found) = app.selected_inspection().and_then(|i| i.harnesses.as_ref()) else {
        return Vec::new();
    };
    let wrap_as = |s: &str, style| -> Vec<Line<'a>> {
        text::wrap(s, width)
            .into_iter()
            .map(|l| Line::styled(l, style))
            .collect()
    };
    let lines = match found {
        Err(err) => return wrap_as(&format!("harnesses: {}", text::safe(err)), theme.bad()),
        Ok(lines) => lines,
    };
    if lines.is_empty() {
        let activated = app.selected_row().is_some_and(|r| r.activated);
        // An activated pack has a line in every enabled target.
        let why = if activated {
            "harnesses: no target enabled (H enables one)"
        } else {
            "harnesses: none (activating places the Skill in every enabled target)"
        };
        return wrap_as(why, theme.dim());
    }
    let mut out = vec![Line::styled("harnesses:", theme.dim())];
    for line in lines {
        let style = match line.state {
            SkillState::Placed => theme.good(),
            SkillState::Conflict | SkillState::Modified => theme.bad(),
            _ => theme.warning(),
        };
        let mut words = format!(
            "  {} {}: {}",
            line.target.as_str(),
            text::safe(&line.skill),
            line.state.as_str()
        );
        if let Some((fix, does)) = targets::fix_for(line.state) {
            let parts: Vec<String> = fix.split(' ').map(String::from).collect();
            words.push_str(&format!(" — fix: {} ({does})", app.hcpx(&parts, false)));
        }
        out.extend(wrap_as(&words, style));
    }
    out
}

/// The pack's files but the manifest and `SKILL.md` (§2.6): path, size,
/// `x` for executable; nothing when it has none.
fn file_lines<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let Some(bundled) = app
        .selected_inspection()
        .map(|i| &i.files)
        .filter(|b| !b.files.is_empty())
    else {
        return Vec::new();
    };
    let paths: Vec<String> = bundled.files.iter().map(|f| text::safe(&f.path)).collect();
    // Room for two spaces, the size (`1023.9 KiB`) and ` x`.
    let path_w = paths
        .iter()
        .map(|p| text::width(p))
        .max()
        .unwrap_or(0)
        .min(width.saturating_sub(16).max(8));
    let mut out = vec![Line::raw(""), Line::styled("files", theme.bold())];
    for (file, path) in bundled.files.iter().zip(&paths) {
        let (size, flag, style) = match file.kind {
            FileKind::File { size, executable } => (
                files::size_text(size),
                if executable { " x" } else { "" },
                theme.plain(),
            ),
            FileKind::Link => ("link".into(), "", theme.warning()),
            FileKind::Special => ("special".into(), "", theme.warning()),
        };
        let line = format!("  {}  {size:>10}{flag}", text::fit(path, path_w));
        out.push(Line::styled(text::truncate(&line, width), style));
    }
    if bundled.more > 0 {
        let more = match bundled.cut {
            true => format!("  … {} more, and maybe others", bundled.more),
            false => format!("  … {} more", bundled.more),
        };
        out.push(Line::styled(more, theme.dim()));
    }
    out
}

/// Each command: key, effect and summary, then its args as the run form
/// describes them.
fn command_lines<'a>(app: &App, m: &Manifest, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    if m.commands.is_empty() {
        return Vec::new();
    }
    let mut out = vec![Line::raw(""), Line::styled("Commands", theme.bold())];
    for c in &m.commands {
        let head = format!("{} ({}) — {}", c.key, c.effect.as_str(), c.summary);
        out.extend(text::wrap(&head, width).into_iter().map(Line::raw));
        for arg in &c.args {
            let mut about = format!("    {}: {}", arg.name, arg_summary(arg));
            if let Some(d) = &arg.description {
                about.push_str(" — ");
                about.push_str(d);
            }
            out.extend(
                text::wrap(&about, width)
                    .into_iter()
                    .map(|l| Line::styled(l, theme.dim())),
            );
        }
    }
    out
}

fn binding_text(m: &Manifest) -> String {
    let b = &m.binding;
    let mut s = b.kind.as_str().to_string();
    match b.kind {
        BindingKind::Env => s.push_str(&format!(" ({})", b.env.join(", "))),
        BindingKind::Secret => {
            if let Some(spec) = &b.secret {
                s.push_str(&format!(" ({})", spec.name));
            }
        }
        _ => {}
    }
    if let Some(probe) = &b.probe {
        s.push_str(&format!(" · probe {probe}"));
    }
    if let Some(url) = &b.base_url {
        s.push_str(&format!(" · {url}"));
    }
    if m.sense_only {
        s.push_str(" · sense_only");
    }
    s
}

/// The Markdown body as text: headings bold, code fences dim.
fn body_lines<'a>(app: &App, body: &str, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut out = Vec::new();
    let mut in_code = false;
    for raw in text::unwrap_markdown(body) {
        let raw = raw.as_str();
        if raw.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            out.push(Line::styled(
                text::truncate(&format!("  {raw}"), width),
                theme.hint(),
            ));
            continue;
        }
        let heading = raw.starts_with('#');
        let style = if heading { theme.bold() } else { theme.plain() };
        let shown = if heading {
            raw.trim_start_matches('#').trim()
        } else {
            raw
        };
        if shown.is_empty() {
            out.push(Line::raw(""));
            continue;
        }
        out.extend(
            text::wrap(shown, width)
                .into_iter()
                .map(|l| Line::styled(l, style)),
        );
    }
    out
}
