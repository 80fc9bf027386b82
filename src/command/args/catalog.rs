//! The clap arguments of `hcpx catalog`.

/// Manage the catalogs (folders or git repositories of packs) in config.yaml
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::CATALOG)]
pub struct CatalogArgs {
    #[command(subcommand)]
    pub command: CatalogCommand,
    /// Print exactly one JSON document on stdout, also on failure
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum CatalogCommand {
    /// Add a catalog: a folder, git+URL[//SUBDIR][#REF] or github:OWNER/REPO[/SUBDIR][#REF] (fetched now)
    Add {
        /// A folder, git+URL[//SUBDIR][#REF] or github:OWNER/REPO[/SUBDIR][#REF]
        #[arg(value_name = "SOURCE")]
        source: String,
    },
    /// Remove a catalog (and the local copy of a git one)
    Remove {
        /// The catalog as `hcpx catalog list` shows it
        #[arg(value_name = "SOURCE")]
        source: String,
    },
    /// List the catalogs
    List,
    /// Fetch every git catalog again
    Update,
}
