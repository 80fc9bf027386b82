//! The clap arguments of `hcpx lint`.

use std::path::PathBuf;

/// Check pack directories against the HCP rules, without changing anything
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::LINT)]
pub struct LintArgs {
    /// Pack directories to lint
    #[arg(required = true, value_name = "PATH", value_hint = clap::ValueHint::DirPath)]
    pub paths: Vec<PathBuf>,

    /// Fail (exit 1) on warnings too
    #[arg(long)]
    pub deny_warnings: bool,
    #[command(flatten)]
    pub json: super::JsonArg,
}
