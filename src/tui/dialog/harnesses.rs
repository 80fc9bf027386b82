//! The Harnesses view (`H`): every harness target (`tui::targets`) with
//! its counts, the selection, its keys, and its drawing. `Space` enables or
//! disables the selected target (HCP.md §12.6): the app has a worker run
//! the command layer's request of `hcpx harness enable|disable TARGET`,
//! whose words go to the Output pane. Inside a project the view lists
//! the project's targets and the user store's, as `hcpx harness status`
//! does there (HCP.md §15.5), each row's SCOPE saying whose, and `Space`
//! acts on the row's store (`hcpx -g harness …` for the user store's).
//! Under the list, the
//! selected detected harness's `mcp:` line says whether its MCP client
//! configuration starts `hcpx mcp` (§16.7; read, never written).

use crate::engine::harness::mcp_config::McpState;
use crate::tui::action::Action;
use crate::tui::config::Config;
use crate::tui::dialog::lines::wrap;
use crate::tui::keys::{Cmd, Key};
use crate::tui::scope::Store;
use crate::tui::targets::HarnessRow;
use crate::tui::text;
use crossterm::event::KeyCode;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The view's state: the rows once read, the selection.
#[derive(Debug, Clone, Default)]
pub struct HarnessView {
    pub rows: Vec<HarnessRow>,
    pub selected: usize,
    /// A read is under way (the first one shows "reading…").
    pub loading: bool,
    /// The last read failed: the engine's words.
    pub error: Option<String>,
}

impl HarnessView {
    pub fn selected_row(&self) -> Option<&HarnessRow> {
        self.rows.get(self.selected)
    }

    /// Whether the rows are a project's and the user store's (HCP.md
    /// §15.5): the SCOPE column shows, and a user row's commands take `-g`.
    pub fn in_project(&self) -> bool {
        self.rows.iter().any(|r| r.store == Store::Project)
    }

    pub fn move_by(&mut self, delta: isize) {
        let last = self.rows.len().saturating_sub(1) as isize;
        self.selected = (self.selected as isize)
            .saturating_add(delta)
            .clamp(0, last) as usize;
    }
}

// Keys.

/// A key in the view: move, `Space` toggles the target, `Esc` closes.
pub fn action(key: &Key) -> Option<Action> {
    match key.code {
        _ if key.ctrl || key.alt => None,
        KeyCode::Char('j') | KeyCode::Down => Some(Action::HarnessMove(1)),
        KeyCode::Char('k') | KeyCode::Up => Some(Action::HarnessMove(-1)),
        KeyCode::Char('g') | KeyCode::Home => Some(Action::HarnessMove(-64)),
        KeyCode::Char('G') | KeyCode::End => Some(Action::HarnessMove(64)),
        KeyCode::Char(' ') | KeyCode::Enter => Some(Action::HarnessToggle),
        KeyCode::Esc | KeyCode::Char('H') => Some(Action::CloseDialog),
        KeyCode::Char('q') => Some(Action::Key(Cmd::Quit)),
        _ => None,
    }
}

/// The view's key bar.
pub const BAR: &[(&str, &str)] = &[
    ("␣", "enable/disable"),
    ("j k", "move"),
    ("Esc H", "close"),
    ("q", "quit"),
];

// Drawing.

/// The Harnesses view (§12.4–§12.8): one row per target — detected,
/// enabled, Skills placed, in conflict (or edited), folder — then what
/// `Space` runs for the selected one, and the fix for Skills out of step.
pub fn lines<'a>(config: &Config, view: &HarnessView, width: usize) -> Vec<Line<'a>> {
    let theme = config.theme;
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
    // Inside a project: the rows of both stores, each with its scope.
    let scope_w = if view.in_project() { 9 } else { 0 };
    let head = format!(
        "  {:name_w$}  {:scope_w$}DETECTED  ENABLED  PLACED  CONFLICT  FOLDER",
        "TARGET",
        if scope_w > 0 { "SCOPE" } else { "" }
    );
    lines.push(Line::styled(text::fit(&head, width), theme.dim()));
    let folder_w = width
        .saturating_sub(name_w + scope_w + 2 + 10 + 9 + 8 + 10)
        .max(1);
    for (i, row) in view.rows.iter().enumerate() {
        lines.push(target_line(
            config,
            row,
            i == view.selected,
            (name_w, scope_w),
            folder_w,
        ));
    }
    lines.push(Line::raw(""));
    if let Some(row) = view.selected_row() {
        lines.extend(target_hints(config, row, view.in_project(), width));
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

/// One target's row of the Harnesses view: name, scope (`scope_w` 0:
/// none shown), detected, enabled, placed, in conflict, folder.
fn target_line<'a>(
    config: &Config,
    row: &HarnessRow,
    selected: bool,
    (name_w, scope_w): (usize, usize),
    folder_w: usize,
) -> Line<'a> {
    let theme = config.theme;
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
    let folder = text::fit(&row.folder, folder_w);
    Line::from(vec![
        Span::styled(if selected { "▶ " } else { "  " }.to_string(), base),
        Span::styled(
            format!("{:name_w$}  ", row.name.as_str()),
            base.patch(theme.bold()),
        ),
        Span::styled(
            match scope_w {
                0 => String::new(),
                _ => format!("{:scope_w$}", row.store.as_str()),
            },
            base,
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
/// command for Skills out of step or in conflict there (with `-g` for a
/// user store's target inside a project).
fn target_hints<'a>(
    config: &Config,
    row: &HarnessRow,
    in_project: bool,
    width: usize,
) -> Vec<Line<'a>> {
    let theme = config.theme;
    let mut lines = Vec::new();
    let global = in_project && row.store == Store::User;
    let hcpx = |args: &[String]| match global {
        true => config.hcpx(args, false).replacen("hcpx", "hcpx -g", 1),
        false => config.hcpx(args, false),
    };
    let (verb, does) = if row.enabled {
        ("disable", "removes the Skills hcpx placed there")
    } else {
        ("enable", "places the activated packs' Skills there")
    };
    let command = hcpx(&["harness".into(), verb.into(), row.name.as_str().into()]);
    lines.extend(wrap(
        &format!("Space {verb}s {}: {command} ({does})", row.name.as_str()),
        width,
        Style::new(),
    ));
    lines.extend(mcp_hint(config, row, width));
    if row.enabled && row.behind > 0 {
        let sync = hcpx(&["harness".into(), "sync".into()]);
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
        let status = hcpx(&["harness".into(), "status".into()]);
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

/// Whether the selected detected harness's MCP client configuration starts
/// `hcpx mcp` (§16.7); read-only, so "not configured" names the command
/// that prints the entry instead of writing it.
fn mcp_hint<'a>(config: &Config, row: &HarnessRow, width: usize) -> Vec<Line<'a>> {
    let theme = config.theme;
    let (Some(state), Some(file)) = (row.mcp, &row.mcp_file) else {
        return Vec::new();
    };
    let file = text::one_line(file);
    let (words, style) = match state {
        McpState::Configured => (format!("mcp: hcpx mcp configured in {file}"), theme.good()),
        McpState::NotConfigured => {
            let print = config.hcpx(
                &[
                    "mcp".into(),
                    "--print-config".into(),
                    row.name.as_str().into(),
                ],
                false,
            );
            (
                format!("mcp: not configured in {file} ({print} prints the entry)"),
                theme.dim(),
            )
        }
        McpState::Unreadable => (
            format!("mcp: unreadable ({file} does not parse)"),
            theme.warning(),
        ),
    };
    wrap(&words, width, style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selection_stays_in_the_list() {
        let mut view = HarnessView::default();
        view.move_by(3);
        assert_eq!(view.selected, 0);
    }
}
