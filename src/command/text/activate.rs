//! `activate` and `deactivate` in words (§11.1, §5.4): one line per pack,
//! and beside them the warnings of Skills a harness target left alone.

use crate::command::text::harness::write_warnings;
use crate::engine::ops::Toggle;
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

/// `PACK_ID: activated` (or `already activated`, `deactivated`, `was not
/// activated`).
pub fn write(w: &mut impl Write, done: &[Toggle], activate: bool) -> Result {
    let (changed, same) = if activate {
        ("activated", "already activated")
    } else {
        ("deactivated", "was not activated")
    };
    for t in done {
        let word = if t.changed { changed } else { same };
        writeln!(w, "{}: {word}", one_line(&t.pack_id))?;
    }
    Ok(())
}

/// The harness warnings of each pack.
pub fn write_notes(w: &mut impl Write, done: &[Toggle]) -> Result {
    for t in done {
        write_warnings(w, &t.harnesses, &t.pack_id)?;
    }
    Ok(())
}
