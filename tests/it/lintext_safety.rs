//! Pack text cannot drive the terminal (HCP.md §14.5); lint is bounded on
//! hostile files (§2.3) and consistent (BOM, `timeout_ms` range); the
//! `manifest.text` rule (§10.5) and the Skill name grammar (§5.2), on the
//! real binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Sandbox;
use regex::Regex;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// A manifest whose display text holds an OSC title, CSI clears, a C1 CSI,
/// DEL and a bidi override.
const HOSTILE_MANIFEST: &str = r#"hcp: "1"
id: evil.pack
name: "Evil \e]0;pwned-name\a name"
version: 1.0.0
description: "\e]0;pwned-title\a\e[2J\e[H\x9b31m\x7f\u202Eexe.txt clears your screen"
commands:
  - key: run
    summary: "\e[2J\x9b2J summary"
    effect: read
    adapter: {kind: process, program: "true"}
"#;

const HOSTILE_SKILL: &str = "---\nname: evil-pack\ndescription: \"\\e]0;pwned-skill\\a\\u202Eend\"\n---\nRun `run`. \u{1b}]0;pwned-body\u{7}\n";

/// A second pack whose id itself is hostile.
const HOSTILE_ID_MANIFEST: &str = r#"hcp: "1"
id: "evil\e]0;pwned-id\a\x9b2J"
name: Evil id
version: 1.0.0
description: An id that tries the terminal.
commands: []
"#;

/// A catalog holding both hostile packs.
fn hostile_catalog(sb: &Sandbox) -> PathBuf {
    let catalog = sb.dir.path().join("catalog");
    for (folder, manifest) in [("evil", HOSTILE_MANIFEST), ("evil-id", HOSTILE_ID_MANIFEST)] {
        let dir = catalog.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("pack.yaml"), manifest).unwrap();
        std::fs::write(dir.join("SKILL.md"), HOSTILE_SKILL).unwrap();
    }
    catalog
}

/// Runs hcpx in text mode; `color` forces colour as on a terminal, where
/// nothing would strip escapes on the way.
fn run(sb: &Sandbox, args: &[&str], color: bool) -> Output {
    let mut cmd = sb.hcpx();
    if color {
        cmd.env_remove("NO_COLOR").env("CLICOLOR_FORCE", "1");
    }
    cmd.args(args).output().unwrap()
}

/// No C1, DEL or bidi control, and every ESC starts an SGR colour sequence
/// of hcpx's own (none at all without colour).
fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = text
        .chars()
        .filter(|&c| {
            ('\u{7f}'..='\u{9f}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
                || (c.is_control() && !matches!(c, '\n' | '\t' | '\u{1b}'))
        })
        .collect();
    assert!(bad.is_empty(), "{what}: raw {bad:?} in {text:?}");
    let sgr = Regex::new(r"\x1b\[[0-9;]*m").unwrap();
    let rest = sgr.replace_all(&text, "");
    assert!(
        !rest.contains('\u{1b}'),
        "{what}: an escape that is not hcpx's colour in {text:?}"
    );
}

#[test]
fn pack_text_reaches_the_terminal_without_escapes() {
    let sb = Sandbox::new();
    let catalog = hostile_catalog(&sb);
    let cat = catalog.to_str().unwrap();
    let hostile_id = "evil\u{1b}]0;pwned-id\u{7}\u{9b}2J";
    let evil = catalog.join("evil");
    let evil_id = catalog.join("evil-id");
    let cases: Vec<Vec<&str>> = vec![
        vec!["list", "--catalog", cat],
        vec!["availability", "--catalog", cat],
        vec!["why", "evil.pack", "--catalog", cat],
        vec!["why", "evil.pack", "nope", "--catalog", cat],
        vec!["why", hostile_id, "--catalog", cat],
        vec!["install", "evil.pack", "--catalog", cat],
        vec!["install", hostile_id, "--catalog", cat],
        vec!["lint", evil.to_str().unwrap()],
        vec!["lint", evil_id.to_str().unwrap()],
        vec!["doctor", "--catalog", cat],
    ];
    for args in &cases {
        for color in [false, true] {
            let out = run(&sb, args, color);
            let what = format!("hcpx {args:?} (colour {color})");
            assert_terminal_safe(&format!("{what} stdout"), &out.stdout);
            assert_terminal_safe(&format!("{what} stderr"), &out.stderr);
        }
    }
    // The text is still shown, with the bad characters replaced.
    let out = run(&sb, &["list", "--catalog", cat], true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("evil.pack"), "{stdout}");
    assert!(stdout.contains("\u{fffd}]0;pwned-title"), "{stdout}");
    let lint = run(&sb, &["lint", evil.to_str().unwrap()], false);
    assert_eq!(lint.status.code(), Some(1));
    let text = String::from_utf8_lossy(&lint.stdout);
    assert!(text.contains("error[manifest.text]"), "{text}");
}

/// The TUI draws the same packs with the same replacement: no pane shows a
/// control or bidi character.
#[tokio::test]
async fn tui_panes_show_no_raw_control_or_bidi_characters() {
    use crossterm::event::KeyCode;
    let dir = crate::tuikit::sandbox();
    let catalog = crate::tuikit::catalog(&dir);
    crate::tuikit::write_pack(&catalog, "evil", HOSTILE_MANIFEST, HOSTILE_SKILL);
    crate::tuikit::write_pack(&catalog, "evil-id", HOSTILE_ID_MANIFEST, HOSTILE_SKILL);
    let mut tui = crate::tuikit::Tui::start(dir, 120, 40).await;
    tui.select("evil.pack").await;
    let mut screens = vec![tui.screen()];
    for _ in 0..3 {
        tui.press(KeyCode::Tab).await;
        screens.push(tui.screen());
    }
    for (n, screen) in screens.iter().enumerate() {
        assert_terminal_safe(&format!("TUI screen {n}"), screen.as_bytes());
    }
    assert!(
        screens[0].contains("— Evil \u{fffd}]0;pwned-name\u{fffd} name"),
        "{}",
        screens[0]
    );
    assert!(
        screens[0].contains("description: \u{fffd}]0;pwned-skill\u{fffd}\u{fffd}end"),
        "the Skill's description is shown, its override replaced: {}",
        screens[0]
    );
}

/// The TUI's Skill view does not wait on a FIFO `SKILL.md` nor show what a
/// linked one points to. The TUI runs on its own thread so that a hang is a
/// failure after a bound, not a test that never ends.
#[test]
fn tui_skill_view_opens_only_a_regular_skill_file() {
    let dir = crate::tuikit::sandbox();
    let catalog = crate::tuikit::catalog(&dir);
    let manifest = crate::common::simple_manifest("acme.fifo", "1.0.0", "{kind: public}");
    let fifo = crate::tuikit::write_pack(&catalog, "fifo", &manifest, "");
    std::fs::remove_file(fifo.join("SKILL.md")).unwrap();
    mkfifo(&fifo.join("SKILL.md"));
    let manifest = crate::common::simple_manifest("acme.link", "1.0.0", "{kind: public}");
    let link = crate::tuikit::write_pack(&catalog, "link", &manifest, "");
    let secret = dir.path().join("secret.txt");
    std::fs::write(
        &secret,
        "---\nname: leaked-secret\ndescription: d\n---\nbody\n",
    )
    .unwrap();
    std::fs::remove_file(link.join("SKILL.md")).unwrap();
    std::os::unix::fs::symlink(&secret, link.join("SKILL.md")).unwrap();

    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut tui = crate::tuikit::Tui::start(dir, 120, 40).await;
            for id in ["acme.fifo", "acme.link"] {
                tui.select(id).await;
                let _ = tx.send((id, tui.screen()));
            }
        });
    });
    for _ in 0..2 {
        let (id, screen) = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the TUI showed the pack within 20 s");
        assert!(screen.contains("cannot read SKILL.md"), "{id}: {screen}");
        assert!(!screen.contains("leaked-secret"), "{id}: {screen}");
    }
}

#[test]
fn json_keeps_pack_text_as_data() {
    let sb = Sandbox::new();
    let catalog = hostile_catalog(&sb);
    let list = sb.json(&["list", "--catalog", catalog.to_str().unwrap()], 0);
    let packs = list["packs"].as_array().unwrap();
    let evil = packs.iter().find(|p| p["pack_id"] == "evil.pack").unwrap();
    let description = evil["description"].as_str().unwrap();
    assert!(
        description.starts_with("\u{1b}]0;pwned-title\u{7}\u{1b}[2J"),
        "{description:?}"
    );
    // serde escaped them in the document itself.
    let raw = sb
        .hcpx()
        .args(["--json", "list", "--catalog", catalog.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!raw.stdout.contains(&0x1b), "raw ESC in JSON output");
    assert!(String::from_utf8_lossy(&raw.stdout).contains("\\u001b]0;pwned-title"));
}

// ---- lint never hangs or reads what it refuses -------------------------------

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// `hcpx --json lint DIR` with a bound on its run time; the report.
fn lint_json(sb: &Sandbox, dir: &Path) -> (Option<i32>, Value) {
    let out = sb
        .hcpx()
        .timeout(Duration::from_secs(20))
        .args(["--json", "lint", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let doc = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("hcpx lint did not answer ({e}): {stdout:?}"));
    (out.status.code(), doc)
}

fn has_finding(doc: &Value, rule: &str, file: &str) -> bool {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["rule"] == rule && d["file"] == file)
}

#[test]
fn a_fifo_manifest_or_skill_is_reported_not_waited_on() {
    let sb = Sandbox::new();
    let dir = sb.dir.path().join("fifo-manifest");
    std::fs::create_dir_all(&dir).unwrap();
    mkfifo(&dir.join("pack.yaml"));
    std::fs::write(dir.join("SKILL.md"), crate::common::simple_skill("acme.x")).unwrap();
    let (code, doc) = lint_json(&sb, &dir);
    assert_eq!(code, Some(1), "{doc}");
    assert!(has_finding(&doc, "pack.file-name", "pack.yaml"), "{doc}");

    // A FIFO SKILL.md beside the bootstrap pack's own manifest (which makes
    // the CLI compare SKILL.md too).
    let dir = sb.dir.path().join("fifo-skill");
    std::fs::create_dir_all(&dir).unwrap();
    let bootstrap = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/bootstrap/hcp-cli");
    std::fs::copy(bootstrap.join("pack.yaml"), dir.join("pack.yaml")).unwrap();
    mkfifo(&dir.join("SKILL.md"));
    let (code, doc) = lint_json(&sb, &dir);
    assert_eq!(code, Some(1), "{doc}");
    assert!(has_finding(&doc, "pack.file-name", "SKILL.md"), "{doc}");
}

/// Gives `path` an access time in the past (and a modification time now),
/// so that any read of it moves the access time (relatime).
fn age_access_time(path: &Path) {
    let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(86_400);
    let times = std::fs::FileTimes::new()
        .set_accessed(old)
        .set_modified(std::time::SystemTime::now());
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_times(times)
        .unwrap();
}

fn accessed(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path).unwrap().accessed().unwrap()
}

#[test]
fn a_sparse_3_gib_manifest_is_too_large_without_being_read() {
    let sb = Sandbox::new();
    let dir = sb.dir.path().join("huge");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pack.yaml");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(3 * 1024 * 1024 * 1024)
        .unwrap();
    std::fs::write(dir.join("SKILL.md"), crate::common::simple_skill("acme.x")).unwrap();
    // Whether this file system records reads in the access time at all.
    let probe = sb.dir.path().join("probe");
    std::fs::write(&probe, "x").unwrap();
    age_access_time(&probe);
    let before = accessed(&probe);
    std::fs::read(&probe).unwrap();
    let atime_works = accessed(&probe) != before;

    age_access_time(&path);
    let before = accessed(&path);
    let (code, doc) = lint_json(&sb, &dir);
    assert_eq!(code, Some(1), "{doc}");
    assert!(has_finding(&doc, "pack.too-large", "pack.yaml"), "{doc}");
    if atime_works {
        assert_eq!(accessed(&path), before, "hcpx read the 3 GiB pack.yaml");
    }
}

// ---- consistent parsing ------------------------------------------------------

fn rules(doc: &Value) -> Vec<String> {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_integer_past_i64_timeout_is_out_of_range() {
    let sb = Sandbox::new();
    let manifest = crate::common::simple_manifest("acme.x", "1.0.0", "{kind: public}").replace(
        "    effect: read\n",
        "    effect: read\n    timeout_ms: 100000000000000000000000000000\n",
    );
    let dir = sb.pack(
        "timeout",
        &[
            ("pack.yaml", &manifest),
            ("SKILL.md", &crate::common::simple_skill("acme.x")),
        ],
    );
    let (code, doc) = lint_json(&sb, &dir);
    assert_eq!(code, Some(1));
    assert_eq!(rules(&doc), ["command.timeout"], "{doc}");
    let message = doc["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("1 to 600,000"), "{message}");
}

#[test]
fn a_byte_order_mark_is_accepted_in_yaml_json_and_skill() {
    let sb = Sandbox::new();
    let skill = format!("\u{feff}{}", crate::common::simple_skill("acme.x"));
    let yaml = format!(
        "\u{feff}{}",
        crate::common::simple_manifest("acme.x", "1.0.0", "{kind: public}")
    );
    let json = format!(
        "\u{feff}{}",
        serde_json::json!({
            "hcp": "1", "id": "acme.x", "name": "X", "version": "1.0.0",
            "description": "A pack.",
            "commands": [{"key": "hello", "summary": "Hi", "effect": "read",
                          "adapter": {"kind": "process", "program": "true"}},
                         {"key": "touch", "summary": "T", "effect": "write",
                          "adapter": {"kind": "process", "program": "true"}}]
        })
    );
    for (name, manifest_file, manifest) in [
        ("bom-yaml", "pack.yaml", &yaml),
        ("bom-json", "pack.json", &json),
    ] {
        let dir = sb.pack(name, &[(manifest_file, manifest), ("SKILL.md", &skill)]);
        let (code, doc) = lint_json(&sb, &dir);
        assert_eq!(code, Some(0), "{name}: {doc}");
        assert_eq!(doc["pack_id"], "acme.x", "{name}: {doc}");
    }
}

#[test]
fn skill_names_follow_the_agent_skills_grammar() {
    let sb = Sandbox::new();
    let manifest = crate::common::simple_manifest("acme.x", "1.0.0", "{kind: public}");
    let skill =
        |name: &str| format!("---\nname: {name}\ndescription: d\n---\nRun `hello`, `touch`.\n");
    for (name, ok) in [
        ("acme-x", true),
        ("a", true),
        ("x2-y3-z", true),
        ("-acme", false),
        ("acme-", false),
        ("acme--x", false),
        ("Acme", false),
        ("acme_x", false),
    ] {
        let dir = sb.pack(
            &format!("skill-{name}"),
            &[("pack.yaml", &manifest), ("SKILL.md", &skill(name))],
        );
        let (code, doc) = lint_json(&sb, &dir);
        let expected: &[&str] = if ok { &[] } else { &["skill.name"] };
        assert_eq!(rules(&doc), expected, "name {name}: {doc}");
        assert_eq!(code, Some(if ok { 0 } else { 1 }), "name {name}");
    }
}

#[test]
fn every_shipped_skill_name_follows_the_grammar() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("packs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("SKILL.md").is_file())
        .collect();
    assert!(dirs.len() >= 10, "{dirs:?}");
    dirs.push(root.join("bootstrap/hcp-cli"));
    for dir in dirs {
        let text = std::fs::read_to_string(dir.join("SKILL.md")).unwrap();
        let doc = hcpx::engine::pack::skill::parse(&text).unwrap();
        let name = doc.name.unwrap_or_default();
        assert!(
            hcpx::engine::pack::grammar::is_skill_name(&name),
            "{}: {name}",
            dir.display()
        );
    }
}
