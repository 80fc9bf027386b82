//! The example catalog in `assets/packs/` is lint-clean, installs,
//! activates and connects, and every read command runs offline (the http
//! pack against its own mock server on loopback).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, copy_dir, require_tools};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn catalog() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/packs")
}

fn pack_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(catalog())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn the_catalog_lints_clean_without_warnings() {
    let dirs = pack_dirs();
    assert!(dirs.len() >= 8, "at least eight example packs");
    let sb = Sandbox::new();
    let mut args = vec!["lint".to_string(), "--deny-warnings".into()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    let out = sb.hcpx().arg("--json").args(&args).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), dirs.len(), "one result per pack: {doc:#}");
    for result in results {
        assert_eq!(
            result["diagnostics"],
            Value::Array(vec![]),
            "{}",
            result["path"]
        );
    }
}

/// Kills the mock server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_mock(port: u16) -> Server {
    let server = Command::new(catalog().join("demo.weather-api/bin/mock-server"))
        .arg(port.to_string())
        .env("DEMO_API_TOKEN", "dev-token")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut server = Server(server);
    // Wait for it to listen, however slowly python3 starts.
    let deadline = Instant::now() + Duration::from_secs(30);
    while let Err(e) = std::net::TcpStream::connect(("127.0.0.1", port)) {
        if let Some(status) = server.0.try_wait().unwrap() {
            panic!("the mock server exited ({status}) before listening on {port}");
        }
        assert!(
            Instant::now() < deadline,
            "the mock server did not listen on {port} within 30 s: {e}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    server
}

#[allow(clippy::too_many_lines)] // a long scenario, not yet split (issue 18)
#[test]
fn every_pack_installs_connects_and_every_read_command_runs_offline() {
    // The packs' scripts are python3; demo.git runs git.
    if !require_tools(&["python3", "git"]) {
        return;
    }
    let sb = Sandbox::new();
    let home = sb.dir.path().join("user-home");
    std::fs::create_dir_all(&home).unwrap();
    let repo = env!("CARGO_MANIFEST_DIR");

    // The http pack points at a mock server on a free port.
    let port = free_port();
    let _server = start_mock(port);
    let local_catalog = sb.dir.path().join("catalog");
    for dir in pack_dirs() {
        let to = local_catalog.join(dir.file_name().unwrap());
        copy_dir(&dir, &to);
    }
    let api = local_catalog.join("demo.weather-api/pack.yaml");
    let text = std::fs::read_to_string(&api)
        .unwrap()
        .replace("127.0.0.1:8787", &format!("127.0.0.1:{port}"));
    std::fs::write(&api, text).unwrap();

    let cat = local_catalog.display().to_string();
    let hcpx = |args: &[&str], stdin: Option<&str>| {
        let mut cmd = sb.hcpx();
        cmd.env("HOME", &home)
            .env("DEMO_API_TOKEN", "dev-token")
            .args(["--json", "--catalog", &cat])
            .args(args);
        if let Some(input) = stdin {
            cmd.write_stdin(input);
        }
        let out = cmd.output().unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{args:?}: {}", String::from_utf8_lossy(&out.stdout)));
        (out.status.code(), doc)
    };

    let list = hcpx(&["list"], None).1;
    let ids: Vec<String> = list["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pack_id"].as_str().unwrap().to_string())
        .filter(|id| id != "hcp-cli")
        .collect();
    assert!(ids.len() >= 8);
    for id in &ids {
        assert_eq!(hcpx(&["install", id], None).0, Some(0), "install {id}");
    }
    let mut activate = vec!["activate"];
    activate.extend(ids.iter().map(String::as_str));
    assert_eq!(hcpx(&activate, None).0, Some(0));
    for id in &ids {
        let secret = (id == "demo.notes-sync").then_some("demo-sync-secret");
        let mut args = vec!["connect", id.as_str()];
        if secret.is_some() {
            args.push("--secret-stdin");
        }
        let (code, doc) = hcpx(&args, secret);
        assert_eq!(code, Some(0), "connect {id}: {doc:#}");
    }
    // Notes for the commands that read them.
    let (code, doc) = hcpx(
        &[
            "exec",
            "demo.notes",
            "add",
            "--",
            "title=Groceries",
            "body=milk and eggs",
        ],
        None,
    );
    assert_eq!(code, Some(0), "{doc:#}");
    let (code, doc) = hcpx(&["exec", "demo.notes-sync", "push"], None);
    assert_eq!(code, Some(0), "{doc:#}");
    let outbox = hcpx(&["exec", "demo.notes-sync", "outbox"], None).1;
    // The bundle `push` made, for `verify`: an empty one would test nothing.
    let bundle = outbox["data"]["bundles"][0]["bundle"]
        .as_str()
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| panic!("no bundle in the outbox after push: {outbox:#}"))
        .to_string();

    let repo_arg = format!("repo={repo}");
    let dir_arg = format!("dir={repo}/assets");
    let file_arg = format!("file={repo}/README.md");
    let bundle_arg = format!("bundle={bundle}");
    let args_for = |id: &str, verb: &str| -> Vec<String> {
        let words: Vec<&str> = match (id, verb) {
            ("demo.git", _) => vec![&repo_arg],
            ("demo.clock", "between") => vec!["start=2026-01-01"],
            ("demo.clock", "shift") => vec!["days=2.5"],
            ("demo.clock", "epoch") => vec!["seconds=86400"],
            ("demo.files", "grep") => vec!["pattern=hcp", &dir_arg],
            ("demo.files", "head") => vec![&file_arg],
            ("demo.files", _) => vec![&dir_arg],
            ("demo.notes", "search") => vec!["query=milk"],
            ("demo.notes", "show") => vec!["note=groceries"],
            ("demo.notes-sync", "verify") => vec![&bundle_arg],
            ("demo.text", "json.pretty") => vec![r#"json={"a": [1, 2]}"#],
            ("demo.text", _) => vec!["text=Hello HCP"],
            ("demo.weather-api", "forecast") => vec!["lat=52.5", "lon=13.4"],
            ("demo.weather-api", "station.get") => vec!["station=ber"],
            _ => vec![],
        };
        words.into_iter().map(str::to_string).collect()
    };

    let mut ran = 0;
    let avail = hcpx(&["availability"], None).1;
    for pack in avail["packs"].as_array().unwrap() {
        let id = pack["pack_id"].as_str().unwrap();
        if id == "hcp-cli" {
            continue;
        }
        for command in pack["commands"].as_array().unwrap() {
            let verb = command["verb_key"].as_str().unwrap();
            assert_eq!(command["executable"], true, "{id} {verb}: {command}");
            if command["effect"] != "read" {
                continue;
            }
            let words = args_for(id, verb);
            let mut args = vec!["exec", id, verb, "--"];
            args.extend(words.iter().map(String::as_str));
            let (code, doc) = hcpx(&args, None);
            assert_eq!(code, Some(0), "{id} {verb}: {doc:#}");
            assert_eq!(doc["ok"], true);
            // A diff of a clean tree is rightly empty; everything else prints.
            if !verb.starts_with("diff") {
                assert!(
                    !doc["stdout"].as_str().unwrap().is_empty(),
                    "{id} {verb} printed nothing"
                );
            }
            ran += 1;
        }
    }
    assert!(ran >= 30, "only {ran} read commands ran");
    // The sense_only pack is active for Sense, never for Execute.
    let style = hcpx(&["availability", "demo.style-guide"], None).1;
    assert_eq!(style["packs"][0]["sense"]["active"], true);
    assert!(sb.home().join("skills/demo.style-guide/SKILL.md").is_file());
}

/// The example Skill collection (`assets/skills`): every Skill lints clean,
/// `--list` names them in columns, and `--all` installs them whole.
#[test]
fn the_example_skill_collection_lists_and_installs_whole() {
    let skills = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/skills");
    let sb = Sandbox::new();
    let out = sb
        .hcpx()
        .args(["install", skills.to_str().unwrap(), "--list"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("holds 3 packs:"), "{text}");
    let header = text.lines().nth(1).unwrap_or_default();
    for column in ["PACK_ID", "KIND", "PATH", "DESCRIPTION"] {
        assert!(header.contains(column), "{text}");
    }
    let row = text
        .lines()
        .find(|l| l.contains("commit-message"))
        .unwrap_or_default();
    assert!(
        row.contains("skill") && row.contains("skills/.curated/commit-message"),
        "{text}"
    );

    let doc = sb.json(&["install", skills.to_str().unwrap(), "--all"], 0);
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{doc}");
    assert!(results.iter().all(|r| r["ok"] == true), "{doc}");
    let script = sb
        .home()
        .join("packs/release-notes/scripts/collect-changes.sh");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&script).unwrap().permissions().mode() & 0o777,
        0o755
    );
    let listed = sb.json(&["list"], 0);
    let version = listed["packs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pack_id"] == "release-notes")
        .map(|p| p["version"].clone());
    assert_eq!(version, Some(Value::from("1.1.0")), "{listed}");
}
