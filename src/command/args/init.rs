//! The clap arguments of `hcpx init` (HCP.md §15.3).

/// Make a folder a project: write its hcp.yaml and .hcp/ (the project's store, ignored by git)
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::INIT)]
pub struct InitArgs {
    /// The project folder (default: the working directory)
    #[arg(value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub dir: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub json: super::JsonArg,
}
