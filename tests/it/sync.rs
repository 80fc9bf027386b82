//! `hcpx sync LOCKFILE [--frozen] [--prune] [--yes]` (HCP.md §13.8): another store
//! made to hold the packs of a lock file, at the recorded commits.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Sandbox;
use crate::sources::{git, git_repo, lock, write_pack};
use serde_json::json;

#[test]
fn sync_reproduces_a_store_at_its_commits_then_prunes() {
    let Some((a, repo)) = git_repo() else {
        return;
    };
    let dir_pack = a.simple_pack("acme.local", "1.0.0", "{kind: public}");
    a.json(
        &["install", &format!("git+{}//packs/notes#v1.0.0", repo.url)],
        0,
    );
    a.json(&["install", dir_pack.to_str().unwrap()], 0);
    // The branch moves on; the lock still names the commit of v1.0.0.
    write_pack(&repo.work, "9.0.0");
    git(&repo.work, &["commit", "-qam", "later"]);
    git(
        &repo.work,
        &["push", "-q", repo.url.trim_start_matches("file://"), "main"],
    );
    git(&repo.work, &["tag", "-f", "v1.0.0"]);
    git(
        &repo.work,
        &[
            "push",
            "-qf",
            repo.url.trim_start_matches("file://"),
            "v1.0.0",
        ],
    );
    let lockfile = a.dir.path().join("shared.lock");
    std::fs::copy(a.home().join("hcp.lock"), &lockfile).unwrap();

    let b = Sandbox::new();
    let other = b.simple_pack("acme.other", "1.0.0", "{kind: public}");
    b.json(&["install", other.to_str().unwrap()], 0);
    let doc = b.json(&["sync", lockfile.to_str().unwrap(), "--frozen"], 0);
    let actions: Vec<_> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["pack_id"].clone(), r["action"].clone()))
        .collect();
    assert_eq!(
        actions,
        [
            (json!("acme.local"), json!("installed")),
            (json!("acme.notes"), json!("installed"))
        ],
        "{doc}"
    );
    assert_eq!(
        lock(&b)["packs"]["acme.notes"],
        lock(&a)["packs"]["acme.notes"]
    );
    assert_eq!(
        lock(&b)["packs"]["acme.notes"]["source"]["commit"],
        repo.v1.as_str()
    );
    b.json(&["verify"], 0);

    let doc = b.json(&["sync", lockfile.to_str().unwrap(), "--prune"], 0);
    let actions: Vec<_> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["action"].clone())
        .collect();
    assert_eq!(
        actions,
        [json!("unchanged"), json!("unchanged"), json!("removed")],
        "{doc}"
    );
    assert!(!b.home().join("packs/acme.other").exists());
}

#[test]
fn frozen_refuses_a_source_that_changed_and_plain_sync_accepts_it() {
    let a = Sandbox::new();
    let src = a.simple_pack("acme.local", "1.0.0", "{kind: public}");
    a.json(&["install", src.to_str().unwrap()], 0);
    let lockfile = a.dir.path().join("shared.lock");
    std::fs::copy(a.home().join("hcp.lock"), &lockfile).unwrap();
    std::fs::write(src.join("extra.txt"), "changed since").unwrap();

    let b = Sandbox::new();
    let doc = b.json(&["sync", lockfile.to_str().unwrap(), "--frozen"], 1);
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    assert_eq!(doc["error"]["pack_id"], "acme.local", "{doc}");
    assert!(!b.home().join("packs/acme.local").exists());
    let doc = b.json(&["sync", lockfile.to_str().unwrap()], 0);
    assert_eq!(doc["results"][0]["action"], "installed", "{doc}");
    assert!(b.home().join("packs/acme.local/extra.txt").exists());
    b.json(&["verify"], 0);

    std::fs::write(&lockfile, r#"{"packs": {"../x": {}}, "version": 1}"#).unwrap();
    let doc = b.json(&["sync", lockfile.to_str().unwrap()], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
}
