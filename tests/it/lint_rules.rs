//! Every lint rule of HCP.md §10.5 against a pack that triggers it, with the
//! exact rule id, severity, file, line and column of the finding; the valid
//! fixture packs lint clean; one run reports unrelated problems together; the
//! bootstrap option.
//!
//! Fixture folders live in `tests/fixtures/lint/<rule-id>/`. The few packs
//! git cannot hold (bad file names, oversize files) are built in a temporary
//! directory by the test itself.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::lintkit::*;
use hcpx::engine::lint::diagnostic::{Rule, Severity};
use hcpx::engine::lint::{LintOptions, LintReport, lint_pack};
use std::collections::HashSet;
use std::fs;

/// The §10.5 table as the spec prints it: rule id and severity.
const SPEC_TABLE: &[(&str, &str)] = &[
    ("pack.not-a-directory", "error"),
    ("pack.manifest-missing", "error"),
    ("pack.manifest-ambiguous", "error"),
    ("pack.symlink", "error"),
    ("pack.file-name", "error"),
    ("pack.too-large", "error"),
    ("manifest.parse", "error"),
    ("manifest.missing-field", "error"),
    ("manifest.type", "error"),
    ("manifest.hcp-version", "error"),
    ("manifest.id-format", "error"),
    ("manifest.id-reserved", "error"),
    ("manifest.name", "error"),
    ("manifest.version", "error"),
    ("manifest.description", "error"),
    ("manifest.plane", "error"),
    ("manifest.requires", "error"),
    ("manifest.unknown-key", "warning"),
    ("manifest.text", "error"),
    ("binding.kind", "error"),
    ("binding.env", "error"),
    ("binding.secret", "error"),
    ("binding.probe", "error"),
    ("command.none", "warning"),
    ("command.key", "error"),
    ("command.key-duplicate", "error"),
    ("command.summary", "error"),
    ("command.effect", "error"),
    ("command.arg", "error"),
    ("command.arg-default", "error"),
    ("command.placeholder", "error"),
    ("command.adapter", "error"),
    ("command.adapter-builtin", "error"),
    ("command.program", "error"),
    ("command.timeout", "error"),
    ("adapter.unknown-kind", "warning"),
    ("skill.missing", "error"),
    ("skill.frontmatter", "error"),
    ("skill.name", "error"),
    ("skill.description", "error"),
    ("skill.empty-body", "error"),
    ("skill.command-undocumented", "warning"),
    ("skill.name-folder", "warning"),
    ("skill.control-char", "error"),
];

/// Rules whose triggering pack cannot live in git; their test builds it.
const GENERATED: &[&str] = &["pack.file-name", "pack.too-large"];

/// One `#[test]` per rule. Each body returns the report and the exact
/// findings expected; the macro also checks the expected findings include
/// the rule under test, and lists every tested rule in `TESTED_RULES` so a
/// rule without a test is caught by `every_rule_has_a_test_and_a_fixture`.
macro_rules! rule_tests {
    ($($test:ident: $rule:literal => $body:block)*) => {
        const TESTED_RULES: &[&str] = &[$($rule),*];
        $(
            #[test]
            fn $test() {
                let (report, expected): (LintReport, Vec<Expected>) = $body;
                assert!(
                    expected.iter().any(|e| e.0 == $rule),
                    "the test of {} expects no {} finding", $rule, $rule
                );
                assert_findings(&report, &expected);
            }
        )*
    };
}

rule_tests! {
    pack_not_a_directory: "pack.not-a-directory" => {
        // The fixture folder holds a regular file; the path linted is that file.
        let report = lint_fixture("pack.not-a-directory/not-a-pack.txt");
        assert_eq!(report.pack_id, None);
        (report, vec![file_error("pack.not-a-directory", ".")])
    }
    pack_manifest_missing: "pack.manifest-missing" => {
        // Neither a manifest nor SKILL.md: no pack at all (a folder with
        // SKILL.md alone is a Skill pack, §2.6).
        let report = lint_fixture("pack.manifest-missing");
        (report, vec![file_error("pack.manifest-missing", "."), file_error("skill.missing", "SKILL.md")])
    }
    pack_manifest_ambiguous: "pack.manifest-ambiguous" => {
        (lint_fixture("pack.manifest-ambiguous"), vec![file_error("pack.manifest-ambiguous", ".")])
    }
    pack_symlink: "pack.symlink" => {
        (lint_fixture("pack.symlink"), vec![file_error("pack.symlink", "docs/guide.md")])
    }
    pack_file_name: "pack.file-name" => {
        let dir = pack(&[
            ("pack.yaml", MANIFEST.as_bytes()),
            ("SKILL.md", SKILL.as_bytes()),
            ("notes/bad\tname.md", b"x"),
        ]);
        (lint_dir(&dir), vec![file_error("pack.file-name", "notes/bad\\tname.md")])
    }
    pack_too_large: "pack.too-large" => {
        // SKILL.md one byte over 256 KiB.
        let mut skill = SKILL.to_string();
        skill.push_str(&"x".repeat(256 * 1024 + 1 - skill.len()));
        let dir = pack(&[("pack.yaml", MANIFEST.as_bytes()), ("SKILL.md", skill.as_bytes())]);
        (lint_dir(&dir), vec![file_error("pack.too-large", "SKILL.md")])
    }
    manifest_parse: "manifest.parse" => {
        // `keywords: [one, two` is never closed; the parser stops at the
        // `:` of the next line.
        (lint_fixture("manifest.parse"), vec![error("manifest.parse", "pack.yaml", 7, 9)])
    }
    manifest_missing_field: "manifest.missing-field" => {
        (lint_fixture("manifest.missing-field"), vec![error("manifest.missing-field", "pack.yaml", 1, 1)])
    }
    manifest_type: "manifest.type" => {
        (lint_fixture("manifest.type"), vec![error("manifest.type", "pack.yaml", 3, 7)])
    }
    manifest_hcp_version: "manifest.hcp-version" => {
        (lint_fixture("manifest.hcp-version"), vec![error("manifest.hcp-version", "pack.yaml", 1, 6)])
    }
    manifest_id_format: "manifest.id-format" => {
        (lint_fixture("manifest.id-format"), vec![error("manifest.id-format", "pack.yaml", 2, 5)])
    }
    manifest_id_reserved: "manifest.id-reserved" => {
        (lint_fixture("manifest.id-reserved"), vec![error("manifest.id-reserved", "pack.yaml", 2, 5)])
    }
    manifest_name: "manifest.name" => {
        (lint_fixture("manifest.name"), vec![error("manifest.name", "pack.yaml", 3, 7)])
    }
    manifest_version: "manifest.version" => {
        (lint_fixture("manifest.version"), vec![error("manifest.version", "pack.yaml", 4, 10)])
    }
    manifest_description: "manifest.description" => {
        (lint_fixture("manifest.description"), vec![error("manifest.description", "pack.yaml", 5, 14)])
    }
    manifest_plane: "manifest.plane" => {
        (lint_fixture("manifest.plane"), vec![error("manifest.plane", "pack.yaml", 6, 8)])
    }
    manifest_requires: "manifest.requires" => {
        (lint_fixture("manifest.requires"), vec![error("manifest.requires", "pack.yaml", 7, 9)])
    }
    manifest_unknown_key: "manifest.unknown-key" => {
        // `licence` warns; `x-team` on the next line is ignored silently.
        (lint_fixture("manifest.unknown-key"), vec![warning("manifest.unknown-key", "pack.yaml", 6, 1)])
    }
    manifest_text: "manifest.text" => {
        // An escape in `name`, a bidi override in a summary, a C1 CSI in the
        // Skill's description; the manifest's description may hold \n and \t.
        (lint_fixture("manifest.text"), vec![
            error("manifest.text", "pack.yaml", 3, 7),
            error("manifest.text", "pack.yaml", 8, 14),
            error("manifest.text", "SKILL.md", 3, 14),
        ])
    }
    binding_kind: "binding.kind" => {
        (lint_fixture("binding.kind"), vec![error("binding.kind", "pack.yaml", 7, 9)])
    }
    binding_env: "binding.env" => {
        (lint_fixture("binding.env"), vec![error("binding.env", "pack.yaml", 8, 8)])
    }
    binding_secret: "binding.secret" => {
        (lint_fixture("binding.secret"), vec![error("binding.secret", "pack.yaml", 8, 11)])
    }
    binding_probe: "binding.probe" => {
        (lint_fixture("binding.probe"), vec![error("binding.probe", "pack.yaml", 8, 10)])
    }
    command_none: "command.none" => {
        (lint_fixture("command.none"), vec![warning("command.none", "pack.yaml", 1, 1)])
    }
    command_key: "command.key" => {
        (lint_fixture("command.key"), vec![error("command.key", "pack.yaml", 7, 10)])
    }
    command_key_duplicate: "command.key-duplicate" => {
        // At the `key` of the second command.
        (lint_fixture("command.key-duplicate"), vec![error("command.key-duplicate", "pack.yaml", 14, 5)])
    }
    command_summary: "command.summary" => {
        (lint_fixture("command.summary"), vec![error("command.summary", "pack.yaml", 8, 14)])
    }
    command_effect: "command.effect" => {
        (lint_fixture("command.effect"), vec![error("command.effect", "pack.yaml", 9, 13)])
    }
    command_arg: "command.arg" => {
        (lint_fixture("command.arg"), vec![error("command.arg", "pack.yaml", 11, 29)])
    }
    command_arg_default: "command.arg-default" => {
        (lint_fixture("command.arg-default"), vec![error("command.arg-default", "pack.yaml", 11, 47)])
    }
    command_placeholder: "command.placeholder" => {
        (lint_fixture("command.placeholder"), vec![error("command.placeholder", "pack.yaml", 13, 22)])
    }
    command_adapter: "command.adapter" => {
        // A process adapter without `program`: at the adapter mapping.
        (lint_fixture("command.adapter"), vec![error("command.adapter", "pack.yaml", 11, 7)])
    }
    command_adapter_builtin: "command.adapter-builtin" => {
        (lint_fixture("command.adapter-builtin"), vec![error("command.adapter-builtin", "pack.yaml", 11, 13)])
    }
    command_program: "command.program" => {
        (lint_fixture("command.program"), vec![error("command.program", "pack.yaml", 12, 16)])
    }
    command_timeout: "command.timeout" => {
        (lint_fixture("command.timeout"), vec![error("command.timeout", "pack.yaml", 10, 17)])
    }
    adapter_unknown_kind: "adapter.unknown-kind" => {
        (lint_fixture("adapter.unknown-kind"), vec![warning("adapter.unknown-kind", "pack.yaml", 11, 13)])
    }
    skill_missing: "skill.missing" => {
        (lint_fixture("skill.missing"), vec![file_error("skill.missing", "SKILL.md")])
    }
    skill_frontmatter: "skill.frontmatter" => {
        (lint_fixture("skill.frontmatter"), vec![error("skill.frontmatter", "SKILL.md", 1, 1)])
    }
    skill_name: "skill.name" => {
        (lint_fixture("skill.name"), vec![error("skill.name", "SKILL.md", 2, 7)])
    }
    skill_description: "skill.description" => {
        // Missing: at the opening fence.
        (lint_fixture("skill.description"), vec![error("skill.description", "SKILL.md", 1, 1)])
    }
    skill_empty_body: "skill.empty-body" => {
        // The body starts on line 5, right after the closing fence.
        (lint_fixture("skill.empty-body"), vec![error("skill.empty-body", "SKILL.md", 5, 1)])
    }
    skill_command_undocumented: "skill.command-undocumented" => {
        let report = lint_fixture("skill.command-undocumented");
        let message = report.diagnostics.first().map(|d| d.message.clone()).unwrap_or_default();
        assert!(message.contains("`status`"), "the warning names the verb: {message}");
        (report, vec![file_warning("skill.command-undocumented", "SKILL.md")])
    }
    skill_name_folder: "skill.name-folder" => {
        // A Skill pack named `tidy-notes` in the folder `skill.name-folder`.
        let report = lint_fixture("skill.name-folder");
        assert_eq!(report.pack_id.as_deref(), Some("tidy-notes"));
        (report, vec![warning("skill.name-folder", "SKILL.md", 2, 7)])
    }
    skill_control_char: "skill.control-char" => {
        // ESC (and BEL) on line 7, a C1 CSI on line 8: one finding, at the
        // first ESC; the `valid/skill-crlf` fixture's CRLF and tabs are fine.
        let report = lint_fixture("skill.control-char");
        let message = &report.diagnostics[0].message;
        assert!(message.contains("U+001B") && message.contains("2 lines"), "{message}");
        (report, vec![error("skill.control-char", "SKILL.md", 7, 25)])
    }
}

#[test]
fn rule_ids_and_severities_match_the_spec_table() {
    let ours: Vec<(&str, String)> = Rule::ALL
        .iter()
        .map(|r| (r.id(), r.severity().to_string()))
        .collect();
    let spec: Vec<(&str, String)> = SPEC_TABLE
        .iter()
        .map(|(id, sev)| (*id, sev.to_string()))
        .collect();
    assert_eq!(ours, spec);
}

#[test]
fn every_rule_has_a_test_and_a_fixture() {
    let tested: HashSet<&str> = TESTED_RULES.iter().copied().collect();
    assert_eq!(tested.len(), TESTED_RULES.len(), "a rule is tested twice");
    for rule in Rule::ALL {
        assert!(tested.contains(rule.id()), "no test for rule {}", rule.id());
        let folder = fixtures().join(rule.id());
        if GENERATED.contains(&rule.id()) {
            assert!(
                !folder.exists(),
                "{} is generated, yet has a folder",
                rule.id()
            );
        } else {
            assert!(folder.is_dir(), "no fixture folder {}", folder.display());
        }
    }
    let known: HashSet<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
    for id in TESTED_RULES {
        assert!(known.contains(id), "test for unknown rule {id}");
    }
    // Every folder in tests/fixtures/lint is a rule or `valid`.
    let entries = fs::read_dir(fixtures()).unwrap_or_else(|e| panic!("{e}"));
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            name == "valid" || known.contains(name.as_str()),
            "fixture folder {name} names no rule"
        );
    }
}

// ---- valid packs ----------------------------------------------------------

#[test]
fn valid_fixtures_lint_clean() {
    let valid = fixtures().join("valid");
    let mut names: Vec<String> = fs::read_dir(&valid)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "json-manifest",
            "plain-skill",
            "sense-only",
            "skill-crlf",
            "yaml-full"
        ]
    );
    for name in &names {
        let report = lint_pack(&valid.join(name), LintOptions::default());
        assert_findings(&report, &[]);
        assert!(report.passes(true), "{name} fails --deny-warnings");
        assert!(report.pack_id.is_some(), "{name} has no pack_id");
    }
}

#[test]
fn valid_yaml_pack_is_read_into_the_model() {
    let report = lint_fixture("valid/yaml-full");
    assert_findings(&report, &[]);
    assert_eq!(report.pack_id.as_deref(), Some("acme.notes"));
    let m = report.manifest.unwrap_or_else(|| panic!("no manifest"));
    let keys: Vec<&str> = m.commands.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(
        keys,
        ["notes.list", "notes.create", "notes.sync", "notes.status"]
    );
    let types: Vec<&str> = m.commands[0].args.iter().map(|a| a.kind.as_str()).collect();
    assert_eq!(
        types,
        ["string", "integer", "number", "boolean", "enum", "string"]
    );
    assert_eq!(m.binding.env, ["ACME_TOKEN", "ACME_ORG"]);
    assert_eq!(m.commands[0].timeout_ms, 10_000);
    assert_eq!(m.commands[3].timeout_ms, 30_000);
}

#[test]
fn valid_json_pack_reports_its_id() {
    let report = lint_fixture("valid/json-manifest");
    assert_findings(&report, &[]);
    assert_eq!(report.pack_id.as_deref(), Some("acme.tickets"));
}

#[test]
fn git_folder_is_ignored() {
    let dir = copy_fixture("valid/yaml-full");
    let git = dir.path().join(".git");
    fs::create_dir_all(git.join("objects")).unwrap_or_else(|e| panic!("{e}"));
    fs::write(git.join("bad\u{1}name"), "x").unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink("/etc/passwd", git.join("link")).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..1_001 {
        fs::write(git.join("objects").join(format!("o{i}")), "x").unwrap_or_else(|e| panic!("{e}"));
    }
    assert_findings(&lint_dir(&dir), &[]);
}

// ---- one run, many findings -----------------------------------------------

#[test]
fn one_run_reports_unrelated_problems_together() {
    let manifest = MANIFEST
        .replace("id: acme.base", "id: Acme Base")
        .replace("version: 1.0.0", "version: one");
    let dir = pack(&[("pack.yaml", manifest.as_bytes())]);
    assert_findings(
        &lint_dir(&dir),
        &[
            error("manifest.id-format", "pack.yaml", 2, 5),
            error("manifest.version", "pack.yaml", 4, 10),
            file_error("skill.missing", "SKILL.md"),
        ],
    );
}

#[test]
fn one_run_reports_problems_across_every_family() {
    let manifest = r#"hcp: "3"
id: a
name: ""
version: 1.0
description: ok
plane: runtime
binding: {kind: env, env: [lower]}
colour: red
commands:
  - key: Bad Key
    summary: ""
    effect: maybe
    timeout_ms: 0
    args:
      - {name: n, type: integer, default: x}
      - {name: n, type: integer}
    adapter: {kind: process, program: ./../escape, argv: ["{nope}"]}
  - key: other
    summary: Other
    effect: read
    adapter: {kind: ftp}
"#;
    let dir = pack(&[
        ("pack.yaml", manifest.as_bytes()),
        (
            "SKILL.md",
            b"---\nname: BAD\ndescription: d\n---\nnothing\n",
        ),
    ]);
    assert_findings(
        &lint_dir(&dir),
        &[
            error("manifest.hcp-version", "pack.yaml", 1, 6),
            error("manifest.id-format", "pack.yaml", 2, 5),
            error("manifest.name", "pack.yaml", 3, 7),
            error("manifest.type", "pack.yaml", 4, 10),
            error("manifest.plane", "pack.yaml", 7, 17),
            error("binding.env", "pack.yaml", 7, 28),
            warning("manifest.unknown-key", "pack.yaml", 8, 1),
            error("command.key", "pack.yaml", 10, 10),
            error("command.summary", "pack.yaml", 11, 14),
            error("command.effect", "pack.yaml", 12, 13),
            error("command.timeout", "pack.yaml", 13, 17),
            error("command.arg-default", "pack.yaml", 15, 43),
            error("command.arg", "pack.yaml", 16, 16),
            error("command.program", "pack.yaml", 17, 39),
            error("command.placeholder", "pack.yaml", 17, 59),
            warning("adapter.unknown-kind", "pack.yaml", 21, 21),
            // Findings without a line come first in their file.
            file_warning("skill.command-undocumented", "SKILL.md"),
            file_warning("skill.command-undocumented", "SKILL.md"),
            error("skill.name", "SKILL.md", 2, 7),
        ],
    );
}

// ---- the bootstrap option ---------------------------------------------------

const BOOTSTRAP: &str = r#"hcp: "1"
id: hcp-cli
name: hcp
version: 0.1.0
description: The runtime's own commands.
plane: runtime
binding: {kind: local}
commands:
  - key: list
    summary: List installed packs
    effect: read
    adapter: {kind: builtin, op: list}
"#;

const BOOTSTRAP_SKILL: &[u8] = b"---\nname: hcp-cli\ndescription: The runtime.\n---\nRun `list`.\n";

#[test]
fn bootstrap_option_allows_reserved_id_and_builtin() {
    let dir = pack(&[
        ("pack.yaml", BOOTSTRAP.as_bytes()),
        ("SKILL.md", BOOTSTRAP_SKILL),
    ]);
    let report = lint_pack(
        dir.path(),
        LintOptions {
            bootstrap: true,
            ..LintOptions::default()
        },
    );
    assert_findings(&report, &[]);
    assert_eq!(report.pack_id.as_deref(), Some("hcp-cli"));
}

#[test]
fn without_bootstrap_reserved_id_and_builtin_fail() {
    let dir = pack(&[
        ("pack.yaml", BOOTSTRAP.as_bytes()),
        ("SKILL.md", BOOTSTRAP_SKILL),
    ]);
    assert_findings(
        &lint_pack(dir.path(), LintOptions::default()),
        &[
            error("manifest.id-reserved", "pack.yaml", 2, 5),
            error("command.adapter-builtin", "pack.yaml", 12, 21),
            // The Skill name `hcp-cli` is the bootstrap pack's (§14.10).
            error("skill.name", "SKILL.md", 2, 7),
        ],
    );
}

#[test]
fn bootstrap_option_does_not_excuse_other_errors() {
    let manifest = BOOTSTRAP.replace("id: hcp-cli", "id: hcp.extra");
    let manifest = manifest.replace("effect: read", "effect: run");
    let dir = pack(&[
        ("pack.yaml", manifest.as_bytes()),
        ("SKILL.md", BOOTSTRAP_SKILL),
    ]);
    assert_findings(
        &lint_pack(
            dir.path(),
            LintOptions {
                bootstrap: true,
                ..LintOptions::default()
            },
        ),
        &[error("command.effect", "pack.yaml", 11, 13)],
    );
}

#[test]
fn ids_near_the_reserved_ones_are_free() {
    for id in ["hcp", "hcpx", "hcp-cli2", "hcp-tools", "acme.hcp"] {
        let dir = yaml_pack(&MANIFEST.replace("acme.base", id));
        assert_findings(&lint_dir(&dir), &[]);
    }
}

// ---- variants of the rules ----------------------------------------------------

#[test]
fn missing_path_is_not_a_directory() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let report = lint_pack(&dir.path().join("nope"), LintOptions::default());
    assert_findings(&report, &[file_error("pack.not-a-directory", ".")]);
}

#[test]
fn pack_path_may_be_a_link_to_a_folder() {
    let dir = yaml_pack(MANIFEST);
    let links = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let link = links.path().join("pack");
    std::os::unix::fs::symlink(dir.path(), &link).unwrap_or_else(|e| panic!("{e}"));
    assert_findings(&lint_pack(&link, LintOptions::default()), &[]);
}

#[test]
fn every_missing_required_field_is_named() {
    let dir = yaml_pack("commands: []\n");
    let report = lint_dir(&dir);
    assert_findings(
        &report,
        &[
            error("manifest.missing-field", "pack.yaml", 1, 1),
            error("manifest.missing-field", "pack.yaml", 1, 1),
            error("manifest.missing-field", "pack.yaml", 1, 1),
            error("manifest.missing-field", "pack.yaml", 1, 1),
            error("manifest.missing-field", "pack.yaml", 1, 1),
            warning("command.none", "pack.yaml", 1, 11),
        ],
    );
    let messages: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    for field in ["hcp", "id", "name", "version", "description"] {
        assert!(
            messages.iter().any(|m| m.contains(&format!("`{field}`"))),
            "no finding names `{field}`: {messages:?}"
        );
    }
}

#[test]
fn json_manifest_syntax_error_has_line_and_column() {
    let dir = pack(&[
        (
            "pack.json",
            b"{\n  \"hcp\": \"1\",\n  \"id\": \"acme.x\"\n  \"name\": \"X\"\n}\n",
        ),
        ("SKILL.md", SKILL.as_bytes()),
    ]);
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.parse", "pack.json", 4, 3)],
    );
}

#[test]
fn json_manifest_field_positions_are_reported() {
    let json = "{\n  \"hcp\": \"1\",\n  \"id\": \"acme..x\",\n  \"name\": \"X\",\n  \"version\": \"1.0.0\",\n  \"description\": \"d\",\n  \"sense_only\": true\n}\n";
    let dir = pack(&[
        ("pack.json", json.as_bytes()),
        ("SKILL.md", SKILL.as_bytes()),
    ]);
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.id-format", "pack.json", 3, 9)],
    );
}

#[test]
fn manifest_that_is_not_a_mapping_is_a_parse_error() {
    let dir = yaml_pack("- hcp\n- id\n");
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.parse", "pack.yaml", 1, 1)],
    );
    let dir = yaml_pack("");
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.parse", "pack.yaml", 1, 1)],
    );
}

#[test]
fn duplicate_manifest_key_is_a_parse_error() {
    let dir = yaml_pack(&MANIFEST.replace("name: Base\n", "name: Base\nname: Other\n"));
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.parse", "pack.yaml", 4, 1)],
    );
}

#[test]
fn unquoted_hcp_number_is_a_type_error() {
    let dir = yaml_pack(&MANIFEST.replace("hcp: \"1\"", "hcp: 1"));
    let report = lint_dir(&dir);
    assert_findings(&report, &[error("manifest.type", "pack.yaml", 1, 6)]);
    assert_eq!(
        report.diagnostics[0].hint.as_deref(),
        Some("quote the value: hcp: \"1\"")
    );
}

#[test]
fn supported_and_unsupported_hcp_versions() {
    for ok in ["1", "1.0", "1.7", "1.12"] {
        let dir = yaml_pack(&MANIFEST.replace("hcp: \"1\"", &format!("hcp: \"{ok}\"")));
        assert_findings(&lint_dir(&dir), &[]);
    }
    for bad in ["2", "0.9", "1.", "1.x", "1.0.0", "v1", ""] {
        let dir = yaml_pack(&MANIFEST.replace("hcp: \"1\"", &format!("hcp: \"{bad}\"")));
        assert_findings(
            &lint_dir(&dir),
            &[error("manifest.hcp-version", "pack.yaml", 1, 6)],
        );
    }
}

#[test]
fn pack_id_length_limits() {
    let ok = format!("a{}", "b".repeat(63));
    let dir = yaml_pack(&MANIFEST.replace("acme.base", &ok));
    assert_findings(&lint_dir(&dir), &[]);
    for bad in [format!("a{}", "b".repeat(64)), "a".to_string()] {
        let dir = yaml_pack(&MANIFEST.replace("acme.base", &bad));
        assert_findings(
            &lint_dir(&dir),
            &[error("manifest.id-format", "pack.yaml", 2, 5)],
        );
    }
}

#[test]
fn plane_and_binding_rules() {
    // runtime without a binding: the default `public` is not `local`.
    let dir = yaml_pack(&MANIFEST.replace("commands:", "plane: runtime\ncommands:"));
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.plane", "pack.yaml", 6, 8)],
    );
    // runtime with an env binding: reported at the binding kind.
    let dir = yaml_pack(&MANIFEST.replace(
        "commands:",
        "plane: runtime\nbinding: {kind: env, env: [X]}\ncommands:",
    ));
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.plane", "pack.yaml", 7, 17)],
    );
    // control with an explicit public binding.
    let dir = yaml_pack(&MANIFEST.replace(
        "commands:",
        "plane: control\nbinding:\n  kind: public\ncommands:",
    ));
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.plane", "pack.yaml", 8, 9)],
    );
    // control with the default binding.
    let dir = yaml_pack(&MANIFEST.replace("commands:", "plane: control\ncommands:"));
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.plane", "pack.yaml", 6, 8)],
    );
    // Allowed combinations.
    for extra in [
        "plane: runtime\nbinding: {kind: local}",
        "plane: control\nbinding: {kind: local}",
        "plane: control\nbinding: {kind: secret, secret: {name: T}}",
        "plane: tool\nbinding: {kind: public}",
    ] {
        let dir = yaml_pack(&MANIFEST.replace("commands:", &format!("{extra}\ncommands:")));
        assert_findings(&lint_dir(&dir), &[]);
    }
}

#[test]
fn requires_bins_must_be_program_names() {
    let dir = yaml_pack(&MANIFEST.replace(
        "commands:",
        "requires:\n  bins: [git, \"a b\", ../x, 7]\ncommands:",
    ));
    assert_findings(
        &lint_dir(&dir),
        &[
            error("manifest.requires", "pack.yaml", 7, 15),
            error("manifest.requires", "pack.yaml", 7, 22),
            error("manifest.requires", "pack.yaml", 7, 28),
        ],
    );
}

#[test]
fn binding_env_variants() {
    let dir = yaml_pack(&MANIFEST.replace("commands:", "binding: {kind: env}\ncommands:"));
    assert_findings(&lint_dir(&dir), &[error("binding.env", "pack.yaml", 6, 10)]);
    let dir = yaml_pack(&MANIFEST.replace(
        "commands:",
        "binding: {kind: env, env: [OK_1, lower, 1X]}\ncommands:",
    ));
    assert_findings(
        &lint_dir(&dir),
        &[
            error("binding.env", "pack.yaml", 6, 34),
            error("binding.env", "pack.yaml", 6, 41),
        ],
    );
    let dir =
        yaml_pack(&MANIFEST.replace("commands:", "binding: {kind: env, env: TOKEN}\ncommands:"));
    assert_findings(&lint_dir(&dir), &[error("binding.env", "pack.yaml", 6, 27)]);
}

#[test]
fn binding_secret_variants() {
    let dir = yaml_pack(&MANIFEST.replace("commands:", "binding: {kind: secret}\ncommands:"));
    assert_findings(
        &lint_dir(&dir),
        &[error("binding.secret", "pack.yaml", 6, 10)],
    );
    let dir = yaml_pack(&MANIFEST.replace(
        "commands:",
        "binding: {kind: secret, secret: {name: api-token}}\ncommands:",
    ));
    assert_findings(
        &lint_dir(&dir),
        &[error("binding.secret", "pack.yaml", 6, 40)],
    );
}

#[test]
fn binding_kind_missing() {
    let dir = yaml_pack(&MANIFEST.replace("commands:", "binding: {probe: status}\ncommands:"));
    assert_findings(
        &lint_dir(&dir),
        &[error("binding.kind", "pack.yaml", 6, 10)],
    );
}

#[test]
fn probe_must_be_a_read_command() {
    let manifest = MANIFEST
        .replace(
            "commands:",
            "binding: {kind: local, probe: status}\ncommands:",
        )
        .replace("effect: read", "effect: write");
    let dir = yaml_pack(&manifest);
    assert_findings(
        &lint_dir(&dir),
        &[error("binding.probe", "pack.yaml", 6, 31)],
    );
    let ok = MANIFEST.replace(
        "commands:",
        "binding: {kind: local, probe: status}\ncommands:",
    );
    assert_findings(&lint_dir(&yaml_pack(&ok)), &[]);
}

#[test]
fn empty_commands_warn_unless_sense_only() {
    let head: String = MANIFEST.lines().take(5).map(|l| format!("{l}\n")).collect();
    let dir = yaml_pack(&format!("{head}commands: []\n"));
    assert_findings(
        &lint_dir(&dir),
        &[warning("command.none", "pack.yaml", 6, 11)],
    );
    let dir = yaml_pack(&format!("{head}sense_only: true\n"));
    assert_findings(&lint_dir(&dir), &[]);
    let dir = yaml_pack(&format!("{head}sense_only: true\ncommands: []\n"));
    assert_findings(&lint_dir(&dir), &[]);
}

#[test]
fn verb_key_grammar_and_length() {
    let long = format!("a{}", ".b".repeat(32)); // 65 characters
    for bad in ["1list", "list.", "a..b", "list all", long.as_str()] {
        let body = format!("---\nname: x\ndescription: d\n---\nRun {bad}.\n");
        let dir = pack(&[
            (
                "pack.yaml",
                MANIFEST
                    .replace("key: status", &format!("key: \"{bad}\""))
                    .as_bytes(),
            ),
            ("SKILL.md", body.as_bytes()),
        ]);
        let report = lint_dir(&dir);
        assert_eq!(
            findings(&report)
                .into_iter()
                .filter(|f| f.0 != "skill.command-undocumented")
                .collect::<Vec<_>>(),
            vec![(
                "command.key".to_string(),
                "error".to_string(),
                "pack.yaml".to_string(),
                Some(7),
                Some(10)
            )],
            "{bad}"
        );
    }
    let ok = format!("a{}", ".b".repeat(31)); // 64 characters
    let body = format!("---\nname: x\ndescription: d\n---\nRun {ok} now.\n");
    let dir = pack(&[
        (
            "pack.yaml",
            MANIFEST
                .replace("key: status", &format!("key: {ok}"))
                .as_bytes(),
        ),
        ("SKILL.md", body.as_bytes()),
    ]);
    assert_findings(&lint_dir(&dir), &[]);
}

#[test]
fn missing_command_fields() {
    let manifest = MANIFEST.replace("    summary: Show status\n    effect: read\n", "");
    let dir = yaml_pack(&manifest);
    assert_findings(
        &lint_dir(&dir),
        &[
            error("command.summary", "pack.yaml", 7, 5),
            error("command.effect", "pack.yaml", 7, 5),
        ],
    );
    let manifest = MANIFEST.replace(
        "    adapter:\n      kind: process\n      program: git\n      argv: [status]\n",
        "",
    );
    assert_findings(
        &lint_dir(&yaml_pack(&manifest)),
        &[error("command.adapter", "pack.yaml", 7, 5)],
    );
    let manifest = MANIFEST.replace("      kind: process\n", "");
    assert_findings(
        &lint_dir(&yaml_pack(&manifest)),
        &[error("command.adapter", "pack.yaml", 11, 7)],
    );
}

#[test]
fn http_adapter_needs_method_and_url() {
    let manifest = MANIFEST.replace(
        "      kind: process\n      program: git\n      argv: [status]\n",
        "      kind: http\n",
    );
    assert_findings(
        &lint_dir(&yaml_pack(&manifest)),
        &[
            error("command.adapter", "pack.yaml", 11, 7),
            error("command.adapter", "pack.yaml", 11, 7),
        ],
    );
    let manifest = MANIFEST.replace(
        "      kind: process\n      program: git\n      argv: [status]\n",
        "      kind: http\n      method: FETCH\n      url: https://x.example/\n",
    );
    assert_findings(
        &lint_dir(&yaml_pack(&manifest)),
        &[error("command.adapter", "pack.yaml", 12, 15)],
    );
}

#[test]
fn arg_rules() {
    let with_args = |args: &str| {
        yaml_pack(&MANIFEST.replace(
            "    effect: read\n",
            &format!("    effect: read\n    args:\n{args}"),
        ))
    };
    // Bad name, duplicate name, enum without values, values on a non-enum.
    let dir = with_args(
        "      - {name: Count, type: integer}\n      - {name: n, type: string}\n      - {name: n, type: string}\n      - {name: e, type: enum}\n      - {name: v, type: string, values: [a]}\n      - {name: w, type: enum, values: []}\n",
    );
    assert_findings(
        &lint_dir(&dir),
        &[
            error("command.arg", "pack.yaml", 11, 16),
            error("command.arg", "pack.yaml", 13, 16),
            error("command.arg", "pack.yaml", 14, 9),
            error("command.arg", "pack.yaml", 15, 41),
            error("command.arg", "pack.yaml", 16, 39),
        ],
    );
    // Defaults that do not fit.
    let dir = with_args(
        "      - {name: a, type: integer, default: 1.5}\n      - {name: b, type: boolean, default: \"yes\"}\n      - {name: c, type: enum, values: [x, y], default: z}\n      - {name: d, type: string, default: 3}\n      - {name: e, type: number, default: .nan}\n",
    );
    let report = lint_dir(&dir);
    assert_eq!(
        report.diagnostics[0].message,
        "the default `1.5` of `a` is not an integer"
    );
    assert_findings(
        &report,
        &[
            error("command.arg-default", "pack.yaml", 11, 43),
            error("command.arg-default", "pack.yaml", 12, 43),
            error("command.arg-default", "pack.yaml", 13, 56),
            error("command.arg-default", "pack.yaml", 14, 42),
            error("command.arg-default", "pack.yaml", 15, 42),
        ],
    );
    // Defaults that fit.
    let dir = with_args(
        "      - {name: a, type: integer, default: -3}\n      - {name: b, type: number, default: 2}\n      - {name: c, type: enum, values: [x, y], default: y}\n      - {name: d, type: string, default: \"3\"}\n",
    );
    assert_findings(&lint_dir(&dir), &[]);
}

#[test]
fn placeholders_must_name_args_or_binding_material() {
    let manifest = r#"hcp: "1"
id: acme.base
name: Base
version: 1.0.0
description: A pack used as a lint fixture.
binding: {kind: env, env: [TOKEN], base_url: "https://x.example"}
commands:
  - key: status
    summary: Show status
    effect: read
    args: [{name: repo, type: string}]
    adapter:
      kind: http
      method: POST
      url: "/repos/{repo}/{owner}?t=${TOKEN}"
      headers:
        Authorization: Bearer ${TOKEN}
        X-Other: ${OTHER}
        X-Repo: "{repo}"
        X-Who: "{who}"
      body: {name: "{repo}", nested: [{x: "{missing}"}]}
"#;
    assert_findings(
        &lint_dir(&yaml_pack(manifest)),
        &[
            error("command.placeholder", "pack.yaml", 15, 12),
            error("command.placeholder", "pack.yaml", 15, 12),
            error("command.placeholder", "pack.yaml", 18, 18),
            error("command.placeholder", "pack.yaml", 20, 16),
            error("command.placeholder", "pack.yaml", 21, 43),
        ],
    );
}

#[test]
fn secret_name_is_header_material() {
    let manifest = r#"hcp: "1"
id: acme.base
name: Base
version: 1.0.0
description: A pack used as a lint fixture.
binding: {kind: secret, secret: {name: API_KEY}}
commands:
  - key: status
    summary: Show status
    effect: read
    adapter:
      kind: http
      method: GET
      url: https://x.example/status
      headers: {X-Key: "${API_KEY}", X-Env: "${HOME}"}
"#;
    assert_findings(
        &lint_dir(&yaml_pack(manifest)),
        &[error("command.placeholder", "pack.yaml", 15, 45)],
    );
}

/// §6.4: a placeholder may stand in a url's path, query or fragment, never
/// in its scheme, userinfo, host or port — of `url`, or of `base_url`
/// joined to a relative `url` — so an argument never picks where the
/// `Bearer ${TOKEN}` header goes.
#[test]
fn placeholders_never_stand_in_a_urls_origin() {
    let with = |base_url: &str, url: &str| {
        let manifest = format!(
            r#"hcp: "1"
id: acme.base
name: Base
version: 1.0.0
description: A pack used as a lint fixture.
binding: {{kind: env, env: [TOKEN]{base_url}}}
commands:
  - key: status
    summary: Fetch a thing
    effect: read
    args: [{{name: host, type: string}}, {{name: port, type: string}}]
    adapter:
      kind: http
      method: GET
      url: "{url}"
      headers: {{Authorization: "Bearer ${{TOKEN}}"}}
"#
        );
        lint_dir(&yaml_pack(&manifest))
    };
    let base = |b: &str| format!(", base_url: \"{b}\"");
    for url in [
        "http://{host}/x",
        "HTTPS://{host}/x",
        "https://{host}@example.com/x",
        "https://api.example.com:{port}/x",
        "https://api.{host}.example.com/x",
    ] {
        let report = with("", url);
        assert_findings(
            &report,
            &[error("command.placeholder", "pack.yaml", 15, 12)],
        );
        let message = &report.diagnostics[0].message;
        assert!(
            message.contains("command `status`") && message.contains("`url`"),
            "{message}"
        );
        assert!(message.contains("host or port"), "{message}");
    }
    // A url whose values would make it absolute is not joined to base_url.
    assert_findings(
        &with(&base("https://api.example.com"), "{host}://example.com/x"),
        &[error("command.placeholder", "pack.yaml", 15, 12)],
    );
    // A relative url joined to a base_url that leaves the host to it.
    assert_findings(
        &with(&base("https://"), "{host}/x"),
        &[error("command.placeholder", "pack.yaml", 15, 12)],
    );
    // A base_url with a placeholder in its host: at base_url, and at the
    // url of the command that is built from it.
    let report = with(&base("https://{host}.example.com"), "/x");
    assert_findings(
        &report,
        &[
            error("command.placeholder", "pack.yaml", 6, 46),
            error("command.placeholder", "pack.yaml", 15, 12),
        ],
    );
    assert!(
        report.diagnostics[0].message.contains("base_url"),
        "{:?}",
        report.diagnostics
    );
    // Path, query and fragment are the arguments' to fill.
    for (b, url) in [
        ("", "https://api.example.com/{host}?p={port}#{port}"),
        (
            base("https://api.example.com/v1").as_str(),
            "/hosts/{host}?port={port}",
        ),
        (
            base("https://api.example.com").as_str(),
            "{host}/ports/{port}",
        ),
        (base("https://api.example.com").as_str(), "items:{host}"),
    ] {
        assert_findings(&with(b, url), &[]);
    }
}

#[test]
fn program_paths() {
    let with_program = |program: &str| {
        let dir = yaml_pack(&MANIFEST.replace("program: git", &format!("program: \"{program}\"")));
        fs::create_dir_all(dir.path().join("bin")).unwrap_or_else(|e| panic!("{e}"));
        fs::write(dir.path().join("bin/run"), "#!/bin/sh\n").unwrap_or_else(|e| panic!("{e}"));
        lint_dir(&dir)
    };
    for ok in ["./bin/run", "./bin/../bin/run", "./bin/./run", "git"] {
        assert_findings(&with_program(ok), &[]);
    }
    for bad in [
        "./../outside",
        "./bin/../../outside",
        "/usr/bin/git",
        "bin/run",
        "./bin",
        "./bin/missing",
        "./",
    ] {
        assert_findings(
            &with_program(bad),
            &[error("command.program", "pack.yaml", 12, 16)],
        );
    }
}

#[test]
fn a_symlinked_program_does_not_exist_in_the_pack() {
    let dir = yaml_pack(&MANIFEST.replace("program: git", "program: ./run"));
    std::os::unix::fs::symlink("/bin/sh", dir.path().join("run")).unwrap_or_else(|e| panic!("{e}"));
    assert_findings(
        &lint_dir(&dir),
        &[
            error("command.program", "pack.yaml", 12, 16),
            file_error("pack.symlink", "run"),
        ],
    );
}

#[test]
fn timeout_limits() {
    for ok in ["1", "600000"] {
        let dir = yaml_pack(&MANIFEST.replace(
            "    effect: read\n",
            &format!("    effect: read\n    timeout_ms: {ok}\n"),
        ));
        assert_findings(&lint_dir(&dir), &[]);
    }
    for bad in ["0", "-5", "600001"] {
        let dir = yaml_pack(&MANIFEST.replace(
            "    effect: read\n",
            &format!("    effect: read\n    timeout_ms: {bad}\n"),
        ));
        assert_findings(
            &lint_dir(&dir),
            &[error("command.timeout", "pack.yaml", 10, 17)],
        );
    }
    let dir = yaml_pack(&MANIFEST.replace(
        "    effect: read\n",
        "    effect: read\n    timeout_ms: \"5s\"\n",
    ));
    assert_findings(
        &lint_dir(&dir),
        &[error("manifest.type", "pack.yaml", 10, 17)],
    );
}

#[test]
fn skill_frontmatter_variants() {
    let with_skill = |skill: &str| {
        lint_dir(&pack(&[
            ("pack.yaml", MANIFEST.as_bytes()),
            ("SKILL.md", skill.as_bytes()),
        ]))
    };
    // Unclosed frontmatter.
    assert_findings(
        &with_skill("---\nname: acme\ndescription: d\nRun status.\n"),
        &[error("skill.frontmatter", "SKILL.md", 1, 1)],
    );
    // Invalid YAML inside, reported at its line in SKILL.md.
    assert_findings(
        &with_skill("---\nname: acme\ndescription: [d\n---\nRun status.\n"),
        &[error("skill.frontmatter", "SKILL.md", 4, 1)],
    );
    // Frontmatter that is not a mapping.
    assert_findings(
        &with_skill("---\n- a\n---\nRun status.\n"),
        &[error("skill.frontmatter", "SKILL.md", 1, 1)],
    );
    // Missing name, description too long.
    let long = "d".repeat(1025);
    assert_findings(
        &with_skill(&format!("---\ndescription: {long}\n---\nRun status.\n")),
        &[
            error("skill.name", "SKILL.md", 1, 1),
            error("skill.description", "SKILL.md", 2, 14),
        ],
    );
    // Name of 65 characters; other keys are allowed.
    let name = "a".repeat(65);
    assert_findings(
        &with_skill(&format!(
            "---\nlicense: MIT\nname: {name}\ndescription: d\n---\nRun status.\n"
        )),
        &[error("skill.name", "SKILL.md", 3, 7)],
    );
    // Not UTF-8.
    let dir = pack(&[
        ("pack.yaml", MANIFEST.as_bytes()),
        ("SKILL.md", b"---\nname: a\xff\n---\nRun status.\n"),
    ]);
    assert_findings(
        &lint_dir(&dir),
        &[error("skill.frontmatter", "SKILL.md", 2, 8)],
    );
}

#[test]
fn skill_body_with_only_frontmatter_end() {
    let dir = pack(&[
        ("pack.yaml", MANIFEST.as_bytes()),
        ("SKILL.md", b"---\nname: a\ndescription: d\n---"),
    ]);
    assert_findings(
        &lint_dir(&dir),
        &[error("skill.empty-body", "SKILL.md", 5, 1)],
    );
}

#[test]
fn undocumented_warning_names_each_missing_verb() {
    let manifest = format!(
        "{MANIFEST}  - key: status.all\n    summary: All\n    effect: read\n    adapter: {{kind: process, program: git}}\n  - key: log\n    summary: Log\n    effect: read\n    adapter: {{kind: process, program: git}}\n"
    );
    // `status` is mentioned; `status.all` and `log` are not (`status.all.x`
    // and `logging` are other words).
    let dir = pack(&[
        ("pack.yaml", manifest.as_bytes()),
        (
            "SKILL.md",
            b"---\nname: a\ndescription: d\n---\nRun `status`, status.all.x or logging.\n",
        ),
    ]);
    let report = lint_dir(&dir);
    assert_findings(
        &report,
        &[
            file_warning("skill.command-undocumented", "SKILL.md"),
            file_warning("skill.command-undocumented", "SKILL.md"),
        ],
    );
    let messages: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("`status.all`")),
        "{messages:?}"
    );
    assert!(messages.iter().any(|m| m.contains("`log`")), "{messages:?}");
    assert!(report.passes(false));
    assert!(!report.passes(true));
}

#[test]
fn warnings_only_pack_is_ok() {
    let report = lint_fixture("manifest.unknown-key");
    assert!(report.ok);
    assert_eq!(report.errors(), 0);
    assert_eq!(report.warnings(), 1);
    assert_eq!(report.diagnostics[0].severity, Severity::Warning);
    assert_eq!(
        report.diagnostics[0].hint.as_deref(),
        Some("did you mean `license`?")
    );
}
