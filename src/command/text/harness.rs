//! `harness` in words (§12.4–§12.8): the targets, the Skills placed in
//! each enabled one, what `enable`/`disable` changed, and the warnings of a
//! Skill left alone (a conflict, an edited copy, §12.7), which go beside
//! the answer (stderr on the CLI).

use crate::command::style::{GOOD, HINT, STRONG, WARNING};
use crate::engine::harness::plan::{SkillState, Taken};
use crate::engine::harness::{HarnessLine, TargetInfo, TargetName, TargetStatus};
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};
use std::path::Path;

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
            one_line(&t.path.display().to_string())
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
            one_line(&target.path.display().to_string()),
            target.skills.len()
        )?;
        for skill in &target.skills {
            writeln!(
                w,
                "  {:<9} {} ({})",
                skill.state.as_str(),
                one_line(&skill.pack_id),
                one_line(&skill.skill)
            )?;
        }
    }
    Ok(())
}

/// `harness enable|disable`: what changed, then every enabled target.
pub fn write_change(
    w: &mut impl Write,
    changed: &[&str],
    targets: &[TargetStatus],
    verb: &str,
) -> Result {
    if changed.is_empty() {
        writeln!(w, "nothing to change: {verb} already")?;
    } else {
        writeln!(w, "{GOOD}{verb}{GOOD:#} {}", changed.join(", "))?;
    }
    write_targets(w, targets)
}

/// `warning:` lines for conflicts and edited copies (§12.7), for every
/// Skill of `targets`.
pub fn write_conflicts(w: &mut impl Write, targets: &[TargetStatus]) -> Result {
    for target in targets {
        for skill in &target.skills {
            write_warning(
                w,
                target.name,
                &target.path.join(&skill.skill),
                &skill.pack_id,
                (skill.state, skill.taken.as_ref()),
            )?;
        }
    }
    Ok(())
}

/// [`write_conflicts`] for the `harnesses` lines of a lifecycle result.
pub fn write_warnings(w: &mut impl Write, lines: &[HarnessLine], pack_id: &str) -> Result {
    for line in lines {
        write_warning(
            w,
            line.target,
            &line.path,
            pack_id,
            (line.state, line.taken.as_ref()),
        )?;
    }
    Ok(())
}

fn write_warning(
    w: &mut impl Write,
    target: TargetName,
    path: &Path,
    pack_id: &str,
    (state, taken): (SkillState, Option<&Taken>),
) -> Result {
    let why = match (state, taken) {
        (SkillState::Conflict, Some(Taken::Pack(holder))) => format!(
            "is held by the Skill of the same name of {} (activated first, or its edited copy is there); left alone",
            one_line(holder)
        ),
        (SkillState::Conflict, Some(Taken::Store(store))) => format!(
            "was placed by another store ({}); left alone",
            one_line(store)
        ),
        (SkillState::Conflict, Some(Taken::Reserved)) => {
            "is a name only the bootstrap pack may use (hcp-cli, hcp-*); not placed".to_string()
        }
        (SkillState::Conflict, _) => {
            "is taken by a folder hcpx did not place; left alone".to_string()
        }
        (SkillState::Modified, _) => {
            "was edited by someone; left as it is (`hcpx harness sync --force` replaces it while the pack is activated)".to_string()
        }
        _ => return Ok(()),
    };
    writeln!(
        w,
        "{WARNING}warning{WARNING:#}: {}: {} of {} {why}",
        target.as_str(),
        one_line(&path.display().to_string()),
        one_line(pack_id)
    )
}
