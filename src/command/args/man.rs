//! The clap arguments of `hcpx man`.

/// Print the man page (roff) of hcpx, or of one subcommand, on stdout
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::MAN)]
pub struct ManArgs {
    /// A subcommand (`exec`, `catalog add`): its page, hcpx-exec(1), which
    /// the page of hcpx names (default: the page of hcpx)
    #[arg(value_name = "SUBCOMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub json: super::JsonArg,
}
