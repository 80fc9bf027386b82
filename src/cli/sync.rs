//! `hcpx sync [LOCKFILE] [--frozen] [--prune] [--yes]` (HCP.md §13.8,
//! §15.3, §15.6), run by the command layer. What only a terminal does is
//! here: when the sync needs consent (a project's packs not approved on
//! this machine whose diff escalates, an escalating replacement) and stdin
//! and stderr are terminals (and `--json` is not given), the diffs are
//! shown on stderr and a yes/no question asked (default no); a yes syncs
//! exactly the packs shown. Otherwise such a sync needs `--yes`.

use crate::cli::context::Ctx;
use crate::cli::report;
use crate::command::args::Command;
use crate::command::execute::{Confirm, Interaction};
use std::io::IsTerminal;

pub fn run(command: &Command, ctx: &Ctx) -> i32 {
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let io = Interaction {
        on_fetch: crate::cli::install::fetch_progress(),
        confirm: (interactive && !ctx.out.json).then(question),
        ..Interaction::default()
    };
    report::command_with(command, ctx, io)
}

/// The diffs on stderr, then `Install these packs? [y/N]`.
fn question() -> Confirm<'static> {
    Box::new(|words: &str| {
        eprint!("{words}");
        inquire::Confirm::new("Install these packs with what they can do?")
            .with_default(false)
            .prompt()
            .unwrap_or(false)
    })
}
