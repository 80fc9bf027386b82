//! Benchmarks of the headless CLI (issue targets, measured on the release
//! binary): `hcpx exec` overhead over spawning the program directly (and
//! the exec engine's own share, `exec::run_with` in this process),
//! `availability --json` and `list --json` over 1,000 installed packs, and
//! `lint` of 1,000 packs in one run, `verify` of 1,000 installed packs
//! (against `sha256sum` over the same files), and `install ID` from a
//! 10,000-pack catalog once indexed, and one shell TAB (`HCPX_COMPLETE`)
//! for `hcpx exec <TAB>` and `hcpx exec ID <TAB>` on 1,000 installed packs.
//! Run with `cargo bench --bench cli`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::{median, write_pack};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HCPX: &str = env!("CARGO_BIN_EXE_hcpx");

fn time_runs(runs: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm up
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn run(home: &Path, args: &[&str]) {
    let status = Command::new(HCPX)
        .args(args)
        .env("HCP_HOME", home)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "hcpx {args:?} failed");
}

/// The exec engine alone: `exec::run_with` of a command running `true`, in
/// this process (no CLI start-up, no store), as the median of `runs`.
fn exec_in_process(runs: usize) -> Duration {
    use hcpx::engine::exec::{self, BoundArgs, ExecRequest, Limits, OutputMode};
    use hcpx::engine::pack::manifest::{Adapter, Command as PackCommand, Effect, OutputKind};
    let pack = tempfile::tempdir().unwrap();
    let command = PackCommand {
        key: "run".into(),
        summary: "Run true".into(),
        effect: Effect::Read,
        args: vec![],
        adapter: Adapter::Process {
            program: "true".into(),
            argv: vec![],
            env: Default::default(),
        },
        timeout_ms: 10_000,
        output: OutputKind::Text,
    };
    let args = BoundArgs::new();
    let req = ExecRequest {
        pack_id: "bench.exec",
        pack_dir: pack.path(),
        command: &command,
        args: &args,
        material: &[],
        base_url: None,
        mode: OutputMode::Capture,
        live: None,
    };
    time_runs(runs, || {
        let out = exec::run_with(&req, &Limits::default()).unwrap();
        assert_eq!(out.exit_code, 0);
    })
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    run(&home, &["list"]);

    // A store with 1,000 installed, activated and connected packs, written
    // straight into packs/ (each is lint-clean), and a catalog of 1,000.
    let catalog: PathBuf = tmp.path().join("catalog");
    let ids: Vec<String> = (0..1000).map(|i| format!("bench.p{i:04}")).collect();
    for id in &ids {
        write_pack(&home.join("packs").join(id), id);
        write_pack(&catalog.join(id), id);
    }
    let mut all = ids.clone();
    all.push("hcp-cli".into());
    all.sort();
    std::fs::write(
        home.join("state.json"),
        serde_json::to_string(&serde_json::json!({"activated": all, "connected": all})).unwrap(),
    )
    .unwrap();

    let spawn_true = time_runs(200, || {
        Command::new("true").status().unwrap();
    });
    let engine_true = exec_in_process(200);
    let exec_true = time_runs(200, || run(&home, &["exec", "bench.p0000", "run"]));
    let availability = time_runs(20, || run(&home, &["availability", "--json"]));
    let list = time_runs(20, || run(&home, &["list", "--json"]));
    let dirs: Vec<String> = ids
        .iter()
        .map(|id| catalog.join(id).display().to_string())
        .collect();
    let mut lint_args = vec!["lint", "--json"];
    lint_args.extend(dirs.iter().map(String::as_str));
    let lint = time_runs(10, || run(&home, &lint_args));

    let tabs = complete_bench(&home);
    let (verify, sha256sum) = verify_bench(&home, &ids);
    let install_id = install_from_big_catalog(tmp.path());

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "spawn `true` directly:                 {:8.2} ms",
        ms(spawn_true)
    );
    println!(
        "exec::run_with of `true`, in process:  {:8.2} ms  (overhead {:.2} ms)",
        ms(engine_true),
        ms(engine_true.saturating_sub(spawn_true))
    );
    println!(
        "hcpx exec of a command running `true`: {:8.2} ms  (overhead {:.2} ms; target <= 3 ms)",
        ms(exec_true),
        ms(exec_true.saturating_sub(spawn_true))
    );
    println!(
        "availability --json, 1,000 packs:      {:8.2} ms  (target < 60 ms)",
        ms(availability)
    );
    println!(
        "list --json, 1,000 packs:              {:8.2} ms  (target < 40 ms)",
        ms(list)
    );
    println!(
        "lint of 1,000 packs in one run:        {:8.2} ms  ({:.3} ms per pack; target < 1 ms)",
        ms(lint),
        ms(lint) / 1000.0
    );
    for (what, took) in tabs {
        println!("{what:<39} {:8.2} ms  (target < 20 ms)", ms(took));
    }
    println!(
        "verify --json, 1,000 packs:            {:8.2} ms  (sha256sum over the same files: {:.2} ms)",
        ms(verify),
        ms(sha256sum)
    );
    println!(
        "install ID, 10,000-pack catalog:       {:8.2} ms  (indexed; lint of every pack took 0.6 s)",
        ms(install_id)
    );
}

/// One TAB: `hcpx exec <TAB>` (every installed pack's id) and `hcpx exec
/// ID <TAB>` (its verbs), for bash (values alone) and zsh (with
/// descriptions), as medians.
fn complete_bench(home: &Path) -> Vec<(String, Duration)> {
    let tab = |shell: &str, words: &[&str]| {
        let out = Command::new(HCPX)
            .env("HCP_HOME", home)
            .env("HCPX_COMPLETE", shell)
            .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
            .env("_CLAP_IFS", "\n")
            .arg("--")
            .args(words)
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell} {words:?} failed");
        out.stdout
    };
    let mut out = Vec::new();
    for shell in ["bash", "zsh"] {
        let ids = tab(shell, &["hcpx", "exec", ""]);
        assert!(ids.split(|b| *b == b'\n').count() > 1000, "{shell}: ids");
        let verbs = String::from_utf8(tab(shell, &["hcpx", "exec", "bench.p0500", ""])).unwrap();
        assert!(verbs.contains("run") && verbs.contains("write"), "{verbs}");
        out.push((
            format!("{shell} TAB: exec <TAB>, 1,000 packs:"),
            time_runs(20, || {
                tab(shell, &["hcpx", "exec", ""]);
            }),
        ));
        out.push((
            format!("{shell} TAB: exec ID <TAB>, 1,000 packs:"),
            time_runs(20, || {
                tab(shell, &["hcpx", "exec", "bench.p0500", ""]);
            }),
        ));
    }
    out
}

/// `verify --json` of the 1,000 installed packs (a lock written with their
/// digests), and `sha256sum` over the same files, as medians.
fn verify_bench(home: &Path, ids: &[String]) -> (Duration, Duration) {
    use hcpx::engine::store::digest;
    let mut packs = serde_json::Map::new();
    let mut files = Vec::new();
    for id in ids {
        let dir = home.join("packs").join(id);
        packs.insert(
            id.clone(),
            serde_json::json!({
                "digest": digest::digest(&dir).unwrap(),
                "source": {"kind": "dir", "path": dir.display().to_string()},
                "version": "1.0.0",
            }),
        );
        for name in ["pack.yaml", "SKILL.md"] {
            files.push(dir.join(name));
        }
    }
    let lock = serde_json::json!({"packs": packs, "version": 1});
    std::fs::write(home.join("hcp.lock"), lock.to_string()).unwrap();
    let verify = time_runs(10, || run(home, &["verify", "--json"]));
    let sha256sum = time_runs(10, || {
        let status = Command::new("sha256sum")
            .args(&files)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    });
    (verify, sha256sum)
}

/// `install ID` from a catalog of 10,000 packs, its index built by a first
/// install; the median of installs each followed by an uninstall.
fn install_from_big_catalog(tmp: &Path) -> Duration {
    let home = tmp.join("home-big");
    let catalog = tmp.join("catalog-big");
    for i in 0..10_000 {
        let id = format!("big.p{i:05}");
        write_pack(&catalog.join(&id), &id);
    }
    let cat = catalog.display().to_string();
    let install = ["--catalog", cat.as_str(), "install", "big.p05000"];
    run(&home, &install);
    run(&home, &["uninstall", "big.p05000"]);
    let samples = (0..10)
        .map(|_| {
            let t = Instant::now();
            run(&home, &install);
            let took = t.elapsed();
            run(&home, &["uninstall", "big.p05000"]);
            took
        })
        .collect();
    median(samples)
}
