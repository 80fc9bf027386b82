//! The clap arguments of `hcpx remove` (HCP.md §15.3).

/// Deactivate and uninstall packs; in a project, also drop them from hcp.yaml and hcp.lock
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::REMOVE)]
pub struct RemoveArgs {
    /// The packs to remove
    #[arg(value_name = "PACK_ID", required = true, add = crate::command::complete::pack_ids())]
    pub packs: Vec<String>,
    #[command(flatten)]
    pub json: super::JsonArg,
}
