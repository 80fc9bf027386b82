//! `hcpx context` end to end (HCP.md §17): fixture Skills of known lengths
//! in a temporary HOME, the budget numbers worked out by hand here, the
//! real binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Sandbox;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A sandbox with its own HOME and no harness variables.
struct Ledger {
    sb: Sandbox,
    env: Vec<(String, String)>,
}

impl Ledger {
    fn new() -> Ledger {
        let sb = Sandbox::new();
        std::fs::create_dir_all(sb.dir.path().join("user")).unwrap();
        let home = sb.dir.path().join("user").display().to_string();
        Ledger {
            sb,
            env: vec![("HOME".into(), home)],
        }
    }

    fn user(&self) -> PathBuf {
        self.sb.dir.path().join("user")
    }

    fn cmd(&self) -> assert_cmd::Command {
        let mut cmd = self.sb.hcpx();
        for var in [
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "XDG_CONFIG_HOME",
            "SLASH_COMMAND_TOOL_CHAR_BUDGET",
        ] {
            cmd.env_remove(var);
        }
        for (name, value) in &self.env {
            cmd.env(name, value);
        }
        cmd
    }

    /// `hcpx --json context ARGS`: exit code, document, stderr.
    fn run(&self, args: &[&str]) -> (i32, Value, String) {
        let out = self
            .cmd()
            .args(["--json", "context"])
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let doc = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
        (
            out.status.code().unwrap_or(-1),
            doc,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn context(&self, args: &[&str]) -> Value {
        let (code, doc, stderr) = self.run(args);
        assert_eq!(code, 0, "{doc} {stderr}");
        doc
    }
}

/// Writes `<root>/<folder>/SKILL.md`.
fn skill(root: &Path, folder: &str, text: &str) {
    std::fs::create_dir_all(root.join(folder)).unwrap();
    std::fs::write(root.join(folder).join("SKILL.md"), text).unwrap();
}

fn front(name: &str, extra: &str) -> String {
    format!("---\nname: {name}\n{extra}---\n# {name}\n\nThe body.\n")
}

/// The six fixture Skills, placed by hand (no hcpx marker):
///
/// | folder | entry | cost |
/// |---|---|---|
/// | ascii | `- ascii: Reads PDFs` | 5 + 4 + 10 = 19 |
/// | wide | `- wide (wide-name): 日本語 🙂 é` (é as e + U+0301) | 16 + 4 + (6+1+2+1+1) = 31 |
/// | when | `- when: Does X - on &lt;Y&gt;` | 4 + 4 + 21 = 29 |
/// | long | 1,600 `x`: cut to 1,535 and `…` | 4 + 4 + 1,536 = 1,544 |
/// | body | no frontmatter: `# Heading line` | 4 + 4 + 14 = 22 |
/// | off | `disable-model-invocation: true` | 0 |
///
/// The listing: 1,645 and 4 newlines = 1,649; of 8,000 (200,000 × 4 ×
/// 0.01) that is 20.6%.
fn fixtures(root: &Path) {
    skill(root, "ascii", &front("ascii", "description: Reads PDFs\n"));
    skill(
        root,
        "wide",
        &front("wide-name", "description: \"日本語 🙂 e\u{301}\"\n"),
    );
    skill(
        root,
        "when",
        &front("when", "description: Does X\nwhen_to_use: on <Y>\n"),
    );
    skill(
        root,
        "long",
        &front("long", &format!("description: {}\n", "x".repeat(1_600))),
    );
    skill(root, "body", "\n\n# Heading line\nmore\n");
    skill(
        root,
        "off",
        &front(
            "off",
            "description: never listed\ndisable-model-invocation: true\n",
        ),
    );
}

fn harness<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harness"] == name)
        .unwrap_or_else(|| panic!("no {name} in {doc}"))
}

fn costs(h: &Value) -> Vec<(String, u64)> {
    h["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["folder"].as_str().unwrap().to_string(),
                s["cost_chars"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Claude Code's rule on the fixtures, worked out by hand (see
/// [`fixtures`]); Skills placed by hand are counted, with no `pack_id`.
#[test]
fn claude_code_listing_matches_the_hand_worked_numbers() {
    let l = Ledger::new();
    fixtures(&l.user().join(".claude/skills"));
    let doc = l.context(&["--harness", "claude-code"]);
    assert_eq!(doc["ok"], true);
    let h = harness(&doc, "claude-code");
    assert_eq!(h["budget_chars"], 8_000);
    assert_eq!(h["used_chars"], 1_649);
    assert_eq!(h["percent"], 20.6);
    assert_eq!(h["verdict"], "fits");
    assert_eq!(h["names_only_at_least"], 0);
    assert_eq!(h["not_counted"], serde_json::json!(["plugins", "bundled"]));
    assert_eq!(h["folders"][0]["scope"], "user");
    assert_eq!(
        costs(h),
        [
            ("long".to_string(), 1_544),
            ("wide".into(), 31),
            ("when".into(), 29),
            ("body".into(), 22),
            ("ascii".into(), 19),
            ("off".into(), 0),
        ]
    );
    let skills = h["skills"].as_array().unwrap();
    let long = &skills[0];
    assert_eq!(long["cut"], true);
    assert_eq!(long["description_chars"], 1_600);
    assert_eq!(skills[1]["name"], "wide-name");
    assert_eq!(skills[1]["description_chars"], 11);
    assert_eq!(skills[2]["description_chars"], 21);
    assert!(skills.iter().all(|s| s["pack_id"].is_null()));
    assert!(skills.iter().all(|s| s["scope"] == "user"));
    assert!(skills.iter().all(|s| s.get("error").is_none()));
}

/// Each override of the budget and the cap (§17.2).
#[test]
fn every_override_of_the_budget_and_the_cap() {
    let mut l = Ledger::new();
    fixtures(&l.user().join(".claude/skills"));
    let budget = |doc: &Value| {
        harness(doc, "claude-code")["budget_chars"]
            .as_u64()
            .unwrap()
    };
    let cc = ["--harness", "claude-code"];
    // 100,000 × 4 × 0.01; 200,000 × 3 × 0.01.
    assert_eq!(
        budget(&l.context(&[&cc[..], &["--context-tokens", "100000"]].concat())),
        4_000
    );
    assert_eq!(
        budget(&l.context(&[&cc[..], &["--chars-per-token", "3"]].concat())),
        6_000
    );
    // The user's settings: 200,000 × 4 × 0.001 = 800: over by 849.
    std::fs::write(
        l.user().join(".claude/settings.json"),
        r#"{"skillListingBudgetFraction": 0.001}"#,
    )
    .unwrap();
    let doc = l.context(&cc);
    let h = harness(&doc, "claude-code");
    assert_eq!(
        (h["budget_chars"].as_u64(), h["verdict"].as_str()),
        (Some(800), Some("over"))
    );
    // Without `long`'s description (1,544 − 6 = 1,538 saved): 111 ≤ 800.
    assert_eq!(h["names_only_at_least"], 1);
    assert_eq!(h["percent"], 206.1);
    // The cap from the settings: `long` costs 4 + 4 + 100.
    std::fs::write(
        l.user().join(".claude/settings.json"),
        r#"{"skillListingMaxDescChars": 100}"#,
    )
    .unwrap();
    let doc = l.context(&cc);
    let h = harness(&doc, "claude-code");
    assert_eq!(costs(h)[0], ("long".to_string(), 108));
    assert_eq!(h["used_chars"], 1_649 - 1_544 + 108);
    // The variable wins over all: 50. Names alone are 6 + 18 + 6 + 6 + 7
    // and 4 newlines = 47 ≤ 50: all five descriptions go.
    l.env
        .push(("SLASH_COMMAND_TOOL_CHAR_BUDGET".into(), "50".into()));
    std::fs::write(l.user().join(".claude/settings.json"), "{}").unwrap();
    let doc = l.context(&[&cc[..], &["--context-tokens", "1000000"]].concat());
    let h = harness(&doc, "claude-code");
    assert_eq!(h["budget_chars"], 50);
    assert_eq!(h["names_only_at_least"], 5);
    l.env.pop();
    // $CLAUDE_CONFIG_DIR: its skills and its settings (0.002: 1,600).
    let config = l.sb.dir.path().join("claude-config");
    skill(
        &config.join("skills"),
        "ascii",
        &front("ascii", "description: Reads PDFs\n"),
    );
    std::fs::write(
        config.join("settings.json"),
        r#"{"skillListingBudgetFraction": 0.002}"#,
    )
    .unwrap();
    l.env
        .push(("CLAUDE_CONFIG_DIR".into(), config.display().to_string()));
    let doc = l.context(&cc);
    let h = harness(&doc, "claude-code");
    assert_eq!(
        (h["budget_chars"].as_u64(), h["used_chars"].as_u64()),
        (Some(1_600), Some(19))
    );
}

/// In a project, the project's `.claude/skills` joins the user's under
/// one budget, each Skill with its scope; the project's settings win over
/// the user's, `settings.local.json` over `settings.json`.
#[test]
fn a_project_joins_the_users_folders_under_one_budget() {
    let l = Ledger::new();
    skill(
        &l.user().join(".claude/skills"),
        "ascii",
        &front("ascii", "description: Reads PDFs\n"),
    );
    let project = l.sb.dir.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("hcp.yaml"),
        "hcp: \"1\"\nharnesses: [claude-code]\n",
    )
    .unwrap();
    skill(
        &project.join(".claude/skills"),
        "proj",
        &front("proj", "description: abc\n"),
    );
    std::fs::write(
        l.user().join(".claude/settings.json"),
        r#"{"skillListingBudgetFraction": 0.5}"#,
    )
    .unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"skillListingBudgetFraction": 0.02}"#,
    )
    .unwrap();
    std::fs::write(
        project.join(".claude/settings.local.json"),
        r#"{"skillListingBudgetFraction": 0.0005}"#,
    )
    .unwrap();
    let out = l
        .cmd()
        .current_dir(&project)
        .args(["--json", "context", "--harness", "claude-code"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let h = harness(&doc, "claude-code");
    // 200,000 × 4 × 0.0005; `- ascii: Reads PDFs` 19, `- proj: abc` 11,
    // one newline.
    assert_eq!(h["budget_chars"], 400);
    assert_eq!(h["used_chars"], 19 + 11 + 1);
    let scopes: Vec<(&str, &str)> = h["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["folder"].as_str().unwrap(), s["scope"].as_str().unwrap()))
        .collect();
    assert_eq!(scopes, [("ascii", "user"), ("proj", "project")]);
    let folders: Vec<&str> = h["folders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["scope"].as_str().unwrap())
        .collect();
    assert_eq!(folders, ["user", "project"]);
    // Without --harness: the project's enabled claude-code is reported.
    let out = l
        .cmd()
        .current_dir(&project)
        .args(["--json", "context"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(harness(&doc, "claude-code")["used_chars"], 31);
}

/// A FIFO, a huge file, a link to a device, a broken link: each is listed
/// with an error and cost 0, the report exits 0 without hanging; a linked
/// `SKILL.md` and a linked Skill folder are followed and counted.
#[test]
fn unreadable_skills_are_reported_without_hanging() {
    let l = Ledger::new();
    let root = l.user().join(".claude/skills");
    skill(&root, "ascii", &front("ascii", "description: Reads PDFs\n"));
    std::fs::create_dir_all(root.join("fifo")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(root.join("fifo/SKILL.md"))
        .status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    skill(&root, "huge", &"x".repeat(1_000_001));
    std::fs::create_dir_all(root.join("device")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join("device/SKILL.md")).unwrap();
    std::fs::create_dir_all(root.join("broken")).unwrap();
    std::os::unix::fs::symlink("/nowhere/SKILL.md", root.join("broken/SKILL.md")).unwrap();
    let elsewhere = l.sb.dir.path().join("elsewhere");
    skill(&elsewhere, "linked", &front("linked", "description: abc\n"));
    std::fs::create_dir_all(root.join("filelink")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.join("linked/SKILL.md"),
        root.join("filelink/SKILL.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(elsewhere.join("linked"), root.join("dirlink")).unwrap();
    let started = std::time::Instant::now();
    let doc = l.context(&["--harness", "claude-code"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let h = harness(&doc, "claude-code");
    let by_folder = |name: &str| {
        h["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["folder"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {h}"))
    };
    for (name, error) in [
        ("fifo", "not a regular file"),
        ("device", "not a regular file"),
        ("huge", "over 1,000,000 bytes"),
    ] {
        let s = by_folder(name);
        assert_eq!(
            (s["error"].as_str(), s["cost_chars"].as_u64()),
            (Some(error), Some(0)),
            "{s}"
        );
    }
    assert!(by_folder("broken")["error"].is_string());
    // `- dirlink (linked): abc` = 16 + 4 + 3; `- filelink (linked): abc`.
    assert_eq!(by_folder("dirlink")["cost_chars"], 23);
    assert_eq!(by_folder("filelink")["cost_chars"], 24);
    assert_eq!(h["used_chars"], 19 + 23 + 24 + 2);
}

/// `--max-percent` (§17.5): over it, the report with `ok: false` and
/// `over_max`, stderr naming the harness, exit 1; a harness with no known
/// budget never fails it.
#[test]
fn max_percent_fails_a_harness_over_it() {
    let l = Ledger::new();
    fixtures(&l.user().join(".claude/skills"));
    // 20.6% of the budget.
    let (code, doc, stderr) = l.run(&["--harness", "claude-code", "--max-percent", "20"]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["over_max"], serde_json::json!(["claude-code"]));
    assert!(stderr.contains("claude-code"), "{stderr}");
    assert_eq!(harness(&doc, "claude-code")["used_chars"], 1_649);
    let (code, doc, _) = l.run(&["--harness", "claude-code", "--max-percent", "21"]);
    assert_eq!((code, &doc["ok"]), (0, &Value::Bool(true)));
    assert_eq!(doc["over_max"], serde_json::json!([]));
    fixtures(&l.user().join(".cursor/skills"));
    let (code, doc, _) = l.run(&["--harness", "cursor", "--max-percent", "0"]);
    assert_eq!(code, 0, "{doc}");
    let h = harness(&doc, "cursor");
    assert_eq!(
        (&h["budget_chars"], &h["percent"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(h["verdict"], "unknown");
    // Over its budget without --max-percent: reported, exit 0.
    let mut l = l;
    l.env
        .push(("SLASH_COMMAND_TOOL_CHAR_BUDGET".into(), "100".into()));
    let (code, doc, _) = l.run(&["--harness", "claude-code"]);
    assert_eq!(
        (code, harness(&doc, "claude-code")["verdict"].as_str()),
        (0, Some("over"))
    );
}

/// An unknown `--harness` is a usage error.
#[test]
fn an_unknown_harness_is_usage() {
    let l = Ledger::new();
    let (code, doc, _) = l.run(&["--harness", "vim"]);
    assert_eq!(code, 2, "{doc}");
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["error"]["code"], "usage");
}

/// Without `--harness`, the enabled harnesses: the Skills hcpx placed carry
/// their `pack_id`, one placed by hand none, and the words mark it.
#[test]
fn enabled_harnesses_and_who_placed_each_skill() {
    let l = Ledger::new();
    let out = l
        .cmd()
        .args(["harness", "enable", "claude-code"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    skill(
        &l.user().join(".claude/skills"),
        "mine",
        &front("mine", "description: abc\n"),
    );
    let doc = l.context(&[]);
    let names: Vec<&str> = doc["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["harness"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["claude-code"]);
    let h = harness(&doc, "claude-code");
    let skills = h["skills"].as_array().unwrap();
    let placed = skills.iter().find(|s| s["folder"] == "hcp-cli").unwrap();
    assert_eq!(placed["pack_id"], "hcp-cli");
    let mine = skills.iter().find(|s| s["folder"] == "mine").unwrap();
    assert!(mine["pack_id"].is_null());
    assert_eq!(mine["cost_chars"], 4 + 4 + 3);
    let sum: u64 = skills
        .iter()
        .map(|s| s["cost_chars"].as_u64().unwrap())
        .sum();
    assert_eq!(h["used_chars"].as_u64(), Some(sum + 1));
    let out = l.cmd().arg("context").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("mine*"), "{text}");
    assert!(text.contains("not placed by hcpx"), "{text}");
    assert!(text.contains("/ 8,000 characters"), "{text}");
}

/// Codex's rule: `- pdf: Reads PDFs (file: PATH)` and its newline in
/// bytes, 4 a token; 2% of 200,000 tokens = 4,000 tokens = 16,000.
#[test]
fn codex_prices_by_its_own_rule() {
    let l = Ledger::new();
    let root = l.user().join(".agents/skills");
    skill(&root, "pdf", &front("pdf", "description: Reads PDFs\n"));
    let doc = l.context(&["--harness", "codex"]);
    let h = harness(&doc, "codex");
    assert_eq!(h["budget_chars"], 16_000);
    let path = root.join("pdf/SKILL.md").display().to_string();
    let bytes = format!("- pdf: Reads PDFs (file: {path})").len() as u64 + 1;
    assert_eq!(h["used_chars"].as_u64(), Some(bytes.div_ceil(4) * 4));
    let doc = l.context(&["--harness", "codex", "--context-tokens", "1000"]);
    assert_eq!(harness(&doc, "codex")["budget_chars"], 80);
}
