//! A hostile `hcp.lock` (HCP.md §13.3, §13.8, §14.2): a lock file is text
//! anyone may have edited or sent, and its git sources reach git and the
//! file system. Their parts are held to the rules of a SOURCE.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Sandbox;
use crate::sources::{git_repo, lock};
use serde_json::{Value, json};

/// A lock file naming `acme.notes` from `source`.
fn lock_with(source: Value) -> String {
    json!({"packs": {"acme.notes": {
        "digest": format!("sha256:{}", "0".repeat(64)),
        "source": source, "version": "1.0.0"}}, "version": 1})
    .to_string()
}

/// A SUBDIR of `..` parts climbing out of any checkout up to `/`, then
/// down to `target`.
fn climbing_to(target: &std::path::Path) -> String {
    let rest = target.to_str().unwrap().trim_start_matches('/');
    format!("{}{rest}", "../".repeat(40))
}

#[test]
fn sync_refuses_a_git_subdir_that_climbs_out_of_the_checkout() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    // A folder of this machine, not of the repository.
    let outside = sb.simple_pack("acme.notes", "6.6.6", "{kind: public}");
    let lockfile = sb.dir.path().join("shared.lock");
    for subdir in [climbing_to(&outside), outside.display().to_string()] {
        let text = lock_with(json!({"kind": "git", "url": repo.url,
            "commit": repo.v1, "subdir": subdir}));
        std::fs::write(&lockfile, text).unwrap();
        let doc = sb.json(&["sync", lockfile.to_str().unwrap()], 2);
        assert_eq!(doc["error"]["code"], "usage", "{subdir}: {doc}");
        assert!(
            !sb.home().join("packs/acme.notes").exists(),
            "{subdir}: installed from outside the repository"
        );
    }
}

#[test]
fn sync_refuses_git_parts_that_git_would_take_otherwise() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    let lockfile = sb.dir.path().join("shared.lock");
    let good = json!({"kind": "git", "url": repo.url, "commit": repo.v1, "subdir": "packs/notes"});
    let hostile = [
        ("url", json!("--upload-pack=touch pwned")),
        ("url", json!("ext::sh -c touch% pwned")),
        ("ref", json!("-oops")),
        ("ref", json!("v1\nforged line")),
        // A branch name where the commit goes: sync would install
        // wherever the branch is now, not what was locked.
        ("commit", json!("main")),
        ("subdir", json!("packs/./notes")),
    ];
    for (key, value) in hostile {
        let mut source = good.clone();
        source[key] = value.clone();
        std::fs::write(&lockfile, lock_with(source)).unwrap();
        let doc = sb.json(&["sync", lockfile.to_str().unwrap()], 2);
        assert_eq!(doc["error"]["code"], "usage", "{key}={value}: {doc}");
        assert!(!sb.home().join("packs/acme.notes").exists(), "{key}");
        assert!(!sb.dir.path().join("pwned").exists(), "{key}");
    }
    // The same lock with its own parts syncs.
    std::fs::write(&lockfile, lock_with(good)).unwrap();
    sb.json(&["sync", lockfile.to_str().unwrap()], 0);
    assert_eq!(lock(&sb)["packs"]["acme.notes"]["version"], "1.0.0");
}

#[test]
fn a_store_lock_with_a_climbing_subdir_is_corrupt_and_doctor_fix_drops_it() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    sb.json(
        &["install", &format!("git+{}//packs/notes#v1.0.0", repo.url)],
        0,
    );
    let outside = sb.simple_pack("acme.notes", "6.6.6", "{kind: public}");
    let path = sb.home().join("hcp.lock");
    let mut planted = lock(&sb);
    planted["packs"]["acme.notes"]["source"]["subdir"] = json!(climbing_to(&outside));
    planted["packs"]["acme.notes"]["source"]["ref"] = Value::Null;
    planted["packs"]["acme.notes"]["source"]
        .as_object_mut()
        .unwrap()
        .remove("ref");
    std::fs::write(&path, planted.to_string()).unwrap();

    let doc = sb.json(&["upgrade", "--yes"], 1);
    assert_eq!(doc["error"]["code"], "store_corrupt", "{doc}");
    let doc = sb.json(&["outdated"], 1);
    assert_eq!(doc["error"]["code"], "store_corrupt", "{doc}");
    let installed = std::fs::read_to_string(sb.home().join("packs/acme.notes/pack.yaml")).unwrap();
    assert!(installed.contains("1.0.0"), "{installed}");

    sb.json(&["doctor", "--fix"], 0);
    let source = &lock(&sb)["packs"]["acme.notes"]["source"];
    assert!(
        !source.to_string().contains(".."),
        "the climbing subdir was kept: {source}"
    );
}

/// `hcpx --json ARGS`, given at most 20 s (a hang fails the test).
fn bounded(sb: &Sandbox, args: &[&str]) -> (Option<i32>, Value) {
    let out = sb
        .hcpx()
        .timeout(std::time::Duration::from_secs(20))
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let doc = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code(), doc)
}

#[test]
fn a_fifo_or_a_folder_at_a_store_file_is_refused_at_once() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    for (name, args) in [
        ("hcp.lock", ["verify"].as_slice()),
        ("state.json", ["list"].as_slice()),
        ("config.yaml", ["list"].as_slice()),
    ] {
        let path = sb.home().join(name);
        let _ = std::fs::remove_file(&path);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        let (code, doc) = bounded(&sb, args);
        assert_eq!(code, Some(1), "{name}: {doc}");
        assert_eq!(doc["error"]["code"], "io", "{name}: {doc}");
        assert!(
            doc["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not a regular file"),
            "{name}: {doc}"
        );
        std::fs::remove_file(&path).unwrap();
    }
    // A folder: refused the same way, and `doctor --fix` leaves it alone.
    std::fs::create_dir(sb.home().join("hcp.lock")).unwrap();
    let (code, doc) = bounded(&sb, &["verify"]);
    assert_eq!(
        (code, &doc["error"]["code"]),
        (Some(1), &json!("io")),
        "{doc}"
    );
    bounded(&sb, &["doctor", "--fix"]);
    assert!(sb.home().join("hcp.lock").is_dir());
}

#[test]
fn a_lock_naming_a_pack_twice_is_refused_not_read_by_its_last_entry() {
    let sb = Sandbox::new();
    let reviewed = sb.simple_pack("acme.notes", "1.0.0", "{kind: public}");
    let other = sb.simple_pack("acme.notes", "6.6.6", "{kind: public}");
    let entry = |dir: &std::path::Path| {
        format!(
            r#"{{"digest": "sha256:{}", "source": {{"kind": "dir", "path": {}}}, "version": "1.0.0"}}"#,
            "0".repeat(64),
            json!(dir.to_str().unwrap())
        )
    };
    let text = format!(
        r#"{{"packs": {{"acme.notes": {}, "acme.notes": {}}}, "version": 1}}"#,
        entry(&reviewed),
        entry(&other)
    );
    let lockfile = sb.dir.path().join("shared.lock");
    std::fs::write(&lockfile, &text).unwrap();
    let doc = sb.json(&["sync", lockfile.to_str().unwrap()], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert!(!sb.home().join("packs/acme.notes").exists());
    // In the store, the same lock is corrupt for every command.
    std::fs::write(sb.home().join("hcp.lock"), &text).unwrap();
    let doc = sb.json(&["verify"], 1);
    assert_eq!(doc["error"]["code"], "store_corrupt", "{doc}");
}

#[test]
fn sync_of_an_endless_file_stops_at_a_bound() {
    let sb = Sandbox::new();
    let (code, doc) = bounded(&sb, &["sync", "/dev/zero"]);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["error"]["code"], "io", "{doc}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("over the limit"),
        "{doc}"
    );
}
