//! `verify` in words (§13.5): `ok` or `changed` for each pack.

use crate::command::style::{ERROR, GOOD};
use crate::engine::ops::VerifyPack;
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, packs: &[VerifyPack]) -> Result {
    for p in packs {
        let id = one_line(&p.pack_id);
        if p.ok {
            writeln!(w, "{GOOD}ok{GOOD:#}       {id}")?;
            continue;
        }
        let why = match (p.expected.is_empty(), p.actual.is_empty()) {
            (true, _) => "not in the lock file".to_string(),
            (_, true) => "in the lock file but not installed".to_string(),
            _ => format!("expected {}, found {}", p.expected, p.actual),
        };
        writeln!(w, "{ERROR}changed{ERROR:#}  {id}: {why}")?;
        for path in &p.changed {
            writeln!(w, "         {}", one_line(path))?;
        }
    }
    Ok(())
}
