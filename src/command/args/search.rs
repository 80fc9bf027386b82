//! The clap arguments of `hcpx search` (HCP.md §11.6).

/// Find packs in the catalogs (and the collections they hold) by id, name or description
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::SEARCH)]
pub struct SearchArgs {
    /// Words that must all appear in a pack's id, name or description (case aside)
    #[arg(value_name = "WORD", required = true)]
    pub words: Vec<String>,
    #[command(flatten)]
    pub json: super::JsonArg,
    #[command(flatten)]
    pub catalog: super::CatalogArg,
}
