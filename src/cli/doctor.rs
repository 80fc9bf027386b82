//! `hcpx doctor`: checks the store and the programs packs need.

use crate::cli::context::Ctx;
use crate::cli::output::{ERROR, GOOD, HINT, terminal_safe};
use crate::engine::ops::doctor;
use serde::Serialize;
use std::io::Write;

/// Check the store, its permissions and lock, the catalogs, and the programs installed packs need
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

#[derive(Serialize)]
struct Doc<'a> {
    ok: bool,
    #[serde(flatten)]
    report: &'a doctor::DoctorReport,
}

pub fn run(_args: &DoctorArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| {
        let report = doctor::run(engine);
        let ok = report.ok();
        if ctx.out.json {
            ctx.out.json(&Doc {
                ok,
                report: &report,
            });
        } else {
            let mut w = anstream::stdout().lock();
            let _ = writeln!(w, "store: {}", terminal_safe(&report.store));
            for c in &report.checks {
                let (mark, style) = if c.ok {
                    ("ok", GOOD)
                } else {
                    ("problem", ERROR)
                };
                let _ = writeln!(
                    w,
                    "{style}{mark:>7}{style:#}  {}",
                    terminal_safe(&c.message)
                );
                if let Some(fix) = &c.fix {
                    let _ = writeln!(w, "         {HINT}fix{HINT:#}: {}", terminal_safe(fix));
                }
            }
        }
        if ok { 0 } else { 1 }
    })
}
