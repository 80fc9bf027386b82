//! `hcpx outdated` and `hcpx upgrade` (HCP.md §13.6–§13.7) on git sources
//! (through `file://`) and catalogs: newer versions, the capability diff,
//! and the confirmation an escalating upgrade needs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, simple_skill};
use crate::sources::{git, lock, notes_installed_at_v1};
use serde_json::json;

/// A manifest for acme.notes at `version` that reads `DEMO_TOKEN` and has
/// a write command running `curl`: more reach than [`common::simple_manifest`].
fn wider_manifest(version: &str) -> String {
    format!(
        r#"hcp: "1"
id: acme.notes
name: Test pack
version: {version}
description: A pack for tests.
binding: {{kind: env, env: [DEMO_TOKEN]}}
commands:
  - key: hello
    summary: Say hello
    effect: read
    adapter: {{kind: process, program: echo, argv: ["hello"]}}
  - key: touch
    summary: Write something
    effect: write
    adapter: {{kind: process, program: curl}}
"#
    )
}

#[allow(clippy::too_many_lines)] // a long scenario, not yet split (issue 18)
#[test]
fn outdated_and_upgrade_follow_semver_tags_and_ask_before_escalating() {
    let Some((sb, repo, bare)) = notes_installed_at_v1() else {
        return;
    };
    // Only v1.0.0 is tagged: nothing newer yet.
    assert_eq!(sb.json(&["outdated"], 0)["packs"], json!([]));

    // 1.1.0 (same reach) tagged `1.1.0`, then 1.2.0 (more reach) `v1.2.0`.
    git(&repo.work, &["tag", "1.1.0", &repo.v2]);
    std::fs::write(
        repo.work.join("packs/notes/pack.yaml"),
        wider_manifest("1.2.0"),
    )
    .unwrap();
    git(&repo.work, &["commit", "-qam", "wider"]);
    git(&repo.work, &["tag", "v1.2.0"]);
    git(&repo.work, &["push", "-q", "--tags", &bare, "main"]);
    let v3 = git(&repo.work, &["rev-parse", "HEAD"]);

    let doc = sb.json(&["outdated"], 0);
    let pack = &doc["packs"][0];
    assert_eq!(
        common::keys(pack),
        [
            "installed",
            "installed_digest",
            "latest",
            "latest_digest",
            "pack_id",
            "reason",
            "source"
        ]
    );
    assert_eq!(pack["reason"], "version");
    let installed_digest = lock(&sb)["packs"]["acme.notes"]["digest"].clone();
    assert_eq!(pack["installed_digest"], installed_digest);
    assert_ne!(pack["latest_digest"], installed_digest);
    assert_eq!(
        (&pack["installed"], &pack["latest"]),
        (&json!("1.0.0"), &json!("1.2.0"))
    );
    assert_eq!(pack["source"]["kind"], "git");

    let before = std::fs::read(sb.home().join("hcp.lock")).unwrap();
    let doc = sb.json(&["upgrade", "--dry-run"], 0);
    let result = &doc["results"][0];
    assert_eq!(
        common::keys(result),
        [
            "applied",
            "changes",
            "from",
            "from_digest",
            "pack_id",
            "to",
            "to_digest"
        ]
    );
    assert_eq!(result["applied"], false);
    assert_eq!(result["from_digest"], installed_digest);
    assert_eq!(result["to_digest"], pack["latest_digest"]);
    let changes = &result["changes"];
    assert!(
        changes.as_array().unwrap().contains(
            &json!({"kind": "binding_changed", "from": "public", "to": "env", "escalates": true})
        ),
        "{changes}"
    );
    assert!(
        changes
            .as_array()
            .unwrap()
            .contains(&json!({"kind": "env_added", "name": "DEMO_TOKEN", "escalates": true})),
        "{changes}"
    );
    assert!(
        changes
            .as_array()
            .unwrap()
            .contains(&json!({"kind": "program_added", "program": "curl", "escalates": true})),
        "{changes}"
    );

    // Without --yes: refused, exit 3, nothing changed.
    let doc = sb.json(&["upgrade", "acme.notes"], 3);
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    assert_eq!(doc["results"][0]["applied"], false);
    assert_eq!(common::installed_version(&sb.home(), "acme.notes"), "1.0.0");
    assert_eq!(std::fs::read(sb.home().join("hcp.lock")).unwrap(), before);

    let doc = sb.json(&["upgrade", "--yes"], 0);
    assert_eq!(doc["results"][0]["applied"], true, "{doc}");
    assert_eq!(common::installed_version(&sb.home(), "acme.notes"), "1.2.0");
    let source = &lock(&sb)["packs"]["acme.notes"]["source"];
    assert_eq!(source["ref"], "v1.2.0");
    assert_eq!(source["commit"], v3.as_str());
    sb.json(&["verify"], 0);
    let locked = lock(&sb)["packs"]["acme.notes"]["digest"].clone();
    assert_eq!(locked, doc["results"][0]["to_digest"]);
    assert_eq!(sb.json(&["outdated"], 0)["packs"], json!([]));
    assert_eq!(sb.json(&["upgrade"], 0)["results"], json!([]));
}

#[test]
fn a_catalog_pack_upgrades_without_asking_when_it_gains_nothing() {
    let sb = Sandbox::new();
    let catalog = sb.dir.path().join("cat");
    let write = |version: &str| {
        let dir = catalog.join("notes");
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = common::simple_manifest("acme.notes", version, "{kind: public}");
        std::fs::write(dir.join("pack.yaml"), manifest).unwrap();
        std::fs::write(dir.join("SKILL.md"), simple_skill("acme.notes")).unwrap();
    };
    write("1.0.0");
    let cat = catalog.to_str().unwrap();
    sb.json(&["--catalog", cat, "install", "acme.notes"], 0);
    assert_eq!(
        sb.json(&["--catalog", cat, "outdated"], 0)["packs"],
        json!([])
    );
    write("2.0.0");
    let doc = sb.json(&["--catalog", cat, "outdated"], 0);
    assert_eq!(doc["packs"][0]["latest"], "2.0.0", "{doc}");
    assert_eq!(doc["packs"][0]["source"]["kind"], "catalog");
    let doc = sb.json(&["--catalog", cat, "upgrade"], 0);
    assert_eq!(doc["results"][0]["changes"], json!([]), "{doc}");
    assert_eq!(doc["results"][0]["applied"], true, "{doc}");
    assert_eq!(common::installed_version(&sb.home(), "acme.notes"), "2.0.0");
    let doc = sb.json(&["upgrade", "acme.none"], 5);
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
}
