//! `install REPO --skill X` of a git collection with no SUBDIR (HCP.md
//! §13.1, §14.8): only X's folder is fetched and written — the other
//! folders' files and the big files outside any pack never come over the
//! wire where the server filters (seen in git's own packet trace, and under
//! a fetch bound far below the repository) — X is installed byte for byte
//! with its modes, a server that supports no filter still works, and the
//! `--skill` refusals hold.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::collections::published;
use crate::common::{self, Sandbox, simple_manifest, simple_skill};
use crate::sources::git;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Bytes git cannot compress (an LCG's output), different per `seed`.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d ^ seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 56) as u8
        })
        .collect()
}

const SKILLS: usize = 24;

/// A repository of many Skill folders, each with 256 KiB of its own, an
/// HCP pack `acme.alpha` with an executable script, two folders declaring
/// one id, and 4 MiB outside any pack.
fn many_skills(sb: &Sandbox) -> PathBuf {
    let root = sb.dir.path().join("repo");
    let alpha = "skills/alpha";
    write(
        &root,
        &format!("{alpha}/pack.yaml"),
        simple_manifest("acme.alpha", "1.0.0", "{kind: public}").as_bytes(),
    );
    write(
        &root,
        &format!("{alpha}/SKILL.md"),
        simple_skill("acme.alpha").as_bytes(),
    );
    write(
        &root,
        &format!("{alpha}/scripts/run.sh"),
        b"#!/bin/sh\necho run\n",
    );
    common::make_executable(&root.join(alpha).join("scripts/run.sh"));
    write(&root, &format!("{alpha}/data/blob.bin"), &noise(3000, 7));
    for n in 0..SKILLS {
        let name = format!("s{n:02}");
        let skill = format!("---\nname: {name}\ndescription: Skill {n}.\n---\nDo {n}.\n");
        write(&root, &format!("skills/{name}/SKILL.md"), skill.as_bytes());
        write(
            &root,
            &format!("skills/{name}/data.bin"),
            &noise(256 << 10, n as u64 + 1),
        );
    }
    for folder in ["dup-a", "dup-b"] {
        write(
            &root,
            &format!("skills/{folder}/pack.yaml"),
            simple_manifest("acme.dup", "1.0.0", "{kind: public}").as_bytes(),
        );
        write(
            &root,
            &format!("skills/{folder}/SKILL.md"),
            simple_skill("acme.dup").as_bytes(),
        );
    }
    write(&root, "data/big.bin", &noise(4 << 20, 99));
    root
}

/// Every regular file below `dir`: relative path, mode bits, bytes.
fn files(dir: &Path) -> Vec<(String, u32, Vec<u8>)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                pending.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                let mode = meta.permissions().mode() & 0o777;
                out.push((rel, mode, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The object id of `path` at HEAD of the repository `root`.
fn oid(root: &Path, path: &str) -> String {
    git(root, &["rev-parse", &format!("HEAD:{path}")])
}

fn tmp_is_empty(sb: &Sandbox) {
    let tmp = sb.home().join(".tmp");
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left in .tmp: {left:?}");
}

#[test]
fn skill_fetches_and_writes_only_its_folder_where_the_server_filters() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let root = many_skills(&sb);
    let url = published(&sb, &root);
    let bare = url.trim_start_matches("file://");
    git(
        Path::new(bare),
        &["config", "uploadpack.allowFilter", "true"],
    );
    let trace = sb.dir.path().join("packets.log");
    let source = format!("git+{url}");
    // 1 MiB: far below the repository (10 MiB), above the pack.
    let doc = sb.json_env(
        &["install", &source, "--skill", "acme.alpha"],
        &[
            ("HCPX_FETCH_MAX_BYTES", Some("1048576")),
            ("GIT_TRACE_PACKET", trace.to_str()),
        ],
        0,
    );
    assert_eq!(doc["pack_id"], "acme.alpha", "{doc}");
    let installed = sb.home().join("packs/acme.alpha");
    assert_eq!(files(&installed), files(&root.join("skills/alpha")));
    let lock: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sb.home().join("hcp.lock")).unwrap()).unwrap();
    assert_eq!(
        lock["packs"]["acme.alpha"]["source"]["subdir"],
        "skills/alpha"
    );
    // What came over the wire: never a file of another folder, nor the
    // big file outside every pack (their object ids are never wanted).
    let packets = std::fs::read_to_string(&trace).unwrap();
    assert!(packets.contains("want"), "no trace: {packets}");
    assert!(packets.contains(&oid(&root, "skills/alpha/data/blob.bin")));
    let mut never = vec![oid(&root, "data/big.bin")];
    never.extend((0..SKILLS).map(|n| oid(&root, &format!("skills/s{n:02}/data.bin"))));
    for id in never {
        assert!(!packets.contains(&id), "{id} was fetched");
    }
    tmp_is_empty(&sb);
}

#[test]
fn skill_installs_from_a_server_that_does_not_filter() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let root = many_skills(&sb);
    // No uploadpack.allowFilter: git says so and sends everything.
    let source = format!("git+{}", published(&sb, &root));
    let doc = sb.json(
        &[
            "install",
            &source,
            "--skill",
            "s07",
            "--skill",
            "acme.alpha",
        ],
        0,
    );
    let mut ids: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pack_id"].as_str().unwrap_or(""))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["acme.alpha", "s07"], "{doc}");
    for (id, folder) in [("s07", "skills/s07"), ("acme.alpha", "skills/alpha")] {
        let installed = sb.home().join("packs").join(id);
        assert_eq!(files(&installed), files(&root.join(folder)), "{id}");
    }
    // The bound still holds over what such a server sends.
    let sb2 = Sandbox::new();
    let root2 = many_skills(&sb2);
    let source2 = format!("git+{}", published(&sb2, &root2));
    let doc = sb2.json_env(
        &["install", &source2, "--skill", "s07"],
        &[("HCPX_FETCH_MAX_BYTES", Some("1048576"))],
        1,
    );
    assert_eq!(doc["error"]["code"], "source_unavailable", "{doc}");
    assert!(!sb2.home().join("packs/s07").exists());
    tmp_is_empty(&sb2);
}

#[test]
fn skill_refusals_hold_without_the_whole_tree() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let root = many_skills(&sb);
    let url = published(&sb, &root);
    let bare = url.trim_start_matches("file://");
    git(
        Path::new(bare),
        &["config", "uploadpack.allowFilter", "true"],
    );
    let source = format!("git+{url}");
    // Two folders declaring one id: neither is taken, both are named.
    let doc = sb.json(&["install", &source, "--skill", "acme.dup"], 2);
    let message = doc["error"]["message"].as_str().unwrap_or("");
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert!(
        message.contains("skills/dup-a") && message.contains("skills/dup-b"),
        "{message}"
    );
    let doc = sb.json(&["install", &source, "--skill", "skills/s01"], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    let doc = sb.json(&["install", &source, "--skill", "acme.alpah"], 5);
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    let hint = doc["error"]["hint"].as_str().unwrap_or("");
    assert!(hint.contains("acme.alpha"), "{hint}");
    // One good word and one bad: the source fails as a whole, as before.
    sb.json(
        &["install", &source, "--skill", "s01", "--skill", "nope"],
        5,
    );
    for id in ["s01", "acme.dup", "acme.alpha"] {
        assert!(!sb.home().join("packs").join(id).exists(), "{id}");
    }
    tmp_is_empty(&sb);
}
