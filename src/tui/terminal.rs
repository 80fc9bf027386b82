//! Terminal setup and restore: raw mode, the alternate screen and mouse
//! capture on the way in; all of it undone on quit, on error (a guard's
//! `Drop`) and on panic (a hook that restores before the report prints).
//! The window title names the store (`tui::scope`); the terminal's own
//! title is saved first and put back on the way out (xterm's title stack,
//! which terminals without one ignore).

use crossterm::cursor::Show;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{self, Stdout, Write, stdout};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the TUI set the window title (and saved the terminal's).
static TITLED: AtomicBool = AtomicBool::new(false);

pub type Tui = Terminal<CrosstermBackend<Stdout>>;

/// Restores the terminal when dropped: on every way out of the TUI.
#[derive(Debug)]
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Switches the terminal to the TUI's mode. Create a [`Guard`] first.
pub fn enter() -> io::Result<Tui> {
    enable_raw_mode()?;
    execute!(stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
    terminal.hide_cursor()?;
    terminal.clear()?;
    Ok(terminal)
}

/// Sets the window title to `title` (control characters left out),
/// saving the terminal's own first.
pub fn set_title(title: &str) {
    let title: String = title.chars().filter(|c| !c.is_control()).collect();
    let mut out = stdout();
    if !TITLED.swap(true, Ordering::SeqCst) {
        let _ = out.write_all(b"\x1b[22;0t");
    }
    let _ = execute!(out, crossterm::terminal::SetTitle(title));
}

/// Puts the terminal back as it was. Safe to call more than once.
pub fn restore() {
    let _ = execute!(stdout(), DisableMouseCapture, LeaveAlternateScreen, Show);
    if TITLED.swap(false, Ordering::SeqCst) {
        let mut out = stdout();
        let _ = out.write_all(b"\x1b[23;0t");
        let _ = out.flush();
    }
    let _ = disable_raw_mode();
}

/// Restores the terminal before any panic report is printed.
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}
