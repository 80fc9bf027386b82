//! Keys typed faster than the store is read. A key whose meaning depends
//! on the selected pack read in full (its commands in Availability, its
//! Details and Lint text, what a lifecycle key may do to it) waits while
//! that read is pending, and every key after it waits behind it, so each
//! is applied, in the order typed, to the state it was typed for; after a
//! stage, a key that acts on a pack waits for the packs it changed to be
//! read again, instead of being refused as busy. A key is
//! turned into an [`Action`] only when it is applied: `x` then `q` types a
//! `q` into the run form `x` opens. `Ctrl-C` and `Ctrl-L` never wait.

use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::keys::Cmd;
use crate::tui::pane::Pane;
use crossterm::event::{Event, KeyCode, KeyModifiers};
use std::collections::VecDeque;

/// The events waiting for a read, oldest first.
#[derive(Debug, Default)]
pub struct KeyQueue {
    events: VecDeque<Event>,
}

impl KeyQueue {
    /// Whether no event waits.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// How many events wait.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// `event` waits behind the others.
    pub fn push(&mut self, event: Event) {
        self.events.push_back(event);
    }

    /// The oldest event, if it may be applied to `app` now (its action
    /// with it; `None` for an event that means nothing now).
    pub fn pop_ready(&mut self, app: &App) -> Option<(Event, Option<Action>)> {
        let event = self.events.front()?;
        let action = crate::tui::keymap::action_for(app, event);
        if action.as_ref().is_some_and(|a| waits(app, a)) {
            return None;
        }
        self.events.pop_front().map(|event| (event, action))
    }
}

/// `Ctrl-C` (quit) and `Ctrl-L` (redraw) act at once, queue or not.
pub fn never_waits(event: &Event) -> bool {
    match event {
        Event::Key(key) => {
            key.modifiers.contains(KeyModifiers::CONTROL)
                && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('l'))
        }
        _ => false,
    }
}

/// Whether `action` must wait: the first snapshot is still being read, or
/// the selected pack's full read (or the read again of the packs a stage
/// just changed) is pending and `action` depends on it.
pub fn waits(app: &App, action: &Action) -> bool {
    if !app.loads.loaded() && app.loads.loading() {
        return !matches!(
            action,
            Action::Key(Cmd::Quit) | Action::Key(Cmd::Redraw) | Action::Resize(..)
        );
    }
    (app.reading_selected() || app.work.refreshing()) && reads_selection(action, app.focus.pane())
}

/// Whether `action`, with `focus` where it is, reads the selected pack in
/// full: a move, search or click in Availability, Details or Lint, `Enter`
/// on a command, and every key that acts on the pack.
fn reads_selection(action: &Action, focus: Pane) -> bool {
    let in_pack_pane = matches!(focus, Pane::Matrix | Pane::Details | Pane::Lint);
    match action {
        Action::Key(Cmd::Up)
        | Action::Key(Cmd::Down)
        | Action::Key(Cmd::HalfUp)
        | Action::Key(Cmd::HalfDown)
        | Action::Key(Cmd::PageUp)
        | Action::Key(Cmd::PageDown)
        | Action::Key(Cmd::Top)
        | Action::Key(Cmd::Bottom)
        | Action::Key(Cmd::Open)
        | Action::SearchKeep
        | Action::Key(Cmd::NextMatch | Cmd::PrevMatch) => in_pack_pane,
        Action::Click { .. }
        | Action::Scroll { .. }
        | Action::Key(Cmd::Install)
        | Action::Key(Cmd::Activate)
        | Action::Key(Cmd::Connect)
        | Action::Key(Cmd::Exec)
        | Action::Key(Cmd::Rerun)
        | Action::Key(Cmd::Lint)
        | Action::Key(Cmd::Uninstall)
        | Action::Key(Cmd::Upgrade) => true,
        _ => false,
    }
}
