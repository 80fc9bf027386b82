//! `availability` in words (§11.2–§11.3): each pack's flags, and each
//! command, executable or the reasons it is not, under a line naming the
//! principal and where its grants come from (§9.3).

use super::list::status_style;
use super::yes_no;
use crate::command::style::{ERROR, GOOD, STRONG, WARNING};
use crate::engine::pack::text::one_line;
use crate::engine::policy::availability::PackAvailability;
use std::fmt::{Result, Write};

/// The principal and where its grants come from (§9.3), then each pack.
pub fn write(w: &mut impl Write, principal: &str, packs: &[PackAvailability]) -> Result {
    let froms: Vec<_> = packs.iter().map(|p| p.grants_from).collect();
    writeln!(w, "{}", super::grant::principal_line(principal, &froms))?;
    for p in packs {
        let style = status_style(p.status);
        writeln!(
            w,
            "{STRONG}{}{STRONG:#} {}  {style}{}{style:#}  installed: {}  activated: {}  connected: {}  sense: {}",
            one_line(&p.pack_id),
            one_line(p.version.as_deref().unwrap_or("-")),
            p.status.as_str(),
            yes_no(p.installed),
            yes_no(p.activated),
            yes_no(p.connected),
            if p.sense.active { "active" } else { "inactive" },
        )?;
        for problem in &p.problems {
            writeln!(w, "  {ERROR}problem{ERROR:#}: {}", one_line(problem))?;
        }
        for c in &p.commands {
            let (mark, style) = if c.executable {
                ("✓", GOOD)
            } else {
                ("✗", WARNING)
            };
            let reasons: Vec<String> = c.reasons.iter().map(ToString::to_string).collect();
            writeln!(
                w,
                "  {style}{mark}{style:#} {:24} {:5}  {}",
                one_line(&c.verb_key),
                c.effect,
                one_line(&reasons.join(", "))
            )?;
        }
    }
    Ok(())
}
