//! Safety of upgrade, sync and the lock file (HCP.md §13.3, §13.7–§13.8,
//! §14.7): an upgrade installs only the new version whose diff was shown,
//! `sync --frozen` checks the tree it installs, and `doctor --fix` records
//! packs a store from before `hcp.lock` holds, or replaces a corrupt lock
//! (kept aside) on the user's say-so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, wait_exit, wait_until};
use crate::sources::{git, git_repo, lock};
use rustix::process::{Pid, Signal};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;

/// `acme.notes` at `version`, public, with a `write` command running
/// `program` when given: an escalation over a read-only pack.
fn notes_manifest(version: &str, program: Option<&str>) -> String {
    let mut text = common::simple_manifest("acme.notes", version, "{kind: public}");
    if let Some(program) = program {
        text.push_str(&format!(
            "  - key: wipe\n    summary: Remove notes\n    effect: write\n    adapter: {{kind: process, program: {program}}}\n"
        ));
    }
    text
}

fn installed_version(sb: &Sandbox) -> String {
    let text = std::fs::read_to_string(sb.home().join("packs/acme.notes/pack.yaml")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("version: "))
        .unwrap()
        .to_string()
}

/// The `sha256:<hex>` that follows `acme.notes=` in `text`.
fn expected_digest(text: &str) -> String {
    let at = text.find("acme.notes=sha256:").expect(text) + "acme.notes=".len();
    text[at..at + "sha256:".len() + 64].to_string()
}

/// Runs `hcpx ARGS --json` stopped (SIGSTOP) at the change's step `stop`;
/// once it is stopped runs `meanwhile`, lets it go on, and returns its
/// document and exit code.
fn stopped_at(sb: &Sandbox, stop: &str, args: &[&str], meanwhile: impl FnOnce()) -> (Value, i32) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"))
        .args(args)
        .arg("--json")
        .env("HCP_HOME", sb.home())
        .env_remove("HCP_PRINCIPAL")
        .env("NO_COLOR", "1")
        .env("HCPX_TEST_STOP_AT", stop)
        .current_dir(sb.dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    wait_until(&format!("hcpx stopped at {stop}"), || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.rsplit_once(") ").is_some_and(|(_, r)| r.starts_with('T')))
    });
    meanwhile();
    rustix::process::kill_process(Pid::from_raw(pid).unwrap(), Signal::CONT).unwrap();
    let status = wait_exit(&mut child);
    let mut out = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
    (
        serde_json::from_str(&out).expect(&out),
        status.code().unwrap(),
    )
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn an_upgrade_installs_only_the_version_whose_diff_was_shown() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    let bare = repo.url.trim_start_matches("file://").to_string();
    sb.json(
        &["install", &format!("git+{}//packs/notes#v1.0.0", repo.url)],
        0,
    );
    let publish = |program: &str| {
        std::fs::write(
            repo.work.join("packs/notes/pack.yaml"),
            notes_manifest("1.2.0", Some(program)),
        )
        .unwrap();
        git(&repo.work, &["commit", "-qam", program]);
        git(&repo.work, &["tag", "-f", "v1.2.0"]);
        git(&repo.work, &["push", "-qf", "--tags", &bare, "main"]);
    };
    publish("curl");

    // Refused without --yes; the hint confirms exactly this diff.
    let doc = sb.json(&["upgrade", "acme.notes"], 3);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    let hint = doc["error"]["hint"].as_str().unwrap();
    assert!(
        hint.contains("hcpx upgrade acme.notes --yes --expect acme.notes=sha256:"),
        "{hint}"
    );
    let shown = expected_digest(hint);
    let dry = sb.hcpx().args(["upgrade", "--dry-run"]).output().unwrap();
    let dry = String::from_utf8(dry.stdout).unwrap();
    assert!(
        dry.contains(&format!(
            "would upgrade acme.notes 1.0.0 -> 1.2.0 ({shown})"
        )),
        "{dry}"
    );

    // The tag moves to a commit that runs `rm` instead.
    publish("rm");
    let lock_before = bytes(&sb.home().join("hcp.lock"));
    let expect = format!("acme.notes={shown}");
    let doc = sb.json(&["upgrade", "acme.notes", "--yes", "--expect", &expect], 3);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    assert_eq!(doc["error"]["pack_id"], "acme.notes", "{doc}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("changed since its diff was shown"),
        "{message}"
    );
    assert_eq!(doc["results"][0]["applied"], false, "{doc}");
    assert!(
        doc["results"][0]["changes"]
            .as_array()
            .unwrap()
            .contains(&json!({"kind": "program_added", "program": "rm", "escalates": true})),
        "the new diff comes back: {doc}"
    );
    assert_eq!(installed_version(&sb), "1.0.0");
    assert_eq!(bytes(&sb.home().join("hcp.lock")), lock_before);

    // Confirming the new diff installs it.
    let doc = sb.json(&["upgrade", "acme.notes"], 3);
    let now = expected_digest(doc["error"]["hint"].as_str().unwrap());
    assert_ne!(now, shown);
    let expect = format!("acme.notes={now}");
    let doc = sb.json(&["upgrade", "acme.notes", "--yes", "--expect", &expect], 0);
    assert_eq!(doc["results"][0]["applied"], true, "{doc}");
    assert_eq!(installed_version(&sb), "1.2.0");
    assert_eq!(lock(&sb)["packs"]["acme.notes"]["digest"], now.as_str());
    sb.json(&["verify"], 0);
    // An expectation with nothing newer to meet changes nothing.
    let doc = sb.json(&["upgrade", "acme.notes", "--yes", "--expect", &expect], 3);
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no newer version"),
        "{doc}"
    );
    let doc = sb.json(&["upgrade", "--expect", "acme.notes"], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
}

#[test]
fn an_upgrade_refuses_a_catalog_folder_that_changed_after_its_diff() {
    let sb = Sandbox::new();
    let catalog = sb.dir.path().join("cat");
    let dir = catalog.join("notes");
    let write = |version: &str, program: Option<&str>| {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("pack.yaml"), notes_manifest(version, program)).unwrap();
        std::fs::write(dir.join("SKILL.md"), common::simple_skill("acme.notes")).unwrap();
    };
    write("1.0.0", None);
    let cat = catalog.to_str().unwrap();
    sb.json(&["--catalog", cat, "install", "acme.notes"], 0);
    write("2.0.0", None);
    let lock_before = bytes(&sb.home().join("hcp.lock"));
    // Planned without escalation; the folder gains `rm` before the copy.
    let (doc, code) = stopped_at(
        &sb,
        "upgrade.planned",
        &["--catalog", cat, "upgrade", "acme.notes"],
        || write("2.0.0", Some("rm")),
    );
    assert_eq!(code, 3, "{doc}");
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    assert_eq!(doc["results"][0]["applied"], false, "{doc}");
    assert_eq!(installed_version(&sb), "1.0.0");
    assert_eq!(bytes(&sb.home().join("hcp.lock")), lock_before);
    sb.json(&["verify"], 0);
}

#[test]
fn frozen_sync_checks_the_staged_tree_not_the_source_read_first() {
    let a = Sandbox::new();
    let src = a.simple_pack("acme.local", "1.0.0", "{kind: public}");
    a.json(&["install", src.to_str().unwrap()], 0);
    let lockfile = a.dir.path().join("shared.lock");
    std::fs::copy(a.home().join("hcp.lock"), &lockfile).unwrap();

    let b = Sandbox::new();
    // The source matches the lock when sync finds it, then changes.
    let (doc, code) = stopped_at(
        &b,
        "sync.found",
        &["sync", lockfile.to_str().unwrap(), "--frozen"],
        || std::fs::write(src.join("extra.txt"), "slipped in").unwrap(),
    );
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    assert_eq!(doc["error"]["pack_id"], "acme.local", "{doc}");
    assert!(!b.home().join("packs/acme.local").exists());
    assert_eq!(b.json(&["verify"], 0)["packs"], json!([]));
    assert!(common::names(&b.home().join(".tmp")).is_empty());
}
