//! Skill packs (HCP.md §2.6): a plain Agent Skill — `SKILL.md`, often with
//! `scripts/` and references, and no manifest — lints, installs, activates,
//! lists, shows and uninstalls like any pack, with `"kind": "skill"` in
//! every JSON document about it; the Skill names kept for the bootstrap
//! pack (§14.10); multi-line `argv` scripts (§10.5 `manifest.text`); and
//! hostile Skill packs, which leave the store as it was.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const SKILL: &str = "---\nname: pdf-tools\ndescription: Reads and splits PDF files. Use when the user hands you a PDF.\nlicense: MIT\n---\n# PDF tools\n\nRun `scripts/split.sh FILE` to split a PDF; see `references/pages.md`.\n";

/// A Skill pack as the public skill repositories publish them, in a folder
/// named `folder`.
fn skill_pack(sb: &Sandbox, folder: &str, skill: &str) -> std::path::PathBuf {
    let dir = sb.pack(
        folder,
        &[
            ("SKILL.md", skill),
            ("scripts/split.sh", "#!/bin/sh\necho splitting \"$1\"\n"),
            ("references/pages.md", "# Pages\n\nPages count from 1.\n"),
            ("templates/report.md", "# Report for FILE\n"),
        ],
    );
    common::make_executable(&dir.join("scripts/split.sh"));
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The `(rule, severity)` of each finding of a `lint --json` document.
fn findings(doc: &Value) -> Vec<(String, String)> {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn finding(rule: &str, severity: &str) -> (String, String) {
    (rule.to_string(), severity.to_string())
}

#[test]
fn a_plain_skill_with_scripts_and_references_lints_clean_as_a_skill() {
    let sb = Sandbox::new();
    let dir = skill_pack(&sb, "pdf-tools", SKILL);
    let doc = sb.json(&["lint", "--deny-warnings", path(&dir)], 0);
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["kind"], "skill");
    assert_eq!(doc["pack_id"], "pdf-tools");
    assert_eq!(findings(&doc), []);
    // Several paths: each result says its kind.
    let pack = sb.simple_pack("acme.base", "1.0.0", "{kind: public}");
    let both = sb.json(&["lint", path(&dir), path(&pack)], 0);
    let kinds: Vec<&str> = both["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["skill", "pack"]);
}

#[test]
fn a_name_other_than_the_folder_and_a_long_description_are_warnings() {
    let sb = Sandbox::new();
    let dir = skill_pack(&sb, "pdf", SKILL);
    let doc = sb.json(&["lint", path(&dir)], 0);
    assert_eq!(findings(&doc), [finding("skill.name-folder", "warning")]);
    sb.json(&["lint", "--deny-warnings", path(&dir)], 1);
    // The root of a git repository (a clone) is named by whoever cloned it.
    std::fs::create_dir(dir.join(".git")).unwrap();
    let doc = sb.json(&["lint", "--deny-warnings", path(&dir)], 0);
    assert_eq!(findings(&doc), []);

    let long = SKILL.replace("Reads and splits", &"very ".repeat(300));
    let dir = skill_pack(&sb, "pdf-tools", &long);
    let doc = sb.json(&["lint", path(&dir)], 0);
    assert_eq!(findings(&doc), [finding("skill.description", "warning")]);
    // In a pack with a manifest it stays an error (§5.2).
    let pack = sb.pack(
        "acme-long",
        &[
            (
                "pack.yaml",
                &common::simple_manifest("acme.long", "1.0.0", "{kind: public}"),
            ),
            (
                "SKILL.md",
                &long
                    .replace("pdf-tools", "acme-long")
                    .replace("`scripts", "`hello` `touch` `scripts"),
            ),
        ],
    );
    let doc = sb.json(&["lint", path(&pack)], 1);
    assert_eq!(findings(&doc), [finding("skill.description", "error")]);
}

#[test]
fn bad_and_reserved_names_are_skill_name_errors() {
    let sb = Sandbox::new();
    for name in ["hcp-x", "hcp-cli", "x", "Bad_Name"] {
        let dir = skill_pack(&sb, name, &SKILL.replace("pdf-tools", name));
        let doc = sb.json(&["lint", path(&dir)], 1);
        assert_eq!(doc["kind"], "skill", "{name}");
        assert_eq!(findings(&doc), [finding("skill.name", "error")], "{name}");
    }
    // A pack with a manifest may not take the bootstrap pack's Skill names
    // either (§14.10).
    let pack = sb.pack(
        "acme-base",
        &[
            (
                "pack.yaml",
                &common::simple_manifest("acme.base", "1.0.0", "{kind: public}"),
            ),
            ("SKILL.md", &common::simple_skill("hcp-tools")),
        ],
    );
    let doc = sb.json(&["lint", path(&pack)], 1);
    assert_eq!(doc["kind"], "pack");
    assert_eq!(findings(&doc), [finding("skill.name", "error")]);
}

#[test]
fn a_folder_with_neither_manifest_nor_skill_is_no_pack() {
    let sb = Sandbox::new();
    let dir = sb.pack("notes", &[("README.md", "# Notes\n")]);
    let doc = sb.json(&["lint", path(&dir)], 1);
    assert_eq!(
        findings(&doc),
        [
            finding("pack.manifest-missing", "error"),
            finding("skill.missing", "error")
        ]
    );
    // Not a pack, and no collection either (§13.1): nothing below it holds
    // a pack, so install finds nothing.
    let err = sb.json(&["install", path(&dir)], 5);
    assert_eq!(err["error"]["code"], "not_found");
    let message = err["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("no folder below it holds pack.yaml, pack.json or SKILL.md"),
        "{message}"
    );
}

#[test]
fn install_activate_list_show_availability_and_uninstall_a_skill_pack() {
    let sb = Sandbox::new();
    let skill = SKILL.replace("license: MIT\n", "metadata:\n  version: 1.4.0\n");
    let dir = skill_pack(&sb, "pdf-tools", &skill);
    let installed = sb.json(&["install", path(&dir)], 0);
    assert_eq!(installed["pack_id"], "pdf-tools");
    assert_eq!(installed["version"], "1.4.0");
    sb.json(&["activate", "pdf-tools"], 0);
    let copy = sb.home().join("skills/pdf-tools/SKILL.md");
    assert_eq!(std::fs::read_to_string(copy).unwrap(), skill);
    let installed_script = sb.home().join("packs/pdf-tools/scripts/split.sh");
    let mode = std::fs::metadata(installed_script)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o755);

    let list = sb.json(&["list"], 0);
    let row = list["packs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pack_id"] == "pdf-tools")
        .cloned()
        .unwrap();
    assert_eq!(row["kind"], "skill");
    assert_eq!(row["binding"], "public");
    let hcp = list["packs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pack_id"] == "hcp-cli")
        .cloned()
        .unwrap();
    assert_eq!(hcp["kind"], "pack");

    let show = sb.json(&["show", "pdf-tools"], 0);
    assert_eq!(show["kind"], "skill");
    assert_eq!(show["sense_only"], true);
    assert_eq!(show["commands"], serde_json::json!([]));
    let text = sb.hcpx().args(["show", "pdf-tools"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().eq(["kind:", "skill"])),
        "{text}"
    );

    let avail = sb.json(&["availability", "pdf-tools"], 0);
    let pack = &avail["packs"][0];
    assert_eq!(pack["kind"], "skill");
    assert_eq!(pack["version"], "1.4.0");
    assert_eq!(pack["status"], "connected");
    assert_eq!(pack["sense"]["active"], true);
    assert_eq!(pack["commands"], serde_json::json!([]));

    sb.json(&["uninstall", "pdf-tools"], 0);
    assert!(!sb.home().join("packs/pdf-tools").exists());
    assert!(!sb.home().join("skills/pdf-tools").exists());
}

#[test]
fn a_skill_without_metadata_version_is_0_0_0_and_list_text_names_its_kind() {
    let sb = Sandbox::new();
    let dir = skill_pack(&sb, "pdf-tools", SKILL);
    let installed = sb.json(&["install", path(&dir)], 0);
    assert_eq!(installed["version"], "0.0.0");
    let out = sb.hcpx().arg("list").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text.lines().next().unwrap();
    let row = text.lines().find(|l| l.starts_with("pdf-tools")).unwrap();
    assert!(header.contains("KIND"), "{text}");
    let column = header.find("KIND").unwrap();
    assert_eq!(&row[column..column + 5], "skill", "{text}");
}

const SCRIPT_PACK: &str = r#"hcp: "1"
id: acme.script
name: Script
version: 1.0.0
description: Runs a multi-line script.
commands:
  - key: report
    summary: Print two lines
    effect: read
    args:
      - {name: who, type: string, default: world}
    adapter:
      kind: process
      program: sh
      argv:
        - -c
        - |
          echo "first line"
          printf 'second%s%s\n' "$SEP" "$1"
        - sh
        - "{who}"
      env: {SEP: "\t"}
"#;

#[test]
fn a_multi_line_script_in_argv_lints_clean_and_runs() {
    let sb = Sandbox::new();
    let dir = sb.pack(
        "acme-script",
        &[
            ("pack.yaml", SCRIPT_PACK),
            (
                "SKILL.md",
                "---\nname: acme-script\ndescription: Scripts.\n---\nRun `report`.\n",
            ),
        ],
    );
    let doc = sb.json(&["lint", "--deny-warnings", path(&dir)], 0);
    assert_eq!(findings(&doc), []);
    common::install_and_activate(&sb, &dir, "acme.script");
    let out = sb.json(&["exec", "acme.script", "report", "--", "who=you"], 0);
    assert_eq!(out["stdout"], "first line\nsecond\tyou\n");

    // ESC is still refused in an argv element, and a newline in a summary.
    let bad = SCRIPT_PACK
        .replace("- sh\n", "- \"\\e[31m\"\n")
        .replace("Print two lines", "\"Print\\ntwo\"");
    let dir = sb.pack(
        "acme-bad",
        &[
            ("pack.yaml", &bad),
            (
                "SKILL.md",
                "---\nname: acme-bad\ndescription: S.\n---\nRun `report`.\n",
            ),
        ],
    );
    let doc = sb.json(&["lint", path(&dir)], 1);
    assert_eq!(
        findings(&doc),
        [
            finding("manifest.text", "error"),
            finding("manifest.text", "error")
        ]
    );
}

/// What `<store>/packs` holds.
fn installed(sb: &Sandbox) -> Vec<String> {
    let packs = sb.home().join("packs");
    if !packs.exists() {
        return Vec::new();
    }
    common::names(&packs)
}

#[test]
fn hostile_skill_packs_fail_lint_and_leave_the_store_as_it_was() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    let before = installed(&sb);
    let make = |folder: &str| skill_pack(&sb, folder, &SKILL.replace("pdf-tools", folder));

    let link = make("with-link");
    std::os::unix::fs::symlink("/etc/passwd", link.join("references/passwd")).unwrap();
    let fifo = make("with-fifo");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        fifo.join("scripts/pipe"),
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
    let names = make("with-names");
    std::fs::write(names.join("references/bad\u{1b}[2Jname.md"), "x").unwrap();
    let many = make("with-many");
    for i in 0..1001 {
        std::fs::write(many.join(format!("templates/t{i}.md")), "t").unwrap();
    }
    for (dir, rule) in [
        (&link, "pack.symlink"),
        (&fifo, "pack.file-name"),
        (&names, "pack.file-name"),
        (&many, "pack.too-large"),
    ] {
        let doc = sb.json(&["lint", path(dir)], 1);
        assert_eq!(doc["kind"], "skill");
        assert!(
            findings(&doc).contains(&finding(rule, "error")),
            "{rule}: {doc}"
        );
        let err = sb.json(&["install", path(dir)], 1);
        assert_eq!(err["error"]["code"], "lint_failed", "{rule}");
        assert_eq!(installed(&sb), before, "{rule}");
    }

    // A setuid script installs without its setuid bit (§14.1).
    let setuid = make("with-setuid");
    let script = setuid.join("scripts/split.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o4755)).unwrap();
    sb.json(&["install", path(&setuid)], 0);
    let copy = sb.home().join("packs/with-setuid/scripts/split.sh");
    let mode = std::fs::metadata(copy).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o755);
}

#[test]
fn a_skill_at_a_git_repository_root_installs_and_a_folder_without_one_is_named() {
    if !common::require_tool("git") {
        return;
    }
    use crate::sources::git;
    let sb = Sandbox::new();
    // The checkout's root is the Skill: its folder name is hcpx's own.
    let work = skill_pack(&sb, "pdf-tools-repo", SKILL);
    std::fs::create_dir_all(work.join("docs")).unwrap();
    std::fs::write(work.join("docs/readme.md"), "# Docs\n").unwrap();
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "skill"]);
    let url = format!("file://{}", work.display());
    let out = sb.json(&["install", &format!("git+{url}")], 0);
    assert_eq!(out["pack_id"], "pdf-tools");
    assert_eq!(sb.json(&["show", "pdf-tools"], 0)["kind"], "skill");

    // A SUBDIR that holds no pack: the hint says so, and does not ask the
    // user to fetch what hcpx has just fetched.
    let err = sb.json(&["install", &format!("git+{url}//docs")], 5);
    assert_eq!(err["error"]["code"], "not_found");
    let said = format!("{} {}", err["error"]["message"], err["error"]["hint"]);
    assert!(
        said.contains("docs") && said.contains("pack.yaml, pack.json or SKILL.md"),
        "{said}"
    );
    assert!(!said.contains("fetch the repository"), "{said}");

    // A Skill that fails lint: the hint names the finding.
    std::fs::write(
        work.join("SKILL.md"),
        SKILL.replace("name: pdf-tools", "name: hcp-pdf"),
    )
    .unwrap();
    git(&work, &["commit", "-qam", "reserved name"]);
    let err = sb.json(&["install", "--force", &format!("git+{url}")], 1);
    let hint = err["error"]["hint"].as_str().unwrap();
    assert!(hint.contains("skill.name"), "{hint}");
    assert!(!hint.contains("fetch the repository"), "{hint}");
}

#[tokio::test]
async fn the_tui_browser_tags_a_skill_pack() {
    use crate::tuikit;
    let dir = tuikit::sandbox();
    let src = dir.path().join("src/pdf-tools");
    std::fs::create_dir_all(src.join("scripts")).unwrap();
    std::fs::write(src.join("SKILL.md"), SKILL).unwrap();
    tuikit::engine(&dir)
        .install(src.to_str().unwrap(), false)
        .unwrap();
    // Wide enough for the browser's description column.
    let tui = tuikit::Tui::start_at(dir, "pdf-tools", 240, 24).await;
    let screen = tui.screen();
    assert!(
        screen.contains("skill pack (SKILL.md, no manifest) · plane tool · binding public"),
        "{screen}"
    );
    let row = screen
        .lines()
        .find(|l| l.contains("▶ pdf-tools"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains("skill Reads and splits PDF files"), "{screen}");
}
