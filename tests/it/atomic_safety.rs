//! Steps that go together (HCP.md §14.7): a change that fails leaves the
//! store exactly as it was; a change killed half way (SIGKILL, through the
//! `HCPX_TEST_CRASH_AT` hook) leaves an inconsistency that `hcpx doctor`
//! names and `hcpx doctor --fix` repairs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, install_and_activate};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

/// Every entry under the store: its kind, mode and, for files, bytes (the
/// lock file's bytes are not compared; the lint cache, `.cache/`, which any
/// lint may rewrite and which never changes an answer, is left out).
fn tree(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in fs::read_dir(dir).expect("read_dir").flatten() {
        let path = entry.path();
        let rel = path
            .strip_prefix(root)
            .expect("prefix")
            .display()
            .to_string();
        if rel == ".cache" {
            continue;
        }
        let meta = fs::symlink_metadata(&path).expect("metadata");
        let mode = meta.permissions().mode() & 0o7777;
        if meta.is_dir() {
            out.insert(rel, format!("dir {mode:o}"));
            walk(root, &path, out);
        } else if meta.is_symlink() {
            let target = fs::read_link(&path).expect("read_link");
            out.insert(rel, format!("link {}", target.display()));
        } else if rel == ".lock" {
            out.insert(rel, "lock".into());
        } else {
            let bytes = fs::read(&path).expect("read");
            out.insert(
                rel,
                format!("file {mode:o} {}", String::from_utf8_lossy(&bytes)),
            );
        }
    }
}

/// Runs `hcpx --json ARGS` with extra environment variables; returns the
/// exit status and stdout parsed (Null when the process was killed).
fn run_env(sb: &Sandbox, args: &[&str], env: &[(&str, &str)]) -> (std::process::ExitStatus, Value) {
    let mut cmd = sb.hcpx();
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.arg("--json").args(args).output().expect("run hcpx");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status, value)
}

/// A failing change: exit `code`, error `error`, and the store unchanged.
fn fails_and_changes_nothing(sb: &Sandbox, args: &[&str], env: &[(&str, &str)], error: &str) {
    let before = tree(&sb.home());
    let (status, doc) = run_env(sb, args, env);
    assert_eq!(status.code(), Some(1), "{args:?}: {doc}");
    assert_eq!(doc["error"]["code"], error, "{doc}");
    let after = tree(&sb.home());
    assert_eq!(before, after, "{args:?} changed the store");
}

const FAIL_STATE: (&str, &str) = ("HCPX_TEST_FAIL_AT", "state.write");

#[test]
fn activate_with_the_skill_copy_blocked_records_nothing() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    // A file where the Skill copy's folder must go: the store's own path
    // is not a folder, so every command refuses it (HCP.md §15.6).
    fs::write(sb.home().join("skills/acme.x"), "in the way").unwrap();
    fails_and_changes_nothing(&sb, &["activate", "acme.x"], &[], "store_corrupt");
    assert!(!sb.state()["activated"].to_string().contains("acme.x"));
    let (status, _) = run_env(&sb, &["exec", "acme.x", "hello"], &[]);
    assert_eq!(status.code(), Some(125), "exec in a corrupt store");
}

#[test]
fn activate_of_several_keeps_the_ones_before_the_failure() {
    let sb = Sandbox::new();
    for id in ["acme.a", "acme.b"] {
        let src = sb.simple_pack(id, "1.0.0", "{kind: public}");
        sb.json(&["install", src.to_str().unwrap()], 0);
    }
    // acme.b's installed copy lost its Skill: it fails lint, so it cannot
    // be activated.
    fs::remove_file(sb.home().join("packs/acme.b/SKILL.md")).unwrap();
    let (status, doc) = run_env(&sb, &["activate", "acme.a", "acme.b"], &[]);
    assert_eq!(status.code(), Some(1), "{doc}");
    assert_eq!(doc["error"]["pack_id"], "acme.b", "{doc}");
    let activated = sb.state()["activated"].to_string();
    assert!(activated.contains("acme.a") && !activated.contains("acme.b"));
    assert!(sb.home().join("skills/acme.a/SKILL.md").is_file());
    assert!(!sb.home().join("skills/acme.b").exists());
}

#[test]
fn activate_when_the_state_cannot_be_written_leaves_no_skill_copy() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    fails_and_changes_nothing(&sb, &["activate", "acme.x"], &[FAIL_STATE], "io");
    assert!(!sb.home().join("skills/acme.x").exists());
}

#[test]
fn deactivate_when_the_state_cannot_be_written_keeps_the_skill_copy() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    install_and_activate(&sb, &src, "acme.x");
    fails_and_changes_nothing(&sb, &["deactivate", "acme.x"], &[FAIL_STATE], "io");
    assert!(sb.home().join("skills/acme.x/SKILL.md").is_file());
}

/// Installs, activates and connects `acme.s` (Binding `secret`).
fn connected_secret_pack(sb: &Sandbox) {
    let src = sb.simple_pack("acme.s", "1.0.0", "{kind: secret, secret: {name: TOKEN}}");
    install_and_activate(sb, &src, "acme.s");
    let out = sb.connect_secret("acme.s", "s3cret-value\n");
    common::assert_success(&out);
    assert!(sb.home().join("secrets/acme.s").is_file());
}

#[test]
fn uninstall_when_the_state_cannot_be_written_keeps_everything() {
    let sb = Sandbox::new();
    connected_secret_pack(&sb);
    fails_and_changes_nothing(&sb, &["uninstall", "acme.s"], &[FAIL_STATE], "io");
    assert!(sb.home().join("packs/acme.s/pack.yaml").is_file());
    assert!(sb.home().join("skills/acme.s/SKILL.md").is_file());
    assert!(sb.home().join("secrets/acme.s").is_file());
}

#[test]
fn connect_when_the_state_cannot_be_written_keeps_no_secret() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.s", "1.0.0", "{kind: secret, secret: {name: TOKEN}}");
    install_and_activate(&sb, &src, "acme.s");
    let before = tree(&sb.home());
    let out = sb
        .hcpx()
        .env(FAIL_STATE.0, FAIL_STATE.1)
        .args(["--json", "connect", "acme.s", "--secret-stdin"])
        .write_stdin("s3cret-value\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(before, tree(&sb.home()));
    assert!(!sb.home().join("secrets/acme.s").exists());
}

#[test]
fn install_whose_skill_recopy_fails_keeps_the_old_pack_and_its_connection() {
    let sb = Sandbox::new();
    connected_secret_pack(&sb);
    // The Skill copy's file is now a folder with something in it: the
    // re-copy after the swap cannot replace it.
    let copy = sb.home().join("skills/acme.s/SKILL.md");
    fs::remove_file(&copy).unwrap();
    fs::create_dir_all(copy.join("inner")).unwrap();
    let v2 = sb.simple_pack("acme.s", "2.0.0", "{kind: env, env: [TOKEN]}");
    fails_and_changes_nothing(&sb, &["install", v2.to_str().unwrap(), "--yes"], &[], "io");
    let manifest = fs::read_to_string(sb.home().join("packs/acme.s/pack.yaml")).unwrap();
    assert!(manifest.contains("version: 1.0.0"), "{manifest}");
    assert!(sb.state()["connected"].to_string().contains("acme.s"));
}

#[test]
fn install_whose_skill_write_fails_changes_nothing() {
    let sb = Sandbox::new();
    connected_secret_pack(&sb);
    let v2 = sb.simple_pack("acme.s", "2.0.0", "{kind: env, env: [TOKEN]}");
    let fail = [("HCPX_TEST_FAIL_AT", "skill.write")];
    fails_and_changes_nothing(
        &sb,
        &["install", v2.to_str().unwrap(), "--yes"],
        &fail,
        "io",
    );
    // And the same install without the failure drops `connected`.
    let doc = sb.json(&["install", v2.to_str().unwrap(), "--yes"], 0);
    assert_eq!(doc["disconnected"], true, "{doc}");
    assert!(!sb.state()["connected"].to_string().contains("acme.s"));
}

/// The failing checks of `doctor --json` (exit 1), as `check: message`.
fn problems(sb: &Sandbox) -> Vec<String> {
    common::doctor_failures(sb)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// `doctor --fix --json` repairs everything (exit 0, what it fixed listed),
/// and `doctor` then finds nothing.
fn fix_repairs_everything(sb: &Sandbox) -> Vec<String> {
    let doc = sb.json(&["doctor", "--fix"], 0);
    assert_eq!(doc["ok"], true, "{doc}");
    let fixed: Vec<String> = doc["fixed"]
        .as_array()
        .expect("fixed")
        .iter()
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    assert!(!fixed.is_empty(), "{doc}");
    let again = sb.json(&["doctor"], 0);
    assert_eq!(again["ok"], true, "{again}");
    fixed
}

/// Runs `args` with `HCPX_TEST_CRASH_AT=step` and checks it died by SIGKILL.
fn crash_at(sb: &Sandbox, args: &[&str], step: &str) {
    let (status, doc) = run_env(sb, args, &[("HCPX_TEST_CRASH_AT", step)]);
    assert_eq!(
        status.signal(),
        Some(9),
        "{args:?} at {step}: {status:?} {doc}"
    );
}

/// Once repaired, §14.7's rule holds: a Skill copy exists exactly for the
/// activated packs, every activated pack is installed, every connected pack
/// activated, every secret's pack installed, and `.tmp/` is empty.
fn store_is_consistent(sb: &Sandbox) {
    let state = sb.state();
    let list = |key: &str| -> Vec<String> {
        state[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let (activated, connected) = (list("activated"), list("connected"));
    // `activated` is in activation order; `names` is sorted.
    let mut sorted = activated.clone();
    sorted.sort();
    assert_eq!(crate::common::names(&sb.home().join("skills")), sorted);
    for id in &activated {
        assert!(sb.home().join("packs").join(id).is_dir(), "{id}");
    }
    for id in &connected {
        assert!(activated.contains(id), "{id}");
    }
    for id in crate::common::names(&sb.home().join("secrets")) {
        assert!(sb.home().join("packs").join(&id).is_dir(), "{id}");
    }
    assert!(crate::common::names(&sb.home().join(".tmp")).is_empty());
}

#[test]
fn uninstall_killed_at_each_step_is_named_by_doctor_and_repaired_by_fix() {
    // (step, a problem doctor must name, whether the pack is still installed)
    let cases = [
        (
            "uninstall.after_skill",
            "pack:acme.s: acme.s is activated but its Skill copy is missing",
            true,
        ),
        ("uninstall.after_state", "store.tmp: .tmp/ holds", true),
        (
            "uninstall.after_pack",
            "store.secrets: secrets/acme.s is the secret of a pack that is not installed",
            false,
        ),
        ("uninstall.after_secret", "store.tmp: .tmp/ holds", false),
    ];
    for (step, problem, installed) in cases {
        let sb = Sandbox::new();
        connected_secret_pack(&sb);
        crash_at(&sb, &["uninstall", "acme.s"], step);
        let found = problems(&sb);
        assert!(
            found.iter().any(|p| p.starts_with(problem)),
            "{step}: {found:?}"
        );
        fix_repairs_everything(&sb);
        store_is_consistent(&sb);
        assert_eq!(sb.home().join("packs/acme.s").is_dir(), installed, "{step}");
        // The state never lists a pack that is gone.
        let activated = sb.state()["activated"].to_string();
        assert_eq!(
            activated.contains("acme.s"),
            installed && step == "uninstall.after_skill"
        );
        // And uninstall can be run again where the pack is still there.
        if installed {
            sb.json(&["uninstall", "acme.s"], 0);
            store_is_consistent(&sb);
        }
    }
}

#[test]
fn activate_killed_after_the_copy_leaves_a_copy_doctor_removes() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    crash_at(&sb, &["activate", "acme.x"], "activate.after_copy");
    let found = problems(&sb);
    assert!(
        found
            .iter()
            .any(|p| p
                == "store.skills: skills/acme.x is a Skill copy of a pack that is not activated"),
        "{found:?}"
    );
    let fixed = fix_repairs_everything(&sb);
    assert!(
        fixed.iter().any(|m| m.contains("skills/acme.x")),
        "{fixed:?}"
    );
    assert!(!sb.home().join("skills/acme.x").exists());
    store_is_consistent(&sb);
}

#[test]
fn deactivate_killed_after_moving_the_copy_aside_is_repaired() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    install_and_activate(&sb, &src, "acme.x");
    crash_at(&sb, &["deactivate", "acme.x"], "deactivate.after_skill");
    let found = problems(&sb);
    assert!(
        found
            .iter()
            .any(|p| p.contains("acme.x is activated but its Skill copy is missing")),
        "{found:?}"
    );
    fix_repairs_everything(&sb);
    store_is_consistent(&sb);
}

#[test]
fn install_killed_after_the_swap_leaves_an_outdated_copy_doctor_recopies() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    install_and_activate(&sb, &src, "acme.x");
    let v2 = sb.pack(
        "acme.x-2",
        &[
            (
                "pack.yaml",
                &crate::common::simple_manifest("acme.x", "2.0.0", "{kind: public}"),
            ),
            (
                "SKILL.md",
                "---\nname: acme-x\ndescription: Test skill, v2.\n---\nRun `hello` or `touch`.\n",
            ),
        ],
    );
    crash_at(
        &sb,
        &["install", v2.to_str().unwrap(), "--yes"],
        "install.after_swap",
    );
    let found = problems(&sb);
    assert!(
        found
            .iter()
            .any(|p| p.contains("acme.x is activated but its Skill copy differs")),
        "{found:?}"
    );
    fix_repairs_everything(&sb);
    let copy = fs::read_to_string(sb.home().join("skills/acme.x/SKILL.md")).unwrap();
    assert!(copy.contains("v2"), "{copy}");
    store_is_consistent(&sb);
}

#[test]
fn install_killed_after_dropping_the_connection_never_leaves_a_changed_binding_connected() {
    for step in [
        "install.after_state",
        "install.after_swap",
        "install.after_skill",
    ] {
        let sb = Sandbox::new();
        connected_secret_pack(&sb);
        let v2 = sb.simple_pack("acme.s", "2.0.0", "{kind: env, env: [TOKEN]}");
        crash_at(&sb, &["install", v2.to_str().unwrap(), "--yes"], step);
        assert!(
            !sb.state()["connected"].to_string().contains("acme.s"),
            "{step}: connected with a Binding that may have changed"
        );
        sb.json(&["doctor", "--fix"], 0);
        store_is_consistent(&sb);
    }
}

#[test]
fn doctor_fix_repairs_state_entries_and_strays_but_leaves_what_is_not_ours() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    install_and_activate(&sb, &src, "acme.x");
    // A state another process left inconsistent, and strays.
    let mut state = sb.state();
    state["activated"] = serde_json::json!(["acme.gone", "acme.x", "hcp-cli"]);
    state["connected"] = serde_json::json!(["acme.gone", "acme.lost", "hcp-cli"]);
    fs::write(sb.home().join("state.json"), state.to_string()).unwrap();
    fs::write(sb.home().join("secrets/acme.lost"), "old").unwrap();
    fs::create_dir_all(sb.home().join("skills/acme.lost")).unwrap();
    fs::create_dir_all(sb.home().join(".tmp/stage-left")).unwrap();
    fs::write(sb.home().join("packs/not a pack"), "mine").unwrap();
    let found = problems(&sb);
    for expected in [
        "pack:acme.gone: acme.gone is activated but not installed",
        "pack:acme.lost: acme.lost is connected but not activated",
        "store.skills: skills/acme.lost is a Skill copy of a pack that is not activated",
        "store.secrets: secrets/acme.lost is the secret of a pack that is not installed",
        "store.packs: packs/not a pack is not a pack hcpx installed",
        "store.tmp: .tmp/ holds 1 leftover of an interrupted change",
    ] {
        assert!(found.iter().any(|p| p == expected), "{expected}: {found:?}");
    }
    // The stray file in packs/ is not ours: --fix leaves it and exits 1.
    let doc = sb.json(&["doctor", "--fix"], 1);
    assert_eq!(doc["fixed"].as_array().map(Vec::len), Some(5), "{doc}");
    let left: Vec<&Value> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["check"], "store.packs");
    assert_eq!(
        fs::read_to_string(sb.home().join("packs/not a pack")).unwrap(),
        "mine"
    );
    fs::remove_file(sb.home().join("packs/not a pack")).unwrap();
    store_is_consistent(&sb);
    let state = sb.state();
    assert_eq!(state["activated"], serde_json::json!(["acme.x", "hcp-cli"]));
    assert_eq!(state["connected"], serde_json::json!(["hcp-cli"]));
}

#[test]
fn doctor_fix_on_a_sound_store_fixes_nothing_and_exits_0() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    install_and_activate(&sb, &src, "acme.x");
    let before = tree(&sb.home());
    let doc = sb.json(&["doctor", "--fix"], 0);
    assert_eq!(doc["fixed"], serde_json::json!([]), "{doc}");
    assert_eq!(before, tree(&sb.home()));
    let text = sb.hcpx().args(["doctor", "--fix"]).output().unwrap();
    assert_eq!(text.status.code(), Some(0));
}

#[test]
fn activate_does_not_write_through_a_linked_skill_folder() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    let elsewhere = sb.dir.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, sb.home().join("skills/acme.x")).unwrap();
    // A link at a store path: refused before anything changes (§15.6).
    fails_and_changes_nothing(&sb, &["activate", "acme.x"], &[], "store_corrupt");
    assert!(crate::common::names(&elsewhere).is_empty());
}

#[test]
fn doctor_shows_hostile_names_escaped_and_builds_no_path_from_a_bad_id() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    let mut state = sb.state();
    state["activated"] = serde_json::json!(["../../outside", "hcp-cli"]);
    fs::write(sb.home().join("state.json"), state.to_string()).unwrap();
    fs::create_dir_all(sb.home().join("skills/evil\u{1b}[2Jname")).unwrap();
    let out = sb.hcpx().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\u{1b}'), "{text}");
    // A bad id makes state.json corrupt (§14.2): reported, never rewritten.
    assert!(
        text.contains("`../../outside` is not a pack id") && text.contains("store_corrupt"),
        "{text}"
    );
    let before = fs::read(sb.home().join("state.json")).unwrap();
    sb.json(&["doctor", "--fix"], 1);
    assert_eq!(fs::read(sb.home().join("state.json")).unwrap(), before);
    assert!(sb.home().join("skills/evil\u{1b}[2Jname").is_dir());
}
