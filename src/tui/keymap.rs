//! Terminal events to [`Action`]s, from one key table ([`KEYS`]) that also
//! draws the `?` help and the key bar (gitui's `CommandInfo`: the bar shows
//! what applies now and greys what cannot run for the selection; the same
//! reason refuses the key at once, HCP.md §11.2 availability).
//!
//! A key with Ctrl or Alt never means the plain letter: `Ctrl-U` is half a
//! page up, never uninstall. Dialogs, the filter input and the exec form
//! take text, so they have their own small maps.

use crate::tui::action::{Action, Pane};
use crate::tui::app::{App, Dialog};
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// A command of the main screen. Each has one [`Binding`] in [`KEYS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmd {
    Down,
    Up,
    HalfDown,
    HalfUp,
    PageDown,
    PageUp,
    Top,
    Bottom,
    NextPane,
    PrevPane,
    PaneLeft,
    PaneRight,
    Open,
    Filter,
    NextMatch,
    PrevMatch,
    Sort,
    Mark,
    Escape,
    Install,
    Activate,
    Connect,
    Exec,
    Rerun,
    Cancel,
    NextJob,
    Lint,
    Uninstall,
    Reload,
    Log,
    Harnesses,
    Outdated,
    Upgrade,
    Principal,
    SetEnv,
    CommandLine,
    Wrap,
    Json,
    Redraw,
    Help,
    Quit,
}

impl Cmd {
    /// The action the command dispatches.
    pub fn action(self) -> Action {
        match self {
            Cmd::Down => Action::Down,
            Cmd::Up => Action::Up,
            Cmd::HalfDown => Action::HalfPageDown,
            Cmd::HalfUp => Action::HalfPageUp,
            Cmd::PageDown => Action::PageDown,
            Cmd::PageUp => Action::PageUp,
            Cmd::Top => Action::Top,
            Cmd::Bottom => Action::Bottom,
            Cmd::NextPane => Action::NextPane,
            Cmd::PrevPane => Action::PrevPane,
            Cmd::PaneLeft => Action::PaneLeft,
            Cmd::PaneRight => Action::PaneRight,
            Cmd::Open => Action::Open,
            Cmd::Filter => Action::FilterStart,
            Cmd::NextMatch => Action::SearchNext(true),
            Cmd::PrevMatch => Action::SearchNext(false),
            Cmd::Sort => Action::CycleSort,
            Cmd::Mark => Action::Mark,
            Cmd::Escape => Action::Escape,
            Cmd::Install => Action::Install,
            Cmd::Activate => Action::ToggleActivate,
            Cmd::Connect => Action::Connect,
            Cmd::Exec => Action::Exec,
            Cmd::Rerun => Action::Rerun,
            Cmd::Cancel => Action::CancelRun,
            Cmd::NextJob => Action::NextJob,
            Cmd::Lint => Action::Lint,
            Cmd::Uninstall => Action::Uninstall,
            Cmd::Reload => Action::Reload,
            Cmd::Log => Action::ShowLog,
            Cmd::Harnesses => Action::ShowHarnesses,
            Cmd::Outdated => Action::CheckUpdates,
            Cmd::Upgrade => Action::Upgrade,
            Cmd::Principal => Action::AskPrincipal,
            Cmd::SetEnv => Action::AskEnv,
            Cmd::CommandLine => Action::CmdLineStart,
            Cmd::Wrap => Action::ToggleWrap,
            Cmd::Json => Action::ToggleJson,
            Cmd::Redraw => Action::Redraw,
            Cmd::Help => Action::Help,
            Cmd::Quit => Action::Quit,
        }
    }
}

/// A key: its code and whether Ctrl or Alt is held (Shift is part of the
/// character: `G`, `X`, `?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
}

const fn k(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: false,
        alt: false,
    }
}

const fn code(code: KeyCode) -> Key {
    Key {
        code,
        ctrl: false,
        alt: false,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: true,
        alt: false,
    }
}

impl Key {
    /// The key a terminal event is.
    pub fn of(event: &KeyEvent) -> Key {
        Key {
            code: event.code,
            ctrl: event.modifiers.contains(KeyModifiers::CONTROL),
            alt: event.modifiers.contains(KeyModifiers::ALT),
        }
    }
}

/// The longest a help line may be: two columns of them fit 80 columns.
pub const HELP_MAX: usize = 26;

/// One line of the key table.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub cmd: Cmd,
    pub keys: &'static [Key],
    /// How the help writes the keys.
    pub shown: &'static str,
    /// The key bar's key and word; `None`: help only.
    pub bar: Option<(&'static str, &'static str)>,
    /// The help's line.
    pub help: &'static str,
}

const fn bind(
    cmd: Cmd,
    keys: &'static [Key],
    shown: &'static str,
    bar: Option<(&'static str, &'static str)>,
    help: &'static str,
) -> Binding {
    Binding {
        cmd,
        keys,
        shown,
        bar,
        help,
    }
}

/// The keys of the main screen: dispatch, help and key bar all read it.
/// The key bar shows them in this order, as far as the width allows.
pub const KEYS: &[Binding] = &[
    bind(Cmd::Help, &[k('?')], "?", Some(("?", "help")), "this help"),
    bind(
        Cmd::Open,
        &[code(KeyCode::Enter)],
        "Enter",
        Some(("⏎", "open")),
        "commands; on one: run it",
    ),
    bind(
        Cmd::Install,
        &[k('i')],
        "i",
        Some(("i", "install")),
        "install (hcpx install ID)",
    ),
    bind(
        Cmd::Activate,
        &[k('a')],
        "a",
        Some(("a", "activate")),
        "activate / deactivate",
    ),
    bind(
        Cmd::Connect,
        &[k('c')],
        "c",
        Some(("c", "connect")),
        "connect (e: env variables)",
    ),
    bind(
        Cmd::Exec,
        &[k('x')],
        "x",
        Some(("x", "exec")),
        "run a command (hcpx exec)",
    ),
    bind(
        Cmd::Cancel,
        &[k('X')],
        "X",
        Some(("X", "cancel")),
        "cancel the running command",
    ),
    bind(
        Cmd::NextJob,
        &[k(']')],
        "]",
        Some(("]", "next job")),
        "next running command",
    ),
    bind(
        Cmd::Rerun,
        &[k('.')],
        ".",
        Some((".", "rerun")),
        "the last exec again",
    ),
    bind(
        Cmd::Lint,
        &[k('l')],
        "l",
        Some(("l", "lint")),
        "lint again (hcpx lint)",
    ),
    bind(
        Cmd::Uninstall,
        &[k('u')],
        "u",
        Some(("u", "uninstall")),
        "uninstall, after y/n",
    ),
    bind(
        Cmd::Filter,
        &[k('/')],
        "/",
        Some(("/", "filter")),
        "filter; text pane: search",
    ),
    bind(
        Cmd::NextMatch,
        &[k('n')],
        "n",
        Some(("n", "next")),
        "next match of the search",
    ),
    bind(
        Cmd::PrevMatch,
        &[k('N')],
        "N",
        None,
        "previous match of search",
    ),
    bind(
        Cmd::Mark,
        &[k(' ')],
        "Space",
        Some(("␣", "mark")),
        "mark (i a c l u U: marked)",
    ),
    bind(
        Cmd::Log,
        &[k('@')],
        "@",
        Some(("@", "log")),
        "log: each action as hcpx",
    ),
    bind(
        Cmd::Harnesses,
        &[k('H')],
        "H",
        Some(("H", "harnesses")),
        "harness targets on/off",
    ),
    bind(
        Cmd::Outdated,
        &[k('o')],
        "o",
        Some(("o", "updates")),
        "updates (hcpx outdated)",
    ),
    bind(
        Cmd::Upgrade,
        &[k('U')],
        "U",
        Some(("U", "upgrade")),
        "upgrade: diff, then y/n",
    ),
    bind(
        Cmd::SetEnv,
        &[k('e')],
        "e",
        Some(("e", "set env")),
        "set env variable (masked)",
    ),
    bind(
        Cmd::Principal,
        &[k('P')],
        "P",
        None,
        "act as another principal",
    ),
    bind(
        Cmd::CommandLine,
        &[k(':')],
        ":",
        Some((":", "command")),
        "hcpx command line (Tab)",
    ),
    bind(
        Cmd::Reload,
        &[k('r')],
        "r",
        Some(("r", "reload")),
        "reload store and catalogs",
    ),
    bind(
        Cmd::Sort,
        &[k('s')],
        "s",
        Some(("s", "sort")),
        "sort id → status → version",
    ),
    bind(Cmd::Wrap, &[k('w')], "w", None, "wrap or cut long lines"),
    bind(Cmd::Json, &[k('J')], "J", None, "report: JSON or words"),
    bind(
        Cmd::Quit,
        &[k('q'), ctrl('c')],
        "q Ctrl-C",
        Some(("q", "quit")),
        "quit",
    ),
    bind(
        Cmd::Down,
        &[k('j'), code(KeyCode::Down)],
        "j ↓",
        None,
        "down in the focused pane",
    ),
    bind(
        Cmd::Up,
        &[k('k'), code(KeyCode::Up)],
        "k ↑",
        None,
        "up in the focused pane",
    ),
    bind(
        Cmd::HalfDown,
        &[ctrl('d')],
        "Ctrl-D",
        None,
        "half a page down",
    ),
    bind(Cmd::HalfUp, &[ctrl('u')], "Ctrl-U", None, "half a page up"),
    bind(
        Cmd::PageDown,
        &[code(KeyCode::PageDown)],
        "PgDn",
        None,
        "a page down",
    ),
    bind(
        Cmd::PageUp,
        &[code(KeyCode::PageUp)],
        "PgUp",
        None,
        "a page up",
    ),
    bind(
        Cmd::Top,
        &[k('g'), code(KeyCode::Home)],
        "g Home",
        None,
        "top",
    ),
    bind(
        Cmd::Bottom,
        &[k('G'), code(KeyCode::End)],
        "G End",
        None,
        "bottom (text: last page)",
    ),
    bind(
        Cmd::NextPane,
        &[code(KeyCode::Tab)],
        "Tab",
        Some(("Tab", "pane")),
        "next pane",
    ),
    bind(
        Cmd::PrevPane,
        &[code(KeyCode::BackTab)],
        "S-Tab",
        None,
        "previous pane",
    ),
    bind(
        Cmd::PaneLeft,
        &[code(KeyCode::Left)],
        "←",
        None,
        "to the Packs pane",
    ),
    bind(
        Cmd::PaneRight,
        &[code(KeyCode::Right)],
        "→",
        None,
        "next pane to the right",
    ),
    bind(
        Cmd::Escape,
        &[code(KeyCode::Esc)],
        "Esc",
        None,
        "clear search/marks/filter",
    ),
    bind(
        Cmd::Redraw,
        &[ctrl('l')],
        "Ctrl-L",
        None,
        "redraw the screen",
    ),
];

/// The help's last line (not a key of the table).
pub const MOUSE_HELP: (&str, &str) = ("mouse", "click; the wheel scrolls");

/// The binding a key means on the main screen, if any.
pub fn binding_for(key: Key) -> Option<&'static Binding> {
    KEYS.iter().find(|b| b.keys.contains(&key))
}

/// Whether a command applies now, and whether it can run (gitui's
/// `CommandInfo`): `available` false hides it from the key bar; `enabled`
/// `Err` greys it there and is what the key says when pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    pub available: bool,
    pub enabled: Result<(), String>,
}

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
        return Some(Action::Quit);
    }
    if key == ctrl('l') {
        return Some(Action::Redraw);
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
            KeyCode::Down => Some(Action::Down),
            KeyCode::Up => Some(Action::Up),
            KeyCode::Char(c) if !modified => Some(Action::FilterChar(c)),
            _ => None,
        };
    }
    binding_for(key).map(|b| b.cmd.action())
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
            KeyCode::Char('q') => Some(Action::Quit),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_help_line_fits_a_column_of_the_help_at_80_columns() {
        for b in KEYS {
            assert!(b.help.chars().count() <= HELP_MAX, "{}", b.help);
        }
        assert!(MOUSE_HELP.1.chars().count() <= HELP_MAX);
    }

    #[test]
    fn every_key_means_one_command() {
        let mut seen: Vec<Key> = Vec::new();
        for b in KEYS {
            for key in b.keys {
                assert!(!seen.contains(key), "{key:?} is bound twice");
                seen.push(*key);
            }
        }
    }

    #[test]
    fn a_modified_letter_is_never_the_plain_letter() {
        for c in "uaxlicr".chars() {
            let alt = Key {
                code: KeyCode::Char(c),
                ctrl: false,
                alt: true,
            };
            assert!(binding_for(alt).is_none(), "Alt-{c}");
        }
        assert_eq!(binding_for(ctrl('u')).map(|b| b.cmd), Some(Cmd::HalfUp));
        assert_eq!(binding_for(ctrl('d')).map(|b| b.cmd), Some(Cmd::HalfDown));
        assert!(binding_for(ctrl('a')).is_none());
    }
}
