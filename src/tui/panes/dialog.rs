//! The frame of the overlay open: its title and width, centred over the
//! screen, with the lines its module draws (`tui::dialog`: the help, an
//! engine error, the y/n questions, the masked secret input, the `P` and
//! `e` prompts, the run form, the Harnesses view, the upgrade's diff, the
//! collection picker).

use crate::tui::app::App;
use crate::tui::dialog::{
    Dialog, approval, ask, confirm, harnesses, help, picker, run_form, secret, upgrade,
};
use crate::tui::scope::Scopes;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
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

/// The overlay's title and lines, `width` columns wide, `room` lines
/// high at most.
fn title_lines<'a>(
    app: &App,
    dialog: &Dialog,
    width: usize,
    room: usize,
) -> (String, Vec<Line<'a>>) {
    let config = &app.config;
    let text = |s: &str| crate::tui::text::safe(s);
    match dialog {
        Dialog::Help => ("Keys".to_string(), help::lines(config, width, room)),
        Dialog::Error(err) => (
            "Error".to_string(),
            confirm::error(config, err, app.hint(err), width),
        ),
        Dialog::ConfirmUninstall { ids, stores } => (
            "Uninstall".to_string(),
            confirm::lines(
                config,
                &match stores.as_slice() {
                    [] => format!("Uninstall {}?", ids.join(", ")),
                    stores => {
                        let each: Vec<String> = stores
                            .iter()
                            .map(|(store, ids)| {
                                format!("{} from {}", ids.join(", "), Scopes::store_words(*store))
                            })
                            .collect();
                        format!("Uninstall {}?", each.join(" and "))
                    }
                },
                "This removes the installed files, the Skill copy and any stored secret.",
                ("uninstall", "keep"),
                width,
            ),
        ),
        Dialog::ConfirmDeactivate { ids, connected } => {
            confirm::deactivate(config, ids, connected, width)
        }
        Dialog::ConfirmQuery { query, store } => (
            "Confirm".to_string(),
            confirm::lines(
                config,
                &text(&match store {
                    Some(store) => {
                        format!("{} ({})", query.question(), Scopes::store_words(*store))
                    }
                    None => query.question(),
                }),
                &format!("hcpx {}", text(&query.args().join(" "))),
                ("run it", "cancel"),
                width,
            ),
        ),
        Dialog::ConfirmQuit { running } => (
            "Quit".to_string(),
            confirm::lines(
                config,
                &format!("{running} is still running. Quit anyway?"),
                "Quitting ends the command and every process it started.",
                ("end it and quit", "keep it running"),
                width,
            ),
        ),
        Dialog::Secret(prompt) => (
            format!("Connect {}", prompt.pack_id),
            secret::lines(config, prompt, width),
        ),
        Dialog::Ask(prompt) => ask::title_lines(config, prompt, width),
        Dialog::ExecForm(form) => (
            format!("Run {} {}", form.pack_id, form.verb),
            run_form::lines(config, form, width, room),
        ),
        Dialog::Harnesses => (
            "Harnesses".to_string(),
            harnesses::lines(config, &app.harnesses, width),
        ),
        Dialog::ConfirmSync { results, .. } => (
            "Approve the project's packs".to_string(),
            approval::lines(config, results, width),
        ),
        Dialog::ConfirmUpgrade { results } => (
            "Upgrade".to_string(),
            upgrade::lines(config, results, width),
        ),
        Dialog::Picker(p) => (picker::title(p), picker::lines(config, p, width, room)),
    }
}

pub fn draw(frame: &mut Frame<'_>, screen: Rect, app: &App, dialog: &Dialog) {
    let width = screen.width.saturating_sub(4).min(max_width(dialog));
    let inner_w = width.saturating_sub(4) as usize;
    // Room for the lines inside the frame.
    let room = screen.height.saturating_sub(2) as usize;
    let (title, lines) = title_lines(app, dialog, inner_w, room);
    let height = (lines.len() as u16 + 2).min(screen.height);
    let area = Rect::new(
        screen.x + (screen.width.saturating_sub(width)) / 2,
        screen.y + (screen.height.saturating_sub(height)) / 2,
        width,
        height,
    );
    let theme = app.theme();
    let mut block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.focus_border())
        .title(Line::styled(format!(" {title} "), theme.title()));
    if matches!(dialog, Dialog::Help) {
        block = block.title_bottom(Line::styled(help::CLOSES, theme.dim()));
    }
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
