//! The clap arguments of `hcpx show`.

/// Show everything about one pack: manifest, commands and their arguments, Binding, where it is installed
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::SHOW)]
pub struct ShowArgs {
    /// The pack to show (installed or in a catalog), e.g. demo.clock
    #[arg(value_name = "PACK_ID", add = crate::command::complete::pack_ids())]
    pub pack: String,
    #[command(flatten)]
    pub flags: super::EngineFlags,
}
