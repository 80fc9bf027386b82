//! Git sources, the lock file and verify (HCP.md §13.1, §13.3–§13.5), on
//! real git repositories made in temporary folders and reached through
//! `file://` (never the network).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, alive, simple_manifest, simple_skill, wait_exit, wait_until};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs git in `dir` with a fixed identity; panics when it fails.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository with `packs/notes` (acme.notes): 1.0.0 tagged `v1.0.0`,
/// then 1.1.0 on `main` and on the branch `next`; published as a bare
/// clone. Returns the bare repository's `file://` URL and the two commits.
pub(crate) struct Repo {
    pub(crate) url: String,
    pub(crate) work: PathBuf,
    pub(crate) v1: String,
    pub(crate) v2: String,
}

pub(crate) fn write_pack(root: &Path, version: &str) {
    let dir = root.join("packs/notes");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::write(
        dir.join("pack.yaml"),
        simple_manifest("acme.notes", version, "{kind: public}"),
    )
    .unwrap();
    std::fs::write(dir.join("SKILL.md"), simple_skill("acme.notes")).unwrap();
    std::fs::write(dir.join("bin/tool"), format!("#!/bin/sh\necho {version}\n")).unwrap();
    std::fs::set_permissions(dir.join("bin/tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
}

pub(crate) fn repo(sb: &Sandbox) -> Repo {
    let work = sb.dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q"]);
    write_pack(&work, "1.0.0");
    std::fs::write(work.join("README"), "not a pack\n").unwrap();
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "one"]);
    git(&work, &["tag", "-a", "v1.0.0", "-m", "v1"]);
    let v1 = git(&work, &["rev-parse", "HEAD"]);
    write_pack(&work, "1.1.0");
    git(&work, &["commit", "-qam", "two"]);
    git(&work, &["branch", "next"]);
    let v2 = git(&work, &["rev-parse", "HEAD"]);
    let bare = sb.dir.path().join("bare.git");
    git(
        sb.dir.path(),
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    Repo {
        url: format!("file://{}", bare.display()),
        work,
        v1,
        v2,
    }
}

/// A sandbox and a repository from [`repo`], or `None` (the test skips)
/// where git is missing.
pub(crate) fn git_repo() -> Option<(Sandbox, Repo)> {
    if !common::require_tool("git") {
        return None;
    }
    let sb = Sandbox::new();
    let repo = repo(&sb);
    Some((sb, repo))
}

/// [`git_repo`] with its `packs/notes` installed at tag `v1.0.0`, and the
/// bare repository's path. `None` when git is missing.
pub(crate) fn notes_installed_at_v1() -> Option<(Sandbox, Repo, String)> {
    let (sb, repo) = git_repo()?;
    let bare = repo.url.trim_start_matches("file://").to_string();
    sb.json(
        &["install", &format!("git+{}//packs/notes#v1.0.0", repo.url)],
        0,
    );
    Some((sb, repo, bare))
}

pub(crate) fn lock(sb: &Sandbox) -> Value {
    let text = std::fs::read_to_string(sb.home().join("hcp.lock")).expect("hcp.lock");
    serde_json::from_str(&text).expect("hcp.lock parses")
}

/// The digest of §13.4, computed here independently of hcpx.
fn digest(dir: &Path) -> String {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(dir)
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        if entry.file_type().is_file() && !rel.starts_with(".git/") {
            files.push((rel, entry.path().to_path_buf()));
        }
    }
    files.sort();
    let mut hash = Sha256::new();
    for (rel, path) in files {
        let bytes = std::fs::read(&path).unwrap();
        let exec = std::fs::metadata(&path).unwrap().permissions().mode() & 0o111 != 0;
        let mode = if exec { "755" } else { "644" };
        hash.update(format!("{rel}\0{mode}\0{}\0", bytes.len()));
        hash.update(&bytes);
    }
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

#[test]
fn installs_at_a_tag_a_branch_and_a_commit_and_locks_each() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    let installed = sb.home().join("packs/acme.notes");
    let cases = [
        ("#v1.0.0", "1.0.0", Some("v1.0.0"), &repo.v1, "installed"),
        ("#next", "1.1.0", Some("next"), &repo.v2, "upgraded"),
        (
            &*format!("#{}", repo.v1),
            "1.0.0",
            Some(&*repo.v1),
            &repo.v1,
            "upgraded",
        ),
        ("", "1.1.0", None, &repo.v2, "upgraded"),
    ];
    for (suffix, version, reference, commit, action) in cases {
        let source = format!("git+{}//packs/notes{suffix}", repo.url);
        let doc = sb.json(&["install", &source], 0);
        assert_eq!(doc["version"], version, "{source}: {doc}");
        assert_eq!(doc["action"], action, "{source}: {doc}");
        let entry = &lock(&sb)["packs"]["acme.notes"];
        assert_eq!(entry["version"], version);
        assert_eq!(entry["digest"], digest(&installed), "{source}");
        let want = serde_json::json!({
            "kind": "git", "url": repo.url, "subdir": "packs/notes",
            "commit": commit, "ref": reference,
        });
        let mut want = want.as_object().unwrap().clone();
        want.retain(|_, v| !v.is_null());
        assert_eq!(entry["source"], Value::Object(want), "{source}");
    }
    // The installed copy is the pack folder only, with its modes; no .git.
    assert_eq!(common::names(&installed), ["SKILL.md", "bin", "pack.yaml"]);
    let mode = std::fs::metadata(installed.join("bin/tool"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    // Nothing was left in the staging folder.
    assert!(common::names(&sb.home().join(".tmp")).is_empty());
}

#[test]
fn a_bad_ref_or_url_is_source_unavailable_and_changes_nothing() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    sb.json(
        &["install", &format!("git+{}//packs/notes#v1.0.0", repo.url)],
        0,
    );
    let before = std::fs::read(sb.home().join("hcp.lock")).unwrap();
    for source in [
        format!("git+{}//packs/notes#no-such-tag", repo.url),
        format!("git+{}-missing//packs/notes", repo.url),
        format!("git+{}//packs/notes#{}", repo.url, "0".repeat(40)),
    ] {
        let doc = sb.json(&["install", &source], 1);
        let err = &doc["error"];
        assert_eq!(err["code"], "source_unavailable", "{doc}");
        let message = err["message"].as_str().unwrap();
        assert!(message.contains(&source), "names the source: {message}");
        assert!(
            message.contains("fatal:") || message.contains("not a commit"),
            "{message}"
        );
    }
    assert_eq!(std::fs::read(sb.home().join("hcp.lock")).unwrap(), before);
    assert!(common::names(&sb.home().join(".tmp")).is_empty());
}

#[test]
fn a_missing_subdir_is_not_found() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    for subdir in ["packs/none", "README", "packs/notes/pack.yaml"] {
        let doc = sb.json(&["install", &format!("git+{}//{subdir}", repo.url)], 5);
        assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    }
    let doc = sb.json(&["install", &format!("git+{}//../x", repo.url)], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert!(!sb.home().join("hcp.lock").exists());
}

#[test]
fn a_subdir_through_a_link_out_of_the_repository_is_refused() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    let outside = sb.simple_pack("acme.outside", "1.0.0", "{kind: public}");
    std::os::unix::fs::symlink(&outside, repo.work.join("evil")).unwrap();
    git(&repo.work, &["add", "evil"]);
    git(&repo.work, &["commit", "-qm", "link"]);
    let source = format!("git+file://{}//evil", repo.work.display());
    let doc = sb.json(&["install", &source], 5);
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    assert!(!sb.home().join("packs/acme.outside").exists());
}

#[test]
fn credentials_in_the_url_never_show() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    // Port 1 on loopback: refused at once, no network involved. A password,
    // and a token in the user's place (a form GitHub documents).
    for (url, secret) in [
        ("https://me:hunter2tok@127.0.0.1:1/r.git", "hunter2tok"),
        ("https://ghp_hunter3tok@127.0.0.1:1/r.git", "ghp_hunter3tok"),
    ] {
        let out = sb
            .hcpx()
            .args(["--json", "install", &format!("git+{url}#v1")])
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(1), "{all}");
        assert!(all.contains("source_unavailable"), "{all}");
        assert!(!all.contains(secret) && !all.contains("me@"), "{all}");
        assert!(all.contains("https://127.0.0.1:1/r.git"), "{all}");
    }
}

#[test]
fn the_lock_follows_install_and_uninstall_with_sorted_keys() {
    let sb = Sandbox::new();
    let b = sb.simple_pack("zeta.b", "1.0.0", "{kind: public}");
    let a = sb.simple_pack("acme.a", "2.0.0", "{kind: public}");
    sb.json(&["install", b.to_str().unwrap()], 0);
    sb.json(&["install", a.to_str().unwrap()], 0);
    let text = std::fs::read_to_string(sb.home().join("hcp.lock")).unwrap();
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {text}"))
    };
    assert!(at("\"acme.a\"") < at("\"zeta.b\""), "{text}");
    assert!(at("\"packs\"") < at("\"version\": 1"), "{text}");
    let entry = &lock(&sb)["packs"]["acme.a"];
    assert_eq!(entry["version"], "2.0.0");
    assert_eq!(entry["source"]["kind"], "dir");
    assert_eq!(entry["source"]["path"], a.to_str().unwrap());
    assert_eq!(entry["digest"], digest(&sb.home().join("packs/acme.a")));
    assert!(lock(&sb)["packs"].get("hcp-cli").is_none());
    sb.json(&["uninstall", "zeta.b"], 0);
    let packs = lock(&sb)["packs"].as_object().unwrap().clone();
    assert_eq!(packs.keys().collect::<Vec<_>>(), ["acme.a"]);
}

#[test]
fn a_failed_change_leaves_the_lock_as_it_was() {
    let sb = Sandbox::new();
    let a = sb.simple_pack("acme.a", "1.0.0", "{kind: public}");
    sb.json(&["install", a.to_str().unwrap()], 0);
    let before = std::fs::read(sb.home().join("hcp.lock")).unwrap();
    let a2 = sb.simple_pack("acme.a", "1.1.0", "{kind: public}");
    let fail = [("HCPX_TEST_FAIL_AT", Some("lock.write"))];
    sb.json_env(&["install", a2.to_str().unwrap()], &fail, 1);
    sb.json_env(&["uninstall", "acme.a"], &fail, 1);
    assert_eq!(std::fs::read(sb.home().join("hcp.lock")).unwrap(), before);
    let manifest = std::fs::read_to_string(sb.home().join("packs/acme.a/pack.yaml")).unwrap();
    assert!(manifest.contains("version: 1.0.0"), "{manifest}");
    sb.json(&["verify"], 0);
}

#[test]
fn a_lock_that_does_not_parse_or_holds_a_bad_id_is_store_corrupt_and_kept() {
    let sb = Sandbox::new();
    let a = sb.simple_pack("acme.a", "1.0.0", "{kind: public}");
    sb.json(&["list"], 0);
    let bad_id = r#"{"packs": {"../../etc": {"digest": "x", "source": {"kind": "dir"}, "version": "1"}}, "version": 1}"#;
    for text in ["{not json", bad_id] {
        std::fs::write(sb.home().join("hcp.lock"), text).unwrap();
        for args in [vec!["install", a.to_str().unwrap()], vec!["verify"]] {
            let doc = sb.json(&args, 1);
            assert_eq!(doc["error"]["code"], "store_corrupt", "{args:?}: {doc}");
        }
        assert_eq!(
            std::fs::read_to_string(sb.home().join("hcp.lock")).unwrap(),
            text
        );
        assert!(!sb.home().join("packs/acme.a").exists());
    }
}

#[test]
fn verify_tells_changed_added_and_removed_files() {
    let sb = Sandbox::new();
    let a = sb.simple_pack("acme.a", "1.0.0", "{kind: public}");
    sb.json(&["install", a.to_str().unwrap()], 0);
    let doc = sb.json(&["verify"], 0);
    assert_eq!(doc["packs"][0]["ok"], true, "{doc}");
    assert_eq!(doc["packs"][0]["expected"], doc["packs"][0]["actual"]);
    let installed = sb.home().join("packs/acme.a");
    let tamper: [(&str, &dyn Fn()); 4] = [
        ("SKILL.md", &|| {
            std::fs::write(installed.join("SKILL.md"), "evil").unwrap()
        }),
        ("extra.sh", &|| {
            std::fs::write(installed.join("extra.sh"), "x").unwrap()
        }),
        ("pack.yaml", &|| {
            std::fs::remove_file(installed.join("pack.yaml")).unwrap()
        }),
        ("SKILL.md", &|| {
            let path = installed.join("SKILL.md");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }),
    ];
    for (path, change) in tamper {
        sb.json(&["install", "--force", a.to_str().unwrap()], 0);
        change();
        let doc = sb.json(&["verify", "acme.a"], 1);
        assert_eq!(doc["ok"], false, "{doc}");
        assert_eq!(doc["error"]["code"], "integrity", "{doc}");
        let pack = &doc["packs"][0];
        assert_eq!(pack["pack_id"], "acme.a");
        assert_eq!(pack["ok"], false);
        assert_eq!(pack["actual"], digest(&installed));
        assert_ne!(pack["expected"], pack["actual"]);
        assert_eq!(pack["changed"], serde_json::json!([path]), "{doc}");
        assert_eq!(
            common::keys(pack),
            ["actual", "changed", "expected", "ok", "pack_id"]
        );
    }
    let doc = sb.json(&["verify", "acme.none"], 5);
    assert_eq!(doc["error"]["code"], "not_found");
}

#[test]
fn verify_of_a_git_pack_detects_tampering() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    sb.json(
        &["install", &format!("git+{}//packs/notes#v1.0.0", repo.url)],
        0,
    );
    sb.json(&["verify"], 0);
    std::fs::write(
        sb.home().join("packs/acme.notes/bin/tool"),
        "#!/bin/sh\nevil\n",
    )
    .unwrap();
    let doc = sb.json(&["verify"], 1);
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    assert_eq!(doc["packs"][0]["pack_id"], "acme.notes");
    // verify never fetches: for a git source the paths cannot be told.
    assert_eq!(doc["packs"][0]["changed"], serde_json::json!([]));
}

#[test]
fn doctor_reports_a_pack_that_differs_from_the_lock() {
    let sb = Sandbox::new();
    let a = sb.simple_pack("acme.a", "1.0.0", "{kind: public}");
    sb.json(&["install", a.to_str().unwrap()], 0);
    let doc = sb.json(&["doctor"], 0);
    let ok = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["check"] == "store.lockfile");
    assert!(ok, "{doc}");
    std::fs::write(
        sb.home().join("packs/acme.a/SKILL.md"),
        "---\nname: acme-a\ndescription: x.\n---\nEvil `hello` `touch`.\n",
    )
    .unwrap();
    let doc = sb.json(&["doctor"], 1);
    let check = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "verify:acme.a")
        .unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(check["ok"], false);
    assert!(
        check["message"].as_str().unwrap().contains("SKILL.md"),
        "{check}"
    );
}

#[test]
fn an_interrupted_fetch_leaves_no_git_behind() {
    let sb = Sandbox::new();
    // A `git` that hangs with a background child, writing both pids.
    let bin = sb.dir.path().join("fakebin");
    std::fs::create_dir_all(&bin).unwrap();
    let pids = sb.dir.path().join("pids");
    std::fs::write(
        bin.join("git"),
        format!(
            "#!/bin/sh\nsleep 1000 &\necho \"$$ $!\" > {0}.tmp\nmv {0}.tmp {0}\nwait\n",
            pids.display()
        ),
    )
    .unwrap();
    common::make_executable(&bin.join("git"));
    sb.json(&["list"], 0);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut hcpx = std::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"))
        .args(["--json", "install", "git+file:///nowhere/repo#v1"])
        .env("HCP_HOME", sb.home())
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until("the fake git to start", || pids.exists());
    let started: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    assert!(started.iter().all(|&p| alive(p)));
    let hcpx_pid = rustix::process::Pid::from_child(&hcpx);
    rustix::process::kill_process(hcpx_pid, rustix::process::Signal::TERM).unwrap();
    let code = wait_exit(&mut hcpx).code();
    for pid in &started {
        wait_until("git and its child to end", || !alive(*pid));
    }
    assert_eq!(code, Some(128 + 15));
    assert!(!sb.home().join("hcp.lock").exists());
}

#[test]
fn no_git_hook_runs_during_a_fetch() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    // A user's global config that points at hooks which would leave a mark.
    let hooks = sb.dir.path().join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let mark = sb.dir.path().join("hook-ran");
    for hook in [
        "post-checkout",
        "reference-transaction",
        "post-index-change",
    ] {
        let path = hooks.join(hook);
        std::fs::write(&path, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
        common::make_executable(&path);
    }
    let config = sb.dir.path().join("gitconfig");
    std::fs::write(
        &config,
        format!("[core]\n\thooksPath = {}\n", hooks.display()),
    )
    .unwrap();
    let source = format!("git+{}//packs/notes#v1.0.0", repo.url);
    let out = sb
        .hcpx()
        .args(["--json", "install", &source])
        .env("GIT_CONFIG_GLOBAL", &config)
        .output()
        .unwrap();
    common::assert_success(&out);
    assert!(!mark.exists(), "a hook ran");
}

#[test]
fn a_git_pack_that_fails_lint_is_named_by_its_source() {
    let Some((sb, repo)) = git_repo() else {
        return;
    };
    std::fs::write(
        repo.work.join("packs/notes/pack.yaml"),
        "hcp: \"1\"\nid: acme.notes\n",
    )
    .unwrap();
    git(&repo.work, &["commit", "-qam", "broken"]);
    let source = format!("git+file://{}//packs/notes", repo.work.display());
    let doc = sb.json(&["install", &source], 1);
    assert_eq!(doc["error"]["code"], "lint_failed", "{doc}");
    assert_eq!(doc["error"]["path"], source.as_str(), "{doc}");
    assert!(!doc.to_string().contains("stage-"), "{doc}");
    assert!(!sb.home().join("packs/acme.notes").exists());
}
