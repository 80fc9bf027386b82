//! `harness` in words (§12.4–§12.8): the targets, and the Skills placed in
//! each enabled one.

use crate::command::style::{HINT, STRONG};
use crate::engine::harness::plan::SkillState;
use crate::engine::harness::{TargetInfo, TargetStatus};
use crate::engine::pack::text::terminal_safe;
use std::fmt::{Result, Write};

/// `harness list`: every target, detected and enabled.
pub fn write_list(w: &mut impl Write, targets: &[TargetInfo]) -> Result {
    writeln!(
        w,
        "{STRONG}{:<12} {:<9} {:<8} FOLDER{STRONG:#}",
        "TARGET", "DETECTED", "ENABLED"
    )?;
    for t in targets {
        let yes = |b: bool| if b { "yes" } else { "-" };
        writeln!(
            w,
            "{:<12} {:<9} {:<8} {}",
            t.name.as_str(),
            yes(t.detected),
            yes(t.enabled),
            terminal_safe(&t.path.display().to_string())
        )?;
    }
    if !targets.iter().any(|t| t.enabled) {
        writeln!(
            w,
            "{HINT}hint{HINT:#}: `hcpx harness enable --detected` places your activated packs' Skills in every detected harness"
        )?;
    }
    Ok(())
}

/// `harness status` and `harness sync`.
pub fn write_report(w: &mut impl Write, targets: &[TargetStatus]) -> Result {
    write_targets(w, targets)?;
    if targets.is_empty() {
        writeln!(
            w,
            "no harness target is enabled: `hcpx harness list` shows them"
        )?;
    }
    Ok(())
}

/// Each target and the state of each Skill in it.
pub fn write_targets(w: &mut impl Write, targets: &[TargetStatus]) -> Result {
    for target in targets {
        let placed = target
            .skills
            .iter()
            .filter(|s| s.state == SkillState::Placed)
            .count();
        writeln!(
            w,
            "{STRONG}{}{STRONG:#} {} ({placed} of {} placed)",
            target.name.as_str(),
            terminal_safe(&target.path.display().to_string()),
            target.skills.len()
        )?;
        for skill in &target.skills {
            writeln!(
                w,
                "  {:<9} {} ({})",
                skill.state.as_str(),
                terminal_safe(&skill.pack_id),
                terminal_safe(&skill.skill)
            )?;
        }
    }
    Ok(())
}
