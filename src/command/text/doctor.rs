//! `doctor` in words (§14.7): the store, what `--fix` repaired, each check.

use crate::command::style::{ERROR, GOOD, HINT};
use crate::engine::ops::doctor::{DoctorReport, Fixed};
use crate::engine::pack::text::terminal_safe;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, report: &DoctorReport, fixed: Option<&[Fixed]>) -> Result {
    writeln!(w, "store: {}", terminal_safe(&report.store))?;
    for f in fixed.into_iter().flatten() {
        writeln!(
            w,
            "{GOOD}{:>7}{GOOD:#}  {}",
            "fixed",
            terminal_safe(&f.message)
        )?;
    }
    for c in &report.checks {
        let (mark, style) = if c.ok {
            ("ok", GOOD)
        } else {
            ("problem", ERROR)
        };
        writeln!(
            w,
            "{style}{mark:>7}{style:#}  {}",
            terminal_safe(&c.message)
        )?;
        if let Some(fix) = &c.fix {
            writeln!(
                w,
                "         {HINT}fix{HINT:#}: {}",
                terminal_safe(&fix.to_string())
            )?;
        }
    }
    Ok(())
}
