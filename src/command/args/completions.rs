//! The clap arguments of `hcpx completions`.

/// Print the shell code that completes hcpx: subcommands, flags, pack ids and verbs
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::COMPLETIONS)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
    #[command(flatten)]
    pub json: super::JsonArg,
}
