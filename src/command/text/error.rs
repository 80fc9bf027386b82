//! An error in words (HCP.md §10.1): `error: MESSAGE`, the capability
//! diff a refusal for want of consent carries (§11.1, §13.7, as `upgrade`
//! words it), then `  hint: HINT` when it has one (its fix as the command line to paste, rendered by
//! `crate::fixline`). Both are made terminal-safe (§14.5).

use crate::command::style::{ERROR, HINT};
use crate::engine::error::Error;
use crate::engine::pack::text::terminal_safe;
use std::fmt::{Result, Write};

/// `err`'s lines with `hint` (its rendered fix or hint).
pub fn write(w: &mut impl Write, err: &Error, hint: Option<&str>) -> Result {
    writeln!(w, "{ERROR}error{ERROR:#}: {}", terminal_safe(&err.message))?;
    for result in err.context.results.iter().flatten() {
        let changes = result["changes"].as_array().map(Vec::as_slice);
        super::upgrade::write_change_values(w, changes.unwrap_or_default())?;
    }
    if let Some(hint) = hint {
        writeln!(w, "  {HINT}hint{HINT:#}: {}", terminal_safe(hint))?;
    }
    Ok(())
}
