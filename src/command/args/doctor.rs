//! The clap arguments of `hcpx doctor`.

/// Check the store, its permissions and lock, the catalogs, and the programs installed packs need
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::DOCTOR)]
pub struct DoctorArgs {
    /// Repair, under the store lock, what an interrupted change left behind
    /// (Skill copies, state entries, secrets, .tmp leftovers); record the
    /// installed packs hcp.lock does not list; set a corrupt hcp.lock aside
    /// and write a new one
    #[arg(long)]
    pub fix: bool,
    /// With --fix, adopt a project's .hcp/ made by an earlier hcpx release
    /// (mode 0700, yours, no links inside) without asking
    #[arg(long, requires = "fix")]
    pub yes: bool,
    #[command(flatten)]
    pub json: super::JsonArg,
    #[command(flatten)]
    pub catalog: super::CatalogArg,
}
