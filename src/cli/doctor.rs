//! `hcpx doctor`: checks the store and the programs packs need.

use crate::cli::context::Ctx;
use crate::cli::output::{ERROR, GOOD, HINT};
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
    // A broken config.yaml or bootstrap pack does not stop doctor: it is
    // what doctor reports.
    let engine = match ctx.engine_for_doctor() {
        Ok(engine) => engine,
        Err(err) => return ctx.fail(&err),
    };
    {
        let engine = &engine;
        let report = doctor::run(engine);
        let ok = report.ok();
        if ctx.out.json {
            ctx.out.json(&Doc {
                ok,
                report: &report,
            });
        } else {
            let mut w = anstream::stdout().lock();
            let _ = writeln!(w, "store: {}", report.store);
            for c in &report.checks {
                let (mark, style) = if c.ok {
                    ("ok", GOOD)
                } else {
                    ("problem", ERROR)
                };
                let _ = writeln!(w, "{style}{mark:>7}{style:#}  {}", c.message);
                if let Some(fix) = &c.fix {
                    let _ = writeln!(w, "         {HINT}fix{HINT:#}: {fix}");
                }
            }
        }
        if ok { 0 } else { 1 }
    }
}
