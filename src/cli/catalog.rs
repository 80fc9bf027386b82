//! `hcpx catalog add|remove|list|update` (HCP.md §13.2), run by the command
//! layer; what only a terminal does is here: `catalog add` of a git
//! source says on stderr that it fetches, when stderr is a terminal.

use crate::cli::context::Ctx;
use crate::cli::install::fetch_progress;
use crate::cli::report;
use crate::command::args::Command;
use crate::command::execute::Interaction;

pub use crate::command::args::catalog::{CatalogArgs, CatalogCommand};

pub fn run(command: &Command, ctx: &Ctx) -> i32 {
    let io = Interaction {
        on_fetch: fetch_progress(),
        ..Interaction::default()
    };
    report::command_with(command, ctx, io)
}
