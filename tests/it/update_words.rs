//! Clear words where an update leaves something behind or a listing is too
//! long (HCP.md §12.7, §13.1, §13.7): `upgrade --yes` that leaves an edited
//! harness copy at the old content says so, naming it and the fix; the
//! `usage` error of a collection of hundreds of packs off a terminal stays
//! short, with a count and the `--list` hint.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox};
use crate::harness_targets::{Harness, read, skill_text};

#[test]
fn upgrade_names_an_edited_harness_copy_it_left_at_the_old_content() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    let files = |version: &str| {
        [
            (
                "pack.yaml".to_string(),
                common::simple_manifest("acme.notes", version, "{kind: public}"),
            ),
            ("SKILL.md".to_string(), skill_text("notes", version)),
        ]
    };
    let write = |version: &str| {
        let files = files(version);
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        h.sb.pack("notes", &refs)
    };
    let src = write("1.0.0");
    h.json(&["install", src.to_str().unwrap()], 0);
    h.json(&["activate", "acme.notes"], 0);
    let copy = h.user().join(".agents/skills/notes");
    std::fs::write(copy.join("SKILL.md"), "my own notes").unwrap();
    write("1.1.0");

    let out = h.cmd().args(["upgrade", "--yes"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("upgraded acme.notes 1.0.0 -> 1.1.0"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let shown = copy.display().to_string();
    assert!(
        stderr.contains("warning: agents:")
            && stderr.contains(&shown)
            && stderr.contains("from before this upgrade")
            && stderr.contains("hcpx harness sync --force"),
        "{stderr}"
    );
    assert_eq!(
        read(&copy.join("SKILL.md")),
        "my own notes",
        "left as edited"
    );
}

#[test]
fn a_collection_of_hundreds_of_packs_is_cut_in_its_usage_error() {
    let sb = Sandbox::new();
    let root = sb.dir.path().join("many");
    for i in 0..300 {
        let name = format!("skill-number-{i:03}");
        let dir = root.join("skills").join(&name);
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!("---\nname: {name}\ndescription: Skill {i}.\n---\nDo {i}.\n");
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }
    let src = root.to_str().unwrap();
    let out = sb.hcpx().args(["install", src]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.len() < 2048, "{} bytes: {stderr}", stderr.len());
    assert!(stderr.contains("300 packs"), "{stderr}");
    assert!(
        stderr.contains("more") && stderr.contains("--list"),
        "{stderr}"
    );
    let doc = sb.json(&["install", src], 2);
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(message.len() < 2048 && message.contains("300"), "{message}");
    assert!(!sb.home().join("packs/skill-number-000").exists());
}
