//! Benchmarks of Skill packs (HCP.md §2.6, §12.6, §13.1), on the release
//! binary, each side by side with its floor in one run:
//!
//! - `hcpx install COLLECTION --all` of 80 Skill packs of 15 files each,
//!   then `hcpx activate` of all 80 with one harness target enabled,
//!   against two `cp -r` of the same tree (the store and the target: what
//!   any tool placing whole folders must write). Target: within 3×.
//! - activation is linear in the number of packs: `activate` of 320 in one
//!   call against twice 160. Target: ≤ 1.3×.
//! - `hcpx list` of 80 installed Skill packs against `cat` of their
//!   `SKILL.md` files. Target: under 2×.
//!
//! Run with `cargo bench --bench skills`; the figures are medians.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::median;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HCPX: &str = env!("CARGO_BIN_EXE_hcpx");

/// Every tree a timed run wrote, kept until the benchmark ends: deleting
/// many files (slow on a file system mounted with `discard`, and leaving
/// the inode tables busy for seconds after) must land in no run's time.
type Kept = Vec<Box<dyn std::any::Any>>;
const FILES_PER_SKILL: usize = 15;

/// A throwaway user: a store, a HOME with `~/.claude` (so `claude-code` is
/// detected) and that target enabled.
struct User {
    _dir: tempfile::TempDir,
    home: PathBuf,
    store: PathBuf,
}

impl User {
    fn new(with_target: bool) -> User {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let store = dir.path().join("store");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let user = User {
            _dir: dir,
            home,
            store,
        };
        if with_target {
            user.hcpx(&["harness", "enable", "claude-code"]);
        }
        user
    }

    fn hcpx(&self, args: &[&str]) -> Duration {
        let start = Instant::now();
        let out = Command::new(HCPX)
            .args(args)
            .env("HCP_HOME", &self.store)
            .env("HOME", &self.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let took = start.elapsed();
        assert!(
            out.status.success(),
            "hcpx {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        took
    }
}

/// A collection folder of `count` Skill packs under `skills/`, each a
/// `SKILL.md` and 14 more files (scripts, references, templates), about
/// the shape of the public skill repositories.
fn collection(root: &Path, count: usize, prefix: &str) -> Vec<String> {
    (0..count)
        .map(|i| {
            let name = format!("{prefix}-{i:03}");
            let dir = root.join("skills").join(&name);
            std::fs::create_dir_all(dir.join("scripts")).unwrap();
            std::fs::create_dir_all(dir.join("references")).unwrap();
            std::fs::write(
                dir.join("SKILL.md"),
                format!(
                    "---\nname: {name}\ndescription: Benchmark Skill {i}, with scripts and references.\n---\n\
                     # {name}\n\nRun `scripts/run-0.sh`; read `references/ref-0.md` first.\n{}",
                    "Some guidance for the agent.\n".repeat(40)
                ),
            )
            .unwrap();
            for f in 0..FILES_PER_SKILL - 1 {
                let (path, body) = match f % 3 {
                    0 => (format!("scripts/run-{f}.sh"), "#!/bin/sh\necho ok\n".repeat(20)),
                    1 => (format!("references/ref-{f}.md"), "Reference text.\n".repeat(100)),
                    _ => (format!("template-{f}.txt"), "{{placeholder}}\n".repeat(50)),
                };
                std::fs::write(dir.join(&path), body).unwrap();
                if path.ends_with(".sh") {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = std::fs::Permissions::from_mode(0o755);
                    std::fs::set_permissions(dir.join(&path), mode).unwrap();
                }
            }
            name
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn run(program: &str, args: &[&Path]) -> Duration {
    let start = Instant::now();
    let status = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{program} failed");
    start.elapsed()
}

/// Install `--all` of 80 and activate them with one target, against two
/// `cp -r`. The pairs alternate which side runs first, so drift hits both;
/// each side starts after a `sync`, and every tree written is kept until
/// the end ([`Kept`]).
fn install_and_activate(runs: usize, kept: &mut Kept) {
    let src = tempfile::tempdir().unwrap();
    let names = collection(src.path(), 80, "bench");
    let tree = src.path().join("skills");
    let (mut ours, mut floor) = (Vec::new(), Vec::new());
    for run_no in 0..runs {
        let user = User::new(true);
        let out = tempfile::tempdir().unwrap();
        let (a, b) = (out.path().join("a"), out.path().join("b"));
        let mut args = vec!["activate"];
        args.extend(names.iter().map(String::as_str));
        // Each side starts with nothing dirty (`sync`, untimed): hcpx's
        // one `syncfs` must not write back the other side's copies.
        let copy = || {
            run("sync", &[]);
            run("cp", &[Path::new("-r"), &tree, &a]) + run("cp", &[Path::new("-r"), &tree, &b])
        };
        let hcpx = || {
            run("sync", &[]);
            user.hcpx(&["install", src.path().to_str().unwrap(), "--all"]) + user.hcpx(&args)
        };
        if run_no % 2 == 0 {
            ours.push(hcpx());
            floor.push(copy());
        } else {
            floor.push(copy());
            ours.push(hcpx());
        }
        kept.push(Box::new((user, out)));
    }
    kept.push(Box::new(src));
    let (ours, floor) = (median(ours), median(floor));
    println!(
        "install --all + activate, 80 Skill packs x {FILES_PER_SKILL} files, 1 target: {:.1} ms; \
         two cp -r: {:.1} ms; ratio {:.2} (target <= 3)",
        ms(ours),
        ms(floor),
        ms(ours) / ms(floor)
    );
}

/// Median time of one `activate` of `count` installed packs.
fn activate_many(count: usize, runs: usize, kept: &mut Kept) -> Duration {
    let src = tempfile::tempdir().unwrap();
    let names = collection(src.path(), count, "lin");
    let samples = (0..runs)
        .map(|_| {
            let user = User::new(true);
            user.hcpx(&["install", src.path().to_str().unwrap(), "--all"]);
            // Untimed: the install's writes reach the disk first, so their
            // writeback does not land in the activation's time.
            run("sync", &[]);
            let mut args = vec!["activate"];
            args.extend(names.iter().map(String::as_str));
            let took = user.hcpx(&args);
            kept.push(Box::new(user));
            took
        })
        .collect();
    kept.push(Box::new(src));
    median(samples)
}

fn linear(runs: usize, kept: &mut Kept) {
    let half = activate_many(160, runs, kept);
    let whole = activate_many(320, runs, kept);
    println!(
        "activate of 160: {:.1} ms; of 320: {:.1} ms; 320 / (2 x 160) = {:.2} (target <= 1.3)",
        ms(half),
        ms(whole),
        ms(whole) / (2.0 * ms(half))
    );
}

/// `hcpx list` of 80 installed Skill packs against `cat` of their Skills.
fn list(runs: usize) {
    let src = tempfile::tempdir().unwrap();
    collection(src.path(), 80, "list");
    let user = User::new(false);
    user.hcpx(&["install", src.path().to_str().unwrap(), "--all"]);
    let skills: Vec<PathBuf> = std::fs::read_dir(user.store.join("packs"))
        .unwrap()
        .map(|e| e.unwrap().path().join("SKILL.md"))
        .filter(|p| p.exists())
        .collect();
    let refs: Vec<&Path> = skills.iter().map(PathBuf::as_path).collect();
    let measure = |what: &str| {
        let (mut ours, mut floor) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            ours.push(user.hcpx(&["list"]));
            floor.push(run("cat", &refs));
        }
        let (ours, floor) = (median(ours), median(floor));
        println!(
            "list of 80 Skill packs, {what}: {:.1} ms; cat of their SKILL.md: {:.1} ms; \
             ratio {:.2} (target < 2)",
            ms(ours),
            ms(floor),
            ms(ours) / ms(floor)
        );
    };
    // Just after the install every pack is linted (the lint cache trusts
    // no entry within 2 s of a change); then the cache answers.
    measure("just installed");
    std::thread::sleep(std::time::Duration::from_millis(2500));
    user.hcpx(&["list"]);
    measure("cached");
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    let mut kept = Kept::new();
    install_and_activate(runs, &mut kept);
    linear(runs.min(5), &mut kept);
    list(runs * 3);
}
