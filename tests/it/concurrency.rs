//! Many hcpx processes on one store lose nothing (HCP.md §11.5), and an
//! install killed at any moment leaves the pack whole or absent (§11.1).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn hcpx_path() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("hcpx")
}

/// Runs `hcpx` processes for every argument list at once and waits for all.
fn run_all(sb: &Sandbox, jobs: &[Vec<String>]) -> Vec<std::process::Output> {
    let children: Vec<_> = jobs
        .iter()
        .map(|args| {
            Command::new(hcpx_path())
                .args(args)
                .env("HCP_HOME", sb.home())
                .env_remove("HCP_PRINCIPAL")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

/// [`run_all`], each job exiting 0.
fn all_succeed(sb: &Sandbox, jobs: &[Vec<String>]) {
    for out in run_all(sb, jobs) {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn fifty_processes_changing_one_store_lose_nothing() {
    let sb = Sandbox::new();
    let ids: Vec<String> = (0..25).map(|i| format!("acme.p{i}")).collect();
    let sources: Vec<String> = ids
        .iter()
        .map(|id| {
            sb.simple_pack(id, "1.0.0", "{kind: local}")
                .display()
                .to_string()
        })
        .collect();
    // 25 installs and 25 grants at once, on a store no process has opened yet.
    let mut jobs: Vec<Vec<String>> = sources
        .iter()
        .map(|s| vec!["install".into(), s.clone()])
        .collect();
    jobs.extend(
        (0..25).map(|i| vec!["grant".into(), format!("agent{i}"), "verb.exec.read".into()]),
    );
    all_succeed(&sb, &jobs);
    for id in &ids {
        assert!(
            sb.home().join("packs").join(id).join("pack.yaml").is_file(),
            "{id} lost"
        );
    }
    // Every grant is there once; the first one also wrote the defaults
    // down, `user` `*` and `"*"` `verb.exec.read` (§9.4).
    let mut expected = serde_json::Map::new();
    expected.insert("user".into(), serde_json::json!(["*"]));
    expected.insert("*".into(), serde_json::json!(["verb.exec.read"]));
    for i in 0..25 {
        expected.insert(format!("agent{i}"), serde_json::json!(["verb.exec.read"]));
    }
    let grants = sb.state()["grants"].as_object().unwrap().clone();
    assert_eq!(grants, expected, "a grant was lost or doubled");

    // Then 25 activations at once, then 25 connections at once.
    let jobs: Vec<Vec<String>> = ids
        .iter()
        .map(|id| vec!["activate".into(), id.clone()])
        .collect();
    all_succeed(&sb, &jobs);
    let jobs: Vec<Vec<String>> = ids
        .iter()
        .map(|id| vec!["connect".into(), id.clone()])
        .collect();
    all_succeed(&sb, &jobs);
    // Each list holds every pack once (and the bootstrap pack), nothing else.
    let state = sb.state();
    let mut expected: Vec<Value> = ids.iter().map(|id| Value::from(id.as_str())).collect();
    expected.push(Value::from("hcp-cli"));
    expected.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    for list in ["activated", "connected"] {
        let mut got = state[list].as_array().unwrap().clone();
        got.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        assert_eq!(got, expected, "{list}: a change was lost or doubled");
    }
    for id in &ids {
        assert!(sb.home().join("skills").join(id).join("SKILL.md").is_file());
    }
    assert!(common::names(&sb.home().join(".tmp")).is_empty());
}

/// When a round of the kill test sends SIGKILL to the install. Every
/// moment is a state seen on disk, not a time: a slow machine moves the
/// kill with the install.
#[derive(Debug, Clone, Copy)]
enum KillAt {
    /// As soon as the process is spawned.
    Start,
    /// Once `.tmp/` holds this many files: the staged copy is that far (902
    /// is the whole copy, before it is linted and renamed into place).
    Staged(usize),
    /// Never: the install runs to its end.
    Never,
}

/// How long a round may wait for the install to reach a state or end.
const ROUND_DEADLINE: Duration = Duration::from_secs(60);

#[allow(clippy::too_many_lines)] // a long scenario, not yet split (issue 18)
#[test]
fn an_install_killed_midway_leaves_the_pack_whole_or_absent() {
    use std::os::unix::process::ExitStatusExt;
    let sb = Sandbox::new();
    // A pack big enough that copying it takes a while: 900 files, 8 MiB.
    let src = sb.dir.path().join("blob");
    let blob = "x".repeat(BLOB);
    for i in 0..900 {
        let path = src.join("data").join(format!("f{i:03}.txt"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &blob).unwrap();
    }
    let v2 = sb.simple_pack("acme.big", "2.0.0", "{kind: public}");
    // 902 files: the manifest, the Skill and the data.
    std::fs::rename(src.join("data"), v2.join("data")).unwrap();
    sb.json(&["list"], 0);
    let tmp = sb.home().join(".tmp");
    let target = sb.home().join("packs/acme.big");

    // Fresh installs killed at every stage, one that completes, then
    // reinstalls over it killed (the pack must stay whole), and a last one
    // that completes.
    let rounds = [
        KillAt::Start,
        KillAt::Staged(1),
        KillAt::Staged(450),
        KillAt::Staged(902),
        KillAt::Never,
        KillAt::Start,
        KillAt::Staged(450),
        KillAt::Staged(902),
        KillAt::Never,
    ];
    let (mut killed_running, mut whole, mut absent) = (0, 0, 0);
    for (round, kill_at) in rounds.into_iter().enumerate() {
        let mut child = Command::new(hcpx_path())
            .args(["install", v2.to_str().unwrap(), "--force"])
            .env("HCP_HOME", sb.home())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status; // it ended before the kill
            }
            let due = match kill_at {
                KillAt::Start => true,
                KillAt::Staged(n) => count_files(&tmp) >= n,
                KillAt::Never => false,
            };
            if due {
                child.kill().unwrap(); // SIGKILL; Ok also if it just ended
                break child.wait().unwrap();
            }
            if started.elapsed() > ROUND_DEADLINE {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "round {round} ({kill_at:?}): after {ROUND_DEADLINE:?} the install had \
                     neither ended nor reached the kill point; .tmp/ holds {} files",
                    count_files(&tmp)
                );
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        if status.signal() == Some(rustix::process::Signal::KILL.as_raw()) {
            killed_running += 1;
        } else {
            // An install that ran to its end succeeded.
            assert!(status.success(), "round {round} ({kill_at:?}): {status}");
        }
        if let KillAt::Never = kill_at {
            assert!(
                status.success(),
                "round {round}: the install failed: {status}"
            );
            assert!(target.exists(), "round {round}: the install left no pack");
        }
        if target.exists() {
            assert_whole(&target, &format!("round {round} ({kill_at:?})"));
            whole += 1;
        } else {
            absent += 1;
        }
        // The store still works, and the next change cleans up.
        sb.json(&["list"], 0);
        sb.json(&["activate", "hcp-cli"], 0);
        assert!(
            common::names(&tmp).is_empty(),
            "round {round} ({kill_at:?}): .tmp not cleaned: {:?}",
            common::names(&tmp)
        );
    }
    sb.json(&["uninstall", "acme.big"], 0);
    assert!(!target.exists());
    eprintln!("killed while running: {killed_running}; left whole: {whole}, absent: {absent}");
    // At least the kills right after spawning hit a running install: without
    // one the test would have checked nothing.
    assert!(killed_running >= 1, "no SIGKILL reached a running install");
}

/// Bytes in each data file of the big pack.
const BLOB: usize = 9 * 1024;

/// Checks that the installed pack is the whole of version 2.0.0: every
/// file, each at its full size.
fn assert_whole(dir: &Path, round: &str) {
    let manifest = std::fs::read_to_string(dir.join("pack.yaml")).unwrap();
    assert!(
        manifest.contains("version: 2.0.0"),
        "{round}: a partial pack is visible: pack.yaml is {manifest:?}"
    );
    assert!(dir.join("SKILL.md").is_file(), "{round}: no SKILL.md");
    let data = common::names(&dir.join("data"));
    assert_eq!(data.len(), 900, "{round}: a partial pack is visible");
    for name in &data {
        let len = std::fs::metadata(dir.join("data").join(name))
            .unwrap()
            .len();
        assert_eq!(len, BLOB as u64, "{round}: data/{name} is partial");
    }
    assert_eq!(
        common::names(dir),
        ["SKILL.md", "data", "pack.yaml"],
        "{round}: unexpected files"
    );
}

/// The files under `dir`, counted while another process changes it: what
/// vanishes during the walk is not counted.
fn count_files(dir: &Path) -> usize {
    let mut count = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(_) => count += 1,
                Err(_) => {}
            }
        }
    }
    count
}
