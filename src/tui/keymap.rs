//! Terminal events to [`Action`]s. What a key means depends on what is on
//! screen: a dialog, the filter input, or the main screen (the keys listed
//! in the help overlay, [`HELP`]).

use crate::tui::action::Action;
use crate::tui::app::{App, Dialog};
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// The keys of the main screen, as the help overlay shows them.
pub const HELP: &[(&str, &str)] = &[
    ("j k ↓ ↑", "move in the focused pane"),
    ("g G", "top / bottom"),
    ("PgUp PgDn", "a page up / down"),
    ("Tab S-Tab", "next / previous pane"),
    ("/", "filter packs (fuzzy); Enter keeps it, Esc clears it"),
    ("s", "sort by id → status → version"),
    ("Space", "mark a pack; actions apply to every marked pack"),
    ("Esc", "clear the marks, then the filter"),
    ("i", "install (hcpx install ID)"),
    ("a", "activate / deactivate (hcpx activate|deactivate ID)"),
    (
        "c",
        "connect (hcpx connect ID); asks for a secret if needed",
    ),
    ("x", "run the command selected in Availability (hcpx exec)"),
    ("l", "lint the pack again (hcpx lint DIR)"),
    ("u", "uninstall, after y/n (hcpx uninstall ID)"),
    ("r", "reload the store and catalogs (hcpx list)"),
    ("?", "this help"),
    ("q Ctrl-C", "quit"),
    ("mouse", "click a row or a pane; wheel scrolls"),
];

/// The key bar of the main screen.
pub const KEY_BAR: &[(&str, &str)] = &[
    ("?", "help"),
    ("/", "filter"),
    ("i", "install"),
    ("a", "activate"),
    ("c", "connect"),
    ("x", "exec"),
    ("l", "lint"),
    ("u", "uninstall"),
    ("␣", "mark"),
    ("s", "sort"),
    ("r", "reload"),
    ("Tab", "pane"),
    ("q", "quit"),
];

/// What a terminal event means now.
pub fn action_for(app: &App, event: &Event) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => key_action(app, key),
        Event::Mouse(mouse) => mouse_action(mouse),
        Event::Resize(w, h) => Some(Action::Resize(*w, *h)),
        _ => None,
    }
}

fn key_action(app: &App, key: &KeyEvent) -> Option<Action> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && matches!(key.code, KeyCode::Char('c')) {
        return Some(Action::Quit);
    }
    match &app.dialog {
        // Any key closes the help and error overlays.
        Some(Dialog::Help) | Some(Dialog::Error(_)) => return Some(Action::CloseDialog),
        Some(Dialog::ConfirmUninstall { .. }) | Some(Dialog::ConfirmQuit { .. }) => {
            return match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => Some(Action::Confirm(true)),
                KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => {
                    Some(Action::Confirm(false))
                }
                _ => None,
            };
        }
        Some(Dialog::Secret(_)) | Some(Dialog::ExecForm(_)) => {
            return match key.code {
                KeyCode::Esc => Some(Action::InputCancel),
                KeyCode::Enter => Some(Action::InputSubmit),
                KeyCode::Backspace => Some(Action::InputBackspace),
                KeyCode::Tab | KeyCode::Down => Some(Action::FieldNext),
                KeyCode::BackTab | KeyCode::Up => Some(Action::FieldPrev),
                KeyCode::Char(c) if !ctrl => Some(Action::Input(c)),
                _ => None,
            };
        }
        None => {}
    }
    if app.filter.editing {
        return match key.code {
            KeyCode::Esc => Some(Action::FilterClear),
            KeyCode::Enter => Some(Action::FilterKeep),
            KeyCode::Backspace => Some(Action::FilterBackspace),
            KeyCode::Down => Some(Action::Down),
            KeyCode::Up => Some(Action::Up),
            KeyCode::Char(c) if !ctrl => Some(Action::FilterChar(c)),
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('j') | KeyCode::Down => Action::Down,
        KeyCode::Char('k') | KeyCode::Up => Action::Up,
        KeyCode::Char('g') | KeyCode::Home => Action::Top,
        KeyCode::Char('G') | KeyCode::End => Action::Bottom,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::Tab => Action::NextPane,
        KeyCode::BackTab => Action::PrevPane,
        KeyCode::Char('/') => Action::FilterStart,
        KeyCode::Char('?') => Action::Help,
        KeyCode::Esc => Action::Escape,
        KeyCode::Char(' ') => Action::Mark,
        KeyCode::Char('s') => Action::CycleSort,
        KeyCode::Char('i') => Action::Install,
        KeyCode::Char('a') => Action::ToggleActivate,
        KeyCode::Char('c') => Action::Connect,
        KeyCode::Char('x') => Action::Exec,
        KeyCode::Char('X') => Action::CancelRun,
        KeyCode::Char('l') => Action::Lint,
        KeyCode::Char('u') => Action::Uninstall,
        KeyCode::Char('r') => Action::Reload,
        _ => return None,
    })
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
