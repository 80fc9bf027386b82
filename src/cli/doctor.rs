//! `hcpx doctor`: checks the store and the programs packs need; `--fix`
//! repairs what an interrupted change left (HCP.md §14.7), records the
//! installed packs `hcp.lock` does not list and sets a corrupt lock aside
//! (§13.3), and exits 0 when nothing is left to fix, 1 otherwise.

use crate::cli::context::Ctx;
use crate::cli::output::{ERROR, GOOD, HINT, terminal_safe};
use crate::engine::ops::{docs, doctor};
use std::io::Write;

pub use crate::command::args::doctor::DoctorArgs;
pub fn run(args: &DoctorArgs, ctx: &Ctx) -> i32 {
    // A broken config.yaml or bootstrap pack does not stop doctor: it is
    // what doctor reports.
    let engine = match ctx.engine_for_doctor() {
        Ok(engine) => engine,
        Err(err) => return ctx.fail(&err),
    };
    {
        let engine = &engine;
        let (report, fixed) = if args.fix {
            match doctor::fix(engine) {
                Ok(done) => (done.report, Some(done.fixed)),
                Err(err) => return ctx.fail(&err),
            }
        } else {
            (doctor::run(engine), None)
        };
        let ok = report.ok();
        if ctx.out.json {
            ctx.out.json(&docs::Doctor {
                ok,
                report: &report,
                fixed: fixed.as_deref(),
            });
        } else {
            let mut w = anstream::stdout().lock();
            let _ = writeln!(w, "store: {}", terminal_safe(&report.store));
            for f in fixed.iter().flatten() {
                let _ = writeln!(
                    w,
                    "{GOOD}{:>7}{GOOD:#}  {}",
                    "fixed",
                    terminal_safe(&f.message)
                );
            }
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
    }
}
