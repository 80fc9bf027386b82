//! `hcpx add COLLECTION --all` (HCP.md §15.3, §13.1, §12.6) on the release
//! binary, side by side in one run with what it does in two commands:
//! `hcpx install COLLECTION --all` then `hcpx activate` of the same ids.
//! A collection of 181 Skill folders (the size of the largest public
//! skill repositories), two harness targets enabled; as a folder and as a
//! `file://` git repository in the user store, and as a folder inside a
//! project (an `hcp.yaml` in the working folder, whose targets are the
//! project's). Target: `add` within 1.3× the two commands.
//!
//! Run with `cargo bench --bench add_all`; the figures are medians
//! (`BENCH_RUNS`, default 5, runs of each side, alternating which runs
//! first; each side starts after a `sync`). `BENCH_HCPX=PATH` times
//! another build of hcpx instead (an earlier one, to compare).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::median;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HCPX: &str = env!("CARGO_BIN_EXE_hcpx");

/// The hcpx timed: `BENCH_HCPX`, else the one this bench was built with.
fn hcpx_binary() -> std::ffi::OsString {
    std::env::var_os("BENCH_HCPX").unwrap_or_else(|| HCPX.into())
}
const SKILLS: usize = 181;

/// Every tree a timed run wrote, kept until the benchmark ends (deleting
/// many files must land in no run's time).
type Kept = Vec<Box<dyn std::any::Any>>;

/// A throwaway machine: a store, a HOME with `~/.claude`, and a working
/// folder (a project when `project`), with two targets enabled.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new(project: bool) -> Machine {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home/.claude")).unwrap();
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        let m = Machine { dir };
        if project {
            // `init` enables the detected targets: agents and claude-code.
            m.hcpx(&["init"]);
        } else {
            m.hcpx(&["harness", "enable", "agents", "claude-code"]);
        }
        m
    }

    fn hcpx(&self, args: &[&str]) -> Duration {
        let start = Instant::now();
        let out = Command::new(hcpx_binary())
            .args(args)
            .current_dir(self.dir.path().join("work"))
            .env("HCP_HOME", self.dir.path().join("store"))
            .env("HOME", self.dir.path().join("home"))
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

/// A collection of `SKILLS` Skill folders laid out as the public skill
/// repositories are (`plugins/*/skills/*/`), each a `SKILL.md`, a script
/// and two reference files. Returns the Skill names.
fn collection(root: &Path) -> Vec<String> {
    (0..SKILLS)
        .map(|i| {
            let name = format!("skill-{i:03}");
            let dir = root.join(format!("plugins/p{}/skills/{name}", i % 20));
            std::fs::create_dir_all(dir.join("scripts")).unwrap();
            std::fs::write(
                dir.join("SKILL.md"),
                format!(
                    "---\nname: {name}\ndescription: Benchmark Skill {i}.\n---\n# {name}\n\n\
                     Run `scripts/run.sh`; read `reference.md` first.\n{}",
                    "Some guidance for the agent.\n".repeat(40)
                ),
            )
            .unwrap();
            std::fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho ok\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(dir.join("scripts/run.sh"), mode).unwrap();
            std::fs::write(dir.join("reference.md"), "Reference text.\n".repeat(100)).unwrap();
            std::fs::write(dir.join("template.txt"), "{{placeholder}}\n".repeat(50)).unwrap();
            name
        })
        .collect()
}

/// The collection committed as a git repository.
fn git_repository(root: &Path) {
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@example.invalid")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@example.invalid")
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "main", "."]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "skills"]);
}

fn sync() {
    Command::new("sync").status().unwrap();
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `add SOURCE --all` against `install SOURCE --all` + `activate IDS`, each
/// on a fresh machine per run; prints both medians and their ratio.
fn side_by_side(
    what: &str,
    source: &str,
    names: &[String],
    project: bool,
    runs: usize,
    kept: &mut Kept,
) {
    let mut activate = vec!["activate"];
    activate.extend(names.iter().map(String::as_str));
    let (mut add, mut two) = (Vec::new(), Vec::new());
    let add_run = |kept: &mut Kept| {
        let m = Machine::new(project);
        sync();
        let took = m.hcpx(&["add", source, "--all"]);
        kept.push(Box::new(m));
        took
    };
    let two_run = |kept: &mut Kept| {
        let m = Machine::new(project);
        sync();
        let took = m.hcpx(&["install", source, "--all"]) + m.hcpx(&activate);
        kept.push(Box::new(m));
        took
    };
    for run in 0..runs {
        if run % 2 == 0 {
            add.push(add_run(kept));
            two.push(two_run(kept));
        } else {
            two.push(two_run(kept));
            add.push(add_run(kept));
        }
    }
    let (add, two) = (median(add), median(two));
    println!(
        "{what}: add --all {:.1} ms; install --all + activate {:.1} ms; ratio {:.2} (target <= 1.3)",
        ms(add),
        ms(two),
        ms(add) / ms(two)
    );
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let mut kept = Kept::new();
    let src = tempfile::tempdir().unwrap();
    let folder: PathBuf = src.path().join("skills");
    let names = collection(&folder);
    let folder_text = folder.to_str().unwrap();
    side_by_side(
        &format!("{SKILLS} Skills, a folder, user store, 2 targets"),
        folder_text,
        &names,
        false,
        runs,
        &mut kept,
    );
    let repo = src.path().join("repo");
    collection(&repo);
    git_repository(&repo);
    let url = format!("git+file://{}", repo.display());
    side_by_side(
        &format!("{SKILLS} Skills, a file:// git repository, user store, 2 targets"),
        &url,
        &names,
        false,
        runs,
        &mut kept,
    );
    side_by_side(
        &format!("{SKILLS} Skills, a folder, in a project, 2 project targets"),
        folder_text,
        &names,
        true,
        runs,
        &mut kept,
    );
    kept.push(Box::new(src));
}
