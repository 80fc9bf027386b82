//! The styles of the words hcpx prints (HCP.md §10.1: text for people). The
//! text of an outcome carries them as ANSI codes; the CLI prints it through
//! `anstream`, which drops them when stdout is not a terminal or `NO_COLOR`
//! is set, and the TUI drops them with [`plain`].

use anstyle::{AnsiColor, Style};

pub const ERROR: Style = AnsiColor::Red.on_default().bold();
pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
pub const HINT: Style = AnsiColor::Cyan.on_default();
pub const STRONG: Style = Style::new().bold();
pub const GOOD: Style = AnsiColor::Green.on_default().bold();

/// `text` without its styles.
pub fn plain(text: &str) -> String {
    anstream::adapter::strip_str(text).to_string()
}
