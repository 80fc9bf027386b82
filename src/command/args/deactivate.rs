//! The clap arguments of `hcpx deactivate`.

/// Deactivate packs: drops activation, connection and the Skill copy
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::DEACTIVATE)]
pub struct DeactivateArgs {
    /// The packs to deactivate
    #[arg(required = true, value_name = "PACK_ID", add = crate::command::complete::pack_ids())]
    pub packs: Vec<String>,
    #[command(flatten)]
    pub json: super::JsonArg,
    #[command(flatten)]
    pub catalog: super::CatalogArg,
}
