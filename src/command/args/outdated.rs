//! The clap arguments of `hcpx outdated`.

/// List installed packs whose source has a newer version or new content
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::OUTDATED)]
pub struct OutdatedArgs {
    #[command(flatten)]
    pub json: super::JsonArg,
    #[command(flatten)]
    pub catalog: super::CatalogArg,
    /// Do not bring git catalogs up to date first, and leave out packs from
    /// git sources (no network)
    #[arg(long)]
    pub offline: bool,
}
