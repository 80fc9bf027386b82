//! `hcpx install SOURCE [--force]` (11-lifecycle.md §11.1, HCP.md §11.1,
//! §13.1). While a git source is fetched, a line on stderr says so when
//! stderr is a terminal.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::ops::{
    FetchObserver, InstallAction, InstallOptions, InstallOutcome, InstallSource,
};
use std::io::IsTerminal;

/// Install a pack from a directory, a catalog (by id) or a git repository
#[derive(Debug, clap::Args)]
#[command(after_help = crate::cli::help::INSTALL)]
pub struct InstallArgs {
    /// A pack directory (a path with a `/`), the id of a pack in a catalog, git+URL[//SUBDIR][#REF] or github:OWNER/REPO[/SUBDIR][#REF]
    #[arg(value_name = "SOURCE", add = crate::cli::complete::pack_ids_or_dirs())]
    pub source: String,

    /// Replace the installed copy even when it is the same version
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub flags: crate::cli::EngineFlags,
}

pub fn run(args: &InstallArgs, ctx: &Ctx) -> i32 {
    let source = match InstallSource::parse(&args.source) {
        Ok(source) => source,
        Err(err) => return ctx.fail(&err),
    };
    let mut options = InstallOptions::new(source);
    options.force = args.force;
    options.on_fetch = fetch_progress();
    ctx.with_engine(|engine| match engine.install_with(&options) {
        Ok(outcome) => ctx.success(outcome, print),
        Err(err) => ctx.fail(&err),
    })
}

fn print(o: &InstallOutcome) {
    let pack_id = terminal_safe(&o.pack_id);
    println!("{}", terminal_safe(&o.to_string()));
    crate::cli::harness::warn_lines(&o.harnesses, &o.pack_id);
    if o.disconnected {
        println!("its binding changed: run `hcpx connect {pack_id}` again");
    }
    if !o.activated && o.action != InstallAction::Unchanged {
        println!("next: hcpx activate {pack_id}");
    }
}

/// A progress line on stderr while a git source is fetched, when stderr is
/// a terminal.
pub fn fetch_progress() -> Option<FetchObserver> {
    std::io::stderr().is_terminal().then(|| {
        std::sync::Arc::new(|source: &str| eprintln!("hcpx: fetching {}", terminal_safe(source)))
            as FetchObserver
    })
}
