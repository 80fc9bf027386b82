//! The overlays, one module each for those with state of their own, and
//! [`Dialog`]: which one is open. An overlay takes every key while open.

pub mod approval;
pub mod ask;
pub mod confirm;
pub mod harnesses;
pub mod help;
pub mod lines;
pub mod picker;
pub mod run_form;
pub mod secret;
pub mod upgrade;

pub use secret::SecretPrompt;

use crate::tui::action::Action;
use crate::tui::keys::Key;
use crossterm::event::KeyCode;

/// A modal overlay.
#[derive(Debug)]
pub enum Dialog {
    Help,
    /// An engine error, in the words of §10: code, message, hint.
    Error(crate::engine::error::Error),
    ConfirmUninstall {
        ids: Vec<String>,
        /// Inside a project, the stores it uninstalls from (§15.1), each
        /// with the packs it holds, the project's first: two when marked
        /// packs of both stores go.
        stores: Vec<(crate::tui::scope::Store, Vec<String>)>,
    },
    /// `a` (or `:deactivate`) on connected packs: deactivating drops
    /// their connections, so it asks; `y` goes on, any other key keeps
    /// them.
    ConfirmDeactivate {
        ids: Vec<String>,
        /// Those of `ids` connected through their Binding.
        connected: Vec<String>,
    },
    /// `P` or `e`: a principal's name, or an `env` variable's value.
    Ask(ask::AskPrompt),
    /// A `:` line that asks first (`doctor --fix`, `sync`, `remove`):
    /// `y` runs it.
    ConfirmQuery {
        query: crate::tui::query::Query,
        /// Inside a project, the store it runs on (§15.1).
        store: Option<crate::tui::scope::Store>,
    },
    Secret(SecretPrompt),
    ExecForm(run_form::ExecForm),
    /// Quit while a pack's command runs (§14.6): `y` ends it and quits.
    ConfirmQuit {
        running: String,
    },
    /// `H`: the harness targets ([`App::harnesses`]); `Space` toggles one.
    Harnesses,
    /// `:sync` refused for want of approval (§15.6): what each pack can
    /// do; `y` runs the sync again with `--yes`, expecting those digests.
    ConfirmSync {
        query: crate::tui::query::Query,
        store: Option<crate::tui::scope::Store>,
        results: Vec<crate::engine::ops::sync::SyncResult>,
    },
    /// `U`: the capability diff of the upgrade (§13.7), `y` runs it.
    ConfirmUpgrade {
        results: Vec<crate::engine::ops::upgrade::UpgradeResult>,
    },
    /// The packs of a collection to choose from (§13.1): `Enter` installs
    /// the marked ones ([`App::open_picker`]).
    Picker(picker::Picker),
}

impl Dialog {
    /// What a key does while this overlay is open: it takes every key.
    pub fn action(&self, key: &Key) -> Option<Action> {
        match self {
            // Any key closes the help and error overlays.
            Dialog::Help | Dialog::Error(_) => Some(Action::CloseDialog),
            Dialog::ConfirmUninstall { .. }
            | Dialog::ConfirmQuery { .. }
            | Dialog::ConfirmQuit { .. }
            | Dialog::ConfirmSync { .. }
            | Dialog::ConfirmUpgrade { .. } => confirm::action(key),
            Dialog::ConfirmDeactivate { .. } => confirm::action_or_keep(key),
            Dialog::Harnesses => harnesses::action(key),
            Dialog::Picker(_) => picker::key_for(key).map(Action::Picker),
            Dialog::Secret(_) | Dialog::ExecForm(_) | Dialog::Ask(_) => input_action(key),
        }
    }

    /// The key bar while this overlay is open: the keys [`Dialog::action`]
    /// takes there, not the main screen's (which would type into a form
    /// instead).
    pub fn bar(&self) -> Vec<(&'static str, &'static str)> {
        match self {
            Dialog::Picker(_) => picker::bar(),
            Dialog::Help | Dialog::Error(_) => vec![("any key", "closes")],
            Dialog::ConfirmUninstall { .. }
            | Dialog::ConfirmQuery { .. }
            | Dialog::ConfirmQuit { .. }
            | Dialog::ConfirmSync { .. }
            | Dialog::ConfirmUpgrade { .. } => confirm::BAR.to_vec(),
            Dialog::ConfirmDeactivate { .. } => confirm::BAR_OR_KEEP.to_vec(),
            Dialog::Harnesses => harnesses::BAR.to_vec(),
            Dialog::Secret(_) => secret::BAR.to_vec(),
            Dialog::Ask(_) => ask::BAR.to_vec(),
            Dialog::ExecForm(form) => run_form::bar(form),
        }
    }
}

/// The keys of a text input (the masked secret, the `P` and `e` prompts,
/// the run form): typing, and moving between a form's fields.
fn input_action(key: &Key) -> Option<Action> {
    let modified = key.ctrl || key.alt;
    match key.code {
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
    }
}
