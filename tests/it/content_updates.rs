//! Content updates (HCP.md §13.6–§13.7): a pack edited upstream at the same
//! version — how an unversioned Skill pack changes — is `outdated` with
//! `"reason": "content"` and both digests, and `upgrade` installs the new
//! content after the diff, which counts the Skill's lines and lists the
//! files added, removed and changed (a new executable file escalates).
//! Dir sources are compared by digest too; git catalogs are brought up to
//! date first unless `--offline`.
//!
//! The HCP packs here are `sense_only: true` (as a Skill pack reads,
//! §2.6); the tests named `skill_pack_*` use a plain Skill folder and need
//! Skill packs to install (ignored until then).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox};
use crate::sources::{git, git_repo, lock, write_pack};
use serde_json::{Value, json};
use std::path::Path;

fn sense_only_manifest(version: &str) -> String {
    format!(
        r#"hcp: "1"
id: acme.notes
name: Notes
version: {version}
description: A pack for tests.
sense_only: true
binding: {{kind: public}}
commands: []
"#
    )
}

const SKILL: &str =
    "---\nname: acme-notes\ndescription: Notes.\n---\nline one\nline two\nline three\n";

/// Writes the pack (manifest unless `skill_only`, SKILL.md, `files`).
fn write(dir: &Path, skill: &str, files: &[(&str, &str, bool)], skill_only: bool) {
    std::fs::create_dir_all(dir).unwrap();
    if !skill_only {
        std::fs::write(dir.join("pack.yaml"), sense_only_manifest("1.0.0")).unwrap();
    }
    std::fs::write(dir.join("SKILL.md"), skill).unwrap();
    for (rel, text, executable) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        if *executable {
            common::make_executable(&path);
        } else {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}

fn kinds(changes: &Value) -> Vec<Value> {
    changes.as_array().unwrap().clone()
}

/// The whole walk on a folder: content edit, Skill lines, files added,
/// removed, changed, the executable one needing `--yes`.
fn content_walk(sb: &Sandbox, dir: &Path, id: &str, skill_only: bool) {
    let installed_digest = lock(sb)["packs"][id]["digest"].clone();
    assert_eq!(sb.json(&["outdated"], 0)["packs"], json!([]));

    let edited = SKILL.replace("line two\n", "line 2\nline 2b\n");
    write(dir, &edited, &[], skill_only);
    let doc = sb.json(&["outdated"], 0);
    let pack = &doc["packs"][0];
    assert_eq!(pack["reason"], "content", "{doc}");
    assert_eq!(pack["installed"], pack["latest"], "{doc}");
    assert_eq!(pack["installed_digest"], installed_digest, "{doc}");
    assert_ne!(pack["latest_digest"], installed_digest, "{doc}");
    let latest = pack["latest_digest"].clone();

    // --expect holds for content as for versions: another digest is refused.
    let stale = format!("{id}=sha256:{}", "0".repeat(64));
    let doc = sb.json(&["upgrade", "--yes", "--expect", &stale], 3);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    assert_eq!(lock(sb)["packs"][id]["digest"], installed_digest);
    let expect = format!("{id}={}", latest.as_str().unwrap());
    let doc = sb.json(&["upgrade", "--yes", "--expect", &expect], 0);
    let result = &doc["results"][0];
    assert_eq!(result["applied"], true, "{doc}");
    assert_eq!(result["from_digest"], installed_digest);
    assert_eq!(result["to_digest"], latest);
    assert_eq!(
        kinds(&result["changes"]),
        [
            json!({"kind": "skill_changed", "lines_added": 2, "lines_removed": 1, "escalates": false})
        ]
    );
    assert_eq!(lock(sb)["packs"][id]["digest"], latest);
    let skill = std::fs::read_to_string(sb.home().join("packs").join(id).join("SKILL.md")).unwrap();
    assert_eq!(skill, edited);
    assert_eq!(sb.json(&["outdated"], 0)["packs"], json!([]));

    // A new executable script: escalates, refused without --yes.
    let files = [
        ("scripts/x.sh", "#!/bin/sh\necho x\n", true),
        ("notes.txt", "a\n", false),
    ];
    write(dir, &edited, &files, skill_only);
    let doc = sb.json(&["upgrade"], 3);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    assert!(
        kinds(&doc["results"][0]["changes"]).contains(
            &json!({"kind": "file_added", "path": "scripts/x.sh", "executable": true, "escalates": true})
        ),
        "{doc}"
    );
    assert!(!sb.home().join("packs").join(id).join("scripts").exists());
    sb.json(&["upgrade", "--yes"], 0);
    assert!(
        sb.home()
            .join("packs")
            .join(id)
            .join("scripts/x.sh")
            .exists()
    );

    // notes.txt made executable and edited, scripts/x.sh removed.
    std::fs::remove_dir_all(dir.join("scripts")).unwrap();
    write(dir, &edited, &[("notes.txt", "b\n", true)], skill_only);
    let doc = sb.json(&["upgrade", "--dry-run"], 0);
    assert_eq!(
        kinds(&doc["results"][0]["changes"]),
        [
            json!({"kind": "file_changed", "path": "notes.txt", "executable": true, "was_executable": false, "escalates": true}),
            json!({"kind": "file_removed", "path": "scripts/x.sh", "executable": true, "escalates": false}),
        ],
        "{doc}"
    );
    write(dir, &edited, &[("notes.txt", "c\n", false)], skill_only);
    std::fs::write(dir.join("notes.txt"), "c\n").unwrap();
    let doc = sb.json(&["upgrade", "--dry-run"], 0);
    assert!(
        kinds(&doc["results"][0]["changes"]).contains(
            &json!({"kind": "file_changed", "path": "notes.txt", "executable": false, "was_executable": false, "escalates": false})
        ),
        "{doc}"
    );
}

#[test]
fn a_dir_pack_edited_at_the_same_version_is_a_content_update() {
    let sb = Sandbox::new();
    let dir = sb.dir.path().join("src/notes");
    write(&dir, SKILL, &[], false);
    sb.json(&["install", dir.to_str().unwrap()], 0);
    content_walk(&sb, &dir, "acme.notes", false);
}

#[test]
fn skill_pack_from_a_dir_edited_upstream_is_a_content_update() {
    let sb = Sandbox::new();
    let dir = sb.dir.path().join("src/acme-notes");
    write(&dir, SKILL, &[], true);
    sb.json(&["install", dir.to_str().unwrap()], 0);
    content_walk(&sb, &dir, "acme-notes", true);
}

/// A git source at the same version: its default branch edited and pushed.
fn git_content_update(skill_only: bool) {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    let pack = repo.work.join("packs/notes");
    std::fs::remove_dir_all(&pack).unwrap();
    write(&pack, SKILL, &[], skill_only);
    git(&repo.work, &["add", "-A"]);
    git(&repo.work, &["commit", "-qm", "sense only"]);
    let bare = repo.url.trim_start_matches("file://").to_string();
    git(&repo.work, &["push", "-q", &bare, "main"]);
    git(&repo.work, &["tag", "-d", "v1.0.0"]);
    git(&repo.work, &["push", "-q", &bare, ":refs/tags/v1.0.0"]);
    sb.json(&["install", &format!("git+{}//packs/notes", repo.url)], 0);
    let id = if skill_only {
        "acme-notes"
    } else {
        "acme.notes"
    };
    assert_eq!(sb.json(&["outdated"], 0)["packs"], json!([]));

    write(&pack, &SKILL.replace("line three\n", ""), &[], skill_only);
    git(&repo.work, &["commit", "-qam", "edit"]);
    git(&repo.work, &["push", "-q", &bare, "main"]);
    let head = git(&repo.work, &["rev-parse", "HEAD"]);
    let doc = sb.json(&["outdated"], 0);
    assert_eq!(doc["packs"][0]["reason"], "content", "{doc}");
    // Offline, a git source is not asked, and said so (§13.6).
    let doc = sb.json(&["outdated", "--offline"], 0);
    assert_eq!(doc["packs"][0]["reason"], "not_checked", "{doc}");
    let doc = sb.json(&["upgrade"], 0);
    assert_eq!(
        doc["results"][0]["changes"],
        json!([{"kind": "skill_changed", "lines_added": 0, "lines_removed": 1, "escalates": false}]),
        "{doc}"
    );
    assert_eq!(lock(&sb)["packs"][id]["source"]["commit"], head.as_str());
    sb.json(&["verify"], 0);
}

#[test]
fn a_git_pack_edited_at_the_same_version_is_a_content_update() {
    git_content_update(false);
}

#[test]
fn skill_pack_from_git_edited_upstream_is_a_content_update() {
    git_content_update(true);
}

/// `outdated` and `upgrade` bring the git catalog they read up to date
/// first; with `--offline` they read its local copy as it is.
#[test]
fn git_catalogs_are_refreshed_first_unless_offline() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    sb.json(&["catalog", "add", &format!("git+{}//packs", repo.url)], 0);
    sb.json(&["install", "acme.notes"], 0);
    write_pack(&repo.work, "1.2.0");
    git(&repo.work, &["commit", "-qam", "three"]);
    // Tagged, so the pack's git source (§13.3: a git catalog's pack is
    // locked by url) and the catalog's copy name the same newest version.
    git(&repo.work, &["tag", "-a", "v1.2.0", "-m", "v3"]);
    git(
        &repo.work,
        &[
            "push",
            "-q",
            "--follow-tags",
            repo.url.trim_start_matches("file://"),
            "main",
        ],
    );
    let v3 = git(&repo.work, &["rev-parse", "HEAD"]);

    // Its pack is locked by the catalog's url (§13.3): offline, not asked.
    let doc = sb.json(&["outdated", "--offline"], 0);
    assert_eq!(doc["packs"][0]["reason"], "not_checked", "{doc}");
    let doc = sb.json(&["upgrade", "--offline", "--dry-run"], 0);
    assert_eq!(doc["results"], json!([]), "{doc}");
    assert_eq!(
        sb.json(&["catalog", "list"], 0)["catalogs"][0]["commit"],
        repo.v2.as_str()
    );

    let doc = sb.json(&["outdated"], 0);
    assert_eq!(doc["packs"][0]["latest"], "1.2.0", "{doc}");
    assert_eq!(doc["packs"][0]["reason"], "version", "{doc}");
    assert_eq!(
        sb.json(&["catalog", "list"], 0)["catalogs"][0]["commit"],
        v3.as_str()
    );
    let doc = sb.json(&["upgrade", "--yes"], 0);
    assert_eq!(doc["results"][0]["applied"], true, "{doc}");
    assert_eq!(common::installed_version(&sb.home(), "acme.notes"), "1.2.0");
}
