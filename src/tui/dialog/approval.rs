//! `:sync` in a project whose packs need approval (HCP.md §15.6): what
//! each pack can do — the capability diff of §13.7 against nothing, or
//! against the approved copy — escalations highlighted, then y/n. `y`
//! runs `hcpx sync --yes`, expecting the digests shown (`--expect
//! ID=DIGEST`), so content that changed meanwhile is refused, not
//! installed unseen.

use crate::engine::ops::sync::SyncResult;
use crate::tui::config::Config;
use crate::tui::dialog::lines::wrap;
use crate::tui::dialog::upgrade::change_text;
use crate::tui::text;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The packs the sync was refused for, each with its diff (not applied).
pub fn shown(results: &[SyncResult]) -> Vec<&SyncResult> {
    results
        .iter()
        .filter(|r| r.diff.as_ref().is_some_and(|d| !d.applied))
        .collect()
}

/// The `--expect` of each pack shown: its new digest.
pub fn expected(results: &[SyncResult]) -> Vec<crate::engine::ops::upgrade::Expected> {
    shown(results)
        .into_iter()
        .filter_map(|r| {
            let diff = r.diff.as_ref()?;
            Some(crate::engine::ops::upgrade::Expected {
                pack_id: r.pack_id.clone(),
                digest: diff.to_digest.clone(),
            })
        })
        .collect()
}

/// The dialog's lines: each pack and what it can do, then what `y` runs.
pub fn lines<'a>(config: &Config, results: &[SyncResult], width: usize) -> Vec<Line<'a>> {
    let theme = config.theme;
    let mut lines = Vec::new();
    for r in shown(results) {
        let Some(diff) = &r.diff else { continue };
        let head = match &diff.from {
            None => format!("{} {}: new in this project", r.pack_id, diff.to),
            Some(from) => format!(
                "{} {from} → {} (approved before: {from})",
                r.pack_id, diff.to
            ),
        };
        lines.extend(wrap(&text::one_line(&head), width, theme.bold()));
        for c in &diff.changes {
            let words = text::one_line(&change_text(&c.change));
            if c.escalates {
                lines.extend(wrap(&format!("  ▲ {words}"), width, theme.bad()));
            } else {
                lines.extend(wrap(&format!("    {words}"), width, Style::new()));
            }
        }
    }
    lines.push(Line::raw(""));
    let command = config.hcpx(&["sync".to_string(), "--yes".to_string()], false);
    lines.extend(wrap(
        &format!(
            "Installing them lets them do what is marked ▲. y approves and installs, as {command}"
        ),
        width,
        Style::new(),
    ));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("y", theme.key()),
        Span::raw(" approve   "),
        Span::styled("n", theme.key()),
        Span::raw(" / "),
        Span::styled("Esc", theme.key()),
        Span::raw(" install nothing"),
    ]));
    lines
}
