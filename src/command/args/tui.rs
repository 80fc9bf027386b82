//! The clap arguments of `hcpx tui`.

/// Browse, install, activate, connect and run packs in an interactive terminal UI
#[derive(Debug, Default, clap::Args)]
#[command(after_help = crate::command::help::TUI)]
pub struct TuiArgs {
    #[command(flatten)]
    pub principal: super::PrincipalArg,
    #[command(flatten)]
    pub catalog: super::CatalogArg,
}
