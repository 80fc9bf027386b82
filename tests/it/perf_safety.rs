//! What the speed work on `list` and `exec` must not change (README
//! "Performance"): lint reads the pack folder once (the walk tells what the
//! manifest and SKILL.md are), `list` trusts the listing of `packs/` it
//! just made, and a pack changed on disk is seen by the next run, whatever
//! it changed (the lint cache never hides it: `lint_cache.rs`). A catalog scan
//! learns each folder's id without linting it twice: the id is lint's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, install_and_activate};
use hcpx::engine::lint::{LintOptions, declared_id, lint_pack};
use serde_json::Value;

/// `list --json`'s row of `id`.
fn row(sb: &Sandbox, id: &str) -> Value {
    let doc = sb.json(&["list"], 0);
    doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pack_id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} not listed: {doc}"))
}

/// An installed pack changed by hand — its manifest broken, a file swapped
/// for a link, the manifest swapped for a folder, its Skill grown past the
/// limit, then set right — is listed as it is after each change, and
/// `exec` refuses or runs accordingly.
#[test]
fn a_pack_changed_on_disk_is_seen_by_the_next_run() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("demo.changed", "1.0.0", "{kind: local}");
    install_and_activate(&sb, &src, "demo.changed");
    sb.json(&["connect", "demo.changed"], 0);
    let dir = sb.home().join("packs").join("demo.changed");
    let manifest = std::fs::read_to_string(dir.join("pack.yaml")).unwrap();
    let skill = std::fs::read_to_string(dir.join("SKILL.md")).unwrap();
    assert_eq!(row(&sb, "demo.changed")["status"], "executable");

    // Same size, one byte different: an id that is not its own.
    let other = manifest.replace("demo.changed", "demo.chang3d");
    assert_eq!(other.len(), manifest.len());
    std::fs::write(dir.join("pack.yaml"), &other).unwrap();
    assert_eq!(row(&sb, "demo.changed")["status"], "unavailable");
    let refused = sb.json(&["exec", "demo.changed", "hello"], 125);
    assert_eq!(refused["error"]["code"], "lint_failed", "{refused}");

    std::fs::write(dir.join("pack.yaml"), &manifest).unwrap();
    assert_eq!(row(&sb, "demo.changed")["status"], "executable");

    // The Skill a link, then a folder, then too large.
    std::fs::remove_file(dir.join("SKILL.md")).unwrap();
    std::os::unix::fs::symlink("pack.yaml", dir.join("SKILL.md")).unwrap();
    assert_eq!(row(&sb, "demo.changed")["status"], "unavailable");
    std::fs::remove_file(dir.join("SKILL.md")).unwrap();
    std::fs::create_dir(dir.join("SKILL.md")).unwrap();
    assert_eq!(row(&sb, "demo.changed")["status"], "unavailable");
    std::fs::remove_dir(dir.join("SKILL.md")).unwrap();
    let big = format!("{skill}{}", "x".repeat(300 * 1024));
    std::fs::write(dir.join("SKILL.md"), big).unwrap();
    assert_eq!(row(&sb, "demo.changed")["status"], "unavailable");

    std::fs::write(dir.join("SKILL.md"), &skill).unwrap();
    assert_eq!(row(&sb, "demo.changed")["status"], "executable");
    let ran = sb.json(&["exec", "demo.changed", "hello"], 0);
    assert_eq!(ran["ok"], true, "{ran}");
}

/// A folder that cannot be listed is one finding, in these words. (Root
/// lists any folder, as this suite often runs: there is nothing to see.)
#[test]
fn an_unreadable_pack_folder_is_one_finding() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let pack = sb.simple_pack("demo.locked", "1.0.0", "{kind: local}");
    let set = |mode| std::fs::set_permissions(&pack, std::fs::Permissions::from_mode(mode));
    set(0o000).unwrap();
    let readable = std::fs::read_dir(&pack).is_ok();
    let report = lint_pack(&pack, LintOptions::default());
    set(0o755).unwrap();
    if readable {
        eprintln!("skipped: this user can list a folder of mode 000");
        return;
    }
    let found: Vec<_> = report
        .diagnostics
        .iter()
        .map(|d| (d.rule.id(), d.file.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            "pack.not-a-directory",
            ".",
            "cannot read the pack directory: permission denied"
        )]
    );
}

/// Every folder under `dir` and under its sub-folders (fixtures nest).
fn folders(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            out.push(entry.path());
            folders(&entry.path(), out);
        }
    }
}

/// The id a catalog scan reads first is the one lint reports, for every
/// lint fixture, every example pack and the shapes a manifest's `id` can
/// take or miss.
#[test]
fn declared_id_is_the_id_lint_reports() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = Vec::new();
    folders(&root.join("tests/fixtures/lint"), &mut dirs);
    folders(&root.join("assets/packs"), &mut dirs);
    let sb = Sandbox::new();
    let skill = "---\nname: x\ndescription: X.\n---\nBody.\n";
    for (name, manifest) in [
        ("list", "- id: a.b\n"),
        ("scalar", "a.b\n"),
        ("number", "hcp: \"1\"\nid: 12\n"),
        ("empty", "id: \"\"\n"),
        ("bad-grammar", "id: Not/An/Id\n"),
        ("no-id", "hcp: \"1\"\nname: x\n"),
        ("unparsable", "id: [a.b\n"),
        ("bom", "\u{feff}id: a.bom\n"),
        (
            "broken-rest",
            "id: a.rest\ncommands: 7\nbinding: {kind: nope}\n",
        ),
    ] {
        dirs.push(sb.pack(name, &[("pack.yaml", manifest), ("SKILL.md", skill)]));
    }
    dirs.push(sb.pack(
        "json",
        &[("pack.json", "{\"id\": \"a.json\"}"), ("SKILL.md", skill)],
    ));
    dirs.push(sb.pack(
        "both",
        &[
            ("pack.yaml", "id: a.yaml\n"),
            ("pack.json", "{\"id\": \"a.json\"}"),
        ],
    ));
    let latin1 = sb.pack("latin1", &[("SKILL.md", skill)]);
    std::fs::write(latin1.join("pack.yaml"), b"id: a.b\nname: \xe9\n").unwrap();
    dirs.push(latin1);
    let linked = sb.pack("linked", &[("real.yaml", "id: a.link\n")]);
    std::os::unix::fs::symlink("real.yaml", linked.join("pack.yaml")).unwrap();
    dirs.push(linked);
    let folder = sb.pack("folder", &[("pack.yaml/x", "id: a.dir\n")]);
    dirs.push(folder);
    dirs.push(sb.dir.path().join("not-there"));
    assert!(dirs.len() > 60, "{}", dirs.len());
    for dir in &dirs {
        let linted = lint_pack(dir, LintOptions::default()).pack_id;
        assert_eq!(declared_id(dir), linted, "{}", dir.display());
    }
}
