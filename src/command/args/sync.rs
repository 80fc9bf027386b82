//! The clap arguments of `hcpx sync`.

/// Make the store hold exactly the packs of a lock file (another machine's hcp.lock); in a project, without LOCKFILE: make .hcp/ and the project's targets match hcp.yaml and hcp.lock
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::SYNC)]
pub struct SyncArgs {
    /// The lock file to follow
    /// Another machine's hcp.lock
    #[arg(value_name = "LOCKFILE", value_hint = clap::ValueHint::FilePath)]
    pub lockfile: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub flags: super::EngineFlags,
    /// Fail (integrity) when a source's digest differs from the lock file's; in a project, also when hcp.lock and hcp.yaml disagree (changes neither file)
    #[arg(long)]
    pub frozen: bool,
    /// Also uninstall packs the lock file does not name
    #[arg(long)]
    pub prune: bool,
    /// Accept replacing an installed pack with one that has more reach, and in a project approve what the packs can do
    #[arg(long)]
    pub yes: bool,
    /// With --yes, install only the content with this digest for this pack (the diff you were shown); repeatable
    #[arg(long, value_name = "PACK_ID=DIGEST", value_parser = super::upgrade::parse_expected, requires = "yes")]
    pub expect: Vec<crate::engine::ops::upgrade::Expected>,
}
