//! `hcpx lint` on the real binaries (HCP.md §10.1, §10.2, §10.4): exit codes,
//! the `--json` shapes, the text form, colour, usage errors, and `hcp` as a
//! second name for the same program.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::lintkit::*;
use assert_cmd::Command;
use hcpx::engine::lint::{LintOptions, lint_pack};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// The binary with an environment that does not decide colour for it.
fn bin(name: &str) -> Command {
    let mut cmd = Command::cargo_bin(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    cmd.env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("HCP_PRINCIPAL");
    cmd
}

fn hcpx() -> Command {
    bin("hcpx")
}

fn fixture(name: &str) -> String {
    fixtures().join(name).display().to_string()
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(mut cmd: Command, args: &[&str]) -> Run {
    let out = cmd
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run: {e}"));
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Parses stdout as exactly one JSON document.
fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {}", run.stdout))
}

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn set<'a>(items: &[&'a str]) -> BTreeSet<&'a str> {
    items.iter().copied().collect()
}

const REPORT_KEYS: &[&str] = &["ok", "pack_id", "path", "kind", "diagnostics"];
const DIAGNOSTIC_KEYS: &[&str] = &[
    "rule", "severity", "file", "line", "column", "message", "hint",
];

// ---- exit codes ---------------------------------------------------------------

#[test]
fn clean_pack_exits_0() {
    for pack in ["valid/yaml-full", "valid/json-manifest", "valid/sense-only"] {
        let r = run(hcpx(), &["lint", &fixture(pack)]);
        assert_eq!(r.code, 0, "{pack}: {}{}", r.stdout, r.stderr);
        assert!(!r.stdout.contains("error["), "{}", r.stdout);
        assert!(!r.stdout.contains("warning["), "{}", r.stdout);
        assert_eq!(r.stderr, "");
        let r = run(hcpx(), &["lint", "--deny-warnings", &fixture(pack)]);
        assert_eq!(r.code, 0, "{pack} --deny-warnings: {}", r.stdout);
    }
}

#[test]
fn errors_exit_1() {
    let r = run(hcpx(), &["lint", &fixture("manifest.id-format")]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let r = run(hcpx(), &["lint", "/nonexistent/hcpx/pack"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("error[pack.not-a-directory]"),
        "{}",
        r.stdout
    );
}

#[test]
fn warnings_exit_0_unless_denied() {
    for rule in [
        "manifest.unknown-key",
        "command.none",
        "adapter.unknown-kind",
        "skill.command-undocumented",
    ] {
        let r = run(hcpx(), &["lint", &fixture(rule)]);
        assert_eq!(r.code, 0, "{rule}: {}", r.stdout);
        assert!(
            r.stdout.contains(&format!("warning[{rule}]")),
            "{}",
            r.stdout
        );
        let r = run(hcpx(), &["lint", "--deny-warnings", &fixture(rule)]);
        assert_eq!(r.code, 1, "{rule} --deny-warnings: {}", r.stdout);
        let r = run(
            hcpx(),
            &["lint", &fixture(rule), "--deny-warnings", "--json"],
        );
        assert_eq!(r.code, 1);
        assert_eq!(json(&r)["ok"], Value::Bool(false));
    }
}

#[test]
fn any_failing_path_of_several_exits_1() {
    let r = run(
        hcpx(),
        &[
            "lint",
            &fixture("valid/yaml-full"),
            &fixture("skill.missing"),
        ],
    );
    assert_eq!(r.code, 1);
    let r = run(
        hcpx(),
        &[
            "lint",
            &fixture("valid/yaml-full"),
            &fixture("valid/sense-only"),
        ],
    );
    assert_eq!(r.code, 0);
}

#[test]
fn unknown_flag_is_a_usage_error() {
    let r = run(hcpx(), &["lint", "--bogus", &fixture("valid/yaml-full")]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("--bogus"), "{}", r.stderr);
    assert!(r.stderr.contains("Usage:"), "{}", r.stderr);
}

#[test]
fn missing_path_is_a_usage_error() {
    let r = run(hcpx(), &["lint"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("<PATH>"), "{}", r.stderr);
    assert!(r.stderr.contains("Usage:"), "{}", r.stderr);
}

// ---- --json ---------------------------------------------------------------------

#[test]
fn json_single_path_shape() {
    let path = fixture("manifest.id-format");
    let r = run(hcpx(), &["lint", "--json", &path]);
    assert_eq!(r.code, 1);
    let doc = json(&r);
    assert_eq!(keys(&doc), set(REPORT_KEYS));
    assert_eq!(doc["ok"], Value::Bool(false));
    assert_eq!(doc["path"], Value::String(path));
    // The id as declared, though it breaks the grammar.
    assert_eq!(doc["pack_id"], Value::String("Acme_Base".into()));
    let diags = doc["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("diagnostics: {doc}"));
    assert_eq!(diags.len(), 1);
    let d = &diags[0];
    assert_eq!(keys(d), set(DIAGNOSTIC_KEYS));
    assert_eq!(d["rule"], "manifest.id-format");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], "pack.yaml");
    assert_eq!(d["line"], 2);
    assert_eq!(d["column"], 5);
    assert!(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("Acme_Base"))
    );
    assert_eq!(d["hint"], "e.g. id: acme.notes");
}

#[test]
fn json_nulls_for_missing_position_id_and_hint() {
    let r = run(hcpx(), &["lint", "--json", "/nonexistent/hcpx/pack"]);
    assert_eq!(r.code, 1);
    let doc = json(&r);
    assert_eq!(keys(&doc), set(REPORT_KEYS));
    assert_eq!(doc["pack_id"], Value::Null);
    let d = &doc["diagnostics"][0];
    assert_eq!(keys(d), set(DIAGNOSTIC_KEYS));
    assert_eq!(d["rule"], "pack.not-a-directory");
    assert_eq!(d["file"], ".");
    assert_eq!(d["line"], Value::Null);
    assert_eq!(d["column"], Value::Null);
    assert_eq!(d["hint"], Value::Null);
}

#[test]
fn json_clean_pack() {
    let path = fixture("valid/json-manifest");
    let r = run(hcpx(), &["lint", &path, "--json"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        json(&r),
        serde_json::json!({
            "ok": true,
            "pack_id": "acme.tickets",
            "path": path,
            "kind": "pack",
            "diagnostics": []
        })
    );
}

#[test]
fn json_matches_the_library_report() {
    for rule in [
        "command.placeholder",
        "skill.name",
        "pack.symlink",
        "command.none",
    ] {
        let path = fixture(rule);
        let report = lint_pack(Path::new(&path), LintOptions::default());
        let r = run(hcpx(), &["lint", "--json", &path]);
        let want = serde_json::to_value(&report).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(json(&r), want, "{rule}");
    }
}

#[test]
fn json_several_paths_shape() {
    let good = fixture("valid/yaml-full");
    let bad = fixture("skill.missing");
    let r = run(hcpx(), &["--json", "lint", &good, &bad]);
    assert_eq!(r.code, 1);
    let doc = json(&r);
    assert_eq!(keys(&doc), set(&["ok", "results"]));
    assert_eq!(doc["ok"], Value::Bool(false));
    let results = doc["results"]
        .as_array()
        .unwrap_or_else(|| panic!("results: {doc}"));
    assert_eq!(results.len(), 2);
    for result in results {
        assert_eq!(keys(result), set(REPORT_KEYS));
    }
    assert_eq!(results[0]["path"], Value::String(good));
    assert_eq!(results[0]["ok"], Value::Bool(true));
    assert_eq!(results[0]["pack_id"], "acme.notes");
    assert_eq!(results[1]["path"], Value::String(bad));
    assert_eq!(results[1]["ok"], Value::Bool(false));
    assert_eq!(results[1]["diagnostics"][0]["rule"], "skill.missing");
    assert_eq!(keys(&results[1]["diagnostics"][0]), set(DIAGNOSTIC_KEYS));

    let r = run(
        hcpx(),
        &[
            "lint",
            "--json",
            &fixture("valid/yaml-full"),
            &fixture("valid/sense-only"),
        ],
    );
    assert_eq!(r.code, 0);
    assert_eq!(json(&r)["ok"], Value::Bool(true));
}

#[test]
fn json_usage_errors() {
    for args in [
        &["lint", "--json", "--bogus", "x"][..],
        &["lint", "--json"][..],
        &["--json", "lint"][..],
        &["--json", "frobnicate"][..],
    ] {
        let r = run(hcpx(), args);
        assert_eq!(r.code, 2, "{args:?}");
        let doc = json(&r);
        assert_eq!(keys(&doc), set(&["ok", "error"]), "{args:?}");
        assert_eq!(doc["ok"], Value::Bool(false));
        assert_eq!(doc["error"]["code"], "usage", "{args:?}");
        assert!(
            doc["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{doc}"
        );
    }
}

// ---- text form ------------------------------------------------------------------

/// `FILE:LINE:COL: SEVERITY[RULE]: MESSAGE` for each diagnostic of the
/// library report, FILE being the pack path joined with the file.
fn expected_lines(path: &str) -> Vec<String> {
    let report = lint_pack(Path::new(path), LintOptions::default());
    report
        .diagnostics
        .iter()
        .map(|d| {
            let file = if d.file == "." {
                path.to_string()
            } else {
                Path::new(path).join(&d.file).display().to_string()
            };
            match (d.line, d.column) {
                (Some(l), Some(c)) => {
                    format!("{file}:{l}:{c}: {}[{}]: {}", d.severity, d.rule, d.message)
                }
                _ => format!("{file}: {}[{}]: {}", d.severity, d.rule, d.message),
            }
        })
        .collect()
}

#[test]
fn text_form_of_a_finding() {
    let path = fixture("manifest.id-format");
    let r = run(hcpx(), &["lint", &path]);
    let first = r.stdout.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "{path}/pack.yaml:2:5: error[manifest.id-format]: `Acme_Base` is not a valid pack_id: 2 to 64 characters of a-z, 0-9, separated by single `.` or `-`"
        )
    );
    assert_eq!(
        r.stdout.lines().nth(1),
        Some("  = hint: e.g. id: acme.notes")
    );
}

#[test]
fn text_form_of_every_rule_fixture() {
    let pattern = regex::Regex::new(
        r"^(?P<file>.+?)(:(?P<line>[0-9]+):(?P<col>[0-9]+))?: (?P<sev>error|warning)\[(?P<rule>[a-z]+\.[a-z-]+)\]: (?P<msg>.+)$",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut folders: Vec<String> = fs::read_dir(fixtures())
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "valid")
        .collect();
    folders.sort();
    assert!(folders.len() >= 39);
    for name in folders {
        let path = if name == "pack.not-a-directory" {
            fixture("pack.not-a-directory/not-a-pack.txt")
        } else {
            fixture(&name)
        };
        let r = run(hcpx(), &["lint", &path]);
        let diagnostic_lines: Vec<&str> = r
            .stdout
            .lines()
            .filter(|l| l.contains("error[") || l.contains("warning["))
            .collect();
        let want = expected_lines(&path);
        assert_eq!(diagnostic_lines, want, "{name}");
        for line in &diagnostic_lines {
            let caps = pattern
                .captures(line)
                .unwrap_or_else(|| panic!("{line:?} does not match FILE:LINE:COL: SEV[RULE]: MSG"));
            assert!(caps["file"].starts_with(&path), "{line}");
        }
        assert!(
            want.iter().any(|l| l.contains(&format!("[{name}]"))),
            "{name} does not report its rule: {want:?}"
        );
    }
}

#[test]
fn text_form_joins_a_relative_pack_path() {
    let r = run(
        {
            let mut c = hcpx();
            c.current_dir(fixtures());
            c
        },
        &["lint", "binding.probe"],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .starts_with("binding.probe/pack.yaml:8:10: error[binding.probe]: "),
        "{}",
        r.stdout
    );
}

// ---- colour -----------------------------------------------------------------------

const ESC: char = '\u{1b}';

#[test]
fn no_colour_when_stdout_is_not_a_terminal() {
    let r = run(hcpx(), &["lint", &fixture("manifest.id-format")]);
    // The finding is printed (what could have been coloured), without colour.
    assert!(
        r.stdout.contains("error[manifest.id-format]"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains(ESC), "{:?}", r.stdout);
    assert!(!r.stderr.contains(ESC), "{:?}", r.stderr);
    let r = run(hcpx(), &["lint", "--bogus"]);
    assert!(r.stderr.contains("--bogus"), "{}", r.stderr);
    assert!(!r.stderr.contains(ESC), "{:?}", r.stderr);
}

#[test]
fn forced_colour_is_used_and_no_color_wins() {
    // The control: forcing colour does colour, so the check below can fail.
    let mut forced = hcpx();
    forced.env("CLICOLOR_FORCE", "1");
    let r = run(forced, &["lint", &fixture("manifest.id-format")]);
    assert!(r.stdout.contains(ESC), "{:?}", r.stdout);

    let mut no_color = hcpx();
    no_color.env("CLICOLOR_FORCE", "1").env("NO_COLOR", "1");
    let r = run(no_color, &["lint", &fixture("manifest.id-format")]);
    assert!(!r.stdout.contains(ESC), "{:?}", r.stdout);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("error[manifest.id-format]"),
        "{}",
        r.stdout
    );
}

#[test]
fn json_is_never_coloured() {
    let mut forced = hcpx();
    forced.env("CLICOLOR_FORCE", "1");
    let r = run(forced, &["lint", "--json", &fixture("manifest.id-format")]);
    assert!(!r.stdout.contains(ESC), "{:?}", r.stdout);
    json(&r);
}

// ---- the `hcp` name -------------------------------------------------------------------

#[test]
fn hcp_binary_behaves_the_same() {
    let cases: Vec<Vec<String>> = vec![
        vec!["lint".into(), fixture("valid/yaml-full")],
        vec!["lint".into(), fixture("manifest.id-format")],
        vec![
            "lint".into(),
            "--json".into(),
            fixture("manifest.id-format"),
        ],
        vec!["lint".into(), fixture("command.none")],
        vec![
            "lint".into(),
            "--deny-warnings".into(),
            fixture("command.none"),
        ],
        vec![
            "lint".into(),
            "--json".into(),
            fixture("valid/sense-only"),
            fixture("skill.name"),
        ],
        vec!["lint".into(), "--json".into(), "--bogus".into()],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let a = run(hcpx(), &args);
        let b = run(bin("hcp"), &args);
        assert_eq!(a.code, b.code, "{args:?}");
        assert_eq!(a.stdout, b.stdout, "{args:?}");
    }
    let r = run(bin("hcp"), &["lint"]);
    assert_eq!(r.code, 2);
    let r = run(bin("hcp"), &["lint", &fixture("valid/json-manifest")]);
    assert_eq!(r.code, 0);
}
