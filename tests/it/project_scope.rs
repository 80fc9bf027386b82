//! The project scope (HCP.md §15) on the real binary: `init`, `add`,
//! `remove`, `sync` and `sync --frozen` in a project folder, with `HOME`,
//! `HCP_HOME` and `CLAUDE_CONFIG_DIR` in a temporary folder, so nothing
//! reaches the user's own store or harness folders.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{require_tool, simple_manifest, simple_skill};
use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A temporary machine: a home folder (with `~/.claude`, so Claude Code is
/// detected), a user store, and a project folder.
pub struct Machine {
    pub dir: tempfile::TempDir,
}

impl Machine {
    pub fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home/.claude")).unwrap();
        std::fs::create_dir_all(dir.path().join("proj")).unwrap();
        Machine { dir }
    }
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    pub fn user_store(&self) -> PathBuf {
        self.dir.path().join("userstore")
    }
    pub fn proj(&self) -> PathBuf {
        self.dir.path().join("proj")
    }

    /// `hcpx` run in `cwd`.
    pub fn hcpx(&self, cwd: &Path) -> Command {
        let mut cmd = Command::cargo_bin("hcpx").unwrap();
        cmd.env("HOME", self.home())
            .env("HCP_HOME", self.user_store())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("HCP_PRINCIPAL")
            .env("NO_COLOR", "1")
            .current_dir(cwd)
            .timeout(std::time::Duration::from_secs(60));
        cmd
    }

    /// `hcpx --json ARGS` in `cwd`, expecting exit `code`.
    pub fn json(&self, cwd: &Path, args: &[&str], code: i32) -> Value {
        let out = self.hcpx(cwd).arg("--json").args(args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "hcpx {args:?}: stdout {stdout} stderr {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
    }

    /// A pack folder `<under>/<name>` with id `id`.
    pub fn pack(&self, under: &Path, name: &str, id: &str) -> PathBuf {
        let root = under.join(name);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("pack.yaml"),
            simple_manifest(id, "1.0.0", "{kind: public}"),
        )
        .unwrap();
        std::fs::write(root.join("SKILL.md"), simple_skill(id)).unwrap();
        root
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.proj().join(rel)).unwrap_or_default()
    }
}

/// A project holding `acme.proj` (added from `./tools/p`), and a user
/// store holding `acme.user`, put there by `hcpx -g VERB` (`add`:
/// activated; `install`: not).
fn two_stores(verb: &str) -> (Machine, PathBuf) {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    let user_pack = m.pack(m.dir.path(), "u", "acme.user");
    m.json(&proj, &["-g", verb, user_pack.to_str().unwrap()], 0);
    m.pack(&proj.join("tools"), "p", "acme.proj");
    m.json(&proj, &["add", "./tools/p"], 0);
    (m, proj)
}

fn lock(m: &Machine) -> Value {
    serde_json::from_str(&m.read("hcp.lock")).unwrap()
}

#[test]
fn init_writes_the_project_files_and_refuses_a_second_time() {
    let m = Machine::new();
    let doc = m.json(&m.proj(), &["init"], 0);
    assert_eq!(doc["scope"], "project", "{doc}");
    assert_eq!(
        doc["harnesses"],
        serde_json::json!(["agents", "claude-code"])
    );
    let yaml = m.read("hcp.yaml");
    assert!(yaml.contains("hcp: \"1\""), "{yaml}");
    assert!(yaml.contains("claude-code"), "{yaml}");
    assert_eq!(m.read(".hcp/.gitignore"), "*\n");
    let again = m.json(&m.proj(), &["init"], 3);
    assert_eq!(again["error"]["code"], "already_exists", "{again}");
    assert_eq!(m.read("hcp.yaml"), yaml, "never rewritten");
    // Nested: a warning names the outer project.
    let inner = m.proj().join("sub");
    std::fs::create_dir_all(&inner).unwrap();
    let out = m.hcpx(&inner).arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("inside the project"), "{stderr}");
    // The user store records each project's store (§15.2), and holds no
    // pack of theirs.
    let projects = m.user_store().join("projects.json");
    let recorded: Value = serde_json::from_slice(&std::fs::read(projects).unwrap()).unwrap();
    assert_eq!(
        recorded["projects"].as_array().map(Vec::len),
        Some(2),
        "{recorded}"
    );
    let id = std::fs::read_to_string(m.proj().join(".hcp/store-id")).unwrap();
    assert_eq!(recorded["projects"][0]["store_id"], id.trim(), "{recorded}");
    let packs = std::fs::read_dir(m.user_store().join("packs")).unwrap();
    assert!(packs.flatten().all(|e| e.file_name() == "hcp-cli"));
}

#[test]
fn project_and_global_flags_choose_the_store() {
    let m = Machine::new();
    let outside = m.dir.path().to_path_buf();
    let doc = m.json(&outside, &["list", "--project"], 2);
    assert_eq!(doc["error"]["code"], "usage");
    m.json(&m.proj(), &["init"], 0);
    let pack = m.pack(&outside, "p1", "acme.one");
    // -g after the subcommand: the user store.
    let doc = m.json(&m.proj(), &["install", pack.to_str().unwrap(), "-g"], 0);
    assert_eq!(doc["scope"], "user", "{doc}");
    assert!(doc.get("project").is_none());
    assert!(m.user_store().join("packs/acme.one").is_dir());
    assert!(!m.proj().join(".hcp/packs/acme.one").exists());
    let doc = m.json(&outside, &["list"], 0);
    assert_eq!(doc["scope"], "user");
}

#[test]
fn add_records_the_pack_and_places_it_in_the_project_only() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let proj = m.proj();
    git(&proj, &["init", "-q", "."]);
    m.json(&proj, &["init"], 0);
    m.pack(&proj.join("tools"), "notes", "acme.notes");
    let doc = m.json(&proj, &["add", "./tools/notes"], 0);
    assert_eq!(doc["activated"], true, "{doc}");
    assert_eq!(doc["scope"], "project");
    assert_eq!(
        doc["project"].as_str().map(PathBuf::from),
        Some(proj.canonicalize().unwrap())
    );
    let yaml = m.read("hcp.yaml");
    assert!(
        yaml.contains("acme.notes") && yaml.contains("./tools/notes"),
        "{yaml}"
    );
    let lock = lock(&m);
    assert_eq!(
        lock["packs"]["acme.notes"]["source"]["path"],
        "./tools/notes"
    );
    assert!(proj.join(".claude/skills/acme-notes/SKILL.md").is_file());
    assert!(proj.join(".agents/skills/acme-notes/SKILL.md").is_file());
    // Nothing in the user store or the user's harness folders.
    assert!(!m.home().join(".claude/skills").exists());
    assert!(!m.home().join(".agents").exists());
    assert!(!m.user_store().join("packs/acme.notes").exists());
    // git sees only what is meant to be committed.
    let status = git_out(&proj, &["status", "--porcelain", "--untracked-files=all"]);
    for line in status.lines() {
        let path = &line[3..];
        assert!(
            path == "hcp.yaml"
                || path == "hcp.lock"
                || path.starts_with("tools/")
                || path.starts_with(".claude/skills/")
                || path.starts_with(".agents/skills/"),
            "{status}"
        );
    }
    // remove drops it from both files and the targets.
    let doc = m.json(&proj, &["remove", "acme.notes"], 0);
    assert_eq!(doc["scope"], "project", "{doc}");
    assert!(!m.read("hcp.yaml").contains("acme.notes"));
    assert!(!m.read("hcp.lock").contains("acme.notes"));
    assert!(!proj.join(".claude/skills/acme-notes").exists());
}

#[test]
fn add_takes_one_skill_of_a_collection() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    let coll = m.dir.path().join("coll");
    m.pack(&coll.join("skills"), "a", "acme.a");
    m.pack(&coll.join("skills"), "b", "acme.b");
    let doc = m.json(
        &proj,
        &["add", coll.to_str().unwrap(), "--skill", "acme.b"],
        0,
    );
    assert_eq!(doc["pack_id"], "acme.b", "{doc}");
    let yaml = m.read("hcp.yaml");
    assert!(
        yaml.contains("acme.b") && !yaml.contains("acme.a"),
        "{yaml}"
    );
    assert_eq!(
        lock(&m)["packs"]["acme.b"]["source"]["path"],
        "../coll/skills/b"
    );
}

/// Every file below `dir` (relative path → bytes), `.git` left out.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(dir)
            .unwrap()
            .display()
            .to_string();
        if entry.file_type().is_file() && !rel.starts_with(".git/") {
            out.push((rel, std::fs::read(entry.path()).unwrap()));
        }
    }
    out
}

#[test]
fn a_fresh_clone_and_sync_reproduce_the_project() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let proj = m.proj();
    git(&proj, &["init", "-q", "."]);
    m.json(&proj, &["init"], 0);
    m.pack(&proj.join("tools"), "one", "acme.one");
    m.pack(&proj.join("tools"), "two", "acme.two");
    m.json(&proj, &["add", "./tools/one", "./tools/two"], 0);
    git(&proj, &["add", "hcp.yaml", "hcp.lock", "tools"]);
    git(&proj, &["commit", "-qm", "packs"]);

    // A teammate: another home and user store, a fresh clone.
    let t = Machine::new();
    let clone = t.dir.path().join("clone");
    git(
        t.dir.path(),
        &["clone", "-q", proj.to_str().unwrap(), "clone"],
    );
    // The teammate's first sync: packs with write commands need consent.
    let doc = t.json(&clone, &["sync", "--yes"], 0);
    assert_eq!(doc["scope"], "project", "{doc}");
    for id in ["acme.one", "acme.two"] {
        let ours = tree(&proj.join(".hcp/packs").join(id));
        assert_eq!(tree(&clone.join(".hcp/packs").join(id)), ours);
    }
    assert_eq!(tree(&clone.join(".claude")), tree(&proj.join(".claude")));
    assert_eq!(tree(&clone.join(".agents")), tree(&proj.join(".agents")));
    let digests = |dir: &Path| -> Value {
        let lock: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("hcp.lock")).unwrap()).unwrap();
        lock["packs"].clone()
    };
    assert_eq!(digests(&clone), digests(&proj));
    t.json(&clone, &["sync", "--frozen"], 0);
    let verify = t.json(&clone, &["verify"], 0);
    assert_eq!(verify["ok"], true, "{verify}");

    // A source changed: --frozen fails before installing, files unchanged.
    let (yaml, lockfile) = (
        std::fs::read(clone.join("hcp.yaml")).unwrap(),
        std::fs::read(clone.join("hcp.lock")).unwrap(),
    );
    std::fs::write(
        clone.join("tools/two/SKILL.md"),
        simple_skill("acme.two") + "more\n",
    )
    .unwrap();
    let doc = t.json(&clone, &["sync", "--frozen"], 1);
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    assert_eq!(std::fs::read(clone.join("hcp.yaml")).unwrap(), yaml);
    assert_eq!(std::fs::read(clone.join("hcp.lock")).unwrap(), lockfile);

    // An entry removed by hand: sync removes the pack and its lock entry;
    // --frozen would have failed on the stale lock first.
    let text = String::from_utf8(yaml).unwrap();
    let without = text.replace("  - id: acme.one\n    source: ./tools/one\n", "");
    assert_ne!(without, text, "{text}");
    std::fs::write(clone.join("hcp.yaml"), &without).unwrap();
    let doc = t.json(&clone, &["sync", "--frozen"], 1);
    assert_eq!(doc["error"]["code"], "integrity", "{doc}");
    t.json(&clone, &["sync"], 0);
    assert!(!clone.join(".hcp/packs/acme.one").exists());
    assert!(!clone.join(".claude/skills/acme-one").exists());
    let lock = std::fs::read_to_string(clone.join("hcp.lock")).unwrap();
    assert!(!lock.contains("acme.one"), "{lock}");
}

#[test]
fn both_scopes_are_read_and_a_project_pack_shadows_a_user_pack() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    let user_pack = m.pack(m.dir.path(), "u", "acme.user");
    let shared = m.pack(m.dir.path(), "s", "acme.shared");
    m.json(&proj, &["-g", "add", user_pack.to_str().unwrap()], 0);
    m.json(&proj, &["-g", "add", shared.to_str().unwrap()], 0);
    m.json(&proj, &["add", shared.to_str().unwrap()], 0);
    let doc = m.json(&proj, &["list"], 0);
    let rows: Vec<(String, String, bool)> = doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["pack_id"].as_str().unwrap().to_string(),
                p["scope"].as_str().unwrap().to_string(),
                p["shadowed"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert!(
        rows.contains(&("acme.shared".into(), "project".into(), false)),
        "{doc}"
    );
    assert!(
        rows.contains(&("acme.shared".into(), "user".into(), true)),
        "{doc}"
    );
    assert!(
        rows.contains(&("acme.user".into(), "user".into(), false)),
        "{doc}"
    );
    // exec of a user-store pack from inside the project.
    let doc = m.json(&proj, &["exec", "acme.user", "hello"], 0);
    assert_eq!(doc["stdout"], "hello world\n", "{doc}");
    assert_eq!(doc["scope"], "user");
    let doc = m.json(&proj, &["exec", "acme.shared", "hello"], 0);
    assert_eq!(doc["scope"], "project");
    let doc = m.json(&proj, &["show", "acme.shared"], 0);
    assert_eq!(doc["scope"], "project", "{doc}");
}

#[test]
fn install_and_activation_keep_hcp_yaml_in_step() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    let pack = m.pack(&proj.join("tools"), "x", "acme.x");
    m.json(&proj, &["install", pack.to_str().unwrap()], 0);
    let yaml = m.read("hcp.yaml");
    assert!(
        yaml.contains("acme.x") && yaml.contains("activate: false"),
        "{yaml}"
    );
    m.json(&proj, &["activate", "acme.x"], 0);
    assert!(!m.read("hcp.yaml").contains("activate: false"));
    m.json(&proj, &["deactivate", "acme.x"], 0);
    assert!(m.read("hcp.yaml").contains("activate: false"));
    m.json(&proj, &["harness", "disable", "claude-code"], 0);
    assert!(!m.read("hcp.yaml").contains("claude-code"));
    m.json(&proj, &["harness", "enable", "codex"], 0);
    let yaml = m.read("hcp.yaml");
    assert!(yaml.contains("agents") && !yaml.contains("codex"), "{yaml}");
    m.json(&proj, &["uninstall", "acme.x"], 0);
    assert!(!m.read("hcp.yaml").contains("acme.x"));
    assert!(!m.read("hcp.lock").contains("acme.x"));
}

#[test]
fn concurrent_adds_in_one_project_both_land() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    let ids: Vec<String> = (0..4).map(|i| format!("acme.c{i}")).collect();
    let dirs: Vec<PathBuf> = ids
        .iter()
        .map(|id| m.pack(&proj.join("tools"), id, id))
        .collect();
    let children: Vec<_> = dirs
        .iter()
        .map(|dir| {
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"));
            cmd.env("HOME", m.home())
                .env("HCP_HOME", m.user_store())
                .env_remove("CLAUDE_CONFIG_DIR")
                .current_dir(&proj)
                .args(["--json", "add", dir.to_str().unwrap()])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            cmd.spawn().unwrap()
        })
        .collect();
    for mut child in children {
        assert!(crate::common::wait_exit(&mut child).success());
    }
    let yaml = m.read("hcp.yaml");
    let lock = lock(&m);
    for id in &ids {
        assert!(yaml.contains(id.as_str()), "{id}: {yaml}");
        assert!(lock["packs"].get(id).is_some(), "{id}: {lock}");
    }
}

#[test]
fn a_malformed_hcp_yaml_is_usage_with_its_position_and_is_kept() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    let bad = "hcp: \"1\"\npacks: {id: x}\n";
    std::fs::write(proj.join("hcp.yaml"), bad).unwrap();
    let doc = m.json(&proj, &["list"], 2);
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(message.contains("hcp.yaml:2:"), "{message}");
    assert_eq!(m.read("hcp.yaml"), bad);
    // An absolute source is refused.
    std::fs::write(
        proj.join("hcp.yaml"),
        "hcp: \"1\"\npacks:\n  - id: acme.a\n    source: /etc\n",
    )
    .unwrap();
    let doc = m.json(&proj, &["sync"], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    // A YAML bomb (aliases that would expand a billion-fold) is refused
    // at once, and kept.
    let bomb = "hcp: \"1\"\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
    std::fs::write(proj.join("hcp.yaml"), bomb).unwrap();
    let started = std::time::Instant::now();
    let doc = m.json(&proj, &["list"], 2);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    assert_eq!(m.read("hcp.yaml"), bomb);
    // A huge file is refused at once.
    let huge = std::fs::File::create(proj.join("hcp.yaml")).unwrap();
    huge.set_len(100 * 1024 * 1024).unwrap();
    let started = std::time::Instant::now();
    let doc = m.json(&proj, &["list"], 2);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
}

#[test]
fn a_store_that_is_not_the_projects_own_is_refused() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    // An hcp.yaml inside the user store (a pack shipping one) is no
    // project: a command run there acts on the user store.
    let inside = m.user_store().join("packs/acme.ships");
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::write(inside.join("hcp.yaml"), "hcp: \"1\"\n").unwrap();
    let doc = m.json(&inside, &["list"], 0);
    assert_eq!(doc["scope"], "user", "{doc}");
    assert!(!inside.join(".hcp").exists());
    // A symbolic link as .hcp.
    std::fs::remove_dir_all(proj.join(".hcp")).unwrap();
    let elsewhere = m.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, proj.join(".hcp")).unwrap();
    // A report goes on with the user store, naming the link (§15.2); a
    // change is refused as store_corrupt.
    let doc = m.json(&proj, &["list"], 0);
    assert_eq!(doc["scope"], "user", "{doc}");
    assert!(
        doc["warnings"][0].as_str().unwrap().contains(".hcp/"),
        "{doc}"
    );
    let doc = m.json(&proj, &["sync"], 1);
    assert_eq!(doc["error"]["code"], "store_corrupt", "{doc}");
    assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
    std::fs::remove_file(proj.join(".hcp")).unwrap();
    // The user store inside the project's store.
    let out = m
        .hcpx(&proj)
        .env("HCP_HOME", proj.join(".hcp"))
        .args(["--json", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A lock naming an absolute path: refused before anything installs.
    let pack = m.pack(&proj.join("tools"), "abs", "acme.abs");
    std::fs::write(
        proj.join("hcp.yaml"),
        "hcp: \"1\"\npacks:\n  - id: acme.abs\n    source: ./tools/abs\n",
    )
    .unwrap();
    let lock = serde_json::json!({"version": 1, "packs": {"acme.abs": {
        "digest": format!("sha256:{}", "0".repeat(64)),
        "source": {"kind": "dir", "path": pack.display().to_string()},
        "version": "1.0.0"}}});
    std::fs::write(proj.join("hcp.lock"), lock.to_string()).unwrap();
    let doc = m.json(&proj, &["sync"], 2);
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("absolute"),
        "{doc}"
    );
    assert!(!proj.join(".hcp/packs/acme.abs").exists());
}

pub fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.email=t@e.st", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn git_out(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn an_add_killed_half_way_is_named_by_doctor_and_repaired() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    m.pack(&proj.join("tools"), "k", "acme.k");
    let out = m
        .hcpx(&proj)
        .env("HCPX_TEST_CRASH_AT", "project.write")
        .args(["--json", "add", "./tools/k"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(!m.read("hcp.yaml").contains("acme.k"));
    let doc = m.json(&proj, &["doctor"], 1);
    let named = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["check"] == "project.file" && c["ok"] == false);
    assert!(named, "{doc}");
    m.json(&proj, &["doctor", "--fix"], 0);
    let yaml = m.read("hcp.yaml");
    assert!(
        yaml.contains("acme.k") && yaml.contains("./tools/k"),
        "{yaml}"
    );
    // The lock and the file agree again: a frozen sync passes.
    m.json(&proj, &["sync", "--frozen"], 0);
}

#[test]
fn the_tui_opens_inside_a_project() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    // Without a terminal, `hcpx tui` is a usage error, not a crash; with
    // one it opens (the tmux tests drive that): the project does not stop
    // it from reading its store.
    let out = m.hcpx(&proj).args(["tui"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn verify_and_doctor_inside_a_project_read_both_stores() {
    let (m, proj) = two_stores("add");

    let scopes = |doc: &Value, key: &str| -> Vec<(String, String)> {
        doc[key]
            .as_array()
            .unwrap_or_else(|| panic!("no {key}: {doc}"))
            .iter()
            .filter_map(|p| {
                Some((
                    p["pack_id"].as_str()?.to_string(),
                    p["scope"].as_str()?.to_string(),
                ))
            })
            .collect()
    };
    let doc = m.json(&proj, &["verify"], 0);
    assert_eq!(doc["ok"], true, "{doc}");
    let seen = scopes(&doc, "packs");
    assert!(seen.contains(&("acme.user".into(), "user".into())), "{doc}");
    assert!(
        seen.contains(&("acme.proj".into(), "project".into())),
        "{doc}"
    );

    // One pack of the user store, named from inside the project.
    let doc = m.json(&proj, &["verify", "acme.user"], 0);
    assert_eq!(
        scopes(&doc, "packs"),
        vec![("acme.user".into(), "user".into())],
        "{doc}"
    );

    // A user pack changed on disk fails the project's verify too.
    let skill = m.user_store().join("packs/acme.user/SKILL.md");
    std::fs::write(&skill, "tampered\n").unwrap();
    let doc = m.json(&proj, &["verify"], 1);
    assert_eq!(doc["ok"], false, "{doc}");

    // doctor checks both stores, each check with its scope.
    let out = m.hcpx(&proj).args(["--json", "doctor"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let checked: std::collections::BTreeSet<&str> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["scope"].as_str())
        .collect();
    assert_eq!(checked, ["project", "user"].into_iter().collect(), "{doc}");
}

#[test]
fn a_change_inside_a_project_says_which_store_it_acted_on() {
    let (m, proj) = two_stores("add");
    let said = |args: &[&str]| {
        let out = m.hcpx(&proj).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    let project = format!("project: {}", proj.display());
    assert!(said(&["deactivate", "acme.proj"]).contains(&project));
    let user = format!("user store: {}", m.user_store().display());
    assert!(said(&["deactivate", "acme.user"]).contains(&user));
    // A report on one pack says it too.
    assert!(said(&["show", "acme.user"]).contains(&user));
    assert!(said(&["why", "acme.proj"]).contains(&project));
    // Outside a project there is one store: nothing is said.
    let out = m
        .hcpx(m.dir.path())
        .args(["activate", "acme.user"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("store:"));
}

/// §13.3, §15.2: a pack added in a project from one of the user's git
/// catalogs is recorded by the catalog's git source (url, subdir,
/// commit), never by a path inside the user store, so a teammate's sync
/// reinstalls it.
#[test]
fn a_pack_of_a_user_git_catalog_is_recorded_by_its_git_source() {
    if !require_tool("git") {
        return;
    }
    let m = Machine::new();
    let repo = m.dir.path().join("repo");
    m.pack(&repo.join("packs"), "notes", "acme.notes");
    git(&repo, &["init", "-q", "."]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "packs"]);
    let url = format!("git+file://{}//packs", repo.display());
    let proj = m.proj();
    m.json(&proj, &["-g", "catalog", "add", &url], 0);
    m.json(&proj, &["init"], 0);
    m.json(&proj, &["add", "acme.notes"], 0);
    let lock = lock(&m);
    let text = lock.to_string();
    let store = m.user_store().display().to_string();
    assert!(
        !text.contains(&store),
        "a user-store path in hcp.lock: {lock}"
    );
    assert!(
        text.contains(&format!("file://{}", repo.display())),
        "{lock}"
    );
    let yaml = m.read("hcp.yaml");
    assert!(!yaml.contains(&store), "{yaml}");
    assert!(
        yaml.contains(&format!("file://{}", repo.display())),
        "{yaml}"
    );

    // A teammate with no catalog at all syncs it from the recorded source.
    let t = Machine::new();
    let clone = t.dir.path().join("clone");
    std::fs::create_dir_all(&clone).unwrap();
    for file in ["hcp.yaml", "hcp.lock"] {
        std::fs::copy(proj.join(file), clone.join(file)).unwrap();
    }
    t.json(&clone, &["sync", "--frozen", "--yes"], 0);
    assert!(clone.join(".hcp/packs/acme.notes/pack.yaml").is_file());
}

/// §15.1: a command on existing packs acts on the store that holds each,
/// also when one command names packs of both stores.
#[test]
fn a_change_of_packs_of_both_stores_acts_on_each_in_its_store() {
    let (m, proj) = two_stores("install");
    m.json(&proj, &["deactivate", "acme.proj"], 0);

    let doc = m.json(&proj, &["activate", "acme.proj", "acme.user"], 0);
    let results: Vec<(String, String)> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["pack_id"].as_str().unwrap().into(),
                r["scope"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        results,
        vec![
            ("acme.proj".into(), "project".into()),
            ("acme.user".into(), "user".into())
        ],
        "{doc}"
    );
    let state = |path: PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path.join("state.json")).unwrap()).unwrap()
    };
    assert!(
        state(m.user_store())["activated"]
            .to_string()
            .contains("acme.user")
    );
    assert!(
        state(proj.join(".hcp"))["activated"]
            .to_string()
            .contains("acme.proj")
    );

    m.json(&proj, &["remove", "acme.proj", "acme.user"], 0);
    assert!(!proj.join(".hcp/packs/acme.proj").exists());
    assert!(!m.user_store().join("packs/acme.user").exists());
    assert!(!m.read("hcp.yaml").contains("acme.proj"));
}

/// §15.1: a fix for a user-store pack, shown inside a project, says `-g`
/// (the same line without it would act on the project's store); a fix
/// for a project pack does not.
#[test]
fn a_fix_for_a_user_pack_inside_a_project_says_g() {
    let (m, proj) = two_stores("install");
    m.json(&proj, &["deactivate", "acme.proj"], 0);
    let doc = m.json(&proj, &["exec", "acme.user", "hello"], 126);
    assert_eq!(doc["error"]["hint"], "hcpx -g activate acme.user", "{doc}");
    let doc = m.json(&proj, &["exec", "acme.proj", "hello"], 126);
    assert_eq!(doc["error"]["hint"], "hcpx activate acme.proj", "{doc}");
}

/// §14.7, §15.3: `add` killed (SIGKILL) at each step of its change leaves
/// a project that `doctor --fix` makes whole: `doctor` is clean after it,
/// the same `add` then lands, and the lock and `hcp.yaml` agree
/// (`sync --frozen`).
#[test]
fn an_add_killed_at_each_step_is_repaired_by_doctor_fix() {
    let steps = [
        "install.after_swap",
        "install.after_state",
        "install.after_skill",
        "lock.write",
        "state.write",
        "activate.after_copy",
        "skill.write",
        "project.write",
    ];
    let mut reached = Vec::new();
    for step in steps {
        let m = Machine::new();
        let proj = m.proj();
        m.json(&proj, &["init"], 0);
        m.pack(&proj.join("tools"), "k", "acme.k");
        let killed = m
            .hcpx(&proj)
            .env("HCPX_TEST_CRASH_AT", step)
            .args(["--json", "add", "./tools/k"])
            .output()
            .unwrap();
        if killed.status.code().is_none() {
            reached.push(step);
        }
        let _ = m
            .hcpx(&proj)
            .args(["--json", "doctor", "--fix"])
            .output()
            .unwrap();
        let doc = m.json(&proj, &["doctor"], 0);
        assert_eq!(
            doc["ok"], true,
            "{step} (killed: {:?}): {doc}",
            killed.status
        );
        m.json(&proj, &["add", "./tools/k"], 0);
        m.json(&proj, &["sync", "--frozen"], 0);
        assert!(m.read("hcp.yaml").contains("acme.k"), "{step}");
    }
    // The steps an `add` of a pack with no harness target passes.
    assert!(reached.len() >= 5, "killed only at {reached:?}");
}

/// §15.2: a project pack's secret stays in `.hcp/secrets` (0700, the file
/// 0600; `.hcp/` is ignored by git) and never enters `hcp.yaml` or
/// `hcp.lock`.
#[test]
fn a_project_packs_secret_stays_in_the_projects_store() {
    use std::os::unix::fs::PermissionsExt;
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    let root = proj.join("tools/s");
    std::fs::create_dir_all(&root).unwrap();
    let binding = "{kind: secret, secret: {name: TOKEN}}";
    std::fs::write(
        root.join("pack.yaml"),
        crate::common::simple_manifest("acme.s", "1.0.0", binding),
    )
    .unwrap();
    std::fs::write(root.join("SKILL.md"), simple_skill("acme.s")).unwrap();
    m.json(&proj, &["add", "./tools/s"], 0);
    let secret = "sk-project-0123456789";
    let out = m
        .hcpx(&proj)
        .args(["--json", "connect", "acme.s", "--secret-stdin"])
        .write_stdin(secret)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let dir = proj.join(".hcp/secrets");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("acme.s")), 0o600);
    for file in ["hcp.yaml", "hcp.lock", ".hcp/.gitignore"] {
        assert!(!m.read(file).contains(secret), "{file}");
    }
    assert_eq!(m.read(".hcp/.gitignore").trim(), "*");
    assert!(!m.user_store().join("secrets/acme.s").exists());
}

/// §15.2: comments and key order of `hcp.yaml` survive `add` and
/// `remove`.
#[test]
fn comments_in_hcp_yaml_survive_add_and_remove() {
    let m = Machine::new();
    let proj = m.proj();
    let text = "# Our agents' packs.\nhcp: \"1\"  # the format\n# packs below\npacks: []\nharnesses: [agents]  # where Skills go\nx-team: docs\n";
    std::fs::write(proj.join("hcp.yaml"), text).unwrap();
    m.pack(&proj.join("tools"), "c", "acme.c");
    m.json(&proj, &["add", "./tools/c"], 0);
    let added = m.read("hcp.yaml");
    for line in [
        "# Our agents' packs.",
        "hcp: \"1\"  # the format",
        "# packs below",
        "harnesses: [agents]  # where Skills go",
        "x-team: docs",
    ] {
        assert!(added.contains(line), "{line}: {added}");
    }
    assert!(added.contains("acme.c"), "{added}");
    m.json(&proj, &["remove", "acme.c"], 0);
    let removed = m.read("hcp.yaml");
    assert!(!removed.contains("acme.c"), "{removed}");
    let keys: Vec<&str> = removed
        .lines()
        .filter(|l| !l.starts_with([' ', '#', '-']))
        .collect();
    assert_eq!(keys[0], "hcp: \"1\"  # the format", "{removed}");
    assert!(
        removed.contains("# Our agents' packs.") && removed.contains("x-team: docs"),
        "{removed}"
    );
}
