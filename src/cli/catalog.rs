//! `hcpx catalog add|remove|list|update` (HCP.md §13.2).

use crate::cli::context::Ctx;
use crate::cli::install::fetch_progress;
use crate::cli::report;
use crate::command::Request;
use crate::engine::ops::catalogs::CatalogChange;

pub use crate::command::args::catalog::{CatalogArgs, CatalogCommand};

pub fn run(args: &CatalogArgs, ctx: &Ctx) -> i32 {
    match &args.command {
        CatalogCommand::List => report::run(&Request::CatalogList, ctx),
        CatalogCommand::Update => report::run(&Request::CatalogUpdate, ctx),
        CatalogCommand::Add { source } => ctx.with_user_engine(|engine| {
            if let Some(say) = fetch_progress().filter(|_| is_git(source)) {
                say(source);
            }
            match engine.catalog_add(source) {
                Ok(change) => ctx.success(change, |c| print_change(c, "added")),
                Err(err) => ctx.fail(&err),
            }
        }),
        CatalogCommand::Remove { source } => {
            ctx.with_user_engine(|engine| match engine.catalog_remove(source) {
                Ok(change) => ctx.success(change, |c| print_change(c, "removed")),
                Err(err) => ctx.fail(&err),
            })
        }
    }
}

fn is_git(source: &str) -> bool {
    source.starts_with("git+") || source.starts_with("github:")
}

fn print_change(change: &CatalogChange, verb: &str) {
    let mut words = String::new();
    let _ = crate::command::text::catalog::write_change(&mut words, change, verb);
    print!("{words}");
}
