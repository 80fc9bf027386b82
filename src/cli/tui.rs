//! `hcpx tui`: the interactive terminal UI (`src/tui/`). `--catalog` and
//! `--principal` apply as for the headless subcommands; it prints no JSON.

use crate::cli::context::Ctx;
use crate::engine::error::{Error, ErrorCode};
use crate::engine::ops::EngineOptions;
use crate::tui::theme::Theme;
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
    // The terminal belongs to the TUI: waiting for the store lock is logged.
    let options = ctx.lock_wait(Arc::new(|lock: &Path| {
        tracing::warn!(
            "waiting for the store lock {} (held by another hcpx)",
            lock.display()
        );
    }));
    let engine = match options.and_then(|lock_wait| {
        ctx.engine_with(EngineOptions {
            lock_wait,
            diagnose: false,
        })
    }) {
        Ok(engine) => engine,
        Err(err) => return ctx.fail(&err),
    };
    {
        let engine = &engine;
        let mut config = crate::tui::Config::new(engine.principal());
        config.principal_arg = ctx.global.principal.clone();
        config.catalog_args = ctx
            .global
            .catalogs
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        config.theme = Theme::from_env();
        // A signal that ends hcpx (§14.6) leaves the terminal as it found it.
        crate::cli::signals::before_exit(crate::tui::terminal::restore);
        match crate::tui::run(engine.clone(), config) {
            Ok(()) => 0,
            Err(err) => ctx.fail(&Error::new(
                ErrorCode::Io,
                format!("the terminal UI stopped: {err}"),
            )),
        }
    }
}
