//! A project's `hcpx sync` of many packs from one git repository (HCP.md
//! §15.3, §13.1): one fetch per repository and commit, and `--frozen`
//! checking every pack before anything is installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, require_tool, simple_manifest, simple_skill};
use crate::project_scope::{Machine, git};
use serde_json::Value;
use std::path::{Path, PathBuf};

const PACKS: usize = 4;

/// [`unsynced_project`], synced once (so `hcp.lock` records the packs)
/// and committed.
fn project_of_one_repository(m: &Machine) -> (PathBuf, String) {
    let (proj, url) = unsynced_project(m);
    // Its packs have write commands: the first sync here needs consent.
    m.json(&proj, &["sync", "--yes"], 0);
    git(&proj, &["add", "hcp.yaml", "hcp.lock"]);
    git(&proj, &["commit", "-qm", "packs"]);
    (proj, url)
}

/// The lines of the spy's log that fetch or clone.
fn fetches(log: &Path) -> Vec<String> {
    let calls = std::fs::read_to_string(log).unwrap_or_default();
    calls
        .lines()
        .filter(|l| l.split_whitespace().any(|w| w == "fetch" || w == "clone"))
        .map(str::to_string)
        .collect()
}

/// A repository of `PACKS` packs (`packs/pN`, ids `acme.pN`), and a project
/// whose `hcp.yaml` names each as its own `git+file://…//packs/pN` entry,
/// with no `hcp.lock` yet. Returns the project and the repository's URL.
fn unsynced_project(m: &Machine) -> (PathBuf, String) {
    let repo = m.dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main", "."]);
    for n in 0..PACKS {
        let dir = repo.join(format!("packs/p{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let id = format!("acme.p{n}");
        std::fs::write(
            dir.join("pack.yaml"),
            simple_manifest(&id, "1.0.0", "{kind: public}"),
        )
        .unwrap();
        std::fs::write(dir.join("SKILL.md"), simple_skill(&id)).unwrap();
    }
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "packs"]);
    let url = format!("file://{}", repo.display());
    let proj = m.proj();
    git(&proj, &["init", "-q", "-b", "main", "."]);
    m.json(&proj, &["init"], 0);
    let entries: String = (0..PACKS)
        .map(|n| format!("  - id: acme.p{n}\n    source: git+{url}//packs/p{n}\n"))
        .collect();
    let yaml = m
        .read("hcp.yaml")
        .replace("packs: []\n", &format!("packs:\n{entries}"));
    std::fs::write(proj.join("hcp.yaml"), yaml).unwrap();
    (proj, url)
}

/// A teammate's fresh clone of the project.
fn fresh_clone(t: &Machine, proj: &Path) -> PathBuf {
    let clone = t.dir.path().join("clone");
    git(
        t.dir.path(),
        &["clone", "-q", proj.to_str().unwrap(), "clone"],
    );
    clone
}

/// The names below `dir`, or none when it does not exist.
fn listing(dir: &Path) -> Vec<String> {
    if dir.exists() {
        common::names(dir)
    } else {
        Vec::new()
    }
}

#[test]
fn a_sync_of_many_packs_of_one_repository_fetches_it_once() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (proj, _) = project_of_one_repository(&m);
    let t = Machine::new();
    let clone = fresh_clone(&t, &proj);
    let sb = common::Sandbox::new();
    let (path, log) = common::logging_git(&sb);
    let out = t
        .hcpx(&clone)
        .env("PATH", &path)
        .args(["--json", "sync", "--frozen", "--yes"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let installed = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["action"] == "installed")
        .count();
    assert_eq!(installed, PACKS, "{doc}");
    // One fetch of the packs' files, and one of the repository's history
    // (commits only) that ties hcp.lock to hcp.yaml (§15.3).
    let seen = fetches(&log);
    let (history, files): (Vec<&String>, Vec<&String>) =
        seen.iter().partition(|l| l.contains("--filter=tree:0"));
    assert_eq!(files.len(), 1, "one fetch for {PACKS} packs: {seen:?}");
    assert_eq!(history.len(), 1, "one history fetch: {seen:?}");
    for n in 0..PACKS {
        let placed = clone.join(format!(".agents/skills/acme-p{n}/SKILL.md"));
        assert!(placed.is_file(), "{}", placed.display());
    }
    let verify = t.json(&clone, &["verify"], 0);
    assert_eq!(verify["ok"], true, "{verify}");
    assert_eq!(
        std::fs::read(clone.join("hcp.lock")).unwrap(),
        std::fs::read(proj.join("hcp.lock")).unwrap()
    );
}

#[test]
fn frozen_sync_refuses_a_git_pack_whose_locked_digest_differs_before_installing_any() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (proj, _) = project_of_one_repository(&m);
    let t = Machine::new();
    let clone = fresh_clone(&t, &proj);
    // The lock's digest of the last pack (in id order) is not what its
    // source holds at the locked commit.
    let last = format!("acme.p{}", PACKS - 1);
    let mut lock: Value =
        serde_json::from_slice(&std::fs::read(clone.join("hcp.lock")).unwrap()).unwrap();
    lock["packs"][&last]["digest"] = Value::from(format!("sha256:{}", "0".repeat(64)));
    std::fs::write(
        clone.join("hcp.lock"),
        serde_json::to_string_pretty(&lock).unwrap() + "\n",
    )
    .unwrap();
    let (yaml, locked) = (
        std::fs::read(clone.join("hcp.yaml")).unwrap(),
        std::fs::read(clone.join("hcp.lock")).unwrap(),
    );
    let packs_before = listing(&clone.join(".hcp/packs"));

    let doc = t.json(&clone, &["sync", "--frozen"], 1);
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    assert_eq!(doc["error"]["pack_id"], last.as_str(), "{doc}");
    assert_eq!(std::fs::read(clone.join("hcp.yaml")).unwrap(), yaml);
    assert_eq!(std::fs::read(clone.join("hcp.lock")).unwrap(), locked);
    // Nothing installed: not even the packs before it in id order.
    assert_eq!(listing(&clone.join(".hcp/packs")), packs_before);
    assert!(packs_before.is_empty(), "{packs_before:?}");
    assert!(listing(&clone.join(".hcp/skills")).is_empty());
    assert!(listing(&clone.join(".agents/skills")).is_empty());
    assert!(listing(&clone.join(".hcp/.tmp")).is_empty());

    // Installed packs stay as they were too: with the true lock, a frozen
    // sync installs everything; with the wrong digest again, it fails and
    // changes nothing.
    std::fs::copy(proj.join("hcp.lock"), clone.join("hcp.lock")).unwrap();
    t.json(&clone, &["sync", "--frozen", "--yes"], 0);
    let tree_before = listing(&clone.join(".hcp/packs"));
    assert_eq!(tree_before.len(), PACKS);
    std::fs::write(clone.join("hcp.lock"), &locked).unwrap();
    let doc = t.json(&clone, &["sync", "--frozen"], 1);
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    assert_eq!(std::fs::read(clone.join("hcp.lock")).unwrap(), locked);
    assert_eq!(std::fs::read(clone.join("hcp.yaml")).unwrap(), yaml);
    assert_eq!(listing(&clone.join(".hcp/packs")), tree_before);
    let verify = t.json(&clone, &["verify", "acme.p0"], 0);
    assert_eq!(verify["ok"], true, "{verify}");
}

#[test]
fn entries_the_lock_lacks_are_resolved_from_one_fetch_in_one_change() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (proj, url) = unsynced_project(&m);
    let yaml = std::fs::read(proj.join("hcp.yaml")).unwrap();
    let sb = common::Sandbox::new();
    let (path, log) = common::logging_git(&sb);
    let out = m
        .hcpx(&proj)
        .env("PATH", &path)
        .args(["--json", "sync", "--yes"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let seen = fetches(&log);
    assert_eq!(seen.len(), 1, "one fetch for {PACKS} new entries: {seen:?}");
    let commit = String::from_utf8(
        std::process::Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(m.dir.path().join("repo"))
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let lock: Value = serde_json::from_str(&m.read("hcp.lock")).unwrap();
    for n in 0..PACKS {
        let source = &lock["packs"][format!("acme.p{n}")]["source"];
        assert_eq!(source["url"], url.as_str(), "{lock}");
        assert_eq!(source["subdir"], format!("packs/p{n}"), "{lock}");
        assert_eq!(source["commit"], commit.trim(), "{lock}");
        let placed = proj.join(format!(".claude/skills/acme-p{n}/SKILL.md"));
        assert!(placed.is_file(), "{}", placed.display());
    }
    // hcp.yaml names them already: it is not rewritten.
    assert_eq!(std::fs::read(proj.join("hcp.yaml")).unwrap(), yaml);
    m.json(&proj, &["sync", "--frozen"], 0);
    let verify = m.json(&proj, &["verify"], 0);
    assert_eq!(verify["ok"], true, "{verify}");

    // An entry whose source holds no pack of its id: nothing of the sync
    // is installed.
    let ghost = format!("  - id: acme.ghost\n    source: git+{url}//packs/p1\n  - id: acme.p0\n");
    let text = String::from_utf8(yaml)
        .unwrap()
        .replace("  - id: acme.p0\n", &ghost);
    std::fs::write(proj.join("hcp.yaml"), &text).unwrap();
    let packs_before = listing(&proj.join(".hcp/packs"));
    let doc = m.json(&proj, &["sync"], 5);
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    assert_eq!(doc["error"]["pack_id"], "acme.ghost", "{doc}");
    assert_eq!(listing(&proj.join(".hcp/packs")), packs_before);
}

#[test]
fn a_sync_killed_half_way_is_named_by_doctor_and_repaired() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (proj, _) = project_of_one_repository(&m);
    for step in ["sync.after_state", "sync.after_swap", "sync.after_skill"] {
        let t = Machine::new();
        let clone = fresh_clone(&t, &proj);
        let locked = std::fs::read(clone.join("hcp.lock")).unwrap();
        let out = t
            .hcpx(&clone)
            .env("HCPX_TEST_CRASH_AT", step)
            .args(["--json", "sync", "--yes"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), None, "{step}: killed, not exited");
        assert_eq!(std::fs::read(clone.join("hcp.lock")).unwrap(), locked);
        let doc = t.json(&clone, &["doctor"], 1);
        let failing: Vec<&Value> = doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["ok"] == false)
            .collect();
        assert!(!failing.is_empty(), "{step}: {doc}");
        // What doctor --fix repairs it repairs; it never drops a pack the
        // committed files name (the sync installs it).
        let fixed = t
            .hcpx(&clone)
            .args(["--json", "doctor", "--fix"])
            .output()
            .unwrap();
        assert!(
            matches!(fixed.status.code(), Some(0 | 1)),
            "{step}: {fixed:?}"
        );
        assert_eq!(std::fs::read(clone.join("hcp.lock")).unwrap(), locked);
        t.json(&clone, &["sync", "--frozen", "--yes"], 0);
        let doc = t.json(&clone, &["doctor"], 0);
        assert_eq!(doc["ok"], true, "{step}: {doc}");
        assert_eq!(listing(&clone.join(".hcp/packs")).len(), PACKS, "{step}");
        assert_eq!(
            listing(&clone.join(".agents/skills")).len(),
            PACKS,
            "{step}"
        );
    }
}
