//! Whose project it is (HCP.md §15.1, §15.2), on the real binary: an
//! `hcp.yaml` in a folder of another user's is passed over with a warning
//! naming it and its owner; a `.hcp/` that came with a repository (or a
//! copy) is never used, so nothing of it runs; an earlier release's
//! `.hcp/` is adopted by `doctor --fix` only with consent. Each attack
//! checks that the victim's code never ran (a marker file the pack's
//! command would write) and that the foreign store was left as it was.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{require_tool, simple_skill};
use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A folder for the attack, and the victim's own home and user store.
struct Scene {
    dir: tempfile::TempDir,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Scene { dir }
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
    fn marker(&self) -> PathBuf {
        self.path("ran")
    }

    /// `hcpx` in `cwd` with the user store `store`.
    fn hcpx(&self, cwd: &Path, store: &str) -> Command {
        let mut cmd = Command::cargo_bin("hcpx").unwrap();
        cmd.env("HOME", self.path("home"))
            .env("HCP_HOME", self.path(store))
            .env_remove("HCP_PRINCIPAL")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env("NO_COLOR", "1")
            .current_dir(cwd)
            .timeout(std::time::Duration::from_secs(60));
        cmd
    }

    /// `hcpx --json ARGS` in `cwd` with the store `store`, expecting `code`.
    fn json(&self, cwd: &Path, store: &str, args: &[&str], code: i32) -> Value {
        let out = self
            .hcpx(cwd, store)
            .arg("--json")
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "hcpx {args:?}: {stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
    }

    /// A project at `rel` wanting `acme.evil` from `./tools/evil`, whose read
    /// command `hello` writes the marker file.
    fn project(&self, rel: &str) -> PathBuf {
        let root = self.path(rel);
        let pack = root.join("tools/evil");
        std::fs::create_dir_all(&pack).unwrap();
        let manifest = format!(
            r#"hcp: "1"
id: acme.evil
name: Evil
version: 1.0.0
description: Writes a marker when it runs.
binding: {{kind: public}}
commands:
  - key: hello
    summary: Say hello
    effect: read
    adapter: {{kind: process, program: sh, argv: ["-c", "echo ran > {}"]}}
"#,
            self.marker().display()
        );
        std::fs::write(pack.join("pack.yaml"), manifest).unwrap();
        std::fs::write(pack.join("SKILL.md"), simple_skill("acme.evil")).unwrap();
        std::fs::write(
            root.join("hcp.yaml"),
            "hcp: \"1\"\npacks:\n  - id: acme.evil\n    source: ./tools/evil\nharnesses: []\n",
        )
        .unwrap();
        root
    }
}

/// Every file below `dir` (links not followed) with its bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .flatten()
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (e.path().display().to_string(), bytes)
        })
        .collect();
    all.sort();
    all
}

/// The tools `hcpx mcp --principal agent` serves in `cwd` with the user
/// store `store` (its `tools/list` answer, as text).
fn mcp_tools(s: &Scene, cwd: &Path, store: &str) -> String {
    use std::io::{BufRead, BufReader, Write};
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"))
        .env("HOME", s.path("home"))
        .env("HCP_HOME", s.path(store))
        .env_remove("HCP_PRINCIPAL")
        .args(["mcp", "--principal", "agent"])
        .current_dir(cwd)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ];
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let answer = loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "hcpx mcp closed stdout"
        );
        let value: Value = serde_json::from_str(&line).unwrap();
        if value["id"] == 1 {
            break value;
        }
    };
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    answer.to_string()
}

fn warnings(doc: &Value) -> String {
    doc["warnings"].to_string()
}

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

#[test]
fn a_co_users_hcp_yaml_is_passed_over_and_none_of_its_code_runs() {
    if !is_root() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true: this test needs root to give a folder to another user"
        );
        eprintln!("skipped: a co-user's hcp.yaml: needs root to chown a folder to uid 65534");
        return;
    }
    let s = Scene::new();
    // The co-user builds their project (and its store) in a shared folder.
    let shared = s.project("shared");
    s.json(&shared, "couser", &["sync", "--yes"], 0);
    std::fs::create_dir_all(shared.join("sub")).unwrap();
    let chown = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&shared)
        .status()
        .unwrap();
    assert!(chown.success());
    let before = tree(&shared);
    // The victim works in a subfolder of it.
    let sub = shared.join("sub");
    let doc = s.json(&sub, "victim", &["exec", "acme.evil", "hello"], 127);
    assert!(
        !s.marker().exists(),
        "the co-user's command ran as the victim"
    );
    let said = warnings(&doc);
    assert!(said.contains("hcp.yaml is no project for you"), "{doc}");
    assert!(said.contains("uid 65534"), "{doc}");
    assert_eq!(doc["scope"], "user", "{doc}");
    let listed = s.json(&sub, "victim", &["list"], 0);
    assert!(!listed.to_string().contains("acme.evil"), "{listed}");
    let served = mcp_tools(&s, &sub, "victim");
    assert!(!served.contains("evil"), "{served}");
    let out = s.hcpx(&sub, "victim").arg("list").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning:") && stderr.contains("uid 65534"),
        "{stderr}"
    );
    // --project with no other project above: usage, saying why.
    let doc = s.json(&sub, "victim", &["--project", "list"], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("passed over"),
        "{doc}"
    );
    // Listed in safe_directories it is a project, but its store is still
    // the co-user's, not the victim's: nothing of it is served either.
    let config = s.path("victim/config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}safe_directories: [\"*\"]\n")).unwrap();
    let doc = s.json(&sub, "victim", &["exec", "acme.evil", "hello"], 127);
    assert!(!s.marker().exists());
    assert!(warnings(&doc).contains("not this project's store"), "{doc}");
    let doc = s.json(&sub, "victim", &["sync", "--yes"], 1);
    assert_eq!(doc["error"]["code"], "store_corrupt", "{doc}");
    assert_eq!(tree(&shared), before, "the co-user's folder changed");
}

/// A repository whose author committed the project's store (`git add -f
/// .hcp`), cloned by the victim; returns the clone.
fn committed_store_clone(s: &Scene) -> PathBuf {
    let author = s.project("author");
    s.json(&author, "authorstore", &["sync", "--yes"], 0);
    let git = |dir: &Path, args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=a",
                "-c",
                "user.email=a@a",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            ok.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&ok.stderr)
        );
    };
    git(&author, &["init", "-q"]);
    git(&author, &["add", "-A"]);
    git(&author, &["add", "-f", ".hcp"]);
    git(&author, &["commit", "-qm", "with the store"]);
    let url = format!("file://{}", author.display());
    git(s.dir.path(), &["clone", "-q", &url, "clone"]);
    let clone = s.path("clone");
    assert!(
        clone.join(".hcp/packs/acme.evil").is_dir(),
        "the clone has the store"
    );
    clone
}

#[test]
fn a_store_committed_with_the_repository_is_never_used() {
    if !require_tool("git") {
        return;
    }
    let s = Scene::new();
    let clone = committed_store_clone(&s);
    let before = tree(&clone.join(".hcp"));
    // Right after the clone: nothing of it is listed, run or synced into.
    let listed = s.json(&clone, "victim", &["list"], 0);
    assert!(
        !listed["packs"].to_string().contains("acme.evil"),
        "{listed}"
    );
    assert!(
        warnings(&listed).contains(".hcp/ is not this project's store"),
        "{listed}"
    );
    let doc = s.json(&clone, "victim", &["availability"], 0);
    assert!(!doc.to_string().contains("acme.evil\""), "{doc}");
    s.json(&clone, "victim", &["exec", "acme.evil", "hello"], 127);
    let served = mcp_tools(&s, &clone, "victim");
    assert!(!served.contains("evil"), "{served}");
    assert!(!s.marker().exists(), "the repository's command ran");
    for args in [
        &["sync", "--yes"][..],
        &["sync", "--frozen", "--yes"],
        &["remove", "acme.evil"],
    ] {
        let doc = s.json(&clone, "victim", args, 1);
        assert_eq!(doc["error"]["code"], "store_corrupt", "{args:?}: {doc}");
        assert!(
            doc["error"]["hint"].as_str().unwrap().contains("hcpx sync"),
            "{doc}"
        );
    }
    // Its store id is not ours: doctor --fix --yes adopts nothing, even
    // at mode 0700 (as an archive keeps it).
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(clone.join(".hcp"), std::fs::Permissions::from_mode(0o700)).unwrap();
    s.json(&clone, "victim", &["doctor", "--fix", "--yes"], 1);
    assert_eq!(tree(&clone.join(".hcp")), before, "a foreign store adopted");
    let doc = s.json(&clone, "victim", &["doctor"], 1);
    let checks = doc.to_string();
    assert!(checks.contains("project.store"), "{doc}");
    assert_eq!(
        tree(&clone.join(".hcp")),
        before,
        "the committed store changed"
    );
    // Removed, the store is rebuilt from hcp.yaml and hcp.lock, ours.
    std::fs::remove_dir_all(clone.join(".hcp")).unwrap();
    s.json(&clone, "victim", &["sync", "--yes"], 0);
    let listed = s.json(&clone, "victim", &["list"], 0);
    assert!(
        listed["packs"].to_string().contains("acme.evil"),
        "{listed}"
    );
    // Ours now: served (the check above is not vacuous).
    assert!(mcp_tools(&s, &clone, "victim").contains("evil"));
    let mode = std::fs::metadata(clone.join(".hcp"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    let recorded = std::fs::read_to_string(s.path("victim/projects.json")).unwrap();
    let id = std::fs::read_to_string(clone.join(".hcp/store-id")).unwrap();
    assert!(recorded.contains(id.trim()), "{recorded}");
}

#[test]
fn doctor_fix_adopts_an_earlier_releases_store_only_with_consent() {
    let s = Scene::new();
    let root = s.project("p");
    s.json(&root, "user", &["sync", "--yes"], 0);
    // An earlier release wrote no store-id.
    std::fs::remove_file(root.join(".hcp/store-id")).unwrap();
    let doc = s.json(&root, "user", &["doctor"], 1);
    assert!(doc.to_string().contains("no store-id"), "{doc}");
    let doc = s.json(&root, "user", &["doctor", "--fix"], 3);
    assert_eq!(doc["error"]["code"], "confirmation_required", "{doc}");
    assert!(!root.join(".hcp/store-id").exists());
    // Not 0700: not adopted, whatever --yes says.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(root.join(".hcp"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let doc = s.json(&root, "user", &["doctor", "--fix", "--yes"], 1);
    assert!(doc.to_string().contains("0755"), "{doc}");
    assert!(!root.join(".hcp/store-id").exists());
    // A link inside: not adopted.
    std::fs::set_permissions(root.join(".hcp"), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink("/", root.join(".hcp/escape")).unwrap();
    s.json(&root, "user", &["doctor", "--fix", "--yes"], 1);
    assert!(!root.join(".hcp/store-id").exists());
    std::fs::remove_file(root.join(".hcp/escape")).unwrap();
    // Real, 0700, ours, no link: adopted with --yes.
    s.json(&root, "user", &["doctor", "--fix", "--yes"], 0);
    assert!(root.join(".hcp/store-id").is_file());
    let listed = s.json(&root, "user", &["list"], 0);
    assert!(
        listed["packs"].to_string().contains("acme.evil"),
        "{listed}"
    );
    assert!(listed.get("warnings").is_none(), "{listed}");
}

#[test]
fn an_hcp_yaml_or_hcp_lock_that_is_a_link_is_refused() {
    let s = Scene::new();
    let root = s.project("p");
    std::fs::rename(root.join("hcp.yaml"), s.path("elsewhere.yaml")).unwrap();
    std::os::unix::fs::symlink(s.path("elsewhere.yaml"), root.join("hcp.yaml")).unwrap();
    let doc = s.json(&root, "user", &["list"], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("symbolic link"),
        "{doc}"
    );
    std::fs::remove_file(root.join("hcp.yaml")).unwrap();
    std::fs::rename(s.path("elsewhere.yaml"), root.join("hcp.yaml")).unwrap();
    std::os::unix::fs::symlink(s.path("elsewhere.lock"), root.join("hcp.lock")).unwrap();
    let doc = s.json(&root, "user", &["sync", "--yes"], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert!(
        !s.path("elsewhere.lock").exists(),
        "written through the link"
    );
}
