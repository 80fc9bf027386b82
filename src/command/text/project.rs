//! The project commands in words (§15.3): `init` says the file it wrote,
//! the harnesses it enabled and what to do next, its warnings beside;
//! `remove` says `removed PACK_ID` per pack (`removed the entry of
//! PACK_ID` when only the project's files named it).

use crate::engine::ops::project::{InitOutcome, RemoveOutcome};
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write_init(w: &mut impl Write, done: &InitOutcome) -> Result {
    let names: Vec<&str> = done.harnesses.iter().map(|t| t.as_str()).collect();
    writeln!(
        w,
        "wrote {} (harnesses: {})",
        one_line(&done.file),
        names.join(", ")
    )?;
    writeln!(
        w,
        "next: hcpx add SOURCE, then commit hcp.yaml and hcp.lock"
    )
}

pub fn write_init_notes(w: &mut impl Write, done: &InitOutcome) -> Result {
    for warning in &done.warnings {
        writeln!(w, "warning: {}", one_line(warning))?;
    }
    Ok(())
}

pub fn write_removed(w: &mut impl Write, results: &[RemoveOutcome]) -> Result {
    for r in results {
        let what = if r.uninstalled {
            "removed"
        } else {
            "removed the entry of"
        };
        writeln!(w, "{what} {}", one_line(&r.pack_id))?;
    }
    Ok(())
}
