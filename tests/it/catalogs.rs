//! `hcpx catalog add|remove|list|update` (HCP.md §13.2) with folder and git
//! catalogs (git ones through `file://`), and the per-catalog index behind
//! `hcpx install ID`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, simple_manifest};
use crate::sources::{git, git_repo, lock, write_pack};
use serde_json::Value;

fn config(sb: &Sandbox) -> String {
    std::fs::read_to_string(sb.home().join("config.yaml")).unwrap()
}

#[test]
fn a_folder_catalog_is_added_listed_used_and_removed_keeping_comments() {
    let sb = Sandbox::new();
    let a = sb.simple_pack("acme.a", "1.0.0", "{kind: public}");
    let catalog = a.parent().unwrap().to_path_buf();
    sb.json(&["list"], 0);
    let mut text = config(&sb);
    text.push_str("# my own note\nx-extra: kept\n");
    std::fs::write(sb.home().join("config.yaml"), &text).unwrap();

    let doc = sb.json(&["catalog", "add", catalog.to_str().unwrap()], 0);
    assert_eq!(doc["changed"], true, "{doc}");
    let again = sb.json(&["catalog", "add", catalog.to_str().unwrap()], 0);
    assert_eq!(again["changed"], false, "{again}");
    let after = config(&sb);
    assert!(after.contains("# my own note\nx-extra: kept\n"), "{after}");
    assert!(after.contains("# hcpx configuration"), "{after}");

    let doc = sb.json(&["catalog", "list"], 0);
    assert_eq!(common::keys(&doc), ["catalogs", "ok", "scope"]);
    let entry = &doc["catalogs"][0];
    assert_eq!(
        common::keys(entry),
        ["commit", "kind", "packs", "path", "source"]
    );
    assert_eq!(entry["kind"], "dir");
    assert_eq!(entry["commit"], Value::Null);
    assert_eq!(entry["packs"], 1);
    assert_eq!(entry["source"], catalog.to_str().unwrap());

    let doc = sb.json(&["install", "acme.a"], 0);
    assert_eq!(doc["action"], "installed", "{doc}");
    let source = &lock(&sb)["packs"]["acme.a"]["source"];
    assert_eq!(source["kind"], "catalog");
    assert_eq!(source["path"], a.to_str().unwrap());

    sb.json(&["catalog", "remove", catalog.to_str().unwrap()], 0);
    assert_eq!(
        sb.json(&["catalog", "list"], 0)["catalogs"],
        serde_json::json!([])
    );
    assert!(config(&sb).contains("# my own note"));
    let doc = sb.json(&["catalog", "remove", catalog.to_str().unwrap()], 5);
    assert_eq!(doc["error"]["code"], "not_found");
    // `./` always names a folder (§11.6); `no/such` alone would be the
    // GitHub repository no/such.
    let doc = sb.json(&["catalog", "add", "./no/such/folder"], 5);
    assert_eq!(doc["error"]["code"], "not_found");
    assert!(
        !sb.home().join("config.yaml").exists() || {
            let config = std::fs::read_to_string(sb.home().join("config.yaml")).unwrap();
            !config.contains("no/such")
        }
    );
}

#[test]
fn a_git_catalog_is_fetched_on_add_and_update_only() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    let source = format!("git+{}//packs", repo.url);
    let doc = sb.json(&["catalog", "add", &source], 0);
    assert_eq!(doc["catalog"]["kind"], "git", "{doc}");
    assert_eq!(doc["catalog"]["commit"], repo.v2.as_str(), "{doc}");
    assert_eq!(doc["catalog"]["packs"], 1, "{doc}");
    let local = doc["catalog"]["path"].as_str().unwrap().to_string();
    assert!(
        local.starts_with(sb.home().join("catalogs").to_str().unwrap()),
        "{local}"
    );

    let doc = sb.json(&["install", "acme.notes"], 0);
    assert_eq!(doc["version"], "1.1.0", "{doc}");
    // Locked so another machine can fetch it: the catalog's url, the
    // pack's folder in the repository and the commit, no store path.
    let locked = &lock(&sb)["packs"]["acme.notes"]["source"];
    assert_eq!(locked["kind"], "git", "{locked}");
    assert_eq!(locked["url"], repo.url.as_str(), "{locked}");
    assert_eq!(locked["subdir"], "packs/notes", "{locked}");
    assert_eq!(locked["commit"], repo.v2.as_str(), "{locked}");
    assert!(locked.get("path").is_none(), "{locked}");

    // A new commit upstream is seen only after `catalog update`.
    write_pack(&repo.work, "1.2.0");
    git(&repo.work, &["commit", "-qam", "three"]);
    let bare = repo.url.trim_start_matches("file://");
    git(&repo.work, &["push", "-q", bare, "main"]);
    let v3 = git(&repo.work, &["rev-parse", "HEAD"]);
    let listed = sb.json(&["catalog", "list"], 0);
    assert_eq!(listed["catalogs"][0]["commit"], repo.v2.as_str());
    let updated = sb.json(&["catalog", "update"], 0);
    assert_eq!(updated["catalogs"][0]["commit"], v3.as_str(), "{updated}");
    let doc = sb.json(&["install", "acme.notes"], 0);
    assert_eq!(doc["version"], "1.2.0", "{doc}");

    sb.json(&["catalog", "remove", &source], 0);
    assert!(!std::path::Path::new(&local).exists());
}

#[test]
fn a_git_catalog_that_cannot_be_fetched_changes_nothing() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    let before = config(&sb);
    let missing = sb.dir.path().join("none.git");
    let doc = sb.json(
        &[
            "catalog",
            "add",
            &format!("git+file://{}", missing.display()),
        ],
        1,
    );
    assert_eq!(doc["error"]["code"], "source_unavailable", "{doc}");
    assert_eq!(config(&sb), before);
    assert!(
        !sb.home().join("catalogs").exists()
            || common::names(&sb.home().join("catalogs")).is_empty()
    );
}

#[test]
fn install_by_id_follows_a_catalog_that_changed_since_it_was_indexed() {
    let sb = Sandbox::new();
    let catalog = sb.dir.path().join("cat");
    let pack = |folder: &str, id: &str, version: &str| {
        let dir = catalog.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("pack.yaml"),
            simple_manifest(id, version, "{kind: public}"),
        )
        .unwrap();
        std::fs::write(dir.join("SKILL.md"), common::simple_skill(id)).unwrap();
    };
    pack("one", "acme.one", "1.0.0");
    pack("two", "acme.two", "1.0.0");
    let cat = catalog.to_str().unwrap();
    sb.json(&["--catalog", cat, "install", "acme.one"], 0);
    // Folder `two` now declares another id; a new folder declares acme.two.
    pack("two", "acme.three", "1.0.0");
    pack("zz", "acme.two", "2.0.0");
    let doc = sb.json(&["--catalog", cat, "install", "acme.two"], 0);
    assert_eq!(doc["version"], "2.0.0", "{doc}");
    let doc = sb.json(&["--catalog", cat, "install", "acme.three"], 0);
    assert_eq!(doc["action"], "installed", "{doc}");
    std::fs::remove_dir_all(catalog.join("one")).unwrap();
    sb.json(&["uninstall", "acme.one"], 0);
    let doc = sb.json(&["--catalog", cat, "install", "acme.one"], 5);
    assert_eq!(doc["error"]["code"], "not_found");
    // A tampered index can only make a lookup miss, never install another pack.
    for entry in std::fs::read_dir(sb.home().join("catalogs")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("acme.three", "acme.four")).unwrap();
    }
    let doc = sb.json(&["--catalog", cat, "install", "acme.four"], 5);
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    // An id changed in place (no folder added: the catalog folder's time
    // stays) is still found: a miss lists the catalog again.
    pack("two", "acme.five", "1.0.0");
    let doc = sb.json(&["--catalog", cat, "install", "acme.five"], 0);
    assert_eq!(doc["action"], "installed", "{doc}");
}
