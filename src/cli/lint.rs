//! `hcpx lint PATH... [--json] [--deny-warnings]` (HCP.md §10.4).

use crate::cli::output::{ERROR, GOOD, HINT, Output, STRONG, WARNING, terminal_safe};
use crate::engine::lint::diagnostic::{Diagnostic, Severity};
use crate::engine::lint::{FindingCounts, LintOptions, LintReport, lint_pack};
use crate::engine::ops::bootstrap::is_bootstrap_copy;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

pub use crate::command::args::lint::LintArgs;

#[derive(Serialize)]
struct Many<'a> {
    ok: bool,
    results: &'a [LintReport],
}

pub fn run(args: &LintArgs, out: &Output) -> i32 {
    let mut reports: Vec<LintReport> = args
        .paths
        .iter()
        .map(|p| {
            let bootstrap = is_bootstrap_copy(p);
            // The root of a git repository is named by whoever cloned it,
            // not by the Skill's author (§2.6: no `skill.name-folder`).
            let folder_name_free = p.join(".git").symlink_metadata().is_ok();
            lint_pack(
                p,
                LintOptions {
                    bootstrap,
                    folder_name_free,
                },
            )
        })
        .collect();
    for report in &mut reports {
        report.ok = report.passes(args.deny_warnings);
    }
    let ok = reports.iter().all(|r| r.ok);
    if out.json {
        match reports.as_slice() {
            [one] => out.json(one),
            many => out.json(&Many { ok, results: many }),
        }
    } else {
        print_text(&reports);
    }
    if ok { 0 } else { 1 }
}

fn print_text(reports: &[LintReport]) {
    let mut stdout = anstream::stdout().lock();
    for report in reports {
        for d in &report.diagnostics {
            let _ = write_diagnostic(&mut stdout, Path::new(&report.path), d);
        }
    }
    let counts = reports
        .iter()
        .map(LintReport::counts)
        .fold(FindingCounts::default(), |a, b| a + b);
    let (errors, warnings) = (counts.errors, counts.warnings);
    let packs = match reports.len() {
        1 => "1 pack".to_string(),
        n => format!("{n} packs"),
    };
    let style = if errors > 0 {
        ERROR
    } else if warnings > 0 {
        WARNING
    } else {
        GOOD
    };
    let _ = writeln!(
        stdout,
        "{style}{}{style:#}: {packs} linted, {counts}",
        if errors > 0 { "failed" } else { "ok" },
    );
}

/// `FILE:LINE:COL: error[RULE]: MESSAGE`, then `  = hint: ...` (§10.4).
/// FILE is the diagnostic's file joined to the pack path as given. File,
/// message and hint are made terminal-safe (§14.5).
fn write_diagnostic(w: &mut impl Write, pack: &Path, d: &Diagnostic) -> std::io::Result<()> {
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
