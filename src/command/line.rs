//! A command line given as words (the TUI's `:` line, HCP.md §11.5) parsed
//! with THE clap tree of `hcpx` (`try_parse_from`), so it takes every
//! subcommand and flag the CLI takes, with the CLI's own usage errors; the
//! flags before and after the subcommand merged as the CLI merges them.

use crate::command::args::{Cli, Command};
use crate::engine::store::principal::Principal;
use clap::Parser;
use clap::error::ErrorKind;
use std::path::PathBuf;

/// A parsed line: the subcommand and the flags it runs with.
#[derive(Debug)]
pub struct Invocation {
    pub command: Command,
    /// `--json`: show the document rather than the words.
    pub json: bool,
    /// `--principal NAME`, checked (§9.1).
    pub principal: Option<Principal>,
    /// `--catalog DIR`, each (§11.6).
    pub catalogs: Vec<PathBuf>,
    /// `-g`/`--global` or `--project` (§15.1).
    pub scope: crate::engine::project::ScopeFlag,
}

/// Why a line does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// `--help` or `--version`: the text clap shows.
    Help(String),
    /// A usage error, in clap's words (its first line).
    Usage(String),
}

/// Parses `words` (without the program name) as `hcpx` does.
pub fn parse(words: &[String]) -> Result<Invocation, LineError> {
    let argv = std::iter::once("hcpx").chain(words.iter().map(String::as_str));
    let cli = Cli::try_parse_from(argv).map_err(|err| match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            LineError::Help(err.render().to_string())
        }
        ErrorKind::InvalidSubcommand => {
            let first = first_line(&err.render().to_string());
            LineError::Usage(match closest_subcommand(&err) {
                Some(tip) => format!("{first}; {tip}"),
                None => format!("{first}; one of {}", subcommands(&[]).join(", ")),
            })
        }
        _ => LineError::Usage(first_line(&err.render().to_string())),
    })?;
    let Some(command) = cli.command else {
        return Err(LineError::Usage(
            "type an hcpx subcommand (Tab completes)".into(),
        ));
    };
    let global = command.merge_flags(cli.global);
    let principal = match &global.principal {
        Some(name) => Some(Principal::parse(name).map_err(|e| LineError::Usage(e.message))?),
        None => None,
    };
    Ok(Invocation {
        command,
        json: global.json,
        principal,
        scope: global.scope_flag(),
        catalogs: global.catalogs,
    })
}

/// clap's first line, without its `error: `.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    line.trim_start_matches("error: ").to_string()
}

/// The subcommand names of the tree (`help` aside), and of `sub`'s own
/// subcommands when given, in the tree's order: what `Tab` offers.
pub fn subcommands(path: &[&str]) -> Vec<String> {
    use clap::CommandFactory;
    let root = Cli::command();
    let mut at = &root;
    for name in path {
        match at.find_subcommand(name) {
            Some(sub) => at = sub,
            None => return Vec::new(),
        }
    }
    at.get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| n != "help")
        .collect()
}

/// The long flags of the subcommand at `path`, as typed (the root's
/// flags go before the subcommand).
pub fn flags(path: &[&str]) -> Vec<String> {
    use clap::CommandFactory;
    let root = Cli::command();
    let mut at = &root;
    let mut out: Vec<String> = Vec::new();
    let mut push = |cmd: &clap::Command| {
        for arg in cmd.get_arguments() {
            if let Some(long) = arg.get_long() {
                let flag = format!("--{long}");
                if !out.contains(&flag) {
                    out.push(flag);
                }
            }
        }
    };
    for name in path {
        match at.find_subcommand(name) {
            Some(sub) => at = sub,
            None => break,
        }
    }
    push(at);
    out
}

/// clap's "unrecognized subcommand" error with its tip replaced by the
/// closest subcommand by edit distance, as cargo and git say it ("did you
/// mean `install`?"): clap's own tip lists every name alike by Jaro, the
/// closest last (`instal` → lint, list, init, uninstall, install). Any
/// other error is returned as it is.
pub fn with_closest_subcommand(err: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(word)) = err.get(ContextKind::InvalidSubcommand).cloned() else {
        return err;
    };
    let mut better = clap::Error::new(ErrorKind::InvalidSubcommand).with_cmd(&{
        use clap::CommandFactory;
        Cli::command()
    });
    better.insert(ContextKind::InvalidSubcommand, ContextValue::String(word));
    if let Some(tip) = closest_subcommand(&err) {
        better.insert(
            ContextKind::Suggested,
            ContextValue::StyledStrs(vec![tip.into()]),
        );
    }
    if let Some(usage) = err.get(ContextKind::Usage).cloned() {
        better.insert(ContextKind::Usage, usage);
    }
    better
}

/// "did you mean `install`?" for an unrecognized subcommand: the closest
/// of the names clap found alike (subcommands and their aliases), fewest
/// edits first.
pub fn closest_subcommand(err: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(word)) = err.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let candidates: Vec<&str> = match err.get(ContextKind::SuggestedSubcommand) {
        Some(ContextValue::Strings(names)) => names.iter().map(String::as_str).collect(),
        Some(ContextValue::String(name)) => vec![name.as_str()],
        _ => Vec::new(),
    };
    let closest = crate::engine::pack::suggest::closest(word, candidates.iter().copied())
        .or_else(|| candidates.last().copied())?;
    Some(format!("did you mean `{closest}`?"))
}
