//! The interactive terminal UI, `hcpx tui` (and `hcpx` alone on a
//! terminal): a pack browser with a fuzzy filter, the availability matrix
//! (§11.2), lint results (§10.4), details with the Skill (§5), and every
//! lifecycle stage (§11.1) on a key.
//!
//! The TUI holds no lifecycle logic: every action runs, in a worker, the
//! engine function the matching `hcpx` subcommand calls, and shows the
//! equivalent command; the lifecycle keys and the `:` line run the command
//! layer's requests (`command::execute_with`) and say their outcomes in
//! the CLI's words. Its shape:
//!
//! - Leaves every part may use: [`keys`] (the one key table: each [`keys::Cmd`]
//!   and its keys, help and key bar words), [`action`] (the one `Action`
//!   enum: a key's `Cmd`, text input, mouse, clock, worker answers),
//!   [`pane`], [`job`] (what a worker is asked and answers), [`config`],
//!   [`layout`] (where each pane goes), [`targets`], [`text`], [`theme`],
//!   [`scope`] (inside a project, HCP.md §15: which store holds each
//!   row, where installs go, the engines of both stores).
//! - [`dialog`]: one module per overlay (picker, harnesses, run form,
//!   secret, ask, upgrade, help, confirm), each with its state, its keys
//!   and key bar, and its drawing; `Dialog` is which one is open.
//! - The components `App` holds, each owning its state: [`packs`] (the
//!   browser), [`matrix`] (the command selected), [`focus`], [`textpanes`]
//!   and [`search`], [`cmdline`], [`status`] (the status line's message)
//!   and [`log`], [`loads`] (the store's reads), [`work`] (the job in
//!   flight), [`runs`] (rerun, remembered values, the Output pane's
//!   content), [`marks`], [`session`].
//! - [`app`]: the state and `update`; [`keymap`]: terminal events to
//!   actions; [`keyqueue`]: keys that wait for the selected pack's read;
//!   [`worker`]: jobs off the loop; [`query`]: the `:` line's requests,
//!   and how an answer of the command layer is said.
//! - [`files`]: a pack's bundled files for Details, read in the worker.
//! - [`runner`]: the `select!` loop, coalesced redraws, the headless loop.
//! - [`ui`] and [`panes`]: drawing the main screen, one file per pane.
//! - [`terminal`]: setup and restore (also on panic); [`logging`]: to a file.
//!
//! No file of the TUI uses itself through others (a test, `layering`,
//! finds any import circle): the leaves import nothing above them, the
//! overlays only leaves, the state (`app/mod.rs`) no drawing, the drawing
//! no `update`.

pub mod action;
pub mod app;
pub mod cmdline;
pub mod config;
pub mod dialog;
pub mod files;
pub mod fix;
pub mod focus;
pub mod job;
pub mod keymap;
pub mod keyqueue;
pub mod keys;
#[cfg(test)]
mod layering;
pub mod layout;
pub mod loads;
pub mod log;
pub mod logging;
pub mod marks;
pub mod matrix;
pub mod packs;
pub mod pane;
pub mod panes;
pub mod query;
pub mod runner;
pub mod runs;
pub mod scope;
pub mod search;
pub mod session;
pub mod status;
pub mod targets;
pub mod terminal;
pub mod text;
pub mod textpanes;
pub mod theme;
pub mod ui;
pub mod work;
pub mod worker;

pub use app::App;
pub use config::Config;
pub use runner::{Runner, run_headless};

use crate::engine::ops::Engine;
use std::time::Duration;

/// Runs the TUI on the process's terminal until the user quits. The
/// terminal is restored on every way out. Inside a project `engine` is
/// the project's store and `user` the user store's (both show, §15.5).
pub fn run(engine: Engine, user: Option<Engine>, config: Config) -> std::io::Result<()> {
    let _log = logging::init();
    tracing::info!(principal = %config.principal, "hcpx tui starts");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    terminal::install_panic_hook();
    let guard = terminal::Guard;
    let user_home = user
        .as_ref()
        .unwrap_or(&engine)
        .store()
        .root()
        .to_path_buf();
    let terminal = terminal::enter()?;
    let mut runner = Runner::new(engine, App::new(config), terminal);
    if let Some(user) = user {
        runner = runner.with_user_store(user);
    }
    terminal::set_title(&runner.app.scopes().window_title(&user_home));
    let result = rt.block_on(runner.run(crossterm::event::EventStream::new()));
    // However the loop ended, no command it started outlives it (§14.6);
    // quitting while one runs has already asked.
    let ended = crate::engine::exec::process::end_all();
    if ended > 0 {
        tracing::info!(groups = ended, "ended the commands still running");
    }
    drop(guard);
    // A command still running is not waited for.
    rt.shutdown_timeout(Duration::from_millis(200));
    tracing::info!("hcpx tui quits");
    match runner.app.fatal.take() {
        Some(fatal) => Err(std::io::Error::other(fatal)),
        None => result,
    }
}
