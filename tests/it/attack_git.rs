//! What a hostile git repository can do to the store (HCP.md §14.8, §14.9,
//! §14.1): no filter, smudge or `.gitattributes`-driven program runs on
//! fetched content; git catalog copies have the modes of §14.1 under any
//! umask; a SUBDIR is fetched without the rest of the repository where the
//! server allows it; every fetch is bounded; a credential in a catalog's
//! URL is not written to `config.yaml`, which (like `state.json`) is 0600.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, simple_manifest, simple_skill};
use crate::sources::git;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A work tree `work` with the pack `acme.gitty` in `p/`, `extra` written
/// beside it, committed on `main`.
fn repo_with(sb: &Sandbox, extra: &[(&str, &[u8])]) -> PathBuf {
    let work = sb.dir.path().join("work");
    let pack = work.join("p");
    std::fs::create_dir_all(pack.join("bin")).unwrap();
    let manifest = simple_manifest("acme.gitty", "1.0.0", "{kind: public}");
    std::fs::write(pack.join("pack.yaml"), manifest).unwrap();
    std::fs::write(pack.join("SKILL.md"), simple_skill("acme.gitty")).unwrap();
    std::fs::write(pack.join("bin/run"), "#!/bin/sh\necho run\n").unwrap();
    std::fs::set_permissions(pack.join("bin/run"), PermissionsExt::from_mode(0o755)).unwrap();
    for (rel, bytes) in extra {
        let path = work.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "one"]);
    work
}

/// `hcpx --json ARGS` run by `sh` with `umask` and the extra environment.
fn hcpx_sh(sb: &Sandbox, umask: &str, env: &[(&str, &str)], args: &[&str], code: i32) -> Value {
    let bin = assert_cmd::cargo::cargo_bin("hcpx");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" --json \"$@\""))
        .arg(bin)
        .args(args)
        .env("HCP_HOME", sb.home())
        .env_remove("HCP_PRINCIPAL")
        .current_dir(sb.dir.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap()
}

/// Every path below `dir` whose mode lets group or others write, and
/// every symbolic link.
fn writable_by_others(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        if meta.file_type().is_symlink() || meta.permissions().mode() & 0o022 != 0 {
            out.push(format!(
                "{} {:o}",
                entry.path().display(),
                meta.permissions().mode()
            ));
        }
        if meta.is_dir() {
            writable_by_others(&entry.path(), out);
        }
    }
}

#[test]
fn git_catalog_copies_keep_no_group_or_other_write_under_umask_000() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let work = repo_with(&sb, &[("notes/readme.txt", b"hello\n")]);
    let source = format!("git+file://{}", work.display());
    hcpx_sh(&sb, "000", &[], &["catalog", "add", &source], 0);
    let mut found = Vec::new();
    writable_by_others(&sb.home().join("catalogs"), &mut found);
    assert!(found.is_empty(), "writable by others: {found:#?}");
    let run = sb.home().join("catalogs");
    let copy = std::fs::read_dir(&run)
        .unwrap()
        .flatten()
        .find(|e| e.path().is_dir())
        .unwrap()
        .path();
    let mode = |p: &str| {
        std::fs::metadata(copy.join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    assert_eq!(mode("p/bin/run"), 0o755);
    assert_eq!(mode("p/pack.yaml"), 0o644);
    assert_eq!(mode("p"), 0o755);
    assert!(
        !copy.join(".git").exists(),
        "the copy holds git's repository"
    );
}

#[test]
fn a_repositorys_gitattributes_run_no_filter_of_the_users() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let marker = sb.dir.path().join("filter-ran");
    let gitconfig = sb.dir.path().join("gitconfig");
    std::fs::write(
        &gitconfig,
        format!(
            "[filter \"evil\"]\n\tsmudge = \"touch '{}'; cat\"\n\tclean = cat\n\trequired = true\n",
            marker.display()
        ),
    )
    .unwrap();
    let work = repo_with(&sb, &[(".gitattributes", b"* filter=evil\n")]);
    let env = [("GIT_CONFIG_GLOBAL", gitconfig.to_str().unwrap())];
    let source = format!("git+file://{}//p", work.display());
    hcpx_sh(&sb, "022", &env, &["install", &source], 0);
    assert!(!marker.exists(), "a filter ran installing {source}");
    hcpx_sh(
        &sb,
        "022",
        &env,
        &["catalog", "add", &format!("git+file://{}", work.display())],
        0,
    );
    assert!(!marker.exists(), "a filter ran adding the catalog");
    let installed = sb.home().join("packs/acme.gitty/bin/run");
    assert_eq!(
        std::fs::read_to_string(installed).unwrap(),
        "#!/bin/sh\necho run\n"
    );
}

/// Bytes git cannot compress (an LCG's output).
fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 56) as u8
        })
        .collect()
}

const FOUR_MIB: usize = 4 << 20;

#[test]
fn a_subdir_is_fetched_without_the_rest_where_the_server_filters() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let big = noise(FOUR_MIB);
    let work = repo_with(&sb, &[("data/big.bin", &big)]);
    git(&work, &["config", "uploadpack.allowFilter", "true"]);
    let source = format!("git+file://{}//p", work.display());
    // 1 MiB is far below the repository (4 MiB) but above the pack.
    let bound = [("HCPX_FETCH_MAX_BYTES", "1048576")];
    let doc = hcpx_sh(&sb, "022", &bound, &["install", &source], 0);
    assert_eq!(doc["pack_id"], "acme.gitty", "{doc}");
    assert!(sb.home().join("packs/acme.gitty/bin/run").is_file());
}

#[test]
fn a_fetch_past_its_bound_fails_and_leaves_nothing() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let big = noise(FOUR_MIB);
    // No uploadpack.allowFilter: the server sends everything (the fallback).
    let work = repo_with(&sb, &[("data/big.bin", &big)]);
    let bound = [("HCPX_FETCH_MAX_BYTES", "1048576")];
    for source in [
        format!("git+file://{}//p", work.display()),
        format!("git+file://{}", work.display()),
    ] {
        let doc = hcpx_sh(&sb, "022", &bound, &["install", &source], 1);
        assert_eq!(doc["error"]["code"], "source_unavailable", "{doc}");
        let message = doc["error"]["message"].as_str().unwrap();
        assert!(message.contains("1048576"), "{message}");
        assert!(!sb.home().join("packs/acme.gitty").exists());
        let left: Vec<_> = std::fs::read_dir(sb.home().join(".tmp"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "left in .tmp: {left:?}");
    }
    // The fallback works under a bound it fits in.
    let source = format!("git+file://{}//p", work.display());
    hcpx_sh(
        &sb,
        "022",
        &[("HCPX_FETCH_MAX_BYTES", "67108864")],
        &["install", &source],
        0,
    );
}

#[test]
fn a_catalogs_credential_is_not_stored_and_store_files_are_0600() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let work = repo_with(&sb, &[]);
    sb.json(&["list"], 0);
    // An earlier release left them 0644: the next run makes them 0600.
    for file in ["config.yaml", "state.json"] {
        let path = sb.home().join(file);
        std::fs::set_permissions(&path, PermissionsExt::from_mode(0o644)).unwrap();
    }
    let source = format!("git+file://hcpx:s3cr3t-t0ken@localhost{}", work.display());
    let doc = sb.json(&["catalog", "add", &source], 0);
    assert!(!doc.to_string().contains("s3cr3t"), "{doc}");
    let config = std::fs::read_to_string(sb.home().join("config.yaml")).unwrap();
    assert!(!config.contains("s3cr3t"), "{config}");
    assert!(
        config.contains(&format!("git+file://hcpx@localhost{}", work.display())),
        "{config}"
    );
    for file in ["config.yaml", "state.json"] {
        let mode = std::fs::metadata(sb.home().join(file))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{file}");
    }
    let list = sb.json(&["catalog", "list"], 0);
    assert_eq!(list["catalogs"][0]["packs"], 1, "{list}");
    // Removed as it was added, credential and all.
    sb.json(&["catalog", "remove", &source], 0);
    let list = sb.json(&["catalog", "list"], 0);
    assert_eq!(list["catalogs"], serde_json::json!([]), "{list}");
}

#[test]
fn a_urls_credential_never_reaches_gits_command_line() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let work = repo_with(&sb, &[]);
    git(&work, &["tag", "v1.0.0"]);
    let (path, log) = common::logging_git(&sb);
    let source = format!(
        "git+file://hcpx:s3cr3t-t0ken@localhost{}//p#v1.0.0",
        work.display()
    );
    let doc = hcpx_sh(&sb, "022", &[("PATH", &path)], &["install", &source], 0);
    assert!(!doc.to_string().contains("s3cr3t"), "{doc}");
    hcpx_sh(&sb, "022", &[("PATH", &path)], &["outdated"], 0);
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(seen.contains("fetch"), "the spy saw no fetch:\n{seen}");
    assert!(
        seen.contains("ls-remote"),
        "the spy saw no ls-remote:\n{seen}"
    );
    assert!(
        !seen.contains("s3cr3t"),
        "a credential on git's command line:\n{seen}"
    );
    assert!(
        !seen.contains(&work.display().to_string()),
        "the URL on git's command line:\n{seen}"
    );
}
