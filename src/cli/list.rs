//! `hcpx list`: installed and catalog packs with their status (HCP.md §11.3).

use crate::cli::context::Ctx;
use crate::cli::output::{ERROR, GOOD, HINT, STRONG, terminal_safe};
use crate::engine::ops::list::{self, ListRow};
use crate::engine::policy::availability::Status;
use serde::Serialize;
use std::io::Write;

/// List installed and catalog packs with their status
#[derive(Debug, clap::Args)]
#[command(after_help = crate::cli::help::LIST)]
pub struct ListArgs {
    #[command(flatten)]
    pub json: crate::cli::JsonArg,
    #[command(flatten)]
    pub principal: crate::cli::PrincipalArg,
    #[command(flatten)]
    pub catalog: crate::cli::CatalogArg,
}

/// The `{principal?, packs}` document of `list` and `availability`.
#[derive(Serialize)]
pub(crate) struct Packs<T: Serialize> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) principal: Option<String>,
    pub(crate) packs: Vec<T>,
}

pub fn list(_args: &ListArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match list::list(engine) {
        Ok(rows) => ctx.success(
            Packs {
                principal: None,
                packs: rows,
            },
            |p| print_list(&p.packs),
        ),
        Err(err) => ctx.fail(&err),
    })
}

pub(crate) fn status_style(status: Status) -> anstyle::Style {
    match status {
        Status::Executable | Status::Connected => GOOD,
        Status::Activated | Status::Installed => STRONG,
        Status::Available => HINT,
        Status::Unavailable => ERROR,
    }
}

fn print_list(rows: &[ListRow]) {
    let mut w = anstream::stdout().lock();
    if rows.is_empty() {
        let _ = writeln!(
            w,
            "no packs: install one with `hcpx install DIR`, or add a catalog with --catalog DIR"
        );
        return;
    }
    let id_w = rows
        .iter()
        .map(|r| r.pack_id.len())
        .max()
        .unwrap_or(0)
        .max(7);
    let ver_w = rows
        .iter()
        .map(|r| r.version.as_deref().unwrap_or("-").len())
        .max()
        .unwrap_or(0)
        .max(7);
    let _ = writeln!(
        w,
        "{STRONG}{:id_w$}  {:ver_w$}  {:11}  DESCRIPTION{STRONG:#}",
        "PACK_ID", "VERSION", "STATUS"
    );
    for r in rows {
        let style = status_style(r.status);
        let desc = r.description.as_deref().unwrap_or("");
        let desc: String = desc.chars().take(60).collect();
        let desc = terminal_safe(&desc);
        let _ = writeln!(
            w,
            "{:id_w$}  {:ver_w$}  {style}{:11}{style:#}  {desc}",
            terminal_safe(&r.pack_id),
            terminal_safe(r.version.as_deref().unwrap_or("-")),
            r.status.as_str(),
        );
    }
}
