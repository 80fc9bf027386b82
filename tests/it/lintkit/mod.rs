//! Helpers shared by the lint test suites: fixture paths, throwaway packs and
//! exact comparison of findings.

#![allow(dead_code)]

use hcpx::engine::lint::{LintOptions, LintReport, lint_pack};
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// `tests/fixtures/lint`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lint")
}

/// Lints `tests/fixtures/lint/<name>` with the default options.
pub fn lint_fixture(name: &str) -> LintReport {
    lint_pack(&fixtures().join(name), LintOptions::default())
}

/// One expected finding: rule id, severity, file, line, column.
pub type Expected = (
    &'static str,
    &'static str,
    String,
    Option<usize>,
    Option<usize>,
);

/// An error at `file:line:column`.
pub fn error(rule: &'static str, file: &str, line: usize, column: usize) -> Expected {
    (rule, "error", file.to_string(), Some(line), Some(column))
}

/// A warning at `file:line:column`.
pub fn warning(rule: &'static str, file: &str, line: usize, column: usize) -> Expected {
    (rule, "warning", file.to_string(), Some(line), Some(column))
}

/// An error about a whole file (or `.`, the pack directory): no position.
pub fn file_error(rule: &'static str, file: &str) -> Expected {
    (rule, "error", file.to_string(), None, None)
}

/// A warning about a whole file: no position.
pub fn file_warning(rule: &'static str, file: &str) -> Expected {
    (rule, "warning", file.to_string(), None, None)
}

/// A finding as reported: rule id, severity, file, line, column.
pub type Found = (String, String, String, Option<usize>, Option<usize>);

/// The findings of a report in the shape of [`Expected`].
pub fn findings(report: &LintReport) -> Vec<Found> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.rule.id().to_string(),
                d.severity.to_string(),
                d.file.clone(),
                d.line,
                d.column,
            )
        })
        .collect()
}

/// Asserts the report holds exactly `expected`, in order, and that the
/// report's `ok` and every message agree with it.
#[track_caller]
pub fn assert_findings(report: &LintReport, expected: &[Expected]) {
    let want: Vec<Found> = expected
        .iter()
        .map(|(r, s, f, l, c)| (r.to_string(), s.to_string(), f.clone(), *l, *c))
        .collect();
    assert_eq!(
        findings(report),
        want,
        "findings of {} differ; messages: {:#?}",
        report.path,
        report
            .diagnostics
            .iter()
            .map(|d| &d.message)
            .collect::<Vec<_>>()
    );
    for d in &report.diagnostics {
        assert!(!d.message.trim().is_empty(), "empty message for {}", d.rule);
        assert!(
            !d.message.chars().any(char::is_control),
            "control character in message {:?}",
            d.message
        );
        assert!(
            !d.file.chars().any(char::is_control),
            "control character in file {:?}",
            d.file
        );
        assert_eq!(d.severity, d.rule.severity());
    }
    let has_error = expected.iter().any(|e| e.1 == "error");
    assert_eq!(report.ok, !has_error, "report.ok");
}

/// A valid `SKILL.md` that mentions the verb `status`.
pub const SKILL: &str = "---\nname: acme-base\ndescription: A pack used as a lint fixture.\n---\nRun `status` to see the status.\n";

/// The valid manifest the rule fixtures start from (one `status` command).
pub const MANIFEST: &str = r#"hcp: "1"
id: acme.base
name: Base
version: 1.0.0
description: A pack used as a lint fixture.
commands:
  - key: status
    summary: Show status
    effect: read
    adapter:
      kind: process
      program: git
      argv: [status]
"#;

/// A fresh pack directory holding `files` (relative path, contents).
pub fn pack(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    for (name, contents) in files {
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir {parent:?}: {e}"));
        }
        fs::write(&path, contents).unwrap_or_else(|e| panic!("write {path:?}: {e}"));
    }
    dir
}

/// A pack with `pack.yaml` = `manifest` and the standard `SKILL.md`.
pub fn yaml_pack(manifest: &str) -> TempDir {
    pack(&[
        ("pack.yaml", manifest.as_bytes()),
        ("SKILL.md", SKILL.as_bytes()),
    ])
}

/// Lints a throwaway pack directory.
pub fn lint_dir(dir: &TempDir) -> LintReport {
    lint_pack(dir.path(), LintOptions::default())
}

/// Copies a fixture folder (regular files and folders only) into a new
/// temporary directory.
pub fn copy_fixture(name: &str) -> TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    copy_tree(&fixtures().join(name), dir.path());
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    let entries = fs::read_dir(from).unwrap_or_else(|e| panic!("read {from:?}: {e}"));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("read {from:?}: {e}"));
        let target = to.join(entry.file_name());
        let kind = entry
            .file_type()
            .unwrap_or_else(|e| panic!("stat {:?}: {e}", entry.path()));
        if kind.is_dir() {
            fs::create_dir(&target).unwrap_or_else(|e| panic!("mkdir {target:?}: {e}"));
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("copy {target:?}: {e}"));
        }
    }
}
