//! A cloned project is input from someone else (HCP.md §15.3, §15.6, §13.8):
//! `hcp.lock` is tied to `hcp.yaml` (an edited `commit` or `url` installs
//! nothing of its own, an edited digest is refused, a force-pushed commit
//! is named), a `source` folder inside a store is refused, and the first
//! `sync` of a project's packs on this machine shows what they can do and
//! needs consent when that escalates, with the refusal's `results` as
//! `upgrade`'s. Real git repositories over `file://`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, require_tool, simple_manifest, simple_skill};
use crate::project_scope::{Machine, git};
use serde_json::Value;
use std::path::{Path, PathBuf};

const ID: &str = "acme.tool";

/// A repository (branch `main`) holding the pack `acme.tool` at its root,
/// with a `write` command.
fn repository(m: &Machine, name: &str) -> (PathBuf, String) {
    let repo = m.dir.path().join(name);
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main", "."]);
    write_pack(&repo, "");
    commit(&repo, "v1");
    let url = format!("file://{}", repo.display());
    (repo, url)
}

fn write_pack(repo: &Path, skill_extra: &str) {
    std::fs::write(
        repo.join("pack.yaml"),
        simple_manifest(ID, "1.0.0", "{kind: public}"),
    )
    .unwrap();
    std::fs::write(repo.join("SKILL.md"), simple_skill(ID) + skill_extra).unwrap();
}

fn commit(repo: &Path, message: &str) -> String {
    git(repo, &["add", "-A", "."]);
    git(repo, &["commit", "-qm", message]);
    head(repo)
}

fn head(repo: &Path) -> String {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(repo)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A project whose `hcp.yaml` names `acme.tool` from `source`, no lock.
fn project(m: &Machine, source: &str) -> PathBuf {
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    let yaml = m.read("hcp.yaml").replace(
        "packs: []\n",
        &format!("packs:\n  - id: {ID}\n    source: {source}\n"),
    );
    std::fs::write(proj.join("hcp.yaml"), yaml).unwrap();
    proj
}

fn names(dir: &Path) -> Vec<String> {
    if dir.exists() {
        common::names(dir)
    } else {
        Vec::new()
    }
}

fn lock(proj: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(proj.join("hcp.lock")).unwrap()).unwrap()
}

fn write_lock(proj: &Path, lock: &Value) {
    std::fs::write(
        proj.join("hcp.lock"),
        serde_json::to_string_pretty(lock).unwrap() + "\n",
    )
    .unwrap();
}

fn projects_json(m: &Machine) -> String {
    std::fs::read_to_string(m.user_store().join("projects.json")).unwrap_or_default()
}

#[test]
fn the_first_sync_shows_what_the_packs_can_do_and_needs_consent() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (repo, url) = repository(&m, "repo");
    let proj = project(&m, &format!("git+{url}"));

    // Off a terminal, without --yes: refused, nothing installed.
    let doc = m.json(&proj, &["sync"], 3);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    let result = &doc["results"][0];
    assert_eq!(result["pack_id"], ID, "{doc}");
    assert!(result["from"].is_null(), "{doc}");
    assert!(result["from_digest"].is_null(), "{doc}");
    assert_eq!(result["to"], "1.0.0", "{doc}");
    assert_eq!(result["applied"], false, "{doc}");
    let changes = result["changes"].as_array().unwrap();
    let write = changes.iter().any(|c| {
        c["kind"] == "command_added"
            && c["verb_key"] == "touch"
            && c["effect"] == "write"
            && c["escalates"] == true
    });
    assert!(write, "{doc}");
    assert!(names(&proj.join(".hcp/packs")).is_empty());
    assert!(names(&proj.join(".agents/skills")).is_empty());
    assert!(!proj.join("hcp.lock").exists() || !m.read("hcp.lock").contains(ID));
    // Nothing of it runs or shows before it is approved.
    let out = m.hcpx(&proj).args(["exec", ID, "hello"]).output().unwrap();
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    let list = m.json(&proj, &["list"], 0);
    assert!(!list.to_string().contains(ID), "{list}");
    // The words show the diff, as upgrade --dry-run does, then the error.
    let out = m.hcpx(&proj).arg("sync").output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let words = String::from_utf8_lossy(&out.stdout);
    assert!(words.contains("command_added"), "{words}");
    assert!(words.contains("touch"), "{words}");

    // With --yes: installed, and its digest approved for the project.
    let doc = m.json(&proj, &["sync", "--yes"], 0);
    let digest = doc["results"][0]["to_digest"].as_str().unwrap().to_string();
    assert_eq!(doc["results"][0]["applied"], true, "{doc}");
    assert!(proj.join(".hcp/packs").join(ID).is_dir());
    assert!(projects_json(&m).contains(&digest), "{}", projects_json(&m));

    // Upstream edits only the Skill's text: a sync that brings it (the lock
    // entry dropped) asks nothing; the diff is against the approved copy.
    write_pack(&repo, "Some more words.\n");
    commit(&repo, "words");
    std::fs::remove_file(proj.join("hcp.lock")).unwrap();
    let doc = m.json(&proj, &["sync"], 0);
    assert_eq!(doc["results"][0]["from"], "1.0.0", "{doc}");
    assert_eq!(doc["results"][0]["from_digest"], digest.as_str(), "{doc}");
    let installed = std::fs::read_to_string(proj.join(".hcp/packs").join(ID).join("SKILL.md"));
    assert!(installed.unwrap().contains("Some more words."));

    // Upstream adds an executable file: asked again.
    std::fs::create_dir_all(repo.join("scripts")).unwrap();
    std::fs::write(repo.join("scripts/run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    common::make_executable(&repo.join("scripts/run.sh"));
    commit(&repo, "script");
    std::fs::remove_file(proj.join("hcp.lock")).unwrap();
    let doc = m.json(&proj, &["sync"], 3);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    let added = doc["results"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| {
            c["kind"] == "file_added" && c["path"] == "scripts/run.sh" && c["escalates"] == true
        });
    assert!(added, "{doc}");
    assert!(!proj.join(".hcp/packs").join(ID).join("scripts").exists());
}

#[test]
fn frozen_does_not_skip_approval() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (_, url) = repository(&m, "repo");
    let proj = project(&m, &format!("git+{url}"));
    m.json(&proj, &["sync", "--yes"], 0);
    // A teammate's machine: the committed files, nothing approved.
    let t = Machine::new();
    let clone = t.proj();
    for file in ["hcp.yaml", "hcp.lock"] {
        std::fs::copy(proj.join(file), clone.join(file)).unwrap();
    }
    let doc = t.json(&clone, &["sync", "--frozen"], 3);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    assert!(doc["results"][0]["from"].is_null(), "{doc}");
    assert!(names(&clone.join(".hcp/packs")).is_empty());
    t.json(&clone, &["sync", "--frozen", "--yes"], 0);
    assert!(clone.join(".hcp/packs").join(ID).is_dir());
}

#[test]
fn add_of_a_named_pack_needs_no_approval_and_records_it() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    m.pack(&proj.join("tools"), "tool", ID);
    let doc = m.json(&proj, &["add", "./tools/tool"], 0);
    assert_eq!(doc["pack_id"], ID, "{doc}");
    let digest = lock(&proj)["packs"][ID]["digest"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(projects_json(&m).contains(&digest), "{}", projects_json(&m));
    // Rebuilt from the committed files, the approved pack needs no --yes.
    std::fs::remove_dir_all(proj.join(".hcp/packs").join(ID)).unwrap();
    m.json(&proj, &["sync"], 0);
    assert!(proj.join(".hcp/packs").join(ID).is_dir());
}

/// The repository at `main` (v1, then a Skill edit), and a side branch
/// `evil` whose commit `main` does not reach, adding an executable file.
fn repository_with_an_unreachable_commit(m: &Machine) -> (PathBuf, String, String) {
    let (repo, url) = repository(m, "repo");
    git(&repo, &["checkout", "-q", "-b", "evil"]);
    std::fs::write(repo.join("payload.sh"), "#!/bin/sh\nid\n").unwrap();
    common::make_executable(&repo.join("payload.sh"));
    let evil = commit(&repo, "evil");
    git(&repo, &["checkout", "-q", "main"]);
    (repo, url, evil)
}

#[test]
fn a_lock_commit_the_ref_does_not_reach_is_resolved_again_from_hcp_yaml() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (repo, url, evil) = repository_with_an_unreachable_commit(&m);
    let proj = project(&m, &format!("git+{url}"));
    m.json(&proj, &["sync", "--yes"], 0);
    write_pack(&repo, "Newer words.\n");
    let newest = commit(&repo, "words");
    let mut edited = lock(&proj);
    edited["packs"][ID]["source"]["commit"] = Value::from(evil.as_str());
    write_lock(&proj, &edited);
    let (locked, packs) = (
        std::fs::read(proj.join("hcp.lock")).unwrap(),
        common::names(&proj.join(".hcp/packs").join(ID)),
    );

    let doc = m.json(&proj, &["sync", "--frozen"], 1);
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    assert_eq!(doc["error"]["pack_id"], ID, "{doc}");
    assert!(
        doc["error"]["message"].as_str().unwrap().contains(&evil),
        "{doc}"
    );
    assert_eq!(std::fs::read(proj.join("hcp.lock")).unwrap(), locked);
    assert_eq!(common::names(&proj.join(".hcp/packs").join(ID)), packs);

    let doc = m.json(&proj, &["sync"], 0);
    let result = &doc["results"][0];
    assert_eq!(result["from"], "1.0.0", "{doc}");
    assert!(result["changes"].as_array().is_some(), "{doc}");
    let pack = proj.join(".hcp/packs").join(ID);
    assert!(!pack.join("payload.sh").exists());
    let skill = std::fs::read_to_string(pack.join("SKILL.md")).unwrap();
    assert!(skill.contains("Newer words."), "{skill}");
    assert_eq!(
        lock(&proj)["packs"][ID]["source"]["commit"],
        newest.as_str()
    );
}

#[test]
fn a_lock_url_other_than_hcp_yaml_s_is_resolved_again_from_hcp_yaml() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (_, url) = repository(&m, "repo");
    let (other, other_url) = repository(&m, "other");
    std::fs::write(other.join("payload.sh"), "#!/bin/sh\nid\n").unwrap();
    common::make_executable(&other.join("payload.sh"));
    let other_commit = commit(&other, "evil");
    let proj = project(&m, &format!("git+{url}"));
    m.json(&proj, &["sync", "--yes"], 0);
    let mut edited = lock(&proj);
    edited["packs"][ID]["source"]["url"] = Value::from(other_url.as_str());
    edited["packs"][ID]["source"]["commit"] = Value::from(other_commit.as_str());
    write_lock(&proj, &edited);
    let locked = std::fs::read(proj.join("hcp.lock")).unwrap();

    let doc = m.json(&proj, &["sync", "--frozen"], 1);
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    assert_eq!(std::fs::read(proj.join("hcp.lock")).unwrap(), locked);

    m.json(&proj, &["sync"], 0);
    assert!(!proj.join(".hcp/packs").join(ID).join("payload.sh").exists());
    assert_eq!(lock(&proj)["packs"][ID]["source"]["url"], url.as_str());
}

#[test]
fn a_lock_digest_edited_is_refused_and_the_lock_left_as_it_is() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (_, url) = repository(&m, "repo");
    let proj = project(&m, &format!("git+{url}"));
    m.json(&proj, &["sync", "--yes"], 0);
    let t = Machine::new();
    let clone = t.proj();
    std::fs::copy(proj.join("hcp.yaml"), clone.join("hcp.yaml")).unwrap();
    let mut edited = lock(&proj);
    edited["packs"][ID]["digest"] = Value::from(format!("sha256:{}", "0".repeat(64)));
    write_lock(&clone, &edited);
    let locked = std::fs::read(clone.join("hcp.lock")).unwrap();
    let doc = t.json(&clone, &["sync", "--yes"], 1);
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    assert_eq!(std::fs::read(clone.join("hcp.lock")).unwrap(), locked);
    assert!(names(&clone.join(".hcp/packs")).is_empty());
}

#[test]
fn a_force_pushed_locked_commit_is_named_with_how_to_re_lock() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let (repo, url) = repository(&m, "repo");
    let proj = project(&m, &format!("git+{url}"));
    m.json(&proj, &["sync", "--yes"], 0);
    let locked_commit = head(&repo);
    // History rewritten: the locked commit is gone from the remote.
    write_pack(&repo, "Rewritten.\n");
    git(&repo, &["commit", "-q", "--amend", "-a", "-m", "rewritten"]);
    git(&repo, &["reflog", "expire", "--expire=now", "--all"]);
    git(&repo, &["gc", "-q", "--prune=now"]);
    let t = Machine::new();
    let clone = t.proj();
    for file in ["hcp.yaml", "hcp.lock"] {
        std::fs::copy(proj.join(file), clone.join(file)).unwrap();
    }
    let doc = t.json(&clone, &["sync", "--yes"], 1);
    assert_eq!(doc["error"]["code"], "source_unavailable", "{doc}");
    let text = doc["error"].to_string();
    assert!(text.contains(&locked_commit), "{doc}");
    assert!(text.contains("hcpx upgrade"), "{doc}");
    assert!(!text.contains("credentials"), "{doc}");
    assert!(names(&clone.join(".hcp/packs")).is_empty());
}

#[test]
fn a_source_folder_inside_the_user_store_is_refused() {
    let m = Machine::new();
    // The user store exists, with a pack folder inside it.
    m.json(m.dir.path(), &["list"], 0);
    let victim = m.pack(&m.user_store(), "mine", ID);
    let before = common::names(&victim);
    let proj = project(&m, "../userstore/mine");
    let doc = m.json(&proj, &["sync", "--yes"], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert!(names(&proj.join(".hcp/packs")).is_empty());
    assert_eq!(common::names(&victim), before);
}
