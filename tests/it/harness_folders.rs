//! Whole Skill folders in harness targets (HCP.md §12.6–§12.8) and harness
//! folders two stores share (§14.10), end to end: the real binary, a
//! temporary HOME, the files it leaves.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::harness_targets::{Harness, line, read, skill_text, states};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A pack whose Skill folder holds a script, a reference and a template.
fn folder_pack(h: &Harness, id: &str, version: &str, skill: &str) -> PathBuf {
    let dir = h.sb.pack(
        &format!("{id}-{version}"),
        &[
            (
                "pack.yaml",
                &common::simple_manifest(id, version, "{kind: public}"),
            ),
            ("SKILL.md", &skill_text(skill, version)),
            ("scripts/run.sh", "#!/bin/sh\necho run\n"),
            ("references/guide.md", &format!("# Guide {version}\n")),
            ("templates/note.txt", "Dear {name},\n"),
        ],
    );
    common::make_executable(&dir.join("scripts/run.sh"));
    dir
}

fn install_activate(h: &Harness, id: &str, version: &str, skill: &str) {
    let dir = folder_pack(h, id, version, skill);
    h.json(&["install", dir.to_str().unwrap()], 0);
    h.json(&["activate", id], 0);
}

/// The agents target's folder.
fn agents(h: &Harness) -> PathBuf {
    h.user().join(".agents/skills")
}

fn marker(dir: &Path) -> Value {
    serde_json::from_str(&read(&dir.join(".hcpx.json"))).unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

/// Every path below `dir`, relative, sorted; panics on a link.
fn tree(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(|e| e.unwrap())
        .inspect(|e| assert!(!e.path_is_symlink(), "{} is a link", e.path().display()))
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).unwrap().display().to_string())
        .collect();
    out.sort();
    out
}

/// §13.4 over `dir`'s files but the marker, computed here on its own.
fn digest_of(dir: &Path) -> String {
    let mut total = Sha256::new();
    for rel in tree(dir).into_iter().filter(|p| p != ".hcpx.json") {
        let bytes = std::fs::read(dir.join(&rel)).unwrap();
        let exec = if mode(&dir.join(&rel)) & 0o111 != 0 {
            "755"
        } else {
            "644"
        };
        for part in [rel.as_bytes(), b"\0", exec.as_bytes(), b"\0"] {
            total.update(part);
        }
        total.update(format!("{}\0", bytes.len()).as_bytes());
        total.update(&bytes);
    }
    let hex: String = total
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `hcpx ARGS` in text form: (exit code, stderr).
fn text(h: &Harness, args: &[&str]) -> (i32, String) {
    let out = h.cmd().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_whole_skill_folder_is_placed_with_modes_and_a_marker_with_digest_and_store() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    install_activate(&h, "acme.tools", "1.0.0", "tools");
    let placed = agents(&h).join("tools");
    assert_eq!(
        tree(&placed),
        [
            ".hcpx.json",
            "SKILL.md",
            "references/guide.md",
            "scripts/run.sh",
            "templates/note.txt"
        ]
    );
    let src = h.sb.dir.path().join("src/acme.tools-1.0.0");
    for rel in ["SKILL.md", "references/guide.md", "scripts/run.sh"] {
        assert_eq!(read(&placed.join(rel)), read(&src.join(rel)), "{rel}");
    }
    assert_eq!(mode(&placed.join("scripts/run.sh")), 0o755);
    assert_eq!(mode(&placed.join("references/guide.md")), 0o644);
    assert_eq!(mode(&placed.join("SKILL.md")), 0o644);
    let m = marker(&placed);
    assert_eq!(m["pack_id"], "acme.tools");
    assert_eq!(m["version"], "1.0.0");
    assert_eq!(
        m["sha256"],
        sha256_hex(&std::fs::read(placed.join("SKILL.md")).unwrap())
    );
    assert_eq!(m["digest"], digest_of(&placed));
    let store = std::fs::canonicalize(h.sb.home()).unwrap();
    assert_eq!(m["store"], store.display().to_string());
    let status = h.json(&["harness", "status", "acme.tools"], 0);
    assert_eq!(
        states(&status, "agents"),
        [line("acme.tools", "tools", "placed")]
    );
}

/// Rewrites our copy at `dir` as an earlier release placed it: `SKILL.md`
/// alone, a marker without `digest` or `store`.
fn make_old_format(dir: &Path) {
    let m = marker(dir);
    for sub in ["scripts", "references", "templates"] {
        std::fs::remove_dir_all(dir.join(sub)).unwrap();
    }
    let old = serde_json::json!({"pack_id": m["pack_id"], "version": m["version"], "sha256": m["sha256"]});
    std::fs::write(dir.join(".hcpx.json"), old.to_string()).unwrap();
}

#[test]
fn every_state_with_whole_folders_and_sync_upgrades_an_old_marker() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    let names = [
        "placed", "missing", "old", "added", "removed", "changed", "chmod", "theirs", "stale",
    ];
    for name in names {
        if name == "theirs" {
            let dir = agents(&h).join("theirs");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("SKILL.md"), "mine").unwrap();
        }
        install_activate(&h, &format!("acme.{name}"), "1.0.0", name);
    }
    let at = |name: &str| agents(&h).join(name);
    std::fs::remove_dir_all(at("missing")).unwrap();
    make_old_format(&at("old"));
    std::fs::write(at("added/notes.md"), "my notes").unwrap();
    std::fs::remove_file(at("removed/templates/note.txt")).unwrap();
    std::fs::write(at("changed/references/guide.md"), "edited").unwrap();
    std::fs::set_permissions(
        at("chmod/references/guide.md"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    // stale: a copy of ours for a pack that is not activated any more.
    let state_path = h.sb.home().join("state.json");
    let mut state: Value = serde_json::from_str(&read(&state_path)).unwrap();
    state["activated"]
        .as_array_mut()
        .unwrap()
        .retain(|id| id != "acme.stale");
    std::fs::write(&state_path, state.to_string()).unwrap();

    let expected = |old: &str, modified: &str| {
        let mut all = vec![
            line("acme.added", "added", modified),
            line("acme.changed", "changed", modified),
            line("acme.chmod", "chmod", modified),
            line(
                "acme.missing",
                "missing",
                if old == "placed" { "placed" } else { "missing" },
            ),
            line("acme.old", "old", old),
            line("acme.placed", "placed", "placed"),
            line("acme.removed", "removed", modified),
            line("acme.stale", "stale", "stale"),
            line("acme.theirs", "theirs", "conflict"),
            line("hcp-cli", "hcp-cli", "placed"),
        ];
        if old == "placed" {
            all.retain(|l| l.0 != "acme.stale");
        }
        all
    };
    let status = h.json(&["harness", "status"], 1);
    assert_eq!(states(&status, "agents"), expected("outdated", "modified"));
    // sync repairs missing, outdated (the old marker) and stale; edited
    // copies and the foreign folder stay.
    let mut synced = expected("placed", "modified");
    synced.retain(|l| l.0 != "acme.stale");
    assert_eq!(states(&h.json(&["harness", "sync"], 1), "agents"), synced);
    assert_eq!(read(&at("added/notes.md")), "my notes");
    assert_eq!(read(&at("changed/references/guide.md")), "edited");
    assert!(!at("removed/templates/note.txt").exists());
    assert!(!at("stale").exists());
    assert_eq!(read(&at("theirs/SKILL.md")), "mine");
    let upgraded = marker(&at("old"));
    assert_eq!(upgraded["digest"], digest_of(&at("old")));
    assert!(upgraded["store"].is_string(), "{upgraded}");
    assert!(at("old/scripts/run.sh").is_file());
    assert!(at("missing/scripts/run.sh").is_file());
    // --force takes the edited copies back (the added file goes with the
    // copy); never the foreign folder.
    let forced = h.json(&["harness", "sync", "--force"], 1);
    let mut want = expected("placed", "placed");
    want.retain(|l| l.0 != "acme.stale");
    assert_eq!(states(&forced, "agents"), want);
    assert_eq!(mode(&at("chmod/references/guide.md")), 0o644);
    assert_eq!(read(&at("theirs/SKILL.md")), "mine");
}

#[test]
fn a_file_the_user_adds_in_a_placed_folder_survives_every_change() {
    let h = Harness::new();
    for name in ["deact", "unins", "disab", "reins"] {
        install_activate(&h, &format!("acme.{name}"), "1.0.0", name);
    }
    h.json(&["harness", "enable", "agents"], 0);
    let at = |name: &str| agents(&h).join(name);
    for name in ["deact", "unins", "disab", "reins"] {
        std::fs::write(at(name).join("my-notes.md"), format!("{name} notes")).unwrap();
    }
    let survived = |name: &str| {
        assert_eq!(
            read(&at(name).join("my-notes.md")),
            format!("{name} notes"),
            "{name}"
        );
        assert!(at(name).join("SKILL.md").is_file(), "{name}");
    };
    // Deactivate: the copy is the user's now (no marker), with a warning.
    let (code, stderr) = text(&h, &["deactivate", "acme.deact"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("warning: agents:") && stderr.contains("edited"),
        "{stderr}"
    );
    survived("deact");
    assert!(!at("deact/.hcpx.json").exists());
    let doc = h.json(&["uninstall", "acme.unins"], 0);
    assert_eq!(doc["harnesses"][0]["state"], "modified", "{doc}");
    survived("unins");
    assert!(!at("unins/.hcpx.json").exists());
    // Another version installed: the edited copy is not overwritten.
    let v2 = folder_pack(&h, "acme.reins", "2.0.0", "reins");
    h.json(&["install", v2.to_str().unwrap()], 0);
    survived("reins");
    assert_eq!(read(&at("reins/SKILL.md")), skill_text("reins", "1.0.0"));
    h.json(&["harness", "disable", "agents"], 0);
    survived("disab");
    survived("reins");
    assert!(!at("disab/.hcpx.json").exists());
}

#[test]
fn two_stores_sharing_one_target_folder_leave_each_other_s_copies_alone() {
    let first = Harness::new();
    let mut second = Harness::new();
    second.set("HOME", &first.user());
    for h in [&first, &second] {
        install_activate(h, "acme.shared", "1.0.0", "shared");
        h.json(&["harness", "enable", "agents"], 0);
    }
    let dir = agents(&first).join("shared");
    let before = read(&dir.join(".hcpx.json"));
    let status = second.json(&["harness", "status"], 1);
    assert_eq!(
        states(&status, "agents")[0],
        line("acme.shared", "shared", "conflict")
    );
    let (_, stderr) = text(&second, &["harness", "sync", "--force"]);
    assert!(stderr.contains("another store"), "{stderr}");
    assert_eq!(read(&dir.join(".hcpx.json")), before);
    second.json(&["deactivate", "acme.shared"], 0);
    second.json(&["harness", "disable", "agents"], 0);
    second.json(&["harness", "enable", "agents"], 0);
    second.json(&["uninstall", "acme.shared"], 0);
    assert_eq!(read(&dir.join(".hcpx.json")), before);
    assert!(dir.join("scripts/run.sh").is_file());
    let status = first.json(&["harness", "status"], 0);
    assert_eq!(
        states(&status, "agents")[0],
        line("acme.shared", "shared", "placed")
    );
    let store = std::fs::canonicalize(first.sb.home()).unwrap();
    assert_eq!(marker(&dir)["store"], store.display().to_string());
}

#[test]
fn the_pack_activated_first_keeps_a_shared_name_whatever_the_ids_or_enable_order() {
    let mut h = Harness::new();
    let claude = h.user().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    h.set("CLAUDE_CONFIG_DIR", &claude);
    // Ids in the other alphabetical order than activation.
    install_activate(&h, "zz.first", "1.0.0", "notes");
    install_activate(&h, "aa.second", "1.0.0", "notes");
    h.json(&["harness", "enable", "claude-code"], 0);
    h.json(&["harness", "enable", "agents"], 0);
    for folder in [agents(&h), claude.join("skills")] {
        assert_eq!(marker(&folder.join("notes"))["pack_id"], "zz.first");
    }
    let (_, stderr) = text(&h, &["harness", "sync"]);
    assert!(
        stderr.contains("aa.second") && stderr.contains("held by") && stderr.contains("zz.first"),
        "{stderr}"
    );
    // Deactivated and activated again, it goes to the end of the order.
    h.json(&["deactivate", "zz.first"], 0);
    assert_eq!(marker(&agents(&h).join("notes"))["pack_id"], "aa.second");
    h.json(&["activate", "zz.first"], 0);
    assert_eq!(marker(&agents(&h).join("notes"))["pack_id"], "aa.second");
    // An upgrade keeps its place.
    let v2 = folder_pack(&h, "aa.second", "2.0.0", "notes");
    h.json(&["install", v2.to_str().unwrap()], 0);
    let m = marker(&agents(&h).join("notes"));
    assert_eq!(
        (m["pack_id"].as_str(), m["version"].as_str()),
        (Some("aa.second"), Some("2.0.0"))
    );
    let activated = h.sb.state()["activated"].clone();
    assert_eq!(
        activated,
        serde_json::json!(["hcp-cli", "aa.second", "zz.first"])
    );
}

#[test]
fn a_reserved_skill_name_is_never_placed_for_another_pack() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    // Written into the store by hand (lint refuses these names).
    for (id, skill) in [("acme.rogue", "hcp-x"), ("acme.thief", "hcp-cli")] {
        let src = folder_pack(&h, id, "1.0.0", skill);
        common::copy_dir(&src, &h.sb.home().join("packs").join(id));
    }
    let state_path = h.sb.home().join("state.json");
    let mut state: Value = serde_json::from_str(&read(&state_path)).unwrap();
    let activated = state["activated"].as_array_mut().unwrap();
    activated.insert(0, "acme.thief".into());
    activated.push("acme.rogue".into());
    std::fs::write(&state_path, state.to_string()).unwrap();
    let synced = h.json(&["harness", "sync", "--force"], 1);
    assert_eq!(
        states(&synced, "agents"),
        [
            line("acme.rogue", "hcp-x", "conflict"),
            line("acme.thief", "hcp-cli", "conflict"),
            line("hcp-cli", "hcp-cli", "placed"),
        ]
    );
    assert!(!agents(&h).join("hcp-x").exists());
    assert_eq!(marker(&agents(&h).join("hcp-cli"))["pack_id"], "hcp-cli");
}

#[test]
fn a_marker_edited_to_claim_another_store_or_pack_is_not_trusted() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    install_activate(&h, "acme.one", "1.0.0", "one");
    install_activate(&h, "acme.two", "1.0.0", "two");
    let edit = |name: &str, f: &dyn Fn(&mut Value)| {
        let path = agents(&h).join(name).join(".hcpx.json");
        let mut m: Value = serde_json::from_str(&read(&path)).unwrap();
        f(&mut m);
        std::fs::write(&path, m.to_string()).unwrap();
        read(&path)
    };
    let one = edit("one", &|m| m["store"] = "/elsewhere/.hcp".into());
    let two = edit("two", &|m| {
        m["pack_id"] = "acme.ghost".into();
        m.as_object_mut().unwrap().remove("store");
    });
    let synced = h.json(&["harness", "sync", "--force"], 1);
    assert_eq!(
        states(&synced, "agents")[..2],
        [
            line("acme.one", "one", "conflict"),
            line("acme.two", "two", "conflict")
        ]
    );
    h.json(&["uninstall", "acme.one"], 0);
    h.json(&["uninstall", "acme.two"], 0);
    h.json(&["harness", "disable", "agents"], 0);
    for (name, marker) in [("one", one), ("two", two)] {
        let dir = agents(&h).join(name);
        assert_eq!(read(&dir.join(".hcpx.json")), marker, "{name}");
        assert!(dir.join("scripts/run.sh").is_file(), "{name}");
    }
}

#[test]
fn a_crash_while_placing_leaves_a_staging_folder_doctor_names_and_fix_removes() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    let dir = folder_pack(&h, "acme.one", "1.0.0", "one");
    h.json(&["install", dir.to_str().unwrap()], 0);
    let out = h
        .cmd()
        .args(["activate", "acme.one"])
        .env("HCPX_TEST_CRASH_AT", "harness.place")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let hidden: Vec<String> = common::names(&agents(&h))
        .into_iter()
        .filter(|n| n.starts_with(".hcpx-one-"))
        .collect();
    assert_eq!(hidden.len(), 1, "{:?}", common::names(&agents(&h)));
    let doctor = h.json(&["doctor"], 1);
    let finding = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["message"].as_str().unwrap().contains(&hidden[0]))
        .unwrap_or_else(|| panic!("{doctor}"))
        .clone();
    assert_eq!(finding["check"], "harness:agents");
    assert!(
        finding["fix"]
            .as_str()
            .unwrap()
            .contains("hcpx doctor --fix"),
        "{finding}"
    );
    h.json(&["doctor", "--fix"], 0);
    assert!(!agents(&h).join(&hidden[0]).exists());
    // A folder of the user's with a like name (not hcpx's pattern) stays.
    std::fs::create_dir_all(agents(&h).join(".hcpx-mine")).unwrap();
    h.json(&["doctor", "--fix"], 0);
    assert!(agents(&h).join(".hcpx-mine").is_dir());
}

/// A plain Agent Skill (§2.6: no manifest) is placed whole, its marker
/// carrying the implicit manifest's version.
#[test]
fn a_skill_pack_is_placed_whole_with_its_implicit_version() {
    let h = Harness::new();
    h.json(&["harness", "enable", "agents"], 0);
    let dir = h.sb.pack(
        "doc-tools",
        &[
            (
                "SKILL.md",
                "---\nname: doc-tools\ndescription: Edit documents.\n---\nRun `scripts/fix.sh`.\n",
            ),
            ("scripts/fix.sh", "#!/bin/sh\necho fixed\n"),
            ("reference.md", "# Reference\n"),
        ],
    );
    common::make_executable(&dir.join("scripts/fix.sh"));
    h.json(&["install", dir.to_str().unwrap()], 0);
    h.json(&["activate", "doc-tools"], 0);
    let placed = agents(&h).join("doc-tools");
    assert_eq!(
        tree(&placed),
        [".hcpx.json", "SKILL.md", "reference.md", "scripts/fix.sh"]
    );
    assert_eq!(mode(&placed.join("scripts/fix.sh")), 0o755);
    let m = marker(&placed);
    assert_eq!(m["pack_id"], "doc-tools");
    assert_eq!(m["version"], "0.0.0", "{m}");
}
