//! The clap arguments of `hcpx context` (HCP.md §17.1).

use super::JsonArg;

/// What every harness lists of your Skills at the start of a session, and what each costs
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::CONTEXT)]
pub struct ContextArgs {
    /// Only this harness, enabled or not (repeatable): agents, claude-code, codex, cursor, copilot, opencode, gemini, windsurf
    #[arg(
        long = "harness",
        value_name = "TARGET",
        add = crate::command::complete::harness_targets()
    )]
    pub harnesses: Vec<String>,
    /// The model's context window in tokens (default 200000)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub context_tokens: Option<u64>,
    /// Characters a token for Claude Code's budget (default 4; 3 for models other than Claude 3.x, Opus/Sonnet 4.0–4.6 and Haiku 4.5)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub chars_per_token: Option<u64>,
    /// Exit 1 when a harness uses more than P percent of its budget (for CI)
    #[arg(long, value_name = "P", value_parser = percent)]
    pub max_percent: Option<f64>,
    #[command(flatten)]
    pub json: JsonArg,
}

/// A percentage: a number, 0 or more.
fn percent(word: &str) -> Result<f64, String> {
    match word.parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
        _ => Err(format!(
            "`{word}` is not a percentage (a number, 0 or more)"
        )),
    }
}
