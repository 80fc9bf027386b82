//! `lint` in words (§10.4): `FILE:LINE:COL: error[RULE]: MESSAGE` per
//! finding, then `  = hint: ...`, and a summary line. FILE is the
//! finding's file joined to the pack path as given; file, message and hint
//! are made terminal-safe (§14.5).

use crate::command::style::{ERROR, GOOD, HINT, STRONG, WARNING};
use crate::engine::lint::diagnostic::{Diagnostic, Severity};
use crate::engine::lint::{FindingCounts, LintReport};
use crate::engine::pack::text::terminal_safe;
use std::fmt::{Result, Write};
use std::path::Path;

pub fn write(w: &mut impl Write, reports: &[LintReport]) -> Result {
    for report in reports {
        for d in &report.diagnostics {
            write_diagnostic(w, Path::new(&report.path), d)?;
        }
    }
    let counts = reports
        .iter()
        .map(LintReport::counts)
        .fold(FindingCounts::default(), |a, b| a + b);
    let (errors, warnings) = (counts.errors, counts.warnings);
    let packs = super::packs(reports.len());
    let style = if errors > 0 {
        ERROR
    } else if warnings > 0 {
        WARNING
    } else {
        GOOD
    };
    writeln!(
        w,
        "{style}{}{style:#}: {packs} linted, {counts}",
        if errors > 0 { "failed" } else { "ok" },
    )
}

fn write_diagnostic(w: &mut impl Write, pack: &Path, d: &Diagnostic) -> Result {
    let file = if d.file == "." {
        pack.display().to_string()
    } else {
        pack.join(&d.file).display().to_string()
    };
    let place = match (d.line, d.column) {
        (Some(line), Some(col)) => format!("{file}:{line}:{col}"),
        (Some(line), None) => format!("{file}:{line}"),
        _ => file,
    };
    let place = terminal_safe(&place);
    let style = match d.severity {
        Severity::Error => ERROR,
        Severity::Warning => WARNING,
    };
    writeln!(
        w,
        "{STRONG}{place}{STRONG:#}: {style}{}[{}]{style:#}: {}",
        d.severity,
        d.rule,
        terminal_safe(&d.message)
    )?;
    if let Some(hint) = &d.hint {
        let hint = terminal_safe(hint);
        let mut lines = hint.lines();
        if let Some(first) = lines.next() {
            writeln!(w, "  {HINT}= hint{HINT:#}: {first}")?;
        }
        for line in lines {
            writeln!(w, "          {line}")?;
        }
    }
    Ok(())
}
