//! The clap arguments of `hcpx why`.

/// Explain why a pack or command is not executable, and the command that fixes it
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::WHY)]
pub struct WhyArgs {
    /// The pack to explain
    #[arg(value_name = "PACK_ID", add = crate::command::complete::pack_ids())]
    pub pack: String,
    /// One of its commands (verb_key); without it, the pack as a whole
    #[arg(value_name = "VERB", add = crate::command::complete::verbs())]
    pub verb: Option<String>,
    #[command(flatten)]
    pub flags: super::EngineFlags,
}
