//! The one key table of the main screen ([`KEYS`]): each [`Cmd`], the
//! keys that mean it, and the words the `?` help and the key bar show for
//! it. Dispatch (`tui::keymap`), the help and the key bar all read it; a
//! key with Ctrl or Alt never means the plain letter (`Ctrl-U` is half a
//! page up, never uninstall).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
    Scope,
    SetEnv,
    CommandLine,
    Wrap,
    Json,
    Redraw,
    Help,
    Quit,
}

/// A key: its code and whether Ctrl or Alt is held (Shift is part of the
/// character: `G`, `X`, `?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
}

pub(crate) const fn k(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: false,
        alt: false,
    }
}

pub(crate) const fn code(code: KeyCode) -> Key {
    Key {
        code,
        ctrl: false,
        alt: false,
    }
}

pub(crate) const fn ctrl(c: char) -> Key {
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
        Cmd::Scope,
        &[k('S')],
        "S",
        None,
        "installs: project or user",
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
