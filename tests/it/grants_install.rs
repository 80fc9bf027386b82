//! What `pack.install` guards (HCP.md §9.2): catalogs, harness targets,
//! install and uninstall need the unscoped grant once grants exist; and a
//! `connect` whose Binding has a probe needs the grant the probe's effect
//! needs — else `grant_missing`, exit 4, nothing run, changed or recorded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, make_executable, simple_manifest, simple_skill};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Runs `hcpx --json --principal agent ARGS` with HOME inside the sandbox
/// (the harness targets are there, never the real ones).
fn as_agent(sb: &Sandbox, args: &[&str], code: i32) -> Value {
    let home = sb.dir.path().join("user");
    let out = sb
        .hcpx()
        .env("HOME", &home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .args(["--json", "--principal", "agent"])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stdout}");
    serde_json::from_str(&stdout).unwrap()
}

/// A store where `agent` holds every capability but the unscoped
/// `pack.install`: only `pack.install:acme.x`.
fn restricted(sb: &Sandbox) {
    std::fs::create_dir_all(sb.dir.path().join("user/.claude")).unwrap();
    for grant in [
        "pack.install:acme.x",
        "pack.connect",
        "verb.exec.write",
        "verb.exec.read:acme.y",
    ] {
        sb.json(&["grant", "agent", grant], 0);
    }
}

/// Every file under the store and the sandbox's HOME, with its bytes'
/// length and a checksum (short enough to print on a failure).
fn snapshot(sb: &Sandbox) -> Vec<(PathBuf, usize, u64)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, usize, u64)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.ends_with(".lock") || path.ends_with(".tmp") {
                continue;
            }
            if path.is_dir() {
                out.push((path.clone(), 0, 0));
                walk(&path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                let sum = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                    (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
                });
                out.push((path.clone(), bytes.len(), sum));
            }
        }
    }
    let mut out = Vec::new();
    walk(&sb.home(), &mut out);
    walk(&sb.dir.path().join("user"), &mut out);
    out.sort();
    out
}

fn assert_refused(doc: &Value, grant: &str) {
    assert_eq!(doc["ok"], false, "{doc}");
    assert_eq!(doc["error"]["code"], "grant_missing", "{doc}");
    assert_eq!(doc["error"]["grant"], grant, "{doc}");
}

#[test]
fn catalogs_and_harness_targets_need_the_unscoped_pack_install() {
    let sb = Sandbox::new();
    let catalog = sb.dir.path().join("cat");
    std::fs::create_dir_all(&catalog).unwrap();
    let catalog = catalog.to_str().unwrap().to_string();
    sb.json(&["catalog", "add", &catalog], 0);
    restricted(&sb);
    let before = snapshot(&sb);
    let other = sb.dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let attempts: [&[&str]; 6] = [
        &["catalog", "add", other.to_str().unwrap()],
        &["catalog", "remove", &catalog],
        &["catalog", "update"],
        &["harness", "enable", "claude-code"],
        &["harness", "disable", "claude-code"],
        &["harness", "sync"],
    ];
    for args in attempts {
        let doc = as_agent(&sb, args, 4);
        assert_refused(&doc, "pack.install");
        assert_eq!(snapshot(&sb), before, "{args:?} changed the store");
    }
}

#[test]
fn install_and_uninstall_need_the_unscoped_pack_install() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.x", "1.0.0", "{kind: public}");
    restricted(&sb);
    // `pack.install:acme.x` is not enough (§9.2: only the unscoped counts).
    let doc = as_agent(&sb, &["install", src.to_str().unwrap()], 4);
    assert_refused(&doc, "pack.install");
    assert!(!sb.home().join("packs/acme.x").exists());
    assert!(
        doc["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("pack.install")
    );

    sb.json(&["install", src.to_str().unwrap()], 0);
    let doc = as_agent(&sb, &["uninstall", "acme.x"], 4);
    assert_refused(&doc, "pack.install");
    assert!(sb.home().join("packs/acme.x").is_dir());

    sb.json(&["grant", "agent", "pack.install"], 0);
    as_agent(&sb, &["uninstall", "acme.x"], 0);
}

/// A pack with an `env` Binding whose probe `check` (effect read) leaves
/// a file `probed` in the sandbox when it runs.
fn probed_pack(sb: &Sandbox) -> PathBuf {
    let marker = sb.dir.path().join("probed");
    let manifest = simple_manifest(
        "acme.y",
        "1.0.0",
        "{kind: env, env: [ACME_Y], probe: check}",
    ) + "  - key: check\n    summary: Probe\n    effect: read\n    adapter: {kind: process, program: ./bin/check}\n";
    let src = sb.pack(
        "probed",
        &[
            ("pack.yaml", &manifest),
            ("SKILL.md", &(simple_skill("acme.y") + "And `check`.\n")),
            (
                "bin/check",
                &format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
            ),
        ],
    );
    make_executable(&src.join("bin/check"));
    src
}

#[test]
fn connect_with_a_probe_needs_the_probes_exec_grant() {
    let sb = Sandbox::new();
    let src = probed_pack(&sb);
    sb.json(&["install", src.to_str().unwrap()], 0);
    sb.json(&["activate", "acme.y"], 0);
    // agent: pack.connect, but verb.exec.read only for another pack.
    sb.json(&["grant", "agent", "pack.connect"], 0);
    sb.json(&["grant", "agent", "verb.exec.read:acme.z"], 0);
    // Without the default unscoped read (§9.3).
    sb.json(&["revoke", "agent", "verb.exec.read"], 0);
    let connect = |code| {
        let out = sb
            .hcpx()
            .env("ACME_Y", "v")
            .args(["--json", "--principal", "agent", "connect", "acme.y"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(code), "{stdout}");
        serde_json::from_str::<Value>(&stdout).unwrap()
    };
    let doc = connect(4);
    assert_refused(&doc, "verb.exec.read");
    assert_eq!(doc["error"]["pack_id"], "acme.y");
    assert!(!sb.dir.path().join("probed").exists(), "the probe ran");
    assert!(!sb.state()["connected"].to_string().contains("acme.y"));

    // A grant scoped to the pack counts.
    sb.json(&["grant", "agent", "verb.exec.read:acme.y"], 0);
    let doc = connect(0);
    assert_eq!(doc["probe"]["verb_key"], "check", "{doc}");
    assert!(sb.dir.path().join("probed").exists());
}

/// `upgrade` and `sync` fetch before they install: a principal that may not
/// install is refused before anything is fetched (the remote is gone here,
/// so a fetch would fail as `source_unavailable` instead).
#[test]
fn upgrade_and_sync_refuse_before_they_fetch() {
    let Some((sb, repo, _)) = crate::sources::notes_installed_at_v1() else {
        return;
    };
    restricted(&sb);
    let lock = sb.home().join("hcp.lock");
    let team_lock = sb.dir.path().join("team.lock");
    std::fs::copy(&lock, &team_lock).unwrap();
    std::fs::remove_dir_all(repo.url.trim_start_matches("file://")).unwrap();
    let refused = |args: &[&str]| {
        let doc = as_agent(&sb, args, 4);
        assert_eq!(doc["error"]["code"], "grant_missing", "{args:?}: {doc}");
        assert_eq!(doc["error"]["grant"], "pack.install", "{args:?}: {doc}");
    };
    refused(&["upgrade", "--yes"]);
    // A dry run changes nothing and needs no grant.
    as_agent(&sb, &["upgrade", "--dry-run", "--offline"], 0);
    sb.json(&["uninstall", "acme.notes"], 0);
    refused(&["sync", team_lock.to_str().unwrap()]);
}
