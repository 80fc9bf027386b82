//! `hcpx install SOURCE... [--list | --skill ID... | --all] [--force]`
//! (11-lifecycle.md §11.1, HCP.md §11.1, §11.6, §13.1), run by the command
//! layer. What only a terminal does is here: while a git source is
//! fetched, a line on stderr says so when stderr is a terminal; a
//! collection of several packs without `--skill` or `--all` opens a
//! multi-select with a filter when stdin and stderr are terminals and
//! `--json` is not given, and the engine is told the chosen ids.
//!
//! Output (the command layer's `Outcome`): one source that installs one
//! pack prints that pack's result as before (`{"ok": true, "pack_id", ...,
//! "source"}`, or the error); one `--list` prints `{"ok": true, "source",
//! "packs"}`; anything else prints `{"ok": bool, "results": [...],
//! "error"?}` with one entry per pack (or per source that failed as a
//! whole, or per listing), the first failure as `error` and as the exit
//! code.

use crate::cli::context::Ctx;
use crate::cli::output::one_line;
use crate::cli::report;
use crate::command::args::Command;
use crate::command::execute::Interaction;
use crate::command::text::install::listed_line;
use crate::engine::ops::FetchObserver;
use crate::engine::ops::sources::{Chooser, ListedPack};
use std::io::IsTerminal;

pub use crate::command::args::install::InstallArgs;

pub fn run(command: &Command, ctx: &Ctx) -> i32 {
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let io = Interaction {
        on_fetch: fetch_progress(),
        chooser: (interactive && !ctx.out.json).then(picker),
        ..Interaction::default()
    };
    report::command_with(command, ctx, io)
}

/// The multi-select of a collection's packs: type to filter, space to mark,
/// enter to install the marked ones.
fn picker() -> Chooser {
    std::sync::Arc::new(|listed: &[ListedPack]| {
        let lines: Vec<String> = listed.iter().map(listed_line).collect();
        let chosen = inquire::MultiSelect::new(
            "Which packs? (type to filter, space to mark)",
            lines.clone(),
        )
        .with_page_size(15)
        .prompt()
        .ok()?;
        Some(
            chosen
                .iter()
                .filter_map(|line| lines.iter().position(|l| l == line))
                .map(|at| listed[at].pack_id.clone())
                .collect(),
        )
    })
}

/// A progress line on stderr while a git source is fetched, when stderr is
/// a terminal.
pub fn fetch_progress() -> Option<FetchObserver> {
    std::io::stderr().is_terminal().then(|| {
        std::sync::Arc::new(|source: &str| eprintln!("hcpx: fetching {}", one_line(source)))
            as FetchObserver
    })
}
