//! Many hcpx processes on one store lose nothing (HCP.md §11.5), and an
//! install killed at any moment leaves the pack whole or absent (§11.1).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox};
use serde_json::Value;
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
    for out in run_all(&sb, &jobs) {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for id in &ids {
        assert!(
            sb.home().join("packs").join(id).join("pack.yaml").is_file(),
            "{id} lost"
        );
    }
    let grants = sb.state()["grants"].as_object().unwrap().clone();
    for i in 0..25 {
        assert!(
            grants.contains_key(&format!("agent{i}")),
            "grant of agent{i} lost"
        );
    }

    // Then 25 activations and 25 connections interleaved.
    let jobs: Vec<Vec<String>> = ids
        .iter()
        .map(|id| vec!["activate".into(), id.clone()])
        .collect();
    for out in run_all(&sb, &jobs) {
        assert!(out.status.success());
    }
    let jobs: Vec<Vec<String>> = ids
        .iter()
        .map(|id| vec!["connect".into(), id.clone()])
        .collect();
    for out in run_all(&sb, &jobs) {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let state = sb.state();
    for id in &ids {
        assert!(
            state["activated"]
                .as_array()
                .unwrap()
                .contains(&Value::from(id.as_str())),
            "{id} activation lost"
        );
        assert!(
            state["connected"]
                .as_array()
                .unwrap()
                .contains(&Value::from(id.as_str())),
            "{id} connection lost"
        );
        assert!(sb.home().join("skills").join(id).join("SKILL.md").is_file());
    }
    assert!(common::names(&sb.home().join(".tmp")).is_empty());
}

#[test]
fn an_install_killed_midway_leaves_the_pack_whole_or_absent() {
    let sb = Sandbox::new();
    // A pack big enough that copying it takes a while: 900 files, 8 MiB.
    let src = sb.dir.path().join("blob");
    let blob = "x".repeat(9 * 1024);
    for i in 0..900 {
        let path = src.join("data").join(format!("f{i:03}.txt"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &blob).unwrap();
    }
    let v2 = sb.simple_pack("acme.big", "2.0.0", "{kind: public}");
    // 902 files: the manifest, the Skill and the data.
    std::fs::rename(src.join("data"), v2.join("data")).ok();
    sb.json(&["list"], 0);
    let expected_files = 902;

    let mut outcomes = (0, 0);
    for (round, delay_ms) in [2u64, 30, 150, 300, 500, 700, 900, 1100, 1400, 5000]
        .iter()
        .enumerate()
    {
        let mut child = Command::new(hcpx_path())
            .args(["install", v2.to_str().unwrap(), "--force"])
            .env("HCP_HOME", sb.home())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(*delay_ms));
        let _ = child.kill(); // SIGKILL, or nothing if it finished
        let _ = child.wait();
        let target = sb.home().join("packs/acme.big");
        if target.exists() {
            let count = walk_count(&target);
            assert_eq!(
                count, expected_files,
                "round {round}: a partial pack is visible"
            );
            outcomes.0 += 1;
        } else {
            outcomes.1 += 1;
        }
        // The store still works, and the next change cleans up.
        sb.json(&["list"], 0);
        sb.json(&["activate", "hcp-cli"], 0);
        assert!(
            common::names(&sb.home().join(".tmp")).is_empty(),
            "round {round}: .tmp not cleaned"
        );
        if round % 3 == 2 {
            sb.json(
                &["uninstall", "acme.big"],
                if target.exists() { 0 } else { 5 },
            );
        }
    }
    eprintln!("whole: {}, absent: {}", outcomes.0, outcomes.1);
    // The last round always completes: the test saw a whole pack.
    assert!(outcomes.0 >= 1);
    assert_eq!(outcomes.0 + outcomes.1, 10);
}

fn walk_count(dir: &std::path::Path) -> usize {
    let started = Instant::now();
    let mut count = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                count += 1;
            }
        }
        assert!(started.elapsed() < Duration::from_secs(30));
    }
    count
}
