//! `hcpx verify [PACK_ID...]` (HCP.md §13.5): installed packs against the
//! lock file. A mismatch exits 1 with `integrity`; with `--json` the
//! document is §13.5's, with the error beside it: `{"ok": false, "packs":
//! [..], "error": {"code": "integrity", ..}}`.

use crate::cli::context::Ctx;
use crate::cli::output::{ERROR, GOOD, terminal_safe};
use crate::engine::error::Error;
use crate::engine::ops::{VerifyPack, VerifyReport};
use serde::Serialize;
use std::io::Write;

pub use crate::command::args::verify::VerifyArgs;
#[derive(Serialize)]
struct Doc<'a> {
    ok: bool,
    packs: &'a [VerifyPack],
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a Error>,
}

pub fn run(args: &VerifyArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match engine.verify(&args.packs) {
        Ok(report) => print(ctx, &report),
        Err(err) => ctx.fail(&err),
    })
}

fn print(ctx: &Ctx, report: &VerifyReport) -> i32 {
    let error = report.error();
    if ctx.out.json {
        ctx.out.json(&Doc {
            ok: report.ok,
            packs: &report.packs,
            error: error.as_ref(),
        });
    } else {
        let mut w = anstream::stdout().lock();
        for p in &report.packs {
            let id = terminal_safe(&p.pack_id);
            if p.ok {
                let _ = writeln!(w, "{GOOD}ok{GOOD:#}       {id}");
                continue;
            }
            let why = match (p.expected.is_empty(), p.actual.is_empty()) {
                (true, _) => "not in the lock file".to_string(),
                (_, true) => "in the lock file but not installed".to_string(),
                _ => format!("expected {}, found {}", p.expected, p.actual),
            };
            let _ = writeln!(w, "{ERROR}changed{ERROR:#}  {id}: {why}");
            for path in &p.changed {
                let _ = writeln!(w, "         {}", terminal_safe(path));
            }
        }
        drop(w);
        if let Some(err) = &error {
            ctx.out.error(err);
        }
    }
    error.map_or(0, |e| e.code.exit_code())
}
