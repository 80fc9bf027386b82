//! Modal overlays: the help, an engine error (§10: code, message, hint),
//! the uninstall confirmation, the quit confirmation while a command runs
//! (§14.6), the masked secret input (§8.5 step 4), the exec form (§6.2),
//! the Harnesses view (§12.4–§12.8), the upgrade's capability diff
//! (§13.7) and the collection picker (§13.1, `panes::picker`).

use crate::tui::app::{App, arg_summary};
use crate::tui::dialog::{Dialog, SecretPrompt};
use crate::tui::form::ExecForm;
use crate::tui::keys::{Binding, KEYS, MOUSE_HELP};
use crate::tui::panes::picker;
use crate::tui::text;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// The widest a dialog is drawn.
fn max_width(dialog: &Dialog) -> u16 {
    match dialog {
        Dialog::Help => 104,
        Dialog::Harnesses => 96,
        Dialog::Picker(_) => 110,
        _ => 76,
    }
}

pub fn draw(frame: &mut Frame<'_>, screen: Rect, app: &App, dialog: &Dialog) {
    let width = screen.width.saturating_sub(4).min(max_width(dialog));
    let inner_w = width.saturating_sub(4) as usize;
    // Room for the lines inside the frame.
    let room = screen.height.saturating_sub(2) as usize;
    let (title, lines) = match dialog {
        Dialog::Help => ("Keys".to_string(), help(app, inner_w, room)),
        Dialog::Error(err) => ("Error".to_string(), error(app, err, inner_w)),
        Dialog::ConfirmUninstall { ids } => (
            "Uninstall".to_string(),
            confirm(
                app,
                &format!("Uninstall {}?", ids.join(", ")),
                "This removes the installed files, the Skill copy and any stored secret.",
                ("uninstall", "keep"),
                inner_w,
            ),
        ),
        Dialog::ConfirmQuery { query } => (
            "Confirm".to_string(),
            confirm(
                app,
                &crate::tui::text::safe(&query.question()),
                &format!("hcpx {}", crate::tui::text::safe(&query.args().join(" "))),
                ("run it", "cancel"),
                inner_w,
            ),
        ),
        Dialog::ConfirmQuit { running } => (
            "Quit".to_string(),
            confirm(
                app,
                &format!("{running} is still running. Quit anyway?"),
                "Quitting ends the command and every process it started.",
                ("end it and quit", "keep it running"),
                inner_w,
            ),
        ),
        Dialog::Secret(prompt) => (
            format!("Connect {}", prompt.pack_id),
            secret(app, prompt, inner_w),
        ),
        Dialog::Ask(prompt) => ask_title_lines(app, prompt, inner_w),
        Dialog::ExecForm(form) => (
            format!("Run {} {}", form.pack_id, form.verb),
            exec_form(app, form, inner_w, room),
        ),
        Dialog::Harnesses => ("Harnesses".to_string(), harnesses(app, inner_w)),
        Dialog::ConfirmUpgrade { results } => {
            ("Upgrade".to_string(), upgrade(app, results, inner_w))
        }
        Dialog::Picker(picker) => (
            picker::title(picker),
            picker::lines(app, picker, inner_w, room),
        ),
    };
    let height = (lines.len() as u16 + 2).min(screen.height);
    let area = Rect::new(
        screen.x + (screen.width.saturating_sub(width)) / 2,
        screen.y + (screen.height.saturating_sub(height)) / 2,
        width,
        height,
    );
    let theme = app.theme();
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.focus_border())
        .title(Line::styled(format!(" {title} "), theme.title()));
    let inner = block.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    let padded = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(2),
        inner.height,
    );
    frame.render_widget(Paragraph::new(lines), padded);
}

/// An engine error in the words of §10: code, message, hint.
fn error<'a>(app: &App, err: &crate::engine::error::Error, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut lines = vec![Line::styled(err.code.as_str().to_string(), theme.bad())];
    lines.extend(wrap(&err.message, width, Style::new()));
    if let Some(hint) = &app.hint(err) {
        lines.push(Line::raw(""));
        lines.extend(wrap(&format!("hint: {hint}"), width, theme.hint()));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("any key closes", theme.dim()));
    lines
}

/// A y/n question: what, what it means, what `y` and `n` do.
fn confirm<'a>(
    app: &App,
    question: &str,
    meaning: &str,
    (yes, no): (&str, &str),
    width: usize,
) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut lines = wrap(question, width, theme.bold());
    lines.extend(wrap(meaning, width, Style::new()));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("y", theme.key()),
        Span::raw(format!(" {yes}   ")),
        Span::styled("n", theme.key()),
        Span::raw(" / "),
        Span::styled("Esc", theme.key()),
        Span::raw(format!(" {no}")),
    ]));
    lines
}

fn wrap<'a>(s: &str, width: usize, style: Style) -> Vec<Line<'a>> {
    text::wrap(s, width)
        .into_iter()
        .map(|l| Line::styled(l, style))
        .collect()
}

/// The help, from the key table. The keys: what acts (the key bar's) left, how to move right; in one
/// column where two do not fit. When one column is taller than `room`
/// (80×24), two columns of half the keys each, so every key shows, and
/// the paragraph under them only if there is room.
fn help<'a>(app: &App, width: usize, room: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let (acts, moves): (Vec<&Binding>, Vec<&Binding>) = KEYS.iter().partition(|b| b.bar.is_some());
    let entry = |b: &Binding| (b.shown, b.help);
    let mut left: Vec<(&str, &str)> = acts.into_iter().map(entry).collect();
    let mut right: Vec<(&str, &str)> = moves.into_iter().map(entry).collect();
    right.push(MOUSE_HELP);
    let key_w = KEYS.iter().map(|b| text::width(b.shown)).max().unwrap_or(4) + 1;
    let footer = 1;
    let two = width >= 80 || left.len() + right.len() + footer > room;
    if !two {
        left.append(&mut right);
    } else if left.len().max(right.len()) + footer > room {
        // Too short for the two groups side by side: half the keys each.
        left.append(&mut right);
        right = left.split_off(left.len().div_ceil(2));
    }
    let col_w = if two { width / 2 } else { width };
    let cell = |(key, what): (&str, &str)| {
        vec![
            Span::styled(text::fit(key, key_w), theme.key()),
            Span::raw(text::fit(what, col_w.saturating_sub(key_w + 1))),
            Span::raw(" "),
        ]
    };
    let rows = left.len().max(right.len());
    let mut lines: Vec<Line<'a>> = (0..rows)
        .map(|i| {
            let mut spans = left
                .get(i)
                .map_or_else(|| vec![Span::raw(" ".repeat(col_w))], |e| cell(*e));
            if let Some(e) = right.get(i) {
                spans.extend(cell(*e));
            }
            Line::from(spans)
        })
        .collect();
    let about = wrap(
        "Every action calls the same engine function as the hcpx command shown in the Log (@). Greyed keys cannot run for the selection; pressed, they say why.",
        width,
        theme.dim(),
    );
    if rows + 1 + about.len() + footer <= room {
        lines.push(Line::raw(""));
        lines.extend(about);
    } else if rows + footer > room {
        // Smaller than 80×24: say that keys are left out, and keep the
        // way out in view.
        let hidden = lines.len() - room.saturating_sub(2).min(lines.len());
        lines.truncate(room.saturating_sub(2));
        lines.push(Line::styled(
            format!(
                "… {} — a larger window shows them",
                text::count(hidden, "more row")
            ),
            theme.dim(),
        ));
    }
    lines.push(Line::styled("any key closes", theme.dim()));
    lines
}

fn secret<'a>(app: &App, prompt: &SecretPrompt, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut lines = wrap(&prompt.prompt, width, theme.bold());
    lines.extend(wrap(
        &format!(
            "Stored in the store's secrets/ with mode 0600 and passed to commands as {}; never shown.",
            prompt.name
        ),
        width,
        theme.dim(),
    ));
    lines.push(Line::raw(""));
    // Only the length of the input is ever drawn, never its characters.
    let masked = "•".repeat(prompt.typed().min(width.saturating_sub(4)));
    lines.push(Line::from(vec![
        Span::styled("> ", theme.key()),
        Span::styled(format!("{masked}▏"), theme.bold()),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key()),
        Span::raw(" connect   "),
        Span::styled("Esc", theme.key()),
        Span::raw(" cancel"),
    ]));
    lines
}

/// `P` or `e`: what is asked, the input line (masked for a value), keys.
fn ask_title_lines<'a>(
    app: &App,
    prompt: &crate::tui::ask::AskPrompt,
    width: usize,
) -> (String, Vec<Line<'a>>) {
    use crate::tui::ask::Asked;
    let theme = app.theme();
    let (title, what, meaning) = match &prompt.asked {
        Asked::Principal => (
            "Principal".to_string(),
            format!("Act as which principal? (now {})", app.config.principal),
            "Letters, digits and _.@- (HCP.md principals); availability, fixes and keys follow it."
                .to_string(),
        ),
        Asked::Env { pack_id, name } => (
            format!("Set {name}"),
            format!("Value of {name} for {pack_id}"),
            format!(
                "Kept in memory for this session only and passed to {pack_id}'s commands as {name}; never shown, stored or logged."
            ),
        ),
    };
    let mut lines = wrap(&what, width, theme.bold());
    lines.extend(wrap(&meaning, width, theme.dim()));
    lines.push(Line::raw(""));
    let mut shown = prompt.shown();
    let room = width.saturating_sub(4);
    if text::width(&shown) > room {
        shown = text::fit(&shown, room);
    }
    lines.push(Line::from(vec![
        Span::styled("> ", theme.key()),
        Span::styled(format!("{shown}▏"), theme.bold()),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key()),
        Span::raw(" set   "),
        Span::styled("Esc", theme.key()),
        Span::raw(" cancel"),
    ]));
    (title, lines)
}

/// The run form: the command's summary, one field per arg with what it
/// takes, the check's complaint under its field; scrolled so the focused
/// field shows when the fields do not all fit in `room` lines.
fn exec_form<'a>(app: &App, form: &ExecForm, width: usize, room: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut head = wrap(
        &format!("{} (effect {})", form.summary, form.effect),
        width,
        theme.dim(),
    );
    head.push(Line::raw(""));
    let name_w = form
        .fields
        .iter()
        .map(|f| text::width(&f.arg.name))
        .max()
        .unwrap_or(4)
        .min(width / 3);
    let fields: Vec<Vec<Line<'a>>> = form
        .fields
        .iter()
        .enumerate()
        .map(|(i, field)| form_field(app, form, i, field, name_w, width))
        .collect();
    let mut keys = vec![
        Span::styled("Enter", theme.key()),
        Span::raw(" run  "),
        Span::styled("Tab ↑↓", theme.key()),
        Span::raw(" field  "),
    ];
    // `←` `→` `Space` only step an enum's or a boolean's values.
    if form.focus_cycles() {
        keys.push(Span::styled("← → ␣", theme.key()));
        keys.push(Span::raw(" choose  "));
    }
    keys.extend([
        Span::styled("Esc", theme.key()),
        Span::raw(" cancel  "),
        Span::styled("empty", theme.key()),
        Span::raw(" = default"),
    ]);
    let foot = vec![Line::raw(""), Line::from(keys)];
    // The fields from `first` on, as many as fit; `first` keeps the
    // focused one in view.
    let budget = room.saturating_sub(head.len() + foot.len() + 2).max(1);
    let mut first = 0;
    while first < form.focus
        && fields[first..=form.focus]
            .iter()
            .map(Vec::len)
            .sum::<usize>()
            > budget
    {
        first += 1;
    }
    let mut lines = head;
    if first > 0 {
        lines.push(Line::styled(
            format!("↑ {}", text::count(first, "more field")),
            theme.dim(),
        ));
    }
    let mut used = 0;
    let mut shown = first;
    for block in &fields[first..] {
        if used + block.len() > budget && shown > form.focus {
            break;
        }
        used += block.len();
        shown += 1;
        lines.extend(block.iter().cloned());
    }
    if shown < fields.len() {
        lines.push(Line::styled(
            format!("↓ {}", text::count(fields.len() - shown, "more field")),
            theme.dim(),
        ));
    }
    lines.extend(foot);
    lines
}

fn form_field<'a>(
    app: &App,
    form: &ExecForm,
    i: usize,
    field: &crate::tui::form::FormField,
    name_w: usize,
    width: usize,
) -> Vec<Line<'a>> {
    let theme = app.theme();
    let focused = i == form.focus;
    let cursor = if focused { "▏" } else { "" };
    let value_w = width.saturating_sub(name_w + 4);
    let mut lines = vec![Line::from(vec![
        Span::styled(if focused { "▶ " } else { "  " }, theme.key()),
        Span::styled(text::fit(&field.arg.name, name_w), theme.bold()),
        Span::raw(" "),
        Span::styled(
            text::truncate(&format!("{}{cursor}", field.value), value_w),
            if focused {
                theme.selected()
            } else {
                Style::new()
            },
        ),
    ])];
    let mut about = arg_summary(&field.arg);
    if let Some(d) = &field.arg.description {
        about.push_str(" — ");
        about.push_str(d);
    }
    lines.extend(wrap(
        &format!("{}{about}", " ".repeat(name_w + 3)),
        width,
        theme.dim(),
    ));
    if let Some(error) = form.error.as_ref().filter(|_| focused) {
        lines.extend(wrap(
            &format!("{}✗ {error}", " ".repeat(name_w + 3)),
            width,
            theme.bad(),
        ));
    }
    lines
}

/// The Harnesses view (§12.4–§12.8): one row per target — detected,
/// enabled, Skills placed, in conflict (or edited), folder — then what
/// `Space` runs for the selected one, and the fix for Skills out of step.
fn harnesses<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let view = &app.harnesses;
    let mut lines = Vec::new();
    if let Some(err) = &view.error {
        lines.extend(wrap(err, width, theme.bad()));
        lines.push(Line::raw(""));
    }
    if view.rows.is_empty() {
        let what = if view.loading {
            "reading the harness targets…"
        } else {
            "no harness target"
        };
        lines.push(Line::styled(what.to_string(), theme.dim()));
        lines.push(Line::raw(""));
        lines.push(Line::styled("Esc closes".to_string(), theme.dim()));
        return lines;
    }
    let name_w = view
        .rows
        .iter()
        .map(|r| text::width(r.name.as_str()))
        .max()
        .unwrap_or(6)
        .max(6);
    let head = format!(
        "  {:name_w$}  DETECTED  ENABLED  PLACED  CONFLICT  FOLDER",
        "TARGET"
    );
    lines.push(Line::styled(text::fit(&head, width), theme.dim()));
    let folder_w = width.saturating_sub(name_w + 2 + 10 + 9 + 8 + 10).max(1);
    for (i, row) in view.rows.iter().enumerate() {
        lines.push(target_line(app, row, i == view.selected, name_w, folder_w));
    }
    lines.push(Line::raw(""));
    if let Some(row) = view.selected_row() {
        lines.extend(target_hints(app, row, width));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("Space", theme.key()),
        Span::raw(" enable/disable   "),
        Span::styled("j k", theme.key()),
        Span::raw(" move   "),
        Span::styled("Esc", theme.key()),
        Span::raw(" close"),
    ]));
    lines
}

/// A count, or `-` where the target is not enabled (nothing is placed).
fn count(enabled: bool, n: usize) -> String {
    if enabled { n.to_string() } else { "-".into() }
}

/// The upgrade's capability diff (§13.7), escalations highlighted, then
/// y/n. `y` runs `hcpx upgrade ID... --yes`.
fn upgrade<'a>(
    app: &App,
    results: &[crate::engine::ops::upgrade::UpgradeResult],
    width: usize,
) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut lines = Vec::new();
    let mut escalates = false;
    for r in results {
        let head = match r.reason {
            crate::engine::ops::upgrade::UpdateReason::Version => {
                format!("{} {} → {}", r.pack_id, r.from, r.to)
            }
            crate::engine::ops::upgrade::UpdateReason::Content => {
                format!("{} {}: new content", r.pack_id, r.from)
            }
        };
        lines.extend(wrap(&text::safe(&head), width, theme.bold()));
        if r.changes.is_empty() {
            lines.push(Line::styled(
                "  no change of reach".to_string(),
                theme.dim(),
            ));
        }
        for c in &r.changes {
            let words = text::safe(&change_text(&c.change));
            if c.escalates {
                escalates = true;
                lines.extend(wrap(&format!("  ▲ {words}"), width, theme.bad()));
            } else {
                lines.extend(wrap(&format!("    {words}"), width, Style::new()));
            }
        }
    }
    lines.push(Line::raw(""));
    let ids: Vec<String> = results.iter().map(|r| r.pack_id.clone()).collect();
    let mut parts = vec!["upgrade".to_string()];
    parts.extend(ids);
    parts.push("--yes".into());
    let meaning = if escalates {
        "This upgrade grants more reach (▲). y accepts it, as"
    } else {
        "y upgrades, as"
    };
    lines.extend(wrap(
        &format!("{meaning} {}", app.hcpx(&parts, false)),
        width,
        Style::new(),
    ));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("y", theme.key()),
        Span::raw(" upgrade   "),
        Span::styled("n", theme.key()),
        Span::raw(" / "),
        Span::styled("Esc", theme.key()),
        Span::raw(" keep the installed version"),
    ]));
    lines
}

/// A capability change in words.
fn change_text(change: &crate::engine::policy::capdiff::Change) -> String {
    use crate::engine::policy::capdiff::Change;
    match change {
        Change::CommandAdded { verb_key, effect } => {
            format!("new command {verb_key} ({})", effect.as_str())
        }
        Change::CommandRemoved { verb_key } => format!("command {verb_key} removed"),
        Change::EffectChanged { verb_key, from, to } => {
            format!("{verb_key}: {} → {}", from.as_str(), to.as_str())
        }
        Change::BindingChanged { from, to } => {
            format!("binding {} → {}", from.as_str(), to.as_str())
        }
        Change::EnvAdded { name } => format!("reads the environment variable {name}"),
        Change::SecretAdded { name } => format!("asks for a secret ({name})"),
        Change::ProgramAdded { program } => format!("runs the program {program}"),
        Change::HostAdded { host } => format!("reaches the host {host}"),
        Change::PlaneChanged { from, to } => {
            format!("plane {} → {}", from.as_str(), to.as_str())
        }
        Change::SenseOnlyDropped => "no longer sense-only: its commands can run".into(),
        Change::SkillChanged {
            lines_added,
            lines_removed,
        } => format!("Skill changed: +{lines_added} −{lines_removed} lines"),
        Change::FileAdded { path, executable } => {
            format!(
                "new file {path}{}",
                if *executable { " (executable)" } else { "" }
            )
        }
        Change::FileRemoved { path, .. } => format!("file {path} removed"),
        Change::FileChanged {
            path,
            executable,
            was_executable,
        } => match (was_executable, executable) {
            (false, true) => format!("file {path} changed, now executable"),
            (true, false) => format!("file {path} changed, no longer executable"),
            _ => format!("file {path} changed"),
        },
        Change::AdapterEnvAdded { verb_key, name } => {
            format!("{verb_key} sets the environment variable {name}")
        }
        Change::SchemeDowngraded { host } => format!("talks to {host} over http, not https"),
        Change::MaterialSent { host, name } => format!("sends {name} to the host {host}"),
    }
}

/// One target's row of the Harnesses view: name, detected, enabled,
/// placed, in conflict, folder.
fn target_line<'a>(
    app: &App,
    row: &crate::tui::harnesses::HarnessRow,
    selected: bool,
    name_w: usize,
    folder_w: usize,
) -> Line<'a> {
    let theme = app.theme();
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let base = if selected {
        Style::new().add_modifier(ratatui::style::Modifier::REVERSED)
    } else {
        Style::new()
    };
    let enabled_style = if row.enabled {
        theme.good()
    } else {
        theme.dim()
    };
    let conflict_style = if row.conflicts > 0 {
        theme.bad()
    } else {
        Style::new()
    };
    let folder = text::fit(&text::safe(&row.folder), folder_w);
    Line::from(vec![
        Span::styled(if selected { "▶ " } else { "  " }.to_string(), base),
        Span::styled(
            format!("{:name_w$}  ", row.name.as_str()),
            base.patch(theme.bold()),
        ),
        Span::styled(format!("{:8}  ", yes_no(row.detected)), base),
        Span::styled(
            format!("{:7}  ", yes_no(row.enabled)),
            base.patch(enabled_style),
        ),
        Span::styled(format!("{:>6}  ", count(row.enabled, row.placed)), base),
        Span::styled(
            format!("{:>8}  ", count(row.enabled, row.conflicts)),
            base.patch(conflict_style),
        ),
        Span::styled(folder, base),
    ])
}

/// Under the list: what `Space` runs for the selected target, and the
/// command for Skills out of step or in conflict there.
fn target_hints<'a>(
    app: &App,
    row: &crate::tui::harnesses::HarnessRow,
    width: usize,
) -> Vec<Line<'a>> {
    let theme = app.theme();
    let mut lines = Vec::new();
    let (verb, does) = if row.enabled {
        ("disable", "removes the Skills hcpx placed there")
    } else {
        ("enable", "places the activated packs' Skills there")
    };
    let command = app.hcpx(
        &["harness".into(), verb.into(), row.name.as_str().into()],
        false,
    );
    lines.extend(wrap(
        &format!("Space {verb}s {}: {command} ({does})", row.name.as_str()),
        width,
        Style::new(),
    ));
    if row.enabled && row.behind > 0 {
        let sync = app.hcpx(&["harness".into(), "sync".into()], false);
        lines.extend(wrap(
            &format!(
                "{} out of step there: {sync}",
                crate::tui::text::count(row.behind, "Skill")
            ),
            width,
            theme.warning(),
        ));
    }
    if row.enabled && row.conflicts > 0 {
        let status = app.hcpx(&["harness".into(), "status".into()], false);
        lines.extend(wrap(
            &format!(
                "{} in conflict (someone else's, or edited by hand); hcpx leaves them: {status}",
                text::count(row.conflicts, "Skill folder")
            ),
            width,
            theme.bad(),
        ));
    }
    lines
}
