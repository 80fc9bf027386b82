//! Harness targets end to end (HCP.md §12.4–§12.8): a temporary HOME with
//! fake harness folders, the real binary, the files it leaves.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A sandbox whose HOME is a fresh folder, with no harness variables set.
pub struct Harness {
    pub sb: Sandbox,
    env: Vec<(String, String)>,
}

impl Harness {
    pub fn new() -> Self {
        let sb = Sandbox::new();
        let user = sb.dir.path().join("user");
        std::fs::create_dir_all(&user).unwrap();
        Harness {
            env: vec![("HOME".into(), user.display().to_string())],
            sb,
        }
    }

    pub fn user(&self) -> PathBuf {
        self.sb.dir.path().join("user")
    }

    pub fn set(&mut self, name: &str, value: &Path) {
        self.env.push((name.into(), value.display().to_string()));
    }

    pub fn cmd(&self) -> assert_cmd::Command {
        let mut cmd = self.sb.hcpx();
        for var in ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"] {
            cmd.env_remove(var);
        }
        for (name, value) in &self.env {
            cmd.env(name, value);
        }
        cmd
    }

    /// `hcpx --json ARGS`, checking the exit code.
    pub fn json(&self, args: &[&str], code: i32) -> Value {
        let out = self.cmd().arg("--json").args(args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "hcpx {args:?}: {stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
    }

    /// Writes a small pack whose Skill is named `skill`; returns its folder.
    pub fn skill_pack(&self, id: &str, version: &str, skill: &str) -> PathBuf {
        self.sb.pack(
            &format!("{id}-{version}"),
            &[
                (
                    "pack.yaml",
                    &common::simple_manifest(id, version, "{kind: public}"),
                ),
                ("SKILL.md", &skill_text(skill, version)),
            ],
        )
    }

    /// Installs and activates a small pack whose Skill is named `skill`.
    pub fn activated_pack(&self, id: &str, version: &str, skill: &str) {
        let dir = self.skill_pack(id, version, skill);
        self.json(&["install", dir.to_str().unwrap()], 0);
        self.json(&["activate", id], 0);
    }
}

pub fn skill_text(name: &str, version: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Test skill {version}.\n---\nRun `hello` to greet, `touch` to write.\n"
    )
}

/// `(pack_id, skill, state)` of every Skill line of one target.
pub fn states(doc: &Value, target: &str) -> Vec<(String, String, String)> {
    let targets = doc["targets"].as_array().unwrap();
    let target = targets
        .iter()
        .find(|t| t["name"] == target)
        .unwrap_or_else(|| panic!("no target {target} in {doc}"));
    let mut out: Vec<_> = target["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["pack_id"].as_str().unwrap().to_string(),
                s["skill"].as_str().unwrap().to_string(),
                s["state"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

pub fn line(pack: &str, skill: &str, state: &str) -> (String, String, String) {
    (pack.into(), skill.into(), state.into())
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn list_shows_every_target_with_detection_and_the_env_overrides() {
    let mut h = Harness::new();
    std::fs::create_dir_all(h.user().join(".cursor")).unwrap();
    let claude = h.sb.dir.path().join("claude-config");
    h.set("CLAUDE_CONFIG_DIR", &claude);
    let xdg = h.sb.dir.path().join("xdg");
    std::fs::create_dir_all(xdg.join("opencode")).unwrap();
    h.set("XDG_CONFIG_HOME", &xdg);
    let doc = h.json(&["harness", "list"], 0);
    let targets = doc["targets"].as_array().unwrap();
    let names: Vec<_> = targets
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "agents",
            "claude-code",
            "codex",
            "cursor",
            "copilot",
            "opencode",
            "gemini",
            "windsurf"
        ]
    );
    let get = |name: &str| targets.iter().find(|t| t["name"] == name).unwrap().clone();
    assert_eq!(get("agents")["detected"], true);
    assert_eq!(
        get("claude-code")["path"],
        claude.join("skills").display().to_string()
    );
    assert_eq!(get("claude-code")["detected"], true);
    assert_eq!(get("codex")["detected"], false);
    assert_eq!(get("cursor")["detected"], true);
    assert_eq!(
        get("opencode")["path"],
        xdg.join("opencode/skills").display().to_string()
    );
    assert_eq!(get("opencode")["detected"], true);
    assert!(targets.iter().all(|t| t["enabled"] == false));
    // Nothing was written outside the store by looking.
    assert!(!h.user().join(".agents").exists());
    assert!(!claude.exists());
}

#[test]
fn enable_places_byte_copies_and_disable_takes_them_back() {
    let h = Harness::new();
    std::fs::create_dir_all(h.user().join(".claude")).unwrap();
    h.activated_pack("acme.notes", "1.0.0", "acme-notes");
    let doc = h.json(&["harness", "enable", "--detected"], 0);
    assert_eq!(doc["changed"], serde_json::json!(["agents", "claude-code"]));
    for folder in [".agents/skills", ".claude/skills"] {
        let placed = h.user().join(folder).join("acme-notes");
        assert_eq!(
            read(&placed.join("SKILL.md")),
            skill_text("acme-notes", "1.0.0")
        );
        assert!(
            !std::fs::symlink_metadata(placed.join("SKILL.md"))
                .unwrap()
                .is_symlink()
        );
        let marker: Value = serde_json::from_str(&read(&placed.join(".hcpx.json"))).unwrap();
        assert_eq!(marker["pack_id"], "acme.notes");
        assert_eq!(marker["version"], "1.0.0");
        assert_eq!(marker["sha256"].as_str().unwrap().len(), 64);
        // The bootstrap pack's Skill goes too.
        assert!(h.user().join(folder).join("hcp-cli/SKILL.md").is_file());
    }
    let status = h.json(&["harness", "status"], 0);
    assert_eq!(status["ok"], true);
    assert_eq!(
        states(&status, "claude-code"),
        [
            line("acme.notes", "acme-notes", "placed"),
            line("hcp-cli", "hcp-cli", "placed")
        ]
    );
    let config = read(&h.sb.home().join("config.yaml"));
    assert!(
        config.contains("harnesses:\n  - \"agents\"\n  - \"claude-code\"\n"),
        "{config}"
    );
    assert!(
        config.contains("# hcpx configuration"),
        "comments kept: {config}"
    );

    let doc = h.json(&["harness", "disable", "claude-code"], 0);
    assert_eq!(doc["changed"], serde_json::json!(["claude-code"]));
    assert_eq!(
        common::names(&h.user().join(".claude/skills")),
        Vec::<String>::new()
    );
    assert!(
        h.user()
            .join(".agents/skills/acme-notes/SKILL.md")
            .is_file()
    );
    let list = h.json(&["harness", "list"], 0);
    let enabled: Vec<_> = list["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["enabled"] == true)
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(enabled, ["agents"]);
}

#[test]
fn every_state_is_reported_and_sync_repairs_what_it_may() {
    let h = Harness::new();
    h.activated_pack("acme.one", "1.0.0", "one");
    h.activated_pack("acme.two", "1.0.0", "two");
    h.activated_pack("acme.three", "1.0.0", "three");
    h.activated_pack("acme.four", "1.0.0", "four");
    h.json(&["harness", "enable", "agents"], 0);
    let folder = h.user().join(".agents/skills");
    // placed by activate, and a conflict: a folder that is not ours under a wanted name.
    h.activated_pack("acme.five", "1.0.0", "five");
    std::fs::create_dir_all(folder.join("six")).unwrap();
    std::fs::write(folder.join("six/SKILL.md"), "theirs").unwrap();
    h.activated_pack("acme.six", "1.0.0", "six");
    // missing: someone deleted our copy.
    std::fs::remove_dir_all(folder.join("one")).unwrap();
    // modified: someone edited it.
    std::fs::write(folder.join("two/SKILL.md"), "my notes").unwrap();
    // outdated: a new version of the pack, installed behind hcpx's back.
    let v2 = h.skill_pack("acme.three", "2.0.0", "three");
    let installed = h.sb.home().join("packs/acme.three");
    std::fs::copy(v2.join("SKILL.md"), installed.join("SKILL.md")).unwrap();
    std::fs::copy(v2.join("pack.yaml"), installed.join("pack.yaml")).unwrap();
    // stale: a copy of ours for a pack that is not activated any more.
    let state_path = h.sb.home().join("state.json");
    let mut state: Value = serde_json::from_str(&read(&state_path)).unwrap();
    let activated = state["activated"].as_array_mut().unwrap();
    activated.retain(|id| id != "acme.four");
    std::fs::write(&state_path, state.to_string()).unwrap();

    let status = h.json(&["harness", "status"], 1);
    assert_eq!(status["ok"], false);
    assert_eq!(
        states(&status, "agents"),
        [
            line("acme.five", "five", "placed"),
            line("acme.four", "four", "stale"),
            line("acme.one", "one", "missing"),
            line("acme.six", "six", "conflict"),
            line("acme.three", "three", "outdated"),
            line("acme.two", "two", "modified"),
            line("hcp-cli", "hcp-cli", "placed"),
        ]
    );
    let synced = h.json(&["harness", "sync"], 1);
    assert_eq!(
        states(&synced, "agents"),
        [
            line("acme.five", "five", "placed"),
            line("acme.one", "one", "placed"),
            line("acme.six", "six", "conflict"),
            line("acme.three", "three", "placed"),
            line("acme.two", "two", "modified"),
            line("hcp-cli", "hcp-cli", "placed"),
        ]
    );
    assert!(!folder.join("four").exists());
    assert_eq!(read(&folder.join("two/SKILL.md")), "my notes");
    assert_eq!(read(&folder.join("six/SKILL.md")), "theirs");
    assert!(!folder.join("six/.hcpx.json").exists());
    assert_eq!(
        read(&folder.join("three/SKILL.md")),
        skill_text("three", "2.0.0")
    );
    // --force takes the edited copy back; never the foreign folder.
    let forced = h.json(&["harness", "sync", "--force"], 1);
    assert_eq!(
        states(&forced, "agents")[4],
        line("acme.two", "two", "placed")
    );
    assert_eq!(read(&folder.join("six/SKILL.md")), "theirs");
}

#[test]
fn two_packs_with_one_skill_name_the_first_keeps_it() {
    let h = Harness::new();
    h.activated_pack("acme.first", "1.0.0", "notes");
    h.activated_pack("acme.second", "1.0.0", "notes");
    let doc = h.json(&["harness", "enable", "agents"], 0);
    assert_eq!(
        states(&doc, "agents")[..2],
        [
            line("acme.first", "notes", "placed"),
            line("acme.second", "notes", "conflict")
        ]
    );
    let marker: Value =
        serde_json::from_str(&read(&h.user().join(".agents/skills/notes/.hcpx.json"))).unwrap();
    assert_eq!(marker["pack_id"], "acme.first");
    // The text form warns about the conflict on stderr.
    let out = h.cmd().args(["harness", "sync"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: agents:") && stderr.contains("acme.second"),
        "{stderr}"
    );
}

#[test]
fn a_target_that_cannot_be_written_fails_and_changes_nothing() {
    let h = Harness::new();
    h.activated_pack("acme.notes", "1.0.0", "acme-notes");
    // `.agents` is a file: its `skills` folder cannot be created, even by root.
    std::fs::write(h.user().join(".agents"), "not a folder").unwrap();
    let config_before = read(&h.sb.home().join("config.yaml"));
    let doc = h.json(&["harness", "enable", "agents"], 1);
    assert_eq!(doc["error"]["code"], "io");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(message.contains(".agents"), "{message}");
    assert_eq!(read(&h.sb.home().join("config.yaml")), config_before);
}

#[test]
fn unknown_targets_are_usage_errors() {
    let h = Harness::new();
    let doc = h.json(&["harness", "enable", "claude"], 2);
    assert_eq!(doc["error"]["code"], "usage");
    assert!(
        doc["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("claude-code")
    );
    h.json(&["harness", "disable", "nope"], 2);
}

#[test]
fn a_forged_marker_never_makes_hcpx_delete_or_write_elsewhere() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    let folder = h.user().join(".agents/skills");
    // A marker naming an id that would be a path, and one with a bad shape.
    for (name, marker) in [
        (
            "evil",
            r#"{"pack_id":"../../x","version":"1","sha256":"0"}"#,
        ),
        ("junk", "not json"),
    ] {
        std::fs::create_dir_all(folder.join(name)).unwrap();
        std::fs::write(folder.join(name).join(".hcpx.json"), marker).unwrap();
        std::fs::write(folder.join(name).join("SKILL.md"), "x").unwrap();
    }
    h.json(&["harness", "sync", "--force"], 0);
    h.json(&["harness", "disable", "agents"], 0);
    assert_eq!(read(&folder.join("evil/SKILL.md")), "x");
    assert_eq!(read(&folder.join("junk/SKILL.md")), "x");
}

#[test]
fn activate_deactivate_install_and_uninstall_keep_targets_in_step() {
    let h = Harness::new();
    std::fs::create_dir_all(h.user().join(".codex")).unwrap();
    h.json(&["harness", "enable", "agents", "codex"], 0);
    let placed = |target: &str| h.user().join(target).join("notes/SKILL.md");
    // activate places the Skill in every enabled target and says so.
    let dir = h.skill_pack("acme.notes", "1.0.0", "notes");
    h.json(&["install", dir.to_str().unwrap()], 0);
    let doc = h.json(&["activate", "acme.notes"], 0);
    let lines = doc["results"][0]["harnesses"].as_array().unwrap().clone();
    assert_eq!(lines.len(), 2, "{doc}");
    assert_eq!(lines[0]["target"], "agents");
    assert_eq!(lines[0]["skill"], "notes");
    assert_eq!(lines[0]["state"], "placed");
    assert_eq!(
        lines[1]["path"],
        h.user().join(".codex/skills/notes").display().to_string()
    );
    assert_eq!(
        read(&placed(".agents/skills")),
        skill_text("notes", "1.0.0")
    );
    assert_eq!(read(&placed(".codex/skills")), skill_text("notes", "1.0.0"));
    // Another version replaces the copies.
    let v2 = h.skill_pack("acme.notes", "2.0.0", "notes");
    let doc = h.json(&["install", v2.to_str().unwrap()], 0);
    assert_eq!(doc["harnesses"][0]["state"], "placed", "{doc}");
    assert_eq!(read(&placed(".codex/skills")), skill_text("notes", "2.0.0"));
    let marker: Value =
        serde_json::from_str(&read(&h.user().join(".codex/skills/notes/.hcpx.json"))).unwrap();
    assert_eq!(marker["version"], "2.0.0");
    // deactivate removes them.
    h.json(&["deactivate", "acme.notes"], 0);
    assert!(!h.user().join(".agents/skills/notes").exists());
    assert!(!h.user().join(".codex/skills/notes").exists());
    // activate again, then uninstall removes them too.
    h.json(&["activate", "acme.notes"], 0);
    assert!(placed(".agents/skills").is_file());
    let doc = h.json(&["uninstall", "acme.notes"], 0);
    assert_eq!(doc["harnesses"], serde_json::json!([]), "{doc}");
    assert!(!h.user().join(".agents/skills/notes").exists());
    // Nothing hidden is left in the targets.
    assert_eq!(common::names(&h.user().join(".agents/skills")), ["hcp-cli"]);
    assert_eq!(common::names(&h.user().join(".codex/skills")), ["hcp-cli"]);
}

#[test]
fn deactivating_an_edited_copy_leaves_it_to_the_user_with_a_warning() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    h.activated_pack("acme.notes", "1.0.0", "notes");
    let copy = h.user().join(".agents/skills/notes");
    std::fs::write(copy.join("SKILL.md"), "my own notes").unwrap();
    let out = h.cmd().args(["deactivate", "acme.notes"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: agents:") && stderr.contains("edited"),
        "{stderr}"
    );
    assert_eq!(read(&copy.join("SKILL.md")), "my own notes");
    assert!(
        !copy.join(".hcpx.json").exists(),
        "the copy is the user's now"
    );
    // In JSON the line says `modified`.
    h.json(&["activate", "acme.notes"], 0);
    let status = h.json(&["harness", "status", "acme.notes"], 1);
    assert_eq!(
        states(&status, "agents"),
        [line("acme.notes", "notes", "conflict")]
    );
}

#[test]
fn activate_into_a_target_that_cannot_be_written_fails_and_changes_nothing() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    let dir = h.skill_pack("acme.notes", "1.0.0", "notes");
    h.json(&["install", dir.to_str().unwrap()], 0);
    // The target folder is replaced by a file: nothing can be placed in it.
    let folder = h.user().join(".agents/skills");
    std::fs::remove_dir_all(&folder).unwrap();
    std::fs::write(&folder, "not a folder").unwrap();
    let state_before = read(&h.sb.home().join("state.json"));
    let doc = h.json(&["activate", "acme.notes"], 1);
    assert_eq!(doc["error"]["code"], "io", "{doc}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains(".agents"),
        "{doc}"
    );
    assert_eq!(read(&h.sb.home().join("state.json")), state_before);
    assert!(!h.sb.home().join("skills/acme.notes").exists());
    assert_eq!(read(&folder), "not a folder");
}

#[test]
fn concurrent_activations_with_targets_enabled_lose_nothing() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    let ids: Vec<String> = (0..12).map(|n| format!("acme.p{n}")).collect();
    for (n, id) in ids.iter().enumerate() {
        let dir = h.skill_pack(id, "1.0.0", &format!("skill-{n}"));
        h.json(&["install", dir.to_str().unwrap()], 0);
    }
    let children: Vec<_> = ids
        .iter()
        .map(|id| {
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"));
            cmd.env("HCP_HOME", h.sb.home())
                .env_remove("HCP_PRINCIPAL")
                .env_remove("CLAUDE_CONFIG_DIR")
                .env_remove("CODEX_HOME")
                .env_remove("XDG_CONFIG_HOME")
                .args(["--json", "activate", id]);
            for (name, value) in &h.env {
                cmd.env(name, value);
            }
            cmd.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let status = h.json(&["harness", "status"], 0);
    assert_eq!(states(&status, "agents").len(), 13, "{status}");
    for n in 0..12 {
        let placed = h.user().join(format!(".agents/skills/skill-{n}"));
        assert_eq!(
            read(&placed.join("SKILL.md")),
            skill_text(&format!("skill-{n}"), "1.0.0")
        );
    }
    let names = common::names(&h.user().join(".agents/skills"));
    assert_eq!(names.len(), 13, "no half-written or hidden copy: {names:?}");
}

#[test]
fn availability_names_the_targets_and_doctor_reports_and_repairs() {
    let h = Harness::new();
    std::fs::create_dir_all(h.user().join(".claude")).unwrap();
    h.json(&["harness", "enable", "agents", "claude-code"], 0);
    h.activated_pack("acme.notes", "1.0.0", "notes");
    let doc = h.json(&["availability", "acme.notes"], 0);
    assert_eq!(
        doc["packs"][0]["sense"],
        serde_json::json!({"active": true, "harnesses": ["agents", "claude-code"]})
    );
    // A copy deleted behind hcpx's back: availability drops the target,
    // doctor names it with the fix, --fix puts it back.
    std::fs::remove_dir_all(h.user().join(".claude/skills/notes")).unwrap();
    let doc = h.json(&["availability", "acme.notes"], 0);
    assert_eq!(
        doc["packs"][0]["sense"]["harnesses"],
        serde_json::json!(["agents"])
    );
    let doctor = h.json(&["doctor"], 1);
    let problem = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "harness:claude-code")
        .unwrap_or_else(|| panic!("{doctor}"))
        .clone();
    assert_eq!(problem["ok"], false);
    assert!(
        problem["message"].as_str().unwrap().contains("is missing"),
        "{problem}"
    );
    assert!(
        problem["fix"]
            .as_str()
            .unwrap()
            .contains("hcpx doctor --fix"),
        "{problem}"
    );
    let fixed = h.json(&["doctor", "--fix"], 0);
    let messages: Vec<&str> = fixed["fixed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        ["claude-code: notes of acme.notes was missing"],
        "{fixed}"
    );
    assert!(h.user().join(".claude/skills/notes/SKILL.md").is_file());
}

#[test]
fn the_bootstrap_pack_answers_harness_status_like_the_subcommand() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    h.activated_pack("acme.notes", "1.0.0", "notes");
    let direct = h.json(&["harness", "status"], 0);
    let via = h.json(&["exec", "hcp-cli", "harness.status"], 0);
    assert_eq!(via["data"], crate::common::unscoped(direct), "{via}");
    let one = h.json(
        &["exec", "hcp-cli", "harness.status", "--", "pack=acme.notes"],
        0,
    );
    assert_eq!(
        states(&one["data"], "agents"),
        [line("acme.notes", "notes", "placed")]
    );
}
