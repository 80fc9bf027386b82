//! Benchmarks of updates and of `install --skill` from one git repository
//! (HCP.md §13.1, §13.6, §14.8), on the release binary, each side by side
//! with its floor in one run, over `file://` to a bare repository that
//! serves partial clones (`uploadpack.allowFilter`, as GitHub does):
//!
//! - `hcpx outdated` over 181 Skills installed from one repository (laid
//!   out as `plugins/*/skills/*/`, 5 files each, beside 8 MiB of files in
//!   no pack), after a new commit upstream that edits one Skill, against
//!   one `git fetch --depth 1` of the repository's default branch into a
//!   new repository (what any tool that keeps no clone does to see the new
//!   commit; an incremental `git fetch` in a clone kept from before the
//!   commit is printed too). Target: within 2×.
//! - `hcpx install REPO --skill X` (the folder found by name) against
//!   `hcpx install REPO//plugins/p00/skills/X` (the folder named). Target:
//!   within 1.5×.
//!
//! Run with `cargo bench --bench updates`; the figures are medians
//! (`BENCH_RUNS`, default 7).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::median;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HCPX: &str = env!("CARGO_BIN_EXE_hcpx");
const SKILLS: usize = 181;
const PER_PLUGIN: usize = 10;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Runs `git ARGS` in `dir`, which must succeed.
fn git(dir: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=b", "-c", "user.email=b@example.com"])
        .args(["-c", "init.defaultBranch=main"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn hcpx(store: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new(HCPX)
        .args(args)
        .env("HCP_HOME", store)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "hcpx {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// The folder of Skill `n` in the repository.
fn folder(n: usize) -> String {
    format!("plugins/p{:02}/skills/skill-{n:03}", n / PER_PLUGIN)
}

fn write_skill(work: &Path, n: usize, body: &str) {
    let dir = work.join(folder(n));
    std::fs::create_dir_all(dir.join("references")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!(
            "---\nname: skill-{n:03}\ndescription: Benchmark Skill {n}.\n---\n# skill-{n:03}\n{body}\n{}",
            "Some guidance for the agent.\n".repeat(40)
        ),
    )
    .unwrap();
    for f in 0..4 {
        let text = format!("Reference {f} of Skill {n}.\n").repeat(60);
        std::fs::write(dir.join(format!("references/ref-{f}.md")), text).unwrap();
    }
}

/// Bytes git cannot compress (an LCG's output).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d ^ seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 56) as u8
        })
        .collect()
}

/// The work tree and its bare clone (serving partial clones): (work, bare).
fn repository(root: &Path) -> (PathBuf, PathBuf) {
    let work = root.join("work");
    for n in 0..SKILLS {
        write_skill(&work, n, "first");
    }
    std::fs::create_dir_all(work.join("assets")).unwrap();
    for n in 0..8 {
        std::fs::write(work.join(format!("assets/a{n}.bin")), noise(1 << 20, n)).unwrap();
    }
    std::fs::write(work.join("README.md"), "# Benchmark skills\n").unwrap();
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "skills"]);
    let bare = root.join("bare.git");
    git(root, &["clone", "-q", "--bare", "work", "bare.git"]);
    git(&bare, &["config", "uploadpack.allowFilter", "true"]);
    (work, bare)
}

/// `outdated` over 181 Skills against one shallow fetch of the repository.
fn outdated(runs: usize) {
    let root = tempfile::tempdir().unwrap();
    let (work, bare) = repository(root.path());
    let url = format!("git+file://{}", bare.display());
    let store = root.path().join("store");
    hcpx(&store, &["install", &url, "--all"]);
    let kept = root.path().join("kept");
    git(
        root.path(),
        &["clone", "-q", bare.to_str().unwrap(), "kept"],
    );
    write_skill(&work, 7, "edited upstream");
    git(&work, &["commit", "-qam", "edit"]);
    git(&work, &["push", "-q", bare.to_str().unwrap(), "main"]);
    let bare_url = format!("file://{}", bare.display());
    let (mut ours, mut floor, mut incremental) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        let fresh = root.path().join(format!("fresh-{run}"));
        git(
            root.path(),
            &["init", "-q", "--bare", fresh.to_str().unwrap()],
        );
        let fetch = || git(&fresh, &["fetch", "-q", "--depth", "1", &bare_url, "HEAD"]);
        if run % 2 == 0 {
            ours.push(hcpx(&store, &["outdated"]));
            floor.push(fetch());
        } else {
            floor.push(fetch());
            ours.push(hcpx(&store, &["outdated"]));
        }
        // A clone one commit behind: reset it, then time the fetch.
        git(&kept, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
        incremental.push(git(&kept, &["fetch", "-q", "origin"]));
    }
    let (ours, floor, incremental) = (median(ours), median(floor), median(incremental));
    println!(
        "outdated, {SKILLS} Skills of one repository, 1 edited upstream: {:.1} ms; \
         one git fetch --depth 1 of it: {:.1} ms; ratio {:.2} (target <= 2); \
         incremental git fetch in a kept clone: {:.1} ms",
        ms(ours),
        ms(floor),
        ms(ours) / ms(floor),
        ms(incremental)
    );
}

/// `install REPO --skill X` against `install REPO//path/X`, fresh stores.
fn install_skill(runs: usize) {
    let root = tempfile::tempdir().unwrap();
    let (_work, bare) = repository(root.path());
    let url = format!("git+file://{}", bare.display());
    let by_path = format!("{url}//{}", folder(42));
    let (mut ours, mut floor) = (Vec::new(), Vec::new());
    for run in 0..runs {
        let a = root.path().join(format!("a-{run}"));
        let b = root.path().join(format!("b-{run}"));
        let skill = || hcpx(&a, &["install", &url, "--skill", "skill-042"]);
        let path = || hcpx(&b, &["install", &by_path]);
        if run % 2 == 0 {
            ours.push(skill());
            floor.push(path());
        } else {
            floor.push(path());
            ours.push(skill());
        }
    }
    let (ours, floor) = (median(ours), median(floor));
    println!(
        "install REPO --skill X ({SKILLS} Skills, 8 MiB outside them): {:.1} ms; \
         install REPO//path/X: {:.1} ms; ratio {:.2} (target <= 1.5)",
        ms(ours),
        ms(floor),
        ms(ours) / ms(floor)
    );
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    outdated(runs);
    install_skill(runs);
}
