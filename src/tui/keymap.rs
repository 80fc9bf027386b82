//! Terminal events to [`Action`]s: a key of the main screen is the [`Cmd`]
//! the one key table (`tui::keys::KEYS`) binds it to, the table that also
//! draws the `?` help and the key bar (gitui's `CommandInfo`: the bar shows
//! what applies now and greys what cannot run for the selection; the same
//! reason refuses the key at once, HCP.md §11.2 availability).
//!
//! A key with Ctrl or Alt never means the plain letter: `Ctrl-U` is half a
//! page up, never uninstall. The filter, the search and the `:` line take
//! text, so they have their own small maps here; an overlay open takes
//! every key, with its own map (`tui::dialog`).

use crate::tui::action::Action;
use crate::tui::app::App;
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
        return dialog.action(&key);
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
