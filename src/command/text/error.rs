//! An error in words (HCP.md §10.1): `error: MESSAGE`, then `  hint: HINT`
//! when it has one (its fix as the command line to paste, rendered by
//! `crate::fixline`). Both are made terminal-safe (§14.5).

use crate::command::style::{ERROR, HINT};
use crate::engine::error::Error;
use crate::engine::pack::text::terminal_safe;
use std::fmt::{Result, Write};

/// `err`'s lines with `hint` (its rendered fix or hint).
pub fn write(w: &mut impl Write, err: &Error, hint: Option<&str>) -> Result {
    writeln!(w, "{ERROR}error{ERROR:#}: {}", terminal_safe(&err.message))?;
    if let Some(hint) = hint {
        writeln!(w, "  {HINT}hint{HINT:#}: {}", terminal_safe(hint))?;
    }
    Ok(())
}
