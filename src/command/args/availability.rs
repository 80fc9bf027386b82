//! The clap arguments of `hcpx availability`.

/// Report the availability flags of packs and whether each command is executable
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::AVAILABILITY)]
pub struct AvailabilityArgs {
    /// Only this pack (default: every installed and catalog pack)
    #[arg(value_name = "PACK_ID", add = crate::command::complete::pack_ids())]
    pub pack: Option<String>,
    #[command(flatten)]
    pub flags: super::EngineFlags,
}
