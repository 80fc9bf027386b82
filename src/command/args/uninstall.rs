//! The clap arguments of `hcpx uninstall`.

/// Remove installed packs, their Skill copies and their stored secrets
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::UNINSTALL)]
pub struct UninstallArgs {
    /// The installed packs to remove
    #[arg(value_name = "PACK_ID", required = true, add = crate::command::complete::pack_ids())]
    pub packs: Vec<String>,
    #[command(flatten)]
    pub flags: super::EngineFlags,
}
