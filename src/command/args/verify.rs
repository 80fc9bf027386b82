//! The clap arguments of `hcpx verify`.

/// Check installed packs against the digests in the store's hcp.lock
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::VERIFY)]
pub struct VerifyArgs {
    /// The packs to check (default: every installed and locked pack)
    /// Only these packs (default: every installed and locked pack)
    #[arg(value_name = "PACK_ID", add = crate::command::complete::pack_ids())]
    pub packs: Vec<String>,
    #[command(flatten)]
    pub json: super::JsonArg,
}
