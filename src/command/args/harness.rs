//! The clap arguments of `hcpx harness`.

use super::JsonArg;

/// Place the Skills of activated packs where agent harnesses read them
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::HARNESS)]
pub struct HarnessArgs {
    #[command(subcommand)]
    pub command: HarnessCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum HarnessCommand {
    /// Every harness target: its folder, whether it is detected here and enabled
    List {
        #[command(flatten)]
        json: JsonArg,
    },
    /// How each activated pack's Skill stands in each enabled target (exit 1 unless all are placed)
    Status {
        /// Only this pack's Skill
        #[arg(value_name = "PACK_ID")]
        pack: Option<String>,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Start placing Skills in these targets (agents, claude-code, codex, cursor, copilot, opencode, gemini, windsurf)
    Enable {
        /// Targets to enable: agents, claude-code, codex, cursor, copilot, opencode, gemini, windsurf
        #[arg(
            value_name = "TARGET",
            required_unless_present = "detected",
            add = crate::command::complete::harness_targets()
        )]
        targets: Vec<String>,
        /// Enable every target detected on this machine
        #[arg(long, conflicts_with = "targets")]
        detected: bool,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Stop placing Skills in these targets and remove the copies hcpx placed there
    Disable {
        /// Targets to disable
        #[arg(
            value_name = "TARGET",
            required = true,
            add = crate::command::complete::harness_targets()
        )]
        targets: Vec<String>,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Repair missing, outdated and stale copies in every enabled target (exit 1 when anything is left)
    Sync {
        /// Also replace copies someone edited (never folders hcpx did not create)
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        json: JsonArg,
    },
}

impl HarnessArgs {
    /// The `--json` given after the harness subcommand.
    pub fn json(&self) -> &JsonArg {
        match &self.command {
            HarnessCommand::List { json }
            | HarnessCommand::Status { json, .. }
            | HarnessCommand::Enable { json, .. }
            | HarnessCommand::Disable { json, .. }
            | HarnessCommand::Sync { json, .. } => json,
        }
    }
}
