//! The overlays, one module each for those with state of their own, and
//! [`Dialog`]: which one is open. An overlay takes every key while open.

pub mod secret;

pub use secret::SecretPrompt;

/// A modal overlay.
#[derive(Debug)]
pub enum Dialog {
    Help,
    /// An engine error, in the words of §10: code, message, hint.
    Error(crate::engine::error::Error),
    ConfirmUninstall {
        ids: Vec<String>,
    },
    /// `P` or `e`: a principal's name, or an `env` variable's value.
    Ask(crate::tui::ask::AskPrompt),
    /// `:doctor --fix` or `:sync LOCKFILE`: `y` runs it.
    ConfirmQuery {
        query: crate::tui::query::Query,
    },
    Secret(SecretPrompt),
    ExecForm(crate::tui::form::ExecForm),
    /// Quit while a pack's command runs (§14.6): `y` ends it and quits.
    ConfirmQuit {
        running: String,
    },
    /// `H`: the harness targets ([`App::harnesses`]); `Space` toggles one.
    Harnesses,
    /// `U`: the capability diff of the upgrade (§13.7), `y` runs it.
    ConfirmUpgrade {
        results: Vec<crate::engine::ops::upgrade::UpgradeResult>,
    },
    /// The packs of a collection to choose from (§13.1): `Enter` installs
    /// the marked ones ([`App::open_picker`]).
    Picker(crate::tui::picker::Picker),
}
