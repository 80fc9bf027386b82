//! `hcpx list --json` and `hcpx availability --json` over 1,000 installed
//! packs, side by side with `cat` of the same packs' `pack.yaml` and
//! `SKILL.md` (issue 18: within 1.2× of `cat`). The three are run in turn,
//! round after round, so a load on the machine falls on all of them alike;
//! the medians and the ratios are printed. Run with
//! `cargo bench --bench list_vs_cat`; with `HCPX_BEFORE=/path/to/hcpx` (an
//! older build) that binary's two runs join each round too, on a store of
//! its own built the same way (a build whose lint cache differs would
//! otherwise rewrite the other's entries on every run).
//!
//! The packs' files are made more than the lint cache's racy margin before
//! the first timed run, as a store's files are when a user lists it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::{median, write_pack};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HCPX: &str = env!("CARGO_BIN_EXE_hcpx");
const ROUNDS: usize = 31;

/// Runs `cmd` to completion, its output thrown away, and returns how long
/// it took.
fn timed(mut cmd: Command) -> Duration {
    let t = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let took = t.elapsed();
    assert!(status.success(), "{cmd:?} failed");
    took
}

fn hcpx(home: &Path, args: &[&str]) -> Command {
    hcpx_at(HCPX, home, args)
}

fn hcpx_at(bin: &str, home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(args).env("HCP_HOME", home);
    cmd
}

/// A store at `home` (made by `bin`) with 1,000 installed packs, all
/// activated and connected; returns their `pack.yaml` and `SKILL.md` files.
fn store(bin: &str, home: &Path) -> Vec<std::path::PathBuf> {
    timed(hcpx_at(bin, home, &["list"]));
    let ids: Vec<String> = (0..1000).map(|i| format!("bench.p{i:04}")).collect();
    let mut files = Vec::new();
    for id in &ids {
        let dir = home.join("packs").join(id);
        write_pack(&dir, id);
        files.push(dir.join("pack.yaml"));
        files.push(dir.join("SKILL.md"));
    }
    let mut all = ids.clone();
    all.push("hcp-cli".into());
    all.sort();
    std::fs::write(
        home.join("state.json"),
        serde_json::to_string(&serde_json::json!({"activated": all, "connected": all})).unwrap(),
    )
    .unwrap();
    files
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let files = store(HCPX, &home);
    let before = std::env::var("HCPX_BEFORE").ok();
    let before_home = tmp.path().join("home-before");
    if let Some(old) = &before {
        store(old, &before_home);
    }
    // Past the racy margin (2 s) of the lint cache, then one run of each
    // (a cold run, which may write the cache).
    std::thread::sleep(Duration::from_millis(2500));
    let cold_list = timed(hcpx(&home, &["list", "--json"]));
    let cold_avail = timed(hcpx(&home, &["availability", "--json"]));
    if let Some(old) = &before {
        timed(hcpx_at(old, &before_home, &["list", "--json"]));
    }
    let cat = || {
        let mut cmd = Command::new("cat");
        cmd.args(&files);
        cmd
    };
    let (mut cats, mut lists, mut avails) = (Vec::new(), Vec::new(), Vec::new());
    let (mut old_lists, mut old_avails) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        cats.push(timed(cat()));
        lists.push(timed(hcpx(&home, &["list", "--json"])));
        avails.push(timed(hcpx(&home, &["availability", "--json"])));
        if let Some(old) = &before {
            old_lists.push(timed(hcpx_at(old, &before_home, &["list", "--json"])));
            old_avails.push(timed(hcpx_at(
                old,
                &before_home,
                &["availability", "--json"],
            )));
        }
    }
    let (cat, list, avail) = (median(cats), median(lists), median(avails));
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let ratio = |d: Duration| d.as_secs_f64() / cat.as_secs_f64();
    println!(
        "1,000 installed packs, medians of {ROUNDS} rounds (cat, list, availability in turn):"
    );
    println!("cat of pack.yaml and SKILL.md:    {:8.2} ms", ms(cat));
    println!(
        "list --json:                      {:8.2} ms  ({:.2}x cat; target <= 1.2x; first run {:.2} ms)",
        ms(list),
        ratio(list),
        ms(cold_list)
    );
    println!(
        "availability --json:              {:8.2} ms  ({:.2}x cat; target <= 1.2x; first run {:.2} ms)",
        ms(avail),
        ratio(avail),
        ms(cold_avail)
    );
    if before.is_some() {
        let (list, avail) = (median(old_lists), median(old_avails));
        println!(
            "HCPX_BEFORE list --json:          {:8.2} ms  ({:.2}x cat)",
            ms(list),
            ratio(list)
        );
        println!(
            "HCPX_BEFORE availability --json:  {:8.2} ms  ({:.2}x cat)",
            ms(avail),
            ratio(avail)
        );
    }
}
