//! Benchmarks of harness targets (HCP.md §12.4–§12.8), on the release
//! binary: what keeping three targets in step adds to `hcpx activate`,
//! `hcpx harness status` over 1,000 activated packs × 3 targets, and one
//! `hcpx activate` of 160 and of 320 Skill packs of 15 files each with one
//! target enabled (whole folders placed: it must stay linear, 320 taking at
//! most 1.3 × twice 160). Run with `cargo bench --bench harness`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::median;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HCPX: &str = env!("CARGO_BIN_EXE_hcpx");

fn run(home: &Path, user: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let status = Command::new(HCPX)
        .args(args)
        .env("HCP_HOME", home)
        .env("HOME", user)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let took = start.elapsed();
    assert!(
        status.success() || args.contains(&"status"),
        "hcpx {args:?} failed"
    );
    took
}

fn write_pack(dir: &Path, id: &str, skill: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("pack.yaml"),
        format!(
            "hcp: \"1\"\nid: {id}\nname: Bench\nversion: 1.0.0\ndescription: A benchmark pack.\n\
             commands:\n  - key: run\n    summary: Run true\n    effect: read\n\
             \x20   adapter: {{kind: process, program: \"true\"}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {skill}\ndescription: Bench.\n---\nUse `run`.\n"),
    )
    .unwrap();
}

/// Median time of `hcpx activate ID` (each run deactivated again, untimed).
fn activate_time(home: &Path, user: &Path, id: &str, runs: usize) -> Duration {
    let samples = (0..runs)
        .map(|_| {
            let took = run(home, user, &["activate", id]);
            run(home, user, &["deactivate", id]);
            took
        })
        .collect();
    median(samples)
}

/// A pack of 15 files: manifest, `SKILL.md`, an executable script and
/// twelve reference files.
fn write_folder_pack(dir: &Path, id: &str, skill: &str) {
    write_pack(dir, id, skill);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::create_dir_all(dir.join("references")).unwrap();
    let script = dir.join("scripts/run.sh");
    std::fs::write(&script, "#!/bin/sh\necho run\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for i in 0..12 {
        let text = format!("# Reference {i}\n\n{}\n", "Some text. ".repeat(200));
        std::fs::write(dir.join(format!("references/r{i:02}.md")), text).unwrap();
    }
}

/// Median time of one `hcpx activate` of `n` Skill packs of 15 files, with
/// the `agents` target enabled (each run deactivated again, untimed).
fn activate_many(root: &Path, n: usize, runs: usize) -> Duration {
    let home = root.join(format!("many{n}/home"));
    let user = root.join(format!("many{n}/user"));
    std::fs::create_dir_all(&user).unwrap();
    run(&home, &user, &["harness", "enable", "agents"]);
    let ids: Vec<String> = (0..n).map(|i| format!("bench.f{i:04}")).collect();
    for id in &ids {
        let skill = id.replace('.', "-");
        write_folder_pack(&home.join("packs").join(id), id, &skill);
    }
    let mut activate = vec!["activate"];
    activate.extend(ids.iter().map(String::as_str));
    let mut deactivate = activate.clone();
    deactivate[0] = "deactivate";
    let samples = (0..runs)
        .map(|_| {
            let took = run(&home, &user, &activate);
            run(&home, &user, &deactivate);
            took
        })
        .collect();
    median(samples)
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let user = tmp.path().join("user");
    for harness in [".claude", ".codex"] {
        std::fs::create_dir_all(user.join(harness)).unwrap();
    }
    run(&home, &user, &["list"]);
    let one = tmp.path().join("src/bench.one");
    write_pack(&one, "bench.one", "bench-one");
    run(&home, &user, &["install", one.to_str().unwrap()]);

    let none = activate_time(&home, &user, "bench.one", 40);
    run(&home, &user, &["harness", "enable", "--detected"]);
    let three = activate_time(&home, &user, "bench.one", 40);

    // 1,000 activated packs, each with its own Skill, placed in 3 targets.
    let mut ids = Vec::new();
    for i in 0..1000 {
        let id = format!("bench.p{i:04}");
        write_pack(
            &home.join("packs").join(&id),
            &id,
            &format!("bench-p{i:04}"),
        );
        ids.push(id);
    }
    let mut activated = ids.clone();
    activated.push("hcp-cli".into());
    std::fs::write(
        home.join("state.json"),
        serde_json::to_string(&serde_json::json!({"activated": activated, "connected": []}))
            .unwrap(),
    )
    .unwrap();
    run(&home, &user, &["harness", "sync"]);
    let status = median(
        (0..10)
            .map(|_| run(&home, &user, &["harness", "status", "--json"]))
            .collect(),
    );

    let many160 = activate_many(tmp.path(), 160, 5);
    let many320 = activate_many(tmp.path(), 320, 5);

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "activate, no harness target:             {:8.2} ms",
        ms(none)
    );
    println!(
        "activate, 3 targets enabled:             {:8.2} ms  (+{:.2} ms; target <= 2 ms)",
        ms(three),
        ms(three.saturating_sub(none))
    );
    println!(
        "harness status, 1,000 packs x 3 targets: {:8.2} ms  (target < 100 ms)",
        ms(status)
    );
    println!(
        "activate 160 packs x 15 files, 1 target: {:8.2} ms",
        ms(many160)
    );
    println!(
        "activate 320 packs x 15 files, 1 target: {:8.2} ms  (target <= 1.3 x twice 160 = {:.2} ms)",
        ms(many320),
        ms(many160) * 2.6
    );
}
