//! `context` in words (HCP.md §17.4): per harness a line with what its
//! listing uses of its budget, the percent and a bar, then its Skills as a
//! table by cost, those hcpx did not place marked; beside it (stderr on the
//! CLI) the harnesses over `--max-percent` (§17.5).

use crate::command::style::{GOOD, HINT, STRONG, WARNING};
use crate::engine::context::read::thousands;
use crate::engine::context::{HarnessLedger, SkillCost, Verdict};
use crate::engine::ops::context::ContextReport;
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

/// The cells of the bar.
const BAR: usize = 20;

/// The report.
pub fn write(w: &mut impl Write, report: &ContextReport) -> Result {
    if report.harnesses.is_empty() {
        writeln!(w, "No harness target is enabled.")?;
        return writeln!(
            w,
            "{HINT}hint{HINT:#}: `hcpx context --harness claude-code` reports one anyway; `hcpx harness enable --detected` enables them"
        );
    }
    for (i, harness) in report.harnesses.iter().enumerate() {
        if i > 0 {
            writeln!(w)?;
        }
        write_harness(w, harness)?;
    }
    Ok(())
}

/// The line of one harness's use of its budget, then its Skills.
fn write_harness(w: &mut impl Write, h: &HarnessLedger) -> Result {
    write_use(w, h)?;
    let folders: Vec<String> = h
        .folders
        .iter()
        .map(|f| {
            format!(
                "{} ({})",
                one_line(&f.path.display().to_string()),
                f.scope.as_str()
            )
        })
        .collect();
    writeln!(w, "  folders: {}", folders.join(", "))?;
    if h.skills.is_empty() {
        return writeln!(w, "  no Skills");
    }
    write_table(w, &h.skills)
}

/// `claude-code  6,120 / 8,000 characters  76.5%  [███...]  fits`.
pub fn write_use(w: &mut impl Write, h: &HarnessLedger) -> Result {
    let name = h.harness.as_str();
    let (Some(budget), Some(percent)) = (h.budget_chars, h.percent) else {
        return writeln!(
            w,
            "{STRONG}{name}{STRONG:#}  {} characters  (budget unknown: its rule is not public)",
            thousands(h.used_chars)
        );
    };
    let filled = ((h.used_chars as f64 / budget as f64) * BAR as f64).round() as usize;
    let filled = filled.min(BAR);
    let bar = format!("{}{}", "█".repeat(filled), "░".repeat(BAR - filled));
    let (style, verdict) = match h.verdict {
        Verdict::Fits => (GOOD, "fits"),
        _ => (WARNING, "over"),
    };
    writeln!(
        w,
        "{STRONG}{name}{STRONG:#}  {} / {} characters  {percent:.1}%  {style}[{bar}]  {verdict}{style:#}",
        thousands(h.used_chars),
        thousands(budget),
    )?;
    if h.verdict == Verdict::Over {
        writeln!(
            w,
            "  {WARNING}over by {} characters{WARNING:#}: at least {} descriptions will be listed as names only",
            thousands(h.used_chars - budget),
            h.names_only_at_least
        )?;
    }
    if !h.not_counted.is_empty() {
        let what: Vec<String> = h
            .not_counted
            .iter()
            .map(|n| format!("{n} Skills"))
            .collect();
        writeln!(
            w,
            "  not counted: {} (they share the budget)",
            what.join(", ")
        )?;
    }
    Ok(())
}

/// The Skills by cost; `*` marks those hcpx did not place.
fn write_table(w: &mut impl Write, skills: &[SkillCost]) -> Result {
    let name_of = |s: &SkillCost| {
        let mark = if s.pack_id.is_none() { "*" } else { "" };
        format!("{}{mark}", one_line(&s.folder))
    };
    let width = skills
        .iter()
        .map(|s| name_of(s).chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    writeln!(
        w,
        "  {STRONG}{:>7} {:>11}  {:<width$}  {:<8} PACK{STRONG:#}",
        "COST", "DESCRIPTION", "SKILL", "SCOPE"
    )?;
    for s in skills {
        let pack = s.pack_id.as_deref().unwrap_or("-");
        let note = match (&s.error, s.listed, s.cut) {
            (Some(error), _, _) => format!("  {WARNING}unreadable: {}{WARNING:#}", one_line(error)),
            (None, false, _) => "  not listed (disable-model-invocation)".to_string(),
            (None, true, true) => "  cut at the cap".to_string(),
            _ => String::new(),
        };
        writeln!(
            w,
            "  {:>7} {:>11}  {:<width$}  {:<8} {}{note}",
            thousands(s.cost_chars),
            thousands(s.description_chars as u64),
            name_of(s),
            s.scope.as_str(),
            one_line(pack),
        )?;
    }
    if skills.iter().any(|s| s.pack_id.is_none()) {
        writeln!(w, "  * not placed by hcpx (another tool's, or your own)")?;
    }
    Ok(())
}

/// The harnesses over `--max-percent`, one line each (§17.5).
pub fn write_notes(w: &mut impl Write, report: &ContextReport) -> Result {
    let (Some(over), Some(max)) = (&report.over_max, report.max_percent) else {
        return Ok(());
    };
    for name in over {
        let Some(h) = report.harnesses.iter().find(|h| h.harness == *name) else {
            continue;
        };
        writeln!(
            w,
            "{WARNING}error{WARNING:#}: {name}: its Skill listing uses {:.1}% of its budget ({} of {} characters), over --max-percent {max}",
            h.percent.unwrap_or_default(),
            thousands(h.used_chars),
            thousands(h.budget_chars.unwrap_or_default()),
        )?;
    }
    Ok(())
}
