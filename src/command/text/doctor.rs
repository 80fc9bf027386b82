//! `doctor` in words (§14.7): the store, what `--fix` repaired, each check.

use crate::command::style::{ERROR, GOOD, HINT};
use crate::engine::ops::doctor::{DoctorReport, Fixed};
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, report: &DoctorReport, fixed: Option<&[Fixed]>) -> Result {
    writeln!(w, "store: {}", one_line(&report.store))?;
    for f in fixed.into_iter().flatten() {
        writeln!(w, "{GOOD}{:>7}{GOOD:#}  {}", "fixed", one_line(&f.message))?;
    }
    for c in &report.checks {
        let (mark, style) = if c.ok {
            ("ok", GOOD)
        } else {
            ("problem", ERROR)
        };
        writeln!(w, "{style}{mark:>7}{style:#}  {}", one_line(&c.message))?;
        if let Some(fix) = &c.fix {
            writeln!(
                w,
                "         {HINT}fix{HINT:#}: {}",
                one_line(&fix.to_string())
            )?;
        }
    }
    Ok(())
}
