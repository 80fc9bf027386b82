//! `hcpx catalog add|remove|list|update` (HCP.md §13.2).

use crate::cli::context::Ctx;
use crate::cli::install::fetch_progress;
use crate::cli::output::terminal_safe;
use crate::engine::ops::catalogs::{CatalogChange, CatalogInfo, CatalogKind};
use serde::Serialize;

pub use crate::command::args::catalog::{CatalogArgs, CatalogCommand};
#[derive(Serialize)]
struct Listing<'a> {
    catalogs: &'a [CatalogInfo],
}

pub fn run(args: &CatalogArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match &args.command {
        CatalogCommand::Add { source } => {
            if let Some(say) = fetch_progress().filter(|_| is_git(source)) {
                say(source);
            }
            match engine.catalog_add(source) {
                Ok(change) => ctx.success(change, |c| print_change(c, "added")),
                Err(err) => ctx.fail(&err),
            }
        }
        CatalogCommand::Remove { source } => match engine.catalog_remove(source) {
            Ok(change) => ctx.success(change, |c| print_change(c, "removed")),
            Err(err) => ctx.fail(&err),
        },
        CatalogCommand::List => match engine.catalog_list() {
            Ok(all) => ctx.success(Listing { catalogs: &all }, |l| print_list(l.catalogs)),
            Err(err) => ctx.fail(&err),
        },
        CatalogCommand::Update => match engine.catalog_update() {
            Ok(all) => ctx.success(Listing { catalogs: &all }, |l| print_list(l.catalogs)),
            Err(err) => ctx.fail(&err),
        },
    })
}

fn is_git(source: &str) -> bool {
    source.starts_with("git+") || source.starts_with("github:")
}

fn print_change(change: &CatalogChange, verb: &str) {
    let source = terminal_safe(&change.catalog.source);
    if change.changed {
        println!("{verb} catalog {source} ({})", packs_line(&change.catalog));
    } else {
        println!("catalog {source} is already listed");
    }
}

fn print_list(all: &[CatalogInfo]) {
    if all.is_empty() {
        println!("no catalogs: add one with `hcpx catalog add SOURCE`");
    }
    for c in all {
        let kind = match c.kind {
            CatalogKind::Dir => "dir",
            CatalogKind::Git => "git",
        };
        let commit = c
            .commit
            .as_deref()
            .map(|s| format!(" @ {}", &s[..s.len().min(12)]));
        println!(
            "{kind:<4} {}{}  {}  ({})",
            terminal_safe(&c.source),
            commit.unwrap_or_default(),
            packs_line(c),
            terminal_safe(&c.path)
        );
    }
}

/// `3 packs`, or `0 packs: WHY` (HCP.md §13.2).
fn packs_line(c: &CatalogInfo) -> String {
    match &c.reason {
        Some(why) => format!("{} packs: {why}", c.packs),
        None => format!("{} packs", c.packs),
    }
}
