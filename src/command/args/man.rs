//! The clap arguments of `hcpx man`.

/// Print the man page (roff) on stdout
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::MAN)]
pub struct ManArgs {
    #[command(flatten)]
    pub json: super::JsonArg,
}
