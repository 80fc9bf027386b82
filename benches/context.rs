//! Benchmark of the context ledger (HCP.md §17.8), on the release binary,
//! side by side with its floor in one run: `hcpx context` over 1,000
//! Skills (`SKILL.md` of 2 to 16 KiB each) in three targets (Claude Code,
//! Codex, Cursor) against one `cat` of those 1,000 `SKILL.md` files.
//! Target: within 2×.
//!
//! Run with `cargo bench --bench context`; the figures are medians
//! (`BENCH_RUNS`, default 15, pairs alternating which side runs first).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::median;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HCPX: &str = env!("CARGO_BIN_EXE_hcpx");
const SKILLS: usize = 1_000;
const TARGETS: [(&str, &str); 3] = [
    ("claude-code", ".claude/skills"),
    ("codex", ".codex/skills"),
    ("cursor", ".cursor/skills"),
];

/// 1,000 Skill folders spread over the three targets' folders of `home`,
/// each `SKILL.md` 2 KiB to 16 KiB (its description 40 to 400
/// characters); returns the `SKILL.md` paths.
fn skills(home: &Path) -> Vec<PathBuf> {
    (0..SKILLS)
        .map(|i| {
            let (_, folder) = TARGETS[i % TARGETS.len()];
            let name = format!("skill-{i:04}");
            let dir = home.join(folder).join(&name);
            std::fs::create_dir_all(&dir).unwrap();
            let size = 2 * 1024 + (i * 7_919) % (14 * 1024);
            let description = "Describes when to use this Skill. ".repeat(1 + i % 12);
            let mut text = format!(
                "---\nname: {name}\ndescription: {}\n---\n# {name}\n\n",
                description.trim()
            );
            while text.len() < size {
                text.push_str("Some guidance for the agent, line after line.\n");
            }
            text.truncate(size);
            let path = dir.join("SKILL.md");
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect()
}

fn hcpx(store: &Path, home: &Path) -> Duration {
    let mut args = vec!["context"];
    for (target, _) in TARGETS {
        args.extend(["--harness", target]);
    }
    let start = Instant::now();
    let out = Command::new(HCPX)
        .args(&args)
        .env("HCP_HOME", store)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("SLASH_COMMAND_TOOL_CHAR_BUDGET")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "hcpx context failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn cat(files: &[PathBuf]) -> Duration {
    let start = Instant::now();
    let status = Command::new("cat")
        .args(files)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "cat failed");
    start.elapsed()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    let dir = tempfile::tempdir().unwrap();
    let (home, store) = (dir.path().join("home"), dir.path().join("store"));
    let files = skills(&home);
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    // Untimed: the store is made, and both sides read from the page cache.
    hcpx(&store, &home);
    cat(&files);
    let (mut ours, mut floor) = (Vec::new(), Vec::new());
    for run_no in 0..runs {
        if run_no % 2 == 0 {
            ours.push(hcpx(&store, &home));
            floor.push(cat(&files));
        } else {
            floor.push(cat(&files));
            ours.push(hcpx(&store, &home));
        }
    }
    let (ours, floor) = (median(ours), median(floor));
    println!(
        "context over {SKILLS} Skills ({:.1} MiB) in 3 targets: {:.1} ms; \
         cat of their SKILL.md: {:.1} ms; ratio {:.2} (target <= 2)",
        bytes as f64 / (1024.0 * 1024.0),
        ms(ours),
        ms(floor),
        ms(ours) / ms(floor)
    );
}
