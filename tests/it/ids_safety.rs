//! Checked pack ids (HCP.md §14.2), install modes (§14.1) and install edge
//! cases: a symlinked pack path, a pack folder holding the store, a NUL byte
//! in a secret (§8.5).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, install_and_activate, names, simple_manifest, simple_skill};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A store with packs acme.a (activated) and acme.b (installed), and a
/// folder `outside` next to the store with a file in it.
fn store_with_two_packs() -> (Sandbox, PathBuf) {
    let sb = Sandbox::new();
    let a = sb.simple_pack("acme.a", "1.0.0", "{kind: public}");
    let b = sb.simple_pack("acme.b", "1.0.0", "{kind: public}");
    install_and_activate(&sb, &a, "acme.a");
    sb.json(&["install", b.to_str().unwrap()], 0);
    let outside = sb.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "mine").unwrap();
    (sb, outside)
}

/// Everything that must survive any command run against a bad state.
fn assert_intact(sb: &Sandbox, outside: &Path, state: &str) {
    let home = sb.home();
    assert_eq!(
        names(&home.join("packs")),
        ["acme.a", "acme.b", "hcp-cli"],
        "packs/"
    );
    assert_eq!(
        names(&home.join("skills")),
        ["acme.a", "hcp-cli"],
        "skills/"
    );
    assert!(home.join("skills/acme.a/SKILL.md").is_file());
    assert!(home.join("packs/acme.b/pack.yaml").is_file());
    assert!(home.join("secrets").is_dir());
    assert_eq!(
        std::fs::read_to_string(outside.join("keep.txt"))
            .ok()
            .as_deref(),
        Some("mine")
    );
    assert_eq!(
        std::fs::read_to_string(home.join("state.json")).unwrap(),
        state,
        "state.json was rewritten"
    );
}

#[test]
fn a_bad_id_in_state_json_is_store_corrupt_and_deletes_nothing() {
    for bad in ["../packs", "", "../../outside", "a/b", ".."] {
        for list in ["activated", "connected"] {
            let (sb, outside) = store_with_two_packs();
            let state = if list == "activated" {
                format!(
                    r#"{{"activated": ["acme.a", "hcp-cli", "{bad}"], "connected": ["hcp-cli"]}}"#
                )
            } else {
                format!(
                    r#"{{"activated": ["acme.a", "hcp-cli"], "connected": ["hcp-cli", "{bad}"]}}"#
                )
            };
            std::fs::write(sb.home().join("state.json"), &state).unwrap();
            let runs: [(&[&str], i32); 9] = [
                (&["deactivate", bad], 1),
                (&["deactivate", "acme.a"], 1),
                (&["uninstall", bad], 1),
                (&["uninstall", "acme.b"], 1),
                (&["activate", "acme.b"], 1),
                (&["list"], 1),
                (&["availability"], 1),
                (&["exec", "acme.a", "hello"], 125),
                (&["connect", "acme.a"], 1),
            ];
            for (args, code) in runs {
                let out = sb.json(args, code);
                assert_eq!(
                    out["error"]["code"], "store_corrupt",
                    "{bad:?} {args:?}: {out}"
                );
                let message = out["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains("state.json"), "{message}");
                assert_intact(&sb, &outside, &state);
            }
            let doctor = sb.json(&["doctor"], 1);
            let checks = doctor["checks"].as_array().unwrap();
            let state_check = checks.iter().find(|c| c["check"] == "store.state").unwrap();
            assert_eq!(state_check["ok"], false, "{doctor}");
            let message = state_check["message"].as_str().unwrap();
            assert!(message.contains("store_corrupt"), "{message}");
            assert!(message.contains("state.json"), "{message}");
            // doctor never recommends a command on the bad id.
            for c in checks {
                let fix = c["fix"].as_str().unwrap_or_default();
                assert!(!fix.contains("deactivate"), "{c}");
            }
            assert_intact(&sb, &outside, &state);
        }
    }
}

#[test]
fn bad_ids_on_the_command_line_are_not_found_and_touch_nothing() {
    let (sb, outside) = store_with_two_packs();
    let state = std::fs::read_to_string(sb.home().join("state.json")).unwrap();
    for bad in ["../packs", "", "../../outside", "a/b", "..", "."] {
        for cmd in [
            "deactivate",
            "activate",
            "uninstall",
            "connect",
            "availability",
        ] {
            let out = sb.json(&[cmd, bad], 5);
            assert_eq!(out["error"]["code"], "not_found", "{cmd} {bad:?}: {out}");
        }
        let out = sb.json(&["exec", bad, "hello"], 127);
        assert_eq!(out["error"]["code"], "not_found", "{bad:?}: {out}");
        assert_intact(&sb, &outside, &state);
    }
}

#[test]
fn stray_store_entries_are_reported_and_never_deleted() {
    let (sb, outside) = store_with_two_packs();
    let state = std::fs::read_to_string(sb.home().join("state.json")).unwrap();
    let stray = sb.home().join("packs/Not_An_Id");
    std::fs::create_dir_all(&stray).unwrap();
    std::fs::write(stray.join("file"), "x").unwrap();
    let skill_stray = sb.home().join("skills/Not_An_Id");
    std::fs::create_dir_all(&skill_stray).unwrap();
    for cmd in ["deactivate", "uninstall"] {
        let out = sb.json(&[cmd, "Not_An_Id"], 5);
        assert_eq!(out["error"]["code"], "not_found", "{out}");
    }
    let list = sb.json(&["list"], 0);
    let ids: Vec<&str> = list["packs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["pack_id"].as_str())
        .collect();
    assert!(!ids.contains(&"Not_An_Id"), "{list}");
    let doctor = sb.json(&["doctor"], 1);
    let strays: Vec<&Value> = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false && c["message"].as_str().unwrap().contains("Not_An_Id"))
        .collect();
    assert_eq!(strays.len(), 2, "{doctor}");
    let checks: Vec<&str> = strays
        .iter()
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["store.skills", "store.packs"], "{doctor}");
    assert!(stray.join("file").is_file());
    assert!(skill_stray.is_dir());
    std::fs::remove_dir_all(&stray).unwrap();
    std::fs::remove_dir_all(&skill_stray).unwrap();
    assert_intact(&sb, &outside, &state);
}

/// Runs `hcpx --json ARGS` under umask 000, with `stdin` as its input.
fn hcpx_umask0(sb: &Sandbox, args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let bin = assert_cmd::cargo::cargo_bin("hcpx");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("umask 000 && exec \"$0\" --json \"$@\"")
        .arg(bin)
        .args(args)
        .env("HCP_HOME", sb.home())
        .env_remove("HCP_PRINCIPAL")
        .env("NO_COLOR", "1")
        .current_dir(sb.dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o7777
}

/// Every file and folder under `dir`, with its mode.
fn modes_under(dir: &Path, out: &mut Vec<(PathBuf, u32)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        out.push((path.clone(), mode(&path)));
        if entry.file_type().unwrap().is_dir() {
            modes_under(&path, out);
        }
    }
}

#[test]
fn install_modes_ignore_the_source_modes_and_the_umask() {
    let sb = Sandbox::new();
    let src = sb.pack(
        "modes",
        &[
            (
                "pack.yaml",
                &simple_manifest(
                    "acme.modes",
                    "1.0.0",
                    "{kind: secret, secret: {name: TOKEN}}",
                ),
            ),
            ("SKILL.md", &simple_skill("acme.modes")),
            ("bin/suid.sh", "#!/bin/sh\necho suid\n"),
            ("bin/open.sh", "#!/bin/sh\necho open\n"),
            ("data/shared.txt", "shared\n"),
        ],
    );
    let set = |rel: &str, m: u32| {
        std::fs::set_permissions(src.join(rel), std::fs::Permissions::from_mode(m)).unwrap()
    };
    set("bin/suid.sh", 0o4755);
    set("bin/open.sh", 0o777);
    set("data/shared.txt", 0o666);
    set("data", 0o777);
    set("SKILL.md", 0o2664);
    for args in [
        &["install", src.to_str().unwrap()][..],
        &["activate", "acme.modes"],
        &["connect", "acme.modes", "--secret-stdin"],
    ] {
        let out = hcpx_umask0(&sb, args, b"s3cret\n");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let home = sb.home();
    let pack = home.join("packs/acme.modes");
    assert_eq!(mode(&pack.join("bin/suid.sh")), 0o755);
    assert_eq!(mode(&pack.join("bin/open.sh")), 0o755);
    assert_eq!(mode(&pack.join("data/shared.txt")), 0o644);
    assert_eq!(mode(&pack.join("SKILL.md")), 0o644);
    assert_eq!(mode(&pack.join("data")), 0o755);
    assert_eq!(mode(&pack), 0o755);
    assert_eq!(mode(&home.join("skills/acme.modes")), 0o755);
    assert_eq!(mode(&home.join("skills/acme.modes/SKILL.md")), 0o644);
    assert_eq!(mode(&home.join("secrets")), 0o700);
    assert_eq!(mode(&home.join("secrets/acme.modes")), 0o600);
    let mut all = vec![(home.clone(), mode(&home))];
    modes_under(&home, &mut all);
    for (path, m) in &all {
        assert_eq!(m & 0o7022, 0, "{} has mode {m:o}", path.display());
    }
    for name in [
        "state.json",
        "config.yaml",
        ".lock",
        "packs",
        "skills",
        ".tmp",
    ] {
        assert!(
            all.iter().any(|(p, _)| p == &home.join(name)),
            "{name} not checked"
        );
    }
}

#[test]
fn a_symlink_to_a_pack_folder_installs_the_folder() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.linked", "1.0.0", "{kind: public}");
    let link = sb.dir.path().join("link");
    std::os::unix::fs::symlink(&src, &link).unwrap();
    sb.json(&["lint", link.to_str().unwrap()], 0);
    let out = sb.json(&["install", link.to_str().unwrap()], 0);
    assert_eq!(out["pack_id"], "acme.linked", "{out}");
    let installed = sb.home().join("packs/acme.linked");
    assert!(
        !std::fs::symlink_metadata(&installed)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(installed.join("pack.yaml").is_file());
    assert!(installed.join("SKILL.md").is_file());
    // A link inside the pack is still refused.
    std::os::unix::fs::symlink("/etc/passwd", src.join("passwd")).unwrap();
    let out = sb.json(&["install", link.to_str().unwrap(), "--force"], 1);
    assert_eq!(out["error"]["code"], "lint_failed", "{out}");
    assert!(!installed.join("passwd").exists());
}

#[test]
fn a_pack_folder_holding_the_store_is_refused() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.nest", "1.0.0", "{kind: public}");
    let home = src.join("store");
    let out = sb
        .hcpx()
        .env("HCP_HOME", &home)
        .args(["--json", "install", src.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("contains the store"),
        "{doc}"
    );
    assert_eq!(names(&home.join("packs")), ["hcp-cli"]);
    assert!(names(&home.join(".tmp")).is_empty());
}

#[test]
fn a_nul_byte_in_a_secret_is_a_usage_error_before_the_probe() {
    let sb = Sandbox::new();
    let marker = sb.dir.path().join("probe-ran");
    let manifest = format!(
        r#"hcp: "1"
id: acme.nul
name: Test pack
version: 1.0.0
description: A pack for tests.
binding: {{kind: secret, secret: {{name: TOKEN}}, probe: check}}
commands:
  - key: check
    summary: Check the token
    effect: read
    adapter: {{kind: process, program: touch, argv: ["{}"]}}
"#,
        marker.display()
    );
    let src = sb.pack(
        "nul",
        &[
            ("pack.yaml", &manifest),
            (
                "SKILL.md",
                &simple_skill("acme.nul")
                    .replace("Run `hello` to greet, `touch` to write.", "Run `check`."),
            ),
        ],
    );
    install_and_activate(&sb, &src, "acme.nul");
    let out = sb.connect_secret("acme.nul", &b"a\0b"[..]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert!(!marker.exists(), "the probe ran");
    assert!(!sb.home().join("secrets/acme.nul").exists());
    assert_eq!(sb.state()["connected"], serde_json::json!(["hcp-cli"]));
    // The same pack connects with a clean secret (the probe runs then).
    sb.hcpx()
        .args(["--json", "connect", "acme.nul", "--secret-stdin"])
        .write_stdin("ab")
        .assert()
        .code(0);
    assert!(marker.exists());
}

#[test]
fn activate_does_not_write_through_a_linked_skill_folder() {
    let (sb, outside) = store_with_two_packs();
    let link = sb.home().join("skills/acme.b");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    // A link at a store path is store_corrupt: every change refuses it
    // and nothing is written or removed through it (HCP.md §15.6).
    let out = sb.json(&["activate", "acme.b"], 1);
    assert_eq!(out["error"]["code"], "store_corrupt", "{out}");
    assert_eq!(names(&outside), ["keep.txt"]);
    let out = sb.json(&["deactivate", "acme.a"], 1);
    assert_eq!(out["error"]["code"], "store_corrupt", "{out}");
    assert!(std::fs::symlink_metadata(&link).is_ok());
    assert_eq!(names(&outside), ["keep.txt"]);
}
