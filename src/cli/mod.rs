//! The headless front-end: clap definitions, one file per subcommand, each
//! turning arguments into an engine call and printing the result as text or
//! as the `--json` documents of HCP.md §10. No lifecycle logic lives here.

pub mod catalog;
pub mod connect;
pub mod context;
pub mod docs;
pub mod doctor;
pub mod exec;
pub mod grant;
pub mod install;
pub mod lint;
pub mod outdated;
pub mod output;
pub mod signals;
pub mod status;
pub mod sync;
pub mod toggle;
pub mod tui;
pub mod uninstall;
pub mod upgrade;
pub mod verify;

use clap::{Parser, Subcommand};
use output::Output;
use std::process::ExitCode;

/// Pack manager for the Harness Context Protocol.
#[derive(Debug, Parser)]
#[command(name = "hcpx", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Flags every subcommand accepts.
#[derive(Debug, Clone, clap::Args)]
pub struct GlobalArgs {
    /// Print exactly one JSON document on stdout, also on failure (§10.1)
    #[arg(long, global = true)]
    pub json: bool,

    /// Act on behalf of this principal (default: $HCP_PRINCIPAL, else `user`)
    #[arg(long, global = true, value_name = "NAME")]
    pub principal: Option<String>,

    /// Also search this catalog folder for packs (repeatable; §11.6)
    #[arg(long = "catalog", global = true, value_name = "DIR")]
    pub catalogs: Vec<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Lint(lint::LintArgs),
    Install(install::InstallArgs),
    Activate(toggle::ActivateArgs),
    Connect(connect::ConnectArgs),
    Exec(exec::ExecArgs),
    Deactivate(toggle::DeactivateArgs),
    Uninstall(uninstall::UninstallArgs),
    List(status::ListArgs),
    Availability(status::AvailabilityArgs),
    Why(status::WhyArgs),
    /// Give a principal a capability (pack.install, pack.connect, verb.exec.read, verb.exec.write or *), optionally scoped as CAPABILITY:PACK_ID
    Grant(grant::GrantArgs),
    /// Take a grant away from a principal
    Revoke(grant::GrantArgs),
    Tui(tui::TuiArgs),
    Doctor(doctor::DoctorArgs),
    Verify(verify::VerifyArgs),
    Catalog(catalog::CatalogArgs),
    Outdated(outdated::OutdatedArgs),
    Upgrade(upgrade::UpgradeArgs),
    Sync(sync::SyncArgs),
    Completions(docs::CompletionsArgs),
    Man(docs::ManArgs),
}

/// Runs hcpx with the process arguments; the entry point of both binaries.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => return usage_error(err, json, is_exec(&args)),
    };
    signals::install();
    let ctx = context::Ctx::new(cli.global.clone());
    let out = ctx.out;
    let code = match cli.command {
        Some(Command::Lint(args)) => lint::run(&args, &out),
        Some(Command::Install(args)) => install::run(&args, &ctx),
        Some(Command::Activate(args)) => toggle::activate(&args, &ctx),
        Some(Command::Connect(args)) => connect::run(&args, &ctx),
        Some(Command::Exec(args)) => exec::run(&args, &ctx),
        Some(Command::Deactivate(args)) => toggle::deactivate(&args, &ctx),
        Some(Command::Uninstall(args)) => uninstall::run(&args, &ctx),
        Some(Command::List(args)) => status::list(&args, &ctx),
        Some(Command::Availability(args)) => status::availability(&args, &ctx),
        Some(Command::Why(args)) => status::why(&args, &ctx),
        Some(Command::Doctor(args)) => doctor::run(&args, &ctx),
        Some(Command::Verify(args)) => verify::run(&args, &ctx),
        Some(Command::Catalog(args)) => catalog::run(&args, &ctx),
        Some(Command::Outdated(args)) => outdated::run(&args, &ctx),
        Some(Command::Upgrade(args)) => upgrade::run(&args, &ctx),
        Some(Command::Sync(args)) => sync::run(&args, &ctx),
        Some(Command::Completions(args)) => docs::completions(&args, &out),
        Some(Command::Man(args)) => docs::man(&args, &out),
        Some(Command::Grant(args)) => grant::grant(&args, &ctx),
        Some(Command::Revoke(args)) => grant::revoke(&args, &ctx),
        Some(Command::Tui(args)) => tui::run(&args, &ctx),
        // On a terminal, `hcpx` alone starts the TUI; otherwise it prints help.
        None if is_interactive() => tui::run(&tui::TuiArgs::default(), &ctx),
        None => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            let _ = cmd.print_help();
            0
        }
    };
    signals::hold_if_ending();
    ExitCode::from(u8::try_from(code).unwrap_or(125))
}

fn is_interactive() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// Whether the command line names the `exec` subcommand: its first word
/// that is neither a global flag nor a global flag's value.
fn is_exec(args: &[std::ffi::OsString]) -> bool {
    let mut words = args.iter().skip(1);
    while let Some(word) = words.next() {
        let Some(word) = word.to_str() else {
            return false;
        };
        match word {
            "--json" => {}
            "--principal" | "--catalog" => {
                words.next();
            }
            _ if word.starts_with("--principal=") || word.starts_with("--catalog=") => {}
            _ => return word == "exec",
        }
    }
    false
}

/// A clap error: help and version print as usual (exit 0); anything else is
/// a usage error, also as a JSON document when `--json` was given. It exits
/// 2, or 125 for `hcpx exec`, whose own command line's usage errors exit
/// 125 so that they are not taken for the command's own 2 (§10.3).
fn usage_error(err: clap::Error, json: bool, exec: bool) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    if json {
        let error = crate::engine::error::Error::usage(usage_message(&err));
        Output::new(true).error(&error);
    }
    let _ = err.print();
    ExitCode::from(if exec { 125 } else { 2 })
}

/// The first line of clap's message, with the names of missing required
/// arguments, which clap lists on the lines after it.
fn usage_message(err: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = err.to_string();
    let first = text
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .to_string();
    if err.kind() != ErrorKind::MissingRequiredArgument {
        return first;
    }
    let missing = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::Strings(names)) => names.join(", "),
        Some(ContextValue::String(name)) => name.clone(),
        _ => return first,
    };
    format!("{}: {missing}", first.trim_end_matches(':'))
}
