//! `why` in words (§11.3): the principal and where its grants come from
//! (§9.3), then each unmet condition and the line that fixes it.

use crate::command::style::{GOOD, HINT, WARNING};
use crate::engine::pack::text::one_line;
use crate::engine::policy::why::Explanation;
use std::fmt::{Result, Write};

/// `fixes` are the rendered fix of each of `answer.unmet`, in order.
pub fn write(w: &mut impl Write, answer: &Explanation, fixes: &[Option<String>]) -> Result {
    let line = super::grant::principal_line(&answer.principal, &[answer.grants_from]);
    writeln!(w, "{line}")?;
    if answer.unmet.is_empty() {
        let style = if answer.executable { GOOD } else { WARNING };
        writeln!(w, "{style}{}{style:#}", one_line(&answer.explanation))?;
    }
    for (unmet, fix) in answer.unmet.iter().zip(fixes) {
        writeln!(w, "{WARNING}{}{WARNING:#}", one_line(&unmet.explanation))?;
        if let Some(fix) = fix {
            writeln!(w, "  {HINT}fix{HINT:#}: {}", one_line(fix))?;
        }
    }
    Ok(())
}
