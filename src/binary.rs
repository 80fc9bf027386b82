//! What the two binaries (`hcpx` and `hcp`, §11.5) run: the CLI, with the
//! terminal UI as its `tui` subcommand and
//! the MCP server as its `mcp` subcommand. The one place that knows both
//! front-ends, so neither imports the other.

use crate::cli::tui::TuiStart;
use crate::engine::ops::Engine;
use std::process::ExitCode;

pub fn main() -> ExitCode {
    let _ = color_eyre::install();
    crate::cli::tui::set_launcher(launch_tui);
    crate::cli::mcp::set_launcher(crate::mcp::serve);
    crate::cli::main()
}

/// `hcpx tui`: the terminal UI on `engine` (and inside a project the
/// user store's beside it), for the principal and catalogs the user named.
fn launch_tui(engine: Engine, start: TuiStart) -> std::io::Result<()> {
    let mut config = crate::tui::Config::new(engine.principal());
    config.principal_arg = start.principal_arg;
    config.catalog_args = start.catalog_args;
    config.theme = crate::tui::theme::Theme::from_env();
    // A signal that ends hcpx (§14.6) leaves the terminal as it found it.
    crate::cli::signals::before_exit(crate::tui::terminal::restore);
    crate::tui::run(engine, start.user, config)
}
