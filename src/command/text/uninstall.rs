//! `uninstall` in words (§11.1, §13.1): `uninstalled PACK_ID` per pack;
//! beside them the harness warnings, and with several packs the line of
//! each that failed (`error: PACK_ID: MESSAGE`).

use crate::command::docs::UninstallLine;
use crate::command::text::harness::write_warnings;
use crate::engine::ops::UninstallOutcome;
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, o: &UninstallOutcome) -> Result {
    writeln!(w, "uninstalled {}", one_line(&o.pack_id))
}

pub fn write_notes(w: &mut impl Write, o: &UninstallOutcome) -> Result {
    write_warnings(w, &o.harnesses, &o.pack_id)
}

pub fn write_lines(w: &mut impl Write, lines: &[UninstallLine]) -> Result {
    for line in lines {
        if let UninstallLine::Done { outcome, .. } = line {
            write(w, outcome)?;
        }
    }
    Ok(())
}

pub fn write_line_notes(w: &mut impl Write, lines: &[UninstallLine]) -> Result {
    for line in lines {
        match line {
            UninstallLine::Done { outcome, .. } => write_notes(w, outcome)?,
            UninstallLine::Failed { pack_id, error, .. } => writeln!(
                w,
                "error: {}: {}",
                one_line(pack_id),
                one_line(&error.message)
            )?,
        }
    }
    Ok(())
}
