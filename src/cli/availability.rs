//! `hcpx availability [PACK_ID]`: the availability flags of packs and
//! whether each command is executable (HCP.md §11.2, §11.3).

use crate::cli::context::Ctx;
use crate::cli::list::status_style;
use crate::cli::output::{ERROR, GOOD, STRONG, WARNING, terminal_safe};
use crate::engine::ops::docs::Packs;
use crate::engine::policy::availability::PackAvailability;
use std::io::Write;

pub use crate::command::args::availability::AvailabilityArgs;
pub fn availability(args: &AvailabilityArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match engine.availability(args.pack.as_deref()) {
        Ok(packs) => ctx.success(
            Packs {
                principal: Some(engine.principal().to_string()),
                packs,
            },
            |p| print_availability(&p.packs),
        ),
        Err(err) => ctx.fail(&err),
    })
}

fn yes_no(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}

fn print_availability(packs: &[PackAvailability]) {
    let mut w = anstream::stdout().lock();
    for p in packs {
        let style = status_style(p.status);
        let _ = writeln!(
            w,
            "{STRONG}{}{STRONG:#} {}  {style}{}{style:#}  installed: {}  activated: {}  connected: {}  sense: {}",
            terminal_safe(&p.pack_id),
            terminal_safe(p.version.as_deref().unwrap_or("-")),
            p.status.as_str(),
            yes_no(p.installed),
            yes_no(p.activated),
            yes_no(p.connected),
            if p.sense.active { "active" } else { "inactive" },
        );
        for problem in &p.problems {
            let _ = writeln!(w, "  {ERROR}problem{ERROR:#}: {}", terminal_safe(problem));
        }
        for c in &p.commands {
            let (mark, style) = if c.executable {
                ("✓", GOOD)
            } else {
                ("✗", WARNING)
            };
            let reasons: Vec<String> = c.reasons.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                w,
                "  {style}{mark}{style:#} {:24} {:5}  {}",
                terminal_safe(&c.verb_key),
                c.effect,
                terminal_safe(&reasons.join(", "))
            );
        }
    }
}
