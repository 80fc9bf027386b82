//! The clap arguments of `hcpx list`.

/// List installed and catalog packs with their status
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::LIST)]
pub struct ListArgs {
    #[command(flatten)]
    pub flags: super::EngineFlags,
}
