//! The project scope (HCP.md §15), two figures:
//!
//! 1. `hcpx sync` of a fresh clone whose `hcp.yaml` names 20 packs of one
//!    `file://` git repository (each its own `git+file://…//packs/pN`
//!    entry), on a fresh user store, against what a person would do by
//!    hand: `git clone` of that repository and `cp -r` of its packs into
//!    the agents' folders (target: at most 3×);
//! 2. `hcpx list --json` inside a project (two stores read, five packs in
//!    each) against the same command with `-g` in the same folder (the
//!    user store alone): the extra time of a read inside a project (target:
//!    at most 1 ms).
//!
//! Rounds alternate the two sides of each figure, so a load on the
//! machine falls on both alike; medians are printed. Run with
//! `cargo bench --bench project`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::median;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HCPX: &str = env!("CARGO_BIN_EXE_hcpx");
const PACKS: usize = 20;

fn timed(mut cmd: Command) -> Duration {
    let t = Instant::now();
    let out = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let took = t.elapsed();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn git(dir: &Path, args: &[&str]) {
    let mut cmd = Command::new("git");
    cmd.args(["-c", "user.email=b@e.nch", "-c", "user.name=bench"])
        .args(args)
        .current_dir(dir);
    timed(cmd);
}

/// A pack with its own Skill name.
fn write_pack(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("pack.yaml"),
        format!(
            "hcp: \"1\"\nid: bench.p{n}\nname: Bench\nversion: 1.0.0\ndescription: A benchmark pack.\n\
             binding: {{kind: public}}\ncommands:\n  - key: run\n    summary: Run true\n    effect: read\n\
             \x20   adapter: {{kind: process, program: \"true\"}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: bench-p{n}\ndescription: Bench.\n---\nUse `run`.\n"),
    )
    .unwrap();
    std::fs::write(dir.join("scripts/tool.sh"), "#!/bin/sh\necho tool\n").unwrap();
}

fn hcpx(cwd: &Path, root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(HCPX);
    cmd.args(args)
        .current_dir(cwd)
        .env("HOME", root.join("home"))
        .env("HCP_HOME", root.join("userstore"))
        .env_remove("CLAUDE_CONFIG_DIR");
    cmd
}

fn sync_figure(tmp: &Path) {
    let repo = tmp.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main", "."]);
    for n in 0..PACKS {
        write_pack(&repo.join(format!("packs/p{n}")), n);
    }
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "packs"]);
    // The project, made once: init, one entry per pack, a first sync that
    // writes hcp.lock, committed.
    let proj = tmp.join("proj");
    std::fs::create_dir_all(tmp.join("home/.claude")).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    git(&proj, &["init", "-q", "-b", "main", "."]);
    timed(hcpx(&proj, tmp, &["init"]));
    let mut yaml = std::fs::read_to_string(proj.join("hcp.yaml")).unwrap();
    yaml = yaml.replace("packs: []\n", "packs:\n");
    let url = format!("file://{}", repo.display());
    let entries: String = (0..PACKS)
        .map(|n| format!("  - id: bench.p{n}\n    source: git+{url}//packs/p{n}\n"))
        .collect();
    yaml = yaml.replacen("packs:\n", &format!("packs:\n{entries}"), 1);
    std::fs::write(proj.join("hcp.yaml"), yaml).unwrap();
    timed(hcpx(&proj, tmp, &["sync"]));
    git(&proj, &["add", "hcp.yaml", "hcp.lock"]);
    git(&proj, &["commit", "-qm", "packs"]);

    let (mut ours, mut by_hand) = (Vec::new(), Vec::new());
    for round in 0..5 {
        let dir = tmp.join(format!("round{round}"));
        std::fs::create_dir_all(dir.join("home/.claude")).unwrap();
        git(&dir, &["clone", "-q", proj.to_str().unwrap(), "clone"]);
        let clone = dir.join("clone");
        ours.push(timed(hcpx(&clone, &dir, &["sync"])));
        // By hand: clone the packs' repository, copy each pack into the
        // two agents' folders.
        let t = Instant::now();
        let mut cmd = Command::new("git");
        cmd.args(["clone", "-q", &url, "by-hand"]).current_dir(&dir);
        timed(cmd);
        for target in [".claude/skills", ".agents/skills"] {
            let into = dir.join("copies").join(target);
            std::fs::create_dir_all(&into).unwrap();
            let mut cp = Command::new("cp");
            cp.arg("-r");
            for n in 0..PACKS {
                cp.arg(dir.join(format!("by-hand/packs/p{n}")));
            }
            cp.arg(&into);
            timed(cp);
        }
        by_hand.push(t.elapsed());
    }
    let (ours, by_hand) = (median(ours), median(by_hand));
    println!(
        "sync of a fresh clone, {PACKS} file:// packs: {:.1} ms; git clone + cp -r: {:.1} ms; ratio {:.2} (target <= 3)",
        ours.as_secs_f64() * 1e3,
        by_hand.as_secs_f64() * 1e3,
        ours.as_secs_f64() / by_hand.as_secs_f64()
    );
}

fn list_figure(tmp: &Path) {
    let root = tmp.join("list");
    let proj = root.join("proj");
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    timed(hcpx(&proj, &root, &["init"]));
    for n in 0..5 {
        let dir = root.join(format!("src/p{n}"));
        write_pack(&dir, n);
        timed(hcpx(&proj, &root, &["add", dir.to_str().unwrap()]));
        let dir = root.join(format!("src/u{n}"));
        write_pack(&dir, n + 100);
        timed(hcpx(&proj, &root, &["-g", "add", dir.to_str().unwrap()]));
    }
    // Lint caches warm, as a user's store is.
    timed(hcpx(&proj, &root, &["list", "--json"]));
    timed(hcpx(&proj, &root, &["-g", "list", "--json"]));
    let (mut inside, mut user) = (Vec::new(), Vec::new());
    for _ in 0..41 {
        inside.push(timed(hcpx(&proj, &root, &["list", "--json"])));
        user.push(timed(hcpx(&proj, &root, &["-g", "list", "--json"])));
    }
    let (inside, user) = (median(inside), median(user));
    println!(
        "list --json inside a project (5 + 5 packs): {:.2} ms; the user store alone (-g): {:.2} ms; extra {:.2} ms (target <= 1)",
        inside.as_secs_f64() * 1e3,
        user.as_secs_f64() * 1e3,
        (inside.as_secs_f64() - user.as_secs_f64()) * 1e3
    );
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    sync_figure(tmp.path());
    list_figure(tmp.path());
}
