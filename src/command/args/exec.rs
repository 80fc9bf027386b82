//! The clap arguments of `hcpx exec`.

/// Run a command of an activated pack (`hcpx exec PACK_ID VERB --help` shows its arguments)
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::EXEC)]
pub struct ExecArgs {
    /// The activated pack whose command runs
    #[arg(value_name = "PACK_ID", add = crate::command::complete::pack_ids())]
    pub pack: String,

    /// The command (verb_key) to run, e.g. now; `hcpx show PACK_ID` lists them
    #[arg(value_name = "VERB", add = crate::command::complete::verbs())]
    pub verb: String,

    /// The command's arguments as name=value words, after `--`
    #[arg(last = true, value_name = "K=V")]
    pub words: Vec<String>,
    #[command(flatten)]
    pub flags: super::EngineFlags,
}
