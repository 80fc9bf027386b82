//! Hostile packs (HCP.md §2.3, §2.4, §10.5): whatever a pack holds, lint
//! reports a finding and returns. Alias bombs, deep nesting, oversize and
//! sparse files, invalid UTF-8, symbolic links to devices and outside the
//! pack, FIFOs, too many files, unprintable names.
//!
//! Every lint runs on its own thread and the test waits on a channel with a
//! deadline, so a hang fails the test instead of blocking CI.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::lintkit::*;
use hcpx::engine::lint::{LintOptions, LintReport, lint_pack};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;
use tempfile::TempDir;

/// How long one lint may take, even on a slow CI machine in a debug build.
const DEADLINE: Duration = Duration::from_secs(30);

/// Lints `path` on a worker thread; fails the test if it does not finish
/// before [`DEADLINE`] or panics.
#[track_caller]
fn lint_bounded(path: &Path) -> LintReport {
    let path: PathBuf = path.to_path_buf();
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("lint {}", path.display()))
        .spawn(move || {
            let _ = tx.send(lint_pack(&path, LintOptions::default()));
        })
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    match rx.recv_timeout(DEADLINE) {
        Ok(report) => report,
        Err(RecvTimeoutError::Timeout) => panic!("lint did not finish within {DEADLINE:?}"),
        Err(RecvTimeoutError::Disconnected) => panic!("lint panicked"),
    }
}

fn lint(dir: &TempDir) -> LintReport {
    lint_bounded(dir.path())
}

fn with_manifest(name: &str, contents: &[u8]) -> TempDir {
    pack(&[(name, contents), ("SKILL.md", SKILL.as_bytes())])
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap_or_else(|e| panic!("mkfifo: {e}"));
    assert!(status.success(), "mkfifo {path:?}");
}

fn message(report: &LintReport, index: usize) -> &str {
    report
        .diagnostics
        .get(index)
        .map_or("", |d| d.message.as_str())
}

// ---- the manifest's contents ------------------------------------------------

/// Billion laughs: nine levels of ten aliases each would be 10^9 nodes.
fn alias_bomb() -> String {
    let mut text = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for pair in names.windows(2) {
        let (prev, next) = (pair[0], pair[1]);
        let refs = vec![format!("*{prev}"); 10].join(", ");
        text.push_str(&format!("{next}: &{next} [{refs}]\n"));
    }
    text
}

#[test]
fn yaml_alias_bomb_is_a_parse_error() {
    let bomb = alias_bomb();
    let report = lint(&with_manifest("pack.yaml", bomb.as_bytes()));
    // Levels a–d hold 12,349 nodes; on line 5 each `*d` adds 11,111 more,
    // and the eighth crosses the limit of 100,000.
    let line5 = bomb.lines().nth(4).unwrap_or_default();
    let eighth = line5.match_indices("*d").nth(7).map_or(0, |(i, _)| i + 1);
    assert_findings(&report, &[error("manifest.parse", "pack.yaml", 5, eighth)]);
    assert!(
        message(&report, 0).contains("100000 nodes"),
        "{}",
        message(&report, 0)
    );
}

#[test]
fn alias_bomb_in_skill_frontmatter_is_a_finding() {
    let skill = format!("---\n{}---\nRun `status`.\n", alias_bomb());
    let dir = pack(&[
        ("pack.yaml", MANIFEST.as_bytes()),
        ("SKILL.md", skill.as_bytes()),
    ]);
    let report = lint(&dir);
    assert_eq!(
        findings(&report)
            .into_iter()
            .map(|f| (f.0, f.2, f.3))
            .collect::<Vec<_>>(),
        vec![("skill.frontmatter".into(), "SKILL.md".into(), Some(6))]
    );
}

#[test]
fn aliases_cannot_build_nesting_deeper_than_the_limit() {
    // Each anchor wraps the previous one in 60 more lists: 40 levels of
    // aliases would nest 2,400 deep while every line stays shallow.
    let mut text = String::from(
        "hcp: \"1\"\nid: acme.deep\nname: Deep\nversion: 1.0.0\ndescription: d\nx-defs:\n  - &a0 [x]\n",
    );
    for n in 1..40 {
        text.push_str(&format!(
            "  - &a{n} {}*a{}{}\n",
            "[".repeat(60),
            n - 1,
            "]".repeat(60)
        ));
    }
    let report = lint(&with_manifest("pack.yaml", text.as_bytes()));
    // On line 8, `*a0` (1 level) sits 62 levels deep: 63, allowed. On line 9,
    // `*a1` (61 levels) would reach 123: refused.
    let col = text
        .lines()
        .nth(8)
        .and_then(|l| l.find("*a1"))
        .map_or(0, |i| i + 1);
    assert_findings(&report, &[error("manifest.parse", "pack.yaml", 9, col)]);
    assert!(
        message(&report, 0).contains("nested"),
        "{}",
        message(&report, 0)
    );
}

#[test]
fn two_hundred_thousand_open_brackets() {
    let report = lint(&with_manifest("pack.yaml", "[".repeat(200_000).as_bytes()));
    // The YAML scanner reads ahead through flow collections and gives up at
    // its own limit, the 256th `[`, before our limit of 64 is reached.
    assert_findings(&report, &[error("manifest.parse", "pack.yaml", 1, 256)]);
}

#[test]
fn sixty_thousand_nested_flow_mappings() {
    // `{a: ` × 60,000 is as deep as fits under the 256 KiB manifest limit.
    // The scanner's own limit stops it at the 256th `{`.
    let report = lint(&with_manifest(
        "pack.yaml",
        "{a: ".repeat(60_000).as_bytes(),
    ));
    assert_findings(
        &report,
        &[error("manifest.parse", "pack.yaml", 1, 4 * 255 + 1)],
    );
}

#[test]
fn parser_bounds_two_hundred_thousand_levels() {
    use hcpx::engine::pack::document::{parse_json, parse_yaml};
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let results = [
            parse_yaml(&"[".repeat(200_000)),
            parse_yaml(&"{a: ".repeat(200_000)),
            parse_yaml(&format!("{}x", "- ".repeat(200_000))),
            parse_json(&format!("{}{}", "[".repeat(200_000), "]".repeat(200_000))),
            parse_json(&format!(
                "{}1{}",
                "{\"a\":".repeat(200_000),
                "}".repeat(200_000)
            )),
        ];
        let _ = tx.send(results.map(|r| r.map(|_| ()).map_err(|e| e.pos)));
    });
    let results = rx
        .recv_timeout(DEADLINE)
        .unwrap_or_else(|e| panic!("parser did not return: {e}"));
    let line1 = |column| {
        Err(Some(hcpx::engine::lint::diagnostic::Position {
            line: 1,
            column,
        }))
    };
    assert_eq!(
        results,
        [
            line1(256),
            line1(4 * 255 + 1),
            line1(2 * 64 + 1),
            line1(256),
            line1(5 * 255 + 1)
        ]
    );
}

#[test]
fn one_hundred_thousand_nested_block_sequences() {
    let text = format!("{}x\n", "- ".repeat(100_000));
    let report = lint(&with_manifest("pack.yaml", text.as_bytes()));
    assert_findings(
        &report,
        &[error("manifest.parse", "pack.yaml", 1, 2 * 64 + 1)],
    );
}

#[test]
fn deeply_nested_json_manifest() {
    // Well-formed JSON, 100,000 levels deep.
    let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let report = lint(&with_manifest("pack.json", text.as_bytes()));
    assert_findings(&report, &[error("manifest.parse", "pack.json", 1, 256)]);
    let text = format!("{}1{}", "{\"a\":".repeat(20_000), "}".repeat(20_000));
    let report = lint(&with_manifest("pack.json", text.as_bytes()));
    assert_findings(
        &report,
        &[error("manifest.parse", "pack.json", 1, 5 * 255 + 1)],
    );
    // Unclosed: the JSON syntax check reports the end of the input.
    let report = lint(&with_manifest("pack.json", "[".repeat(200_000).as_bytes()));
    assert_findings(&report, &[error("manifest.parse", "pack.json", 1, 200_000)]);
}

#[test]
fn json_nesting_within_serde_limits_but_over_ours() {
    // 100 levels pass serde_json's limit of 128 but not ours of 64.
    let text = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let report = lint(&with_manifest("pack.json", text.as_bytes()));
    assert_findings(&report, &[error("manifest.parse", "pack.json", 1, 65)]);
}

#[test]
fn many_keys_lint_in_linear_time() {
    // 25,000 distinct top-level keys: each is an unknown-key warning; duplicate
    // detection must not compare every pair.
    let mut text = MANIFEST.to_string();
    for i in 0..25_000 {
        text.push_str(&format!("k{i}: 1\n"));
    }
    assert!(text.len() < 256 * 1024);
    let report = lint(&with_manifest("pack.yaml", text.as_bytes()));
    assert_eq!(report.errors(), 0);
    assert_eq!(report.warnings(), 25_000);
}

#[test]
fn largest_allowed_manifest_lints_clean() {
    // As many commands as fit in 256 KiB: a big but honest pack is not
    // mistaken for an alias bomb.
    let mut text =
        "hcp: \"1\"\nid: acme.big\nname: Big\nversion: 1.0.0\ndescription: d\ncommands:\n"
            .to_string();
    let mut keys = Vec::new();
    for i in 0.. {
        let cmd = format!(
            "  - key: c{i}\n    summary: Command {i}\n    effect: read\n    adapter:\n      kind: process\n      program: git\n      argv: [a, b, c, d, e, f, g, h]\n"
        );
        if text.len() + cmd.len() > 256 * 1024 {
            break;
        }
        text.push_str(&cmd);
        keys.push(format!("c{i}"));
    }
    let skill = format!("---\nname: big\ndescription: d\n---\n{}\n", keys.join(" "));
    let dir = pack(&[
        ("pack.yaml", text.as_bytes()),
        ("SKILL.md", skill.as_bytes()),
    ]);
    let report = lint(&dir);
    assert_findings(&report, &[]);
    assert_eq!(report.manifest.map(|m| m.commands.len()), Some(keys.len()));
}

#[test]
fn manifest_over_256_kib_is_refused_before_reading() {
    // 300 KiB of `[`: had it been read and parsed, manifest.parse would appear.
    let report = lint(&with_manifest(
        "pack.yaml",
        "[".repeat(300 * 1024).as_bytes(),
    ));
    assert_findings(&report, &[file_error("pack.too-large", "pack.yaml")]);
    assert_eq!(report.pack_id, None);
}

#[test]
fn manifest_of_exactly_256_kib_is_read() {
    let mut text = MANIFEST.to_string();
    text.push_str("x-pad: \"");
    let pad = 256 * 1024 - text.len() - 2;
    text.push_str(&"p".repeat(pad));
    text.push_str("\"\n");
    assert_eq!(text.len(), 256 * 1024);
    assert_findings(&lint(&with_manifest("pack.yaml", text.as_bytes())), &[]);
}

#[test]
fn sparse_64_gib_manifest_is_refused_from_its_size() {
    let dir = pack(&[("SKILL.md", SKILL.as_bytes())]);
    let file = fs::File::create(dir.path().join("pack.yaml")).unwrap_or_else(|e| panic!("{e}"));
    file.set_len(64 << 30).unwrap_or_else(|e| panic!("{e}"));
    let report = lint(&dir);
    assert_findings(
        &report,
        &[
            file_error("pack.too-large", "."),
            file_error("pack.too-large", "pack.yaml"),
        ],
    );
}

#[test]
fn skill_over_256_kib_is_refused() {
    let skill = format!("{SKILL}{}", "x".repeat(300 * 1024));
    let dir = pack(&[
        ("pack.yaml", MANIFEST.as_bytes()),
        ("SKILL.md", skill.as_bytes()),
    ]);
    assert_findings(&lint(&dir), &[file_error("pack.too-large", "SKILL.md")]);
}

#[test]
fn pack_over_16_mib_in_total_is_refused() {
    let dir = yaml_pack(MANIFEST);
    let file = fs::File::create(dir.path().join("data.bin")).unwrap_or_else(|e| panic!("{e}"));
    file.set_len(16 * 1024 * 1024)
        .unwrap_or_else(|e| panic!("{e}"));
    // Manifest and Skill push it over.
    assert_findings(&lint(&dir), &[file_error("pack.too-large", ".")]);
}

#[test]
fn invalid_utf8_manifest_reports_line_and_column() {
    let text = b"hcp: \"1\"\nid: acme.base\nname: caf\xe9\nversion: 1.0.0\n";
    let report = lint(&with_manifest("pack.yaml", text));
    assert_findings(&report, &[error("manifest.parse", "pack.yaml", 3, 10)]);
    assert!(
        message(&report, 0).contains("UTF-8"),
        "{}",
        message(&report, 0)
    );
    let report = lint(&with_manifest("pack.json", b"{\n  \"id\": \"\xff\"\n}\n"));
    assert_findings(&report, &[error("manifest.parse", "pack.json", 2, 10)]);
}

#[test]
fn control_characters_in_manifest_are_escaped_in_messages() {
    let text = MANIFEST.replace("commands:", "\"\\e[31mred\\e[0m\": 1\ncommands:");
    let report = lint(&with_manifest("pack.yaml", text.as_bytes()));
    // assert_findings also checks no message carries a control character.
    assert_findings(
        &report,
        &[warning("manifest.unknown-key", "pack.yaml", 6, 1)],
    );
    assert!(
        message(&report, 0).contains("\\u{1b}[31mred"),
        "{}",
        message(&report, 0)
    );
}

// ---- symbolic links, devices, FIFOs ------------------------------------------

#[test]
fn symlinked_manifest_outside_the_pack_is_not_read() {
    let outside = pack(&[("pack.yaml", MANIFEST.as_bytes())]);
    let dir = pack(&[("SKILL.md", SKILL.as_bytes())]);
    symlink(
        outside.path().join("pack.yaml"),
        dir.path().join("pack.yaml"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let report = lint(&dir);
    assert_findings(&report, &[file_error("pack.symlink", "pack.yaml")]);
    // Had it been read, the id of the outside manifest would show.
    assert_eq!(report.pack_id, None);
    assert!(report.manifest.is_none());
}

#[test]
fn symlinks_to_dev_zero_do_not_hang() {
    let dir = pack(&[]);
    symlink("/dev/zero", dir.path().join("pack.yaml")).unwrap_or_else(|e| panic!("{e}"));
    symlink("/dev/zero", dir.path().join("SKILL.md")).unwrap_or_else(|e| panic!("{e}"));
    assert_findings(
        &lint(&dir),
        &[
            file_error("pack.symlink", "pack.yaml"),
            file_error("pack.symlink", "SKILL.md"),
        ],
    );
}

#[test]
fn symlink_to_a_fifo_does_not_hang() {
    let elsewhere = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let fifo = elsewhere.path().join("fifo");
    mkfifo(&fifo);
    let dir = pack(&[("SKILL.md", SKILL.as_bytes())]);
    symlink(&fifo, dir.path().join("pack.yaml")).unwrap_or_else(|e| panic!("{e}"));
    assert_findings(&lint(&dir), &[file_error("pack.symlink", "pack.yaml")]);
}

#[test]
fn symlinked_folders_are_not_followed() {
    let dir = yaml_pack(MANIFEST);
    symlink("/", dir.path().join("root")).unwrap_or_else(|e| panic!("{e}"));
    symlink("loop", dir.path().join("loop")).unwrap_or_else(|e| panic!("{e}"));
    symlink("nowhere", dir.path().join("dangling")).unwrap_or_else(|e| panic!("{e}"));
    symlink(".", dir.path().join("self")).unwrap_or_else(|e| panic!("{e}"));
    assert_findings(
        &lint(&dir),
        &[
            file_error("pack.symlink", "dangling"),
            file_error("pack.symlink", "loop"),
            file_error("pack.symlink", "root"),
            file_error("pack.symlink", "self"),
        ],
    );
}

#[test]
fn fifo_named_pack_yaml_does_not_hang() {
    let dir = pack(&[("SKILL.md", SKILL.as_bytes())]);
    mkfifo(&dir.path().join("pack.yaml"));
    let report = lint(&dir);
    assert_findings(&report, &[file_error("pack.file-name", "pack.yaml")]);
    assert!(
        message(&report, 0).contains("not a regular file"),
        "{}",
        message(&report, 0)
    );
}

#[test]
fn fifo_named_skill_md_does_not_hang() {
    let dir = pack(&[("pack.yaml", MANIFEST.as_bytes())]);
    mkfifo(&dir.path().join("SKILL.md"));
    mkfifo(&dir.path().join("pipe"));
    assert_findings(
        &lint(&dir),
        &[
            file_error("pack.file-name", "SKILL.md"),
            file_error("pack.file-name", "pipe"),
        ],
    );
}

#[test]
fn folders_named_like_the_manifest_or_skill_are_not_them() {
    let dir = pack(&[("pack.yaml/inner", b"x"), ("SKILL.md/inner", b"x")]);
    assert_findings(
        &lint(&dir),
        &[
            file_error("pack.manifest-missing", "."),
            file_error("skill.missing", "SKILL.md"),
        ],
    );
}

// ---- too many files, bad names -------------------------------------------------

#[test]
fn one_thousand_files_are_allowed() {
    let dir = yaml_pack(MANIFEST);
    for i in 0..998 {
        fs::write(dir.path().join(format!("f{i:04}")), "").unwrap_or_else(|e| panic!("{e}"));
    }
    assert_findings(&lint(&dir), &[]);
}

#[test]
fn one_thousand_and_one_files_are_too_many() {
    let dir = yaml_pack(MANIFEST);
    for i in 0..999 {
        fs::write(dir.path().join(format!("f{i:04}")), "").unwrap_or_else(|e| panic!("{e}"));
    }
    let report = lint(&dir);
    assert_findings(&report, &[file_error("pack.too-large", ".")]);
    assert!(
        message(&report, 0).contains("1000 files"),
        "{}",
        message(&report, 0)
    );
}

#[test]
fn too_many_files_does_not_hide_later_findings() {
    // The walk is sorted: `zz-*` come after the 1,001st file.
    let dir = yaml_pack(&MANIFEST.replace("program: git", "program: ./zz-tool"));
    for i in 0..1_200 {
        fs::write(dir.path().join(format!("f{i:04}")), "").unwrap_or_else(|e| panic!("{e}"));
    }
    fs::write(dir.path().join("zz-tool"), "#!/bin/sh\n").unwrap_or_else(|e| panic!("{e}"));
    symlink("/etc/passwd", dir.path().join("zz-link")).unwrap_or_else(|e| panic!("{e}"));
    assert_findings(
        &lint(&dir),
        &[
            file_error("pack.too-large", "."),
            file_error("pack.symlink", "zz-link"),
        ],
    );
}

#[test]
fn ten_thousand_empty_folders_are_bounded() {
    // The walk stops after 10,000 entries, files or folders.
    let dir = yaml_pack(MANIFEST);
    for i in 0..10_001 {
        fs::create_dir(dir.path().join(format!("d{i:05}"))).unwrap_or_else(|e| panic!("{e}"));
    }
    let report = lint(&dir);
    assert_findings(&report, &[file_error("pack.too-large", ".")]);
}

#[test]
fn names_with_control_characters() {
    let dir = pack(&[
        ("pack.yaml", MANIFEST.as_bytes()),
        ("SKILL.md", SKILL.as_bytes()),
        ("\u{1b}[31mred", b"x"),
        ("new\nline/inside.md", b"x"),
        ("tab\there", b"x"),
        ("del\u{7f}", b"x"),
    ]);
    assert_findings(
        &lint(&dir),
        &[
            file_error("pack.file-name", "\\u{1b}[31mred"),
            file_error("pack.file-name", "del\\u{7f}"),
            file_error("pack.file-name", "new\\nline"),
            file_error("pack.file-name", "tab\\there"),
        ],
    );
}

#[test]
fn names_that_are_not_utf8() {
    let dir = yaml_pack(MANIFEST);
    let bad = OsStr::from_bytes(b"caf\xe9.md");
    fs::write(dir.path().join(bad), "x").unwrap_or_else(|e| panic!("{e}"));
    let folder = OsStr::from_bytes(b"\xff\xfe");
    fs::create_dir(dir.path().join(folder)).unwrap_or_else(|e| panic!("{e}"));
    fs::write(dir.path().join(folder).join("ok.md"), "x").unwrap_or_else(|e| panic!("{e}"));
    assert_findings(
        &lint(&dir),
        &[
            file_error("pack.file-name", "caf\u{fffd}.md"),
            file_error("pack.file-name", "\u{fffd}\u{fffd}"),
        ],
    );
}
