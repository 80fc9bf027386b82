//! The clap arguments of `hcpx connect`.

/// Establish a pack's Binding: check env variables, take a secret, run the probe
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::CONNECT)]
pub struct ConnectArgs {
    /// The activated pack to connect
    #[arg(value_name = "PACK_ID", add = crate::command::complete::pack_ids())]
    pub pack: String,

    /// Read the secret of a `secret` Binding from stdin instead of prompting
    #[arg(long)]
    pub secret_stdin: bool,
    #[command(flatten)]
    pub flags: super::EngineFlags,
}
