//! `hcpx upgrade --expect` attacked (HCP.md §13.7): what a user confirms is
//! the set of new versions whose diff was shown, and nothing besides.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, simple_skill};
use serde_json::json;
use std::path::Path;

/// Writes `id` at `version` into the catalog folder `catalog/<id>`; with
/// `wider`, a `write` command running `curl` (an escalation).
fn publish(catalog: &Path, id: &str, version: &str, wider: bool) {
    let dir = catalog.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    let mut manifest = common::simple_manifest(id, version, "{kind: public}");
    if wider {
        manifest.push_str(
            "  - key: wipe\n    summary: Remove notes\n    effect: write\n    adapter: {kind: process, program: curl}\n",
        );
    }
    std::fs::write(dir.join("pack.yaml"), manifest).unwrap();
    std::fs::write(dir.join("SKILL.md"), simple_skill(id)).unwrap();
}

/// A store with acme.a and acme.b 1.0.0 installed from a catalog that
/// now has acme.a 2.0.0.
fn a_newer_than_b() -> (Sandbox, std::path::PathBuf) {
    let sb = Sandbox::new();
    let catalog = sb.dir.path().join("cat");
    for id in ["acme.a", "acme.b"] {
        publish(&catalog, id, "1.0.0", false);
        sb.json(&["--catalog", catalog.to_str().unwrap(), "install", id], 0);
    }
    publish(&catalog, "acme.a", "2.0.0", false);
    (sb, catalog)
}

#[test]
fn expect_installs_no_pack_whose_diff_was_not_shown() {
    let (sb, catalog) = a_newer_than_b();
    let cat = catalog.to_str().unwrap();
    // The dry run shows acme.a only: acme.b has nothing newer yet.
    let out = sb
        .hcpx()
        .args(["--catalog", cat, "upgrade", "acme.a", "acme.b", "--dry-run"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(!text.contains("acme.b"), "{text}");
    let at = text.find("(sha256:").expect(&text) + 1;
    let shown = format!("acme.a={}", &text[at..at + 7 + 64]);
    // Then acme.b publishes a version that can write, run curl.
    publish(&catalog, "acme.b", "2.0.0", true);
    let args = [
        "--catalog",
        cat,
        "upgrade",
        "acme.a",
        "acme.b",
        "--yes",
        "--expect",
        &shown,
    ];
    let doc = sb.json(&args, 3);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    assert_eq!(doc["error"]["pack_id"], "acme.b", "{doc}");
    assert_eq!(
        common::installed_version(&sb.home(), "acme.b"),
        "1.0.0",
        "acme.b was upgraded unseen"
    );
    assert_eq!(
        common::installed_version(&sb.home(), "acme.a"),
        "1.0.0",
        "{doc}"
    );
    let b = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["pack_id"] == "acme.b")
        .unwrap();
    assert_eq!(b["applied"], json!(false));
    assert!(
        b["changes"].as_array().is_some_and(|c| !c.is_empty()),
        "{doc}"
    );
    // The hint confirms both diffs, and that line installs both.
    let hint = doc["error"]["hint"].as_str().unwrap();
    assert!(hint.contains("--expect acme.b=sha256:"), "{hint}");
    assert!(hint.contains("--expect acme.a=sha256:"), "{hint}");
}

#[test]
fn odd_expectations_are_refused_before_anything_is_fetched_or_installed() {
    let (sb, catalog) = a_newer_than_b();
    let cat = catalog.to_str().unwrap();
    let hex = "ab".repeat(32);
    let upper = format!("acme.a=sha256:{}", hex.to_uppercase());
    let twice = format!("acme.a=sha256:{hex}=sha256:{hex}");
    let no_id = format!("=sha256:{hex}");
    let bad_id = format!("../x=sha256:{hex}");
    for odd in [
        "=", "==", "acme.a", "acme.a=", &upper, &twice, &no_id, &bad_id,
    ] {
        let doc = sb.json(&["--catalog", cat, "upgrade", "--yes", "--expect", odd], 2);
        assert_eq!(doc["error"]["code"], "usage", "{odd}: {doc}");
    }
    // Another pack's id (one with nothing newer) confirms nothing.
    let other = format!("acme.b=sha256:{hex}");
    let doc = sb.json(
        &["--catalog", cat, "upgrade", "--yes", "--expect", &other],
        3,
    );
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    assert_eq!(common::installed_version(&sb.home(), "acme.a"), "1.0.0");
}

/// A catalog pack upgrades from the catalog it was installed from, never
/// from another one that has the same id: a catalog added later (listed
/// first) must not become the pack's source, as its Skill could change
/// with no capability in the diff.
#[test]
fn a_catalog_pack_upgrades_only_from_the_catalog_it_came_from() {
    let sb = Sandbox::new();
    let own = sb.dir.path().join("own");
    let other = sb.dir.path().join("other");
    publish(&own, "acme.a", "1.0.0", false);
    sb.json(
        &["--catalog", own.to_str().unwrap(), "install", "acme.a"],
        0,
    );
    publish(&other, "acme.a", "9.0.0", false);
    let (o, w) = (other.to_str().unwrap(), own.to_str().unwrap());
    let outdated = sb.json(&["--catalog", o, "--catalog", w, "outdated"], 0);
    assert_eq!(outdated["packs"], json!([]), "{outdated}");
    let upgrade = ["--catalog", o, "--catalog", w, "upgrade", "acme.a", "--yes"];
    let doc = sb.json(&upgrade, 0);
    assert_eq!(doc["results"], json!([]), "{doc}");
    assert_eq!(common::installed_version(&sb.home(), "acme.a"), "1.0.0");
    // Its own catalog's newer version is found, in a renamed folder too.
    publish(&own, "acme.a", "1.1.0", false);
    std::fs::rename(own.join("acme.a"), own.join("renamed")).unwrap();
    let doc = sb.json(&upgrade, 0);
    assert_eq!(doc["results"][0]["to"], "1.1.0", "{doc}");
    assert_eq!(common::installed_version(&sb.home(), "acme.a"), "1.1.0");
}
