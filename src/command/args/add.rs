//! The clap arguments of `hcpx add` (HCP.md §15.3).

/// Install and activate packs; in a project, also record them in hcp.yaml and hcp.lock and place them in the project's targets
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::ADD)]
pub struct AddArgs {
    /// A pack or collection directory, the id of a pack in a catalog, OWNER/REPO[/SUBDIR][#REF] or a GitHub URL, git+URL[//SUBDIR][#REF] or github:OWNER/REPO[/SUBDIR][#REF]
    #[arg(value_name = "SOURCE", required = true, add = crate::command::complete::pack_ids_or_dirs())]
    pub sources: Vec<String>,

    /// Take this pack of a collection, by pack id or Skill name (repeatable)
    #[arg(long, value_name = "ID", conflicts_with = "all")]
    pub skill: Vec<String>,

    /// Take every pack of a collection that lints; the others are reported
    #[arg(long)]
    pub all: bool,

    /// Replace an installed pack even when the new one can do more (a new command, program, host or executable file)
    #[arg(long)]
    pub yes: bool,
    #[command(flatten)]
    pub flags: super::EngineFlags,
}
