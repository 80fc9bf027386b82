//! Terminal events to [`Action`]s, from one key table ([`KEYS`]) that also
//! draws the `?` help and the key bar (gitui's `CommandInfo`: the bar shows
//! what applies now and greys what cannot run for the selection; the same
//! reason refuses the key at once, HCP.md §11.2 availability).
//!
//! A key with Ctrl or Alt never means the plain letter: `Ctrl-U` is half a
//! page up, never uninstall. Dialogs, the filter input and the exec form
//! take text, so they have their own small maps.

use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::dialog::Dialog;
use crate::tui::keys::{Cmd, Key, binding_for, ctrl};
use crate::tui::pane::Pane;
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind,
};

/// What a terminal event means now.
pub fn action_for(app: &App, event: &Event) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => key_action(app, key),
        Event::Mouse(mouse) => mouse_action(mouse),
        Event::Resize(w, h) => Some(Action::Resize(*w, *h)),
        _ => None,
    }
}

fn key_action(app: &App, event: &KeyEvent) -> Option<Action> {
    let key = Key::of(event);
    let modified = key.ctrl || key.alt;
    if key == ctrl('c') {
        return Some(Action::Key(Cmd::Quit));
    }
    if key == ctrl('l') {
        return Some(Action::Key(Cmd::Redraw));
    }
    if let Some(dialog) = &app.dialog {
        return dialog_action(dialog, &key);
    }
    if app.cmdline.editing {
        return match key.code {
            KeyCode::Esc => Some(Action::CmdLineCancel),
            KeyCode::Enter => Some(Action::CmdLineSubmit),
            KeyCode::Backspace => Some(Action::CmdLineBackspace),
            KeyCode::Tab => Some(Action::CmdLineComplete),
            KeyCode::Char(c) if !modified => Some(Action::CmdLineChar(c)),
            _ => None,
        };
    }
    if app.search.editing {
        return match key.code {
            KeyCode::Esc => Some(Action::SearchClear),
            KeyCode::Enter => Some(Action::SearchKeep),
            KeyCode::Backspace => Some(Action::SearchBackspace),
            KeyCode::Char(c) if !modified => Some(Action::SearchChar(c)),
            _ => None,
        };
    }
    if app.packs.filter.editing {
        return match key.code {
            KeyCode::Esc => Some(Action::FilterClear),
            KeyCode::Enter => Some(Action::FilterKeep),
            KeyCode::Backspace => Some(Action::FilterBackspace),
            KeyCode::Down => Some(Action::Key(Cmd::Down)),
            KeyCode::Up => Some(Action::Key(Cmd::Up)),
            KeyCode::Char(c) if !modified => Some(Action::FilterChar(c)),
            _ => None,
        };
    }
    binding_for(key).map(|b| Action::Key(b.cmd))
}

/// The action of a key while `dialog` is open: the dialog takes every key.
fn dialog_action(dialog: &Dialog, key: &Key) -> Option<Action> {
    let modified = key.ctrl || key.alt;
    match dialog {
        // Any key closes the help and error overlays.
        Dialog::Help | Dialog::Error(_) => Some(Action::CloseDialog),
        Dialog::ConfirmUninstall { .. }
        | Dialog::ConfirmQuery { .. }
        | Dialog::ConfirmQuit { .. }
        | Dialog::ConfirmUpgrade { .. } => match key.code {
            _ if modified => None,
            KeyCode::Char('y') | KeyCode::Char('Y') => Some(Action::Confirm(true)),
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Some(Action::Confirm(false)),
            _ => None,
        },
        Dialog::Harnesses => match key.code {
            _ if modified => None,
            KeyCode::Char('j') | KeyCode::Down => Some(Action::HarnessMove(1)),
            KeyCode::Char('k') | KeyCode::Up => Some(Action::HarnessMove(-1)),
            KeyCode::Char('g') | KeyCode::Home => Some(Action::HarnessMove(-64)),
            KeyCode::Char('G') | KeyCode::End => Some(Action::HarnessMove(64)),
            KeyCode::Char(' ') | KeyCode::Enter => Some(Action::HarnessToggle),
            KeyCode::Esc | KeyCode::Char('H') => Some(Action::CloseDialog),
            KeyCode::Char('q') => Some(Action::Key(Cmd::Quit)),
            _ => None,
        },
        Dialog::Picker(_) => crate::tui::picker::key_for(key).map(Action::Picker),
        Dialog::Secret(_) | Dialog::ExecForm(_) | Dialog::Ask(_) => match key.code {
            KeyCode::Esc => Some(Action::InputCancel),
            KeyCode::Enter => Some(Action::InputSubmit),
            KeyCode::Backspace => Some(Action::InputBackspace),
            KeyCode::Tab | KeyCode::Down => Some(Action::FieldNext),
            KeyCode::BackTab | KeyCode::Up => Some(Action::FieldPrev),
            KeyCode::Left => Some(Action::FieldCycle(false)),
            KeyCode::Right => Some(Action::FieldCycle(true)),
            KeyCode::Char('u') if key.ctrl => Some(Action::InputClear),
            KeyCode::Char(c) if !modified => Some(Action::Input(c)),
            _ => None,
        },
    }
}

/// The key bar while `dialog` is open: the keys [`dialog_action`] takes
/// there, not the main screen's (which would type into a form instead).
pub fn dialog_bar(dialog: &Dialog) -> Vec<(&'static str, &'static str)> {
    let keys: &[(&str, &str)] = match dialog {
        // The picker's own table (`tui::picker::KEYS`).
        Dialog::Picker(_) => return crate::tui::picker::bar(),
        Dialog::Help | Dialog::Error(_) => &[("any key", "closes")],
        Dialog::ConfirmUninstall { .. }
        | Dialog::ConfirmQuery { .. }
        | Dialog::ConfirmQuit { .. }
        | Dialog::ConfirmUpgrade { .. } => &[("y", "yes"), ("n Esc", "no")],
        Dialog::Harnesses => &[
            ("␣", "enable/disable"),
            ("j k", "move"),
            ("Esc H", "close"),
            ("q", "quit"),
        ],
        Dialog::Secret(_) => &[
            ("type", "the secret"),
            ("Enter", "connect"),
            ("Ctrl-U", "clear"),
            ("Esc", "cancel"),
        ],
        Dialog::Ask(_) => &[("Enter", "set"), ("Ctrl-U", "clear"), ("Esc", "cancel")],
        Dialog::ExecForm(_) => &[
            ("Enter", "run"),
            ("Tab ↑↓", "field"),
            ("← → ␣", "choose"),
            ("Ctrl-U", "clear"),
            ("Esc", "cancel"),
        ],
    };
    // `←` `→` `Space` only step an enum's or a boolean's values.
    let choosing = match dialog {
        Dialog::ExecForm(form) => form.focus_cycles(),
        _ => true,
    };
    keys.iter()
        .filter(|(_, what)| choosing || *what != "choose")
        .copied()
        .collect()
}

fn mouse_action(mouse: &MouseEvent) -> Option<Action> {
    let (column, row) = (mouse.column, mouse.row);
    match mouse.kind {
        MouseEventKind::Down(MouseButton::Left) => Some(Action::Click { column, row }),
        MouseEventKind::ScrollDown => Some(Action::Scroll {
            column,
            row,
            down: true,
        }),
        MouseEventKind::ScrollUp => Some(Action::Scroll {
            column,
            row,
            down: false,
        }),
        _ => None,
    }
}

/// The key bar's word for `Enter` where the focus is.
pub fn open_word(focus: Pane) -> &'static str {
    match focus {
        Pane::Browser => "commands",
        _ => "run",
    }
}

/// The key bar's word for `/` where the focus is: the packs' filter, or
/// the search of a text pane.
pub fn slash_word(focus: Pane) -> &'static str {
    if focus.is_lower() { "search" } else { "filter" }
}
