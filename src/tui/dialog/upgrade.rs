//! `U`: the upgrade's capability diff (HCP.md §13.7), shown before `y`
//! runs it; escalations are highlighted.

use crate::tui::config::Config;
use crate::tui::dialog::lines::wrap;
use crate::tui::text;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The upgrade's capability diff (§13.7), escalations highlighted, then
/// y/n. `y` runs `hcpx upgrade ID... --yes`, expecting the new versions
/// shown here (`--expect ID=DIGEST`).
pub fn lines<'a>(
    config: &Config,
    results: &[crate::engine::ops::upgrade::UpgradeResult],
    width: usize,
) -> Vec<Line<'a>> {
    let theme = config.theme;
    let mut lines = Vec::new();
    let mut escalates = false;
    for r in results {
        let head = match r.reason {
            crate::engine::ops::upgrade::UpdateReason::Version => {
                format!("{} {} → {}", r.pack_id, r.from, r.to)
            }
            _ => format!("{} {}: new content", r.pack_id, r.from),
        };
        lines.extend(wrap(&text::safe(&head), width, theme.bold()));
        if r.changes.is_empty() {
            lines.push(Line::styled(
                "  no change of reach".to_string(),
                theme.dim(),
            ));
        }
        for c in &r.changes {
            let words = text::one_line(&change_text(&c.change));
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
        &format!("{meaning} {}", config.hcpx(&parts, false)),
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
pub(crate) fn change_text(change: &crate::engine::policy::capdiff::Change) -> String {
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
        Change::AdapterChanged {
            verb_key,
            field,
            name,
            from,
            to,
        } => {
            let field = match name {
                Some(name) => format!("{} {name}", field.as_str()),
                None => field.as_str().to_string(),
            };
            let shown =
                |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
            format!(
                "{verb_key} runs something else: {field} {} → {}",
                shown(from),
                shown(to)
            )
        }
        Change::SchemeDowngraded { host } => format!("talks to {host} over http, not https"),
        Change::MaterialSent { host, name } => format!("sends {name} to the host {host}"),
    }
}
