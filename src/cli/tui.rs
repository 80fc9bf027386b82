//! `hcpx tui`: the interactive terminal UI (`src/tui/`, started through
//! the launcher the binary sets, so this module does not import it). `--catalog` and
//! `--principal` apply as for the headless subcommands; it prints no JSON.
//! Inside a project (HCP.md §15.1) it opens the project's store and the
//! user store beside it (both show, §15.5); `-g` opens the user store
//! alone.

use crate::cli::context::Ctx;
use crate::engine::error::{Error, ErrorCode};
use crate::engine::ops::Engine;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;

pub use crate::command::args::tui::TuiArgs;

pub fn run(_args: &TuiArgs, ctx: &Ctx) -> i32 {
    if ctx.out.json {
        return ctx.fail(
            &Error::usage("the terminal UI is interactive and prints no JSON")
                .hint("use the headless subcommands with --json, e.g. `hcpx availability --json`"),
        );
    }
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return ctx.fail(
            &Error::usage("hcpx tui needs a terminal on stdin and stdout")
                .hint("run the subcommands instead, e.g. `hcpx list`"),
        );
    }
    let (engine, user) = match engines(ctx) {
        Ok(engines) => engines,
        Err(err) => return ctx.fail(&err),
    };
    let Some(launch) = TUI.get() else {
        return ctx.fail(&Error::usage(
            "this binary was built without the terminal UI",
        ));
    };
    let start = TuiStart {
        user,
        principal_arg: ctx.global.principal.clone(),
        catalog_args: ctx
            .global
            .catalogs
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
    };
    match launch(engine, start) {
        Ok(()) => 0,
        Err(err) => ctx.fail(&Error::new(
            ErrorCode::Io,
            format!("the terminal UI stopped: {err}"),
        )),
    }
}

/// The stores the TUI opens: the scope's and, in a project, the user
/// store beside it; a project store that is not ours is not opened, and
/// the TUI shows the user store alone, as `hcpx tui -g` (HCP.md §15.2).
fn engines(ctx: &Ctx) -> crate::engine::error::Result<(Engine, Option<Engine>)> {
    // The terminal belongs to the TUI: waiting for the store lock is logged.
    if ctx.store_refused().is_some() {
        ctx.warn_store_refused();
        return Ok((ctx.user_engine_waiting(Arc::new(log_waiting))?, None));
    }
    let engine = ctx.engine_waiting(Arc::new(log_waiting))?;
    // In a project, the user store too: its packs show beside the
    // project's, and a key on one of them acts there.
    let user = match ctx.project()? {
        Some(_) => Some(ctx.user_engine_waiting(Arc::new(log_waiting))?),
        None => None,
    };
    Ok((engine, user))
}

/// The TUI's way of saying it waits for a store lock: in its log.
fn log_waiting(lock: &Path) {
    tracing::warn!(
        "waiting for the store lock {} (held by another hcpx)",
        lock.display()
    );
}

/// What `hcpx tui` hands the terminal UI besides the engine: inside a
/// project the user store's engine, and the flags the user gave, for the
/// commands the TUI shows.
pub struct TuiStart {
    pub user: Option<Engine>,
    pub principal_arg: Option<String>,
    pub catalog_args: Vec<String>,
}

/// Starts the terminal UI. The binary gives it ([`set_launcher`]), so the
/// CLI never imports the TUI (`src/binary.rs` joins the two).
pub type TuiLauncher = fn(Engine, TuiStart) -> std::io::Result<()>;

static TUI: std::sync::OnceLock<TuiLauncher> = std::sync::OnceLock::new();

/// Sets how `hcpx tui` starts the terminal UI (once, before `cli::main`).
pub fn set_launcher(launch: TuiLauncher) {
    let _ = TUI.set(launch);
}
