//! The one clap tree of `hcpx` (HCP.md §10, §11): the root flags, every
//! subcommand and its arguments, one file per subcommand. The CLI parses the
//! process's arguments with it; the TUI's `:` line parses its words with it
//! (`try_parse_from`), so both take the same subcommands and flags.

pub mod activate;
pub mod add;
pub mod availability;
pub mod catalog;
pub mod completions;
pub mod connect;
pub mod context;
pub mod deactivate;
pub mod doctor;
pub mod exec;
pub mod grant;
pub mod harness;
pub mod init;
pub mod install;
pub mod lint;
pub mod list;
pub mod man;
pub mod mcp;
pub mod outdated;
pub mod remove;
pub mod search;
pub mod show;
pub mod sync;
pub mod tui;
pub mod uninstall;
pub mod upgrade;
pub mod verify;
pub mod why;

use crate::command::help;
use clap::{Parser, Subcommand};

/// Pack manager for the Harness Context Protocol.
#[derive(Debug, Parser)]
#[command(
    name = "hcpx",
    version,
    about,
    long_about = None,
    propagate_version = true,
    after_help = help::ROOT
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The flags before the subcommand (`hcpx --json list`), merged with the
/// same flags after it (`hcpx list --json`) where that subcommand has them:
/// what one run uses.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct GlobalArgs {
    /// Print exactly one JSON document on stdout, also on failure
    #[arg(long)]
    pub json: bool,

    /// Act on behalf of this principal (default: $HCP_PRINCIPAL, else user)
    #[arg(long, value_name = "NAME")]
    pub principal: Option<String>,

    /// Also search this catalog folder for packs (repeatable)
    #[arg(long = "catalog", value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub catalogs: Vec<std::path::PathBuf>,

    /// Act in the project (the nearest folder above holding hcp.yaml); fail outside one
    #[arg(long, global = true, conflicts_with = "global")]
    pub project: bool,

    /// Act on the user store ($HCP_HOME, else ~/.hcp), also inside a project
    #[arg(short = 'g', long, global = true)]
    pub global: bool,
}

impl GlobalArgs {
    /// The scope asked for (HCP.md §15.1).
    pub fn scope_flag(&self) -> crate::engine::project::ScopeFlag {
        use crate::engine::project::ScopeFlag;
        match (self.project, self.global) {
            (_, true) => ScopeFlag::Global,
            (true, false) => ScopeFlag::Project,
            (false, false) => ScopeFlag::Auto,
        }
    }
}

/// `--json`, on the subcommands that print a document.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct JsonArg {
    /// Print exactly one JSON document on stdout, also on failure
    #[arg(long)]
    pub json: bool,
}

impl JsonArg {
    /// A `--json` given as a plain flag (a subcommand whose own
    /// subcommands take it), as the static `JsonArg` value it stands for.
    pub fn from_flag(json: bool) -> &'static JsonArg {
        static ON: JsonArg = JsonArg { json: true };
        static OFF: JsonArg = JsonArg { json: false };
        if json { &ON } else { &OFF }
    }
}

/// `--principal`, on the subcommands whose answer depends on grants.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PrincipalArg {
    /// Act on behalf of this principal (default: $HCP_PRINCIPAL, else user)
    #[arg(long, value_name = "NAME")]
    pub principal: Option<String>,
}

/// `--catalog`, on the subcommands that look packs up in catalogs.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CatalogArg {
    /// Also search this catalog folder for packs (repeatable)
    #[arg(long = "catalog", value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub catalogs: Vec<std::path::PathBuf>,
}

/// `--json`, `--principal` and `--catalog` together, on the subcommands
/// that print a document, depend on grants and look packs up in catalogs.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct EngineFlags {
    #[command(flatten)]
    pub json: JsonArg,
    #[command(flatten)]
    pub principal: PrincipalArg,
    #[command(flatten)]
    pub catalog: CatalogArg,
}

impl EngineFlags {
    pub fn own(&self) -> OwnFlags<'_> {
        (Some(&self.json), Some(&self.principal), Some(&self.catalog))
    }
}

/// This subcommand's own `--json`, `--principal` and `--catalog`, where it
/// has them.
pub type OwnFlags<'a> = (
    Option<&'a JsonArg>,
    Option<&'a PrincipalArg>,
    Option<&'a CatalogArg>,
);

impl Command {
    pub fn own_flags(&self) -> OwnFlags<'_> {
        match self {
            Command::Lint(a) => (Some(&a.json), None, None),
            Command::Install(a) => a.flags.own(),
            Command::Activate(a) => (Some(&a.json), None, Some(&a.catalog)),
            Command::Deactivate(a) => (Some(&a.json), None, Some(&a.catalog)),
            Command::Connect(a) => a.flags.own(),
            Command::Exec(a) => a.flags.own(),
            Command::Uninstall(a) => a.flags.own(),
            Command::List(a) => a.flags.own(),
            Command::Show(a) => a.flags.own(),
            Command::Availability(a) => a.flags.own(),
            Command::Why(a) => a.flags.own(),
            Command::Grant(a) | Command::Revoke(a) => (Some(&a.json), Some(&a.principal), None),
            Command::Tui(a) => (None, Some(&a.principal), Some(&a.catalog)),
            Command::Doctor(a) => (Some(&a.json), None, Some(&a.catalog)),
            Command::Completions(a) => (Some(&a.json), None, None),
            Command::Man(a) => (Some(&a.json), None, None),
            Command::Mcp(a) => (Some(&a.json), Some(&a.principal), Some(&a.catalog)),
            Command::Harness(a) => (Some(a.json()), None, None),
            Command::Context(a) => (Some(&a.json), None, None),
            Command::Verify(a) => (Some(&a.json), None, None),
            Command::Catalog(a) => (Some(JsonArg::from_flag(a.json)), None, None),
            Command::Outdated(a) => (Some(&a.json), None, Some(&a.catalog)),
            Command::Upgrade(a) => a.flags.own(),
            Command::Sync(a) => a.flags.own(),
            Command::Init(a) => (Some(&a.json), None, None),
            Command::Add(a) => a.flags.own(),
            Command::Remove(a) => (Some(&a.json), None, None),
            Command::Search(a) => (Some(&a.json), None, Some(&a.catalog)),
        }
    }

    /// `global` (the flags before the subcommand) with this subcommand's
    /// own flags added; a `--principal` after the subcommand wins.
    pub fn merge_flags(&self, mut global: GlobalArgs) -> GlobalArgs {
        let (json, principal, catalog) = self.own_flags();
        global.json |= json.is_some_and(|j| j.json);
        if let Some(name) = principal.and_then(|p| p.principal.clone()) {
            global.principal = Some(name);
        }
        if let Some(catalog) = catalog {
            global.catalogs.extend(catalog.catalogs.iter().cloned());
        }
        global
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Lint(lint::LintArgs),
    // Not a visible alias: the shells' completion would offer `i` for
    // `install` (its help's examples show it).
    #[command(alias = "i")]
    Install(install::InstallArgs),
    Activate(activate::ActivateArgs),
    Connect(connect::ConnectArgs),
    Exec(exec::ExecArgs),
    Deactivate(deactivate::DeactivateArgs),
    Uninstall(uninstall::UninstallArgs),
    #[command(visible_alias = "ls")]
    List(list::ListArgs),
    Search(search::SearchArgs),
    Show(show::ShowArgs),
    Availability(availability::AvailabilityArgs),
    Why(why::WhyArgs),
    /// Give a principal a capability (pack.install, pack.connect, verb.exec.read, verb.exec.write or *), optionally scoped as CAPABILITY:PACK_ID
    #[command(after_help = help::GRANT)]
    Grant(grant::GrantArgs),
    /// Take a grant away from a principal
    #[command(after_help = help::REVOKE)]
    Revoke(grant::GrantArgs),
    Harness(harness::HarnessArgs),
    Context(context::ContextArgs),
    Tui(tui::TuiArgs),
    Doctor(doctor::DoctorArgs),
    Verify(verify::VerifyArgs),
    Catalog(catalog::CatalogArgs),
    Outdated(outdated::OutdatedArgs),
    Upgrade(upgrade::UpgradeArgs),
    Sync(sync::SyncArgs),
    Init(init::InitArgs),
    Add(add::AddArgs),
    #[command(visible_alias = "rm")]
    Remove(remove::RemoveArgs),
    Completions(completions::CompletionsArgs),
    Man(man::ManArgs),
    Mcp(mcp::McpArgs),
}
