//! The clap arguments of `hcpx activate`.

/// Activate installed packs: their commands become loadable and their Skills are copied to the store
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::ACTIVATE)]
pub struct ActivateArgs {
    /// The installed packs to activate
    #[arg(required = true, value_name = "PACK_ID", add = crate::command::complete::pack_ids())]
    pub packs: Vec<String>,
    #[command(flatten)]
    pub json: super::JsonArg,
    #[command(flatten)]
    pub catalog: super::CatalogArg,
}
