//! The one command layer between the engine and every front-end (HCP.md
//! §10, §11.4, §11.5), after cargo's `commands/*.rs` → `ops::*`:
//!
//! - `args`: the clap tree both the CLI and the TUI's `:` line parse with
//!   (`try_parse_from`), so both take every subcommand and flag;
//! - `request`: a parsed [`Request`], built from that tree;
//! - `execute`: the engine call that answers it, an [`Outcome`];
//! - `outcome`: each outcome's one `Serialize` (the `--json` document,
//!   the engine's or one of `docs`) and one `Display` (the words, written
//!   by `text`, styled by `style`);
//! - `line`: words (the TUI's `:` line) parsed with that tree;
//! - `workspace`: the stores of one run (project, user store, flags),
//!   which one holds a pack, and a request run on its store or both;
//! - `help`, `complete`: the help words and the completers of the tree's
//!   arguments ([`complete_if_asked`] answers a shell with both).
//!
//! It may use clap; it never reads or draws the terminal, and it never
//! prints: the front-ends do.

pub mod args;
pub mod both;
pub mod complete;
pub mod docs;
pub mod execute;
pub mod help;
pub mod line;
pub mod mcp_config;
pub mod outcome;
pub mod request;
pub mod style;
pub mod text;
pub mod workspace;

pub use execute::execute;
pub use outcome::Outcome;
pub use request::Request;

/// Answers a shell completion request ([`complete::VAR`]) with the clap
/// tree of [`args`] and the completers of [`complete`], and exits, if this
/// run is one.
pub fn complete_if_asked() {
    complete::remember_shell();
    clap_complete::CompleteEnv::with_factory(|| {
        use clap::CommandFactory;
        args::Cli::command()
    })
    .var(complete::VAR)
    .complete();
}
