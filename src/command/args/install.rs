//! The clap arguments of `hcpx install`.

/// Install packs from directories, catalogs (by id), git repositories or GitHub
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::INSTALL)]
pub struct InstallArgs {
    /// A pack or collection directory, the id of a pack in a catalog, OWNER/REPO[/SUBDIR][#REF] or a GitHub URL, git+URL[//SUBDIR][#REF] or github:OWNER/REPO[/SUBDIR][#REF]
    #[arg(value_name = "SOURCE", required = true, add = crate::command::complete::pack_ids_or_dirs())]
    pub sources: Vec<String>,

    /// List the packs of each source, install nothing
    #[arg(long, conflicts_with_all = ["skill", "all"])]
    pub list: bool,

    /// Take this pack of a collection, by pack id or Skill name (repeatable)
    #[arg(long, value_name = "ID", conflicts_with = "all")]
    pub skill: Vec<String>,

    /// Take every pack of a collection that lints; the others are reported
    #[arg(long)]
    pub all: bool,

    /// Replace the installed copy even when it is the same version, whatever it can do
    #[arg(long)]
    pub force: bool,

    /// Replace an installed pack even when the new one can do more (a new command, program, host or executable file)
    #[arg(long)]
    pub yes: bool,
    #[command(flatten)]
    pub flags: super::EngineFlags,
}
