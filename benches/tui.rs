//! `cargo bench --bench tui`: the TUI with 10,000 catalog packs, timed with
//! plain `Instant` loops; prints medians. Targets:
//!
//! - first frame (the "loading…" frame, before the snapshot): < 150 ms
//! - a filter keystroke (re-rank 10,000 packs + redraw on `TestBackend`): < 5 ms
//! - resident memory of the real `hcpx tui` (in tmux) with 10,000 packs: < 50 MB
//!
//! - the marks' read after a load (`tui::marks::read`: verify of every
//!   installed pack, harness status, catalog versions) on 1,000 installed
//!   packs with 3 harness targets enabled: < 100 ms
//!
//! Also printed: how long the snapshot of 10,000 packs takes to arrive (it
//! loads in a worker while the UI already answers keys) and a cursor move.
//! `HCPX_BENCH_PACKS` changes the number of packs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use hcpx::engine::ops::Engine;
use hcpx::tui::action::Action;
use hcpx::tui::{App, Config, Runner};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const WORDS: &[&str] = &[
    "notes",
    "calendar",
    "weather",
    "github",
    "files",
    "search",
    "mail",
    "chat",
    "deploy",
    "metrics",
    "billing",
    "tickets",
    "docs",
    "clock",
    "translate",
    "maps",
];

fn write_catalog(dir: &Path, count: usize) {
    for i in 0..count {
        let word = WORDS[i % WORDS.len()];
        let id = format!("bench.{word}-{i:05}");
        let root = dir.join(&id);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("pack.yaml"),
            format!(
                "hcp: \"1\"\nid: {id}\nname: Bench {word} {i}\nversion: 1.{}.{}\ndescription: A {word} pack for the benchmark, number {i}.\ncommands:\n  - key: run\n    summary: Run it\n    effect: read\n    adapter: {{kind: process, program: \"true\"}}\n",
                i % 7,
                i % 13
            ),
        )
        .unwrap();
        std::fs::write(
            root.join("SKILL.md"),
            format!("---\nname: bench-{i}\ndescription: Bench {word}.\n---\nUse `run`.\n"),
        )
        .unwrap();
    }
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn p95(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[(samples.len() * 95 / 100).min(samples.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn runner(home: &Path, catalog: &Path) -> Runner<TestBackend> {
    let engine = Engine::open(home, &[catalog.to_path_buf()], "user").unwrap();
    let mut config = Config::new("user");
    config.show_timings = false;
    Runner::new(
        engine,
        App::new(config),
        Terminal::new(TestBackend::new(120, 40)).unwrap(),
    )
}

#[allow(clippy::too_many_lines)] // a long scenario, not yet split (issue 18)
fn main() {
    let count: usize = std::env::var("HCPX_BENCH_PACKS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    write_catalog(&catalog, count);
    println!("hcpx tui benchmarks with {count} catalog packs (TestBackend 120×40)");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    // First frame and time to the loaded list.
    let mut first = Vec::new();
    let mut loaded = Vec::new();
    for run in 0..5 {
        let home = dir.path().join(format!("home-{run}"));
        rt.block_on(async {
            let t0 = Instant::now();
            let mut r = runner(&home, &catalog);
            r.start();
            r.draw().unwrap();
            first.push(t0.elapsed());
            r.settle().await.unwrap();
            loaded.push(t0.elapsed());
            assert_eq!(r.app.packs().entries.len(), count + 1);
        });
    }
    println!(
        "first frame (loading…):          median {}  (target < 150 ms)",
        ms(median(&mut first))
    );
    println!(
        "snapshot loaded and drawn:       median {}  (in a worker; keys answered meanwhile)",
        ms(median(&mut loaded))
    );

    // Filter keystrokes and cursor moves on the loaded list.
    let home = dir.path().join("home-0");
    rt.block_on(async {
        let mut r = runner(&home, &catalog);
        r.start();
        r.settle().await.unwrap();
        let mut keystrokes = Vec::new();
        let mut first_keys = Vec::new();
        let queries = [
            "notes",
            "wthr",
            "gh-12",
            "bench.mail-0999",
            "zzz",
            "deploy-4",
        ];
        for round in 0..10 {
            for q in queries {
                r.dispatch(Action::Key(hcpx::tui::keys::Cmd::Filter));
                r.draw().unwrap();
                for (n, c) in q.chars().enumerate() {
                    let t0 = Instant::now();
                    r.dispatch(Action::FilterChar(c));
                    r.draw().unwrap();
                    let took = t0.elapsed();
                    if round > 0 {
                        keystrokes.push(took);
                        if n == 0 {
                            first_keys.push(took);
                        }
                    }
                }
                r.dispatch(Action::FilterClear);
                r.draw().unwrap();
            }
        }
        println!(
            "filter keystroke + redraw:       median {}  p95 {}  (target < 5 ms)",
            ms(median(&mut keystrokes)),
            ms(p95(&mut keystrokes))
        );
        println!(
            "  first character of a query:    median {}  (ranks all {count})",
            ms(median(&mut first_keys))
        );
        let mut moves = Vec::new();
        for i in 0..2000 {
            let t0 = Instant::now();
            r.handle_event(&Event::Key(KeyEvent::new(
                if i % 500 < 250 {
                    KeyCode::Char('j')
                } else {
                    KeyCode::Char('k')
                },
                KeyModifiers::NONE,
            )));
            r.draw().unwrap();
            moves.push(t0.elapsed());
        }
        println!(
            "cursor move + redraw:            median {}",
            ms(median(&mut moves))
        );
    });
    drop(rt);

    marks_bench(dir.path());
    rss(dir.path(), &catalog, count);
}

/// The marks' read after a load on 1,000 installed, activated packs
/// locked in `hcp.lock`, their Skills placed in 3 harness targets: the
/// first read of a session, then the reads after it (as after each load).
#[allow(clippy::too_many_lines)] // a long scenario, not yet split (issue 18)
fn marks_bench(dir: &Path) {
    use hcpx::engine::harness::{HarnessEnv, TargetName};
    use hcpx::engine::store::digest;
    let home = dir.join("home-marks");
    let mut engine = Engine::open(&home, &[], "user").unwrap();
    engine.set_harness_env(HarnessEnv {
        home: dir.join("user-marks"),
        ..HarnessEnv::default()
    });
    let mut packs = serde_json::Map::new();
    let mut activated = vec!["hcp-cli".to_string()];
    for i in 0..1000 {
        let id = format!("bench.m{i:04}");
        let root = home.join("packs").join(&id);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("pack.yaml"),
            format!(
                "hcp: \"1\"\nid: {id}\nname: Bench {i}\nversion: 1.0.0\ndescription: A pack.\ncommands:\n  - key: run\n    summary: Run it\n    effect: read\n    adapter: {{kind: process, program: \"true\"}}\n"
            ),
        )
        .unwrap();
        std::fs::write(
            root.join("SKILL.md"),
            format!("---\nname: bench-m{i:04}\ndescription: Bench.\n---\nUse `run`.\n"),
        )
        .unwrap();
        packs.insert(
            id.clone(),
            serde_json::json!({
                "digest": digest::digest(&root).unwrap(),
                "source": {"kind": "dir", "path": root.display().to_string()},
                "version": "1.0.0",
            }),
        );
        activated.push(id);
    }
    activated.sort();
    let lock = serde_json::json!({"packs": packs, "version": 1});
    std::fs::write(home.join("hcp.lock"), lock.to_string()).unwrap();
    std::fs::write(
        home.join("state.json"),
        serde_json::json!({"activated": activated, "connected": []}).to_string(),
    )
    .unwrap();
    let targets = [
        TargetName::Agents,
        TargetName::ClaudeCode,
        TargetName::Codex,
    ];
    engine.harness_enable(&targets).unwrap();
    // Every read while the files are new reads everything (a signature
    // with a time less than SETTLED old is not kept).
    let mut fresh = Vec::new();
    for _ in 0..5 {
        let t0 = Instant::now();
        let marks = hcpx::tui::marks::read(&engine);
        fresh.push(t0.elapsed());
        assert!(
            marks.integrity.is_empty() && marks.harness.is_empty(),
            "{marks:?}"
        );
    }
    std::thread::sleep(hcpx::tui::marks::SETTLED + Duration::from_millis(100));
    let t0 = Instant::now();
    hcpx::tui::marks::read(&engine);
    let first = t0.elapsed();
    let mut samples = Vec::new();
    for _ in 0..10 {
        let t0 = Instant::now();
        hcpx::tui::marks::read(&engine);
        samples.push(t0.elapsed());
    }
    // One Skill edited by hand in a target: the next read reads it all.
    let placed = dir.join("user-marks/.agents/skills/bench-m0500/SKILL.md");
    std::fs::write(&placed, "edited\n").unwrap();
    let t0 = Instant::now();
    let marks = hcpx::tui::marks::read(&engine);
    let changed = t0.elapsed();
    assert!(marks.harness.contains("bench.m0500"), "{marks:?}");
    let t0 = Instant::now();
    let verify = engine.verify(&[]).unwrap();
    let verify_took = t0.elapsed();
    assert!(verify.ok);
    let t0 = Instant::now();
    engine.harness_status(None).unwrap();
    let status_took = t0.elapsed();
    println!(
        "marks after a load, 1,000 packs × 3 targets (target < 100 ms):\n  \
         all read (first of a session, or just changed): median {} (verify alone {}, harness status alone {})\n  \
         nothing changed since the last read: median {} (its first read {})\n  \
         a placed Skill edited since: {}",
        ms(median(&mut fresh)),
        ms(verify_took),
        ms(status_took),
        ms(median(&mut samples)),
        ms(first),
        ms(changed)
    );
}

/// Resident memory of the real binary, in tmux, once the list is loaded.
fn rss(dir: &Path, catalog: &Path, count: usize) {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("resident memory: skipped (no tmux)");
        return;
    }
    let socket = format!("hcpx-bench-{}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket])
            .args(args)
            .output()
            .unwrap()
    };
    let home = dir.join("home-rss");
    let bin = env!("CARGO_BIN_EXE_hcpx");
    let command = format!(
        "exec env HCP_HOME={} HCPX_LOG={} {bin} tui --catalog {}",
        home.display(),
        dir.join("tui.log").display(),
        catalog.display()
    );
    let t0 = Instant::now();
    tmux(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "bench",
        "-x",
        "120",
        "-y",
        "40",
        &command,
    ]);
    let total = format!("Packs {}", count + 1);
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut shown = None;
    while Instant::now() < deadline {
        let screen = tmux(&["capture-pane", "-p", "-t", "bench"]);
        if String::from_utf8_lossy(&screen.stdout).contains(&total) {
            shown = Some(t0.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = String::from_utf8_lossy(
        &tmux(&["display-message", "-p", "-t", "bench", "#{pane_pid}"]).stdout,
    )
    .trim()
    .to_string();
    // Let the allocator settle after the load, then read.
    std::thread::sleep(Duration::from_millis(500));
    let (rss, peak) = memory(&pid);
    match shown {
        Some(t) => println!(
            "real hcpx tui in tmux: list of {} shown after {}",
            count + 1,
            ms(t)
        ),
        None => println!("real hcpx tui in tmux: the list did not appear in 120 s"),
    }
    println!("resident memory (VmRSS):         {rss}  peak (VmHWM) {peak}  (target < 50 MB)");
    // Full reloads (`r`; also what a change by another process triggers).
    for _ in 0..3 {
        tmux(&["send-keys", "-t", "bench", "r"]);
        std::thread::sleep(Duration::from_millis(100));
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            let screen = tmux(&["capture-pane", "-p", "-t", "bench"]);
            if !String::from_utf8_lossy(&screen.stdout).contains("loading…") {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let (rss_after, peak_after) = memory(&pid);
    println!("  after 3 full reloads (r):      {rss_after}  peak (VmHWM) {peak_after}");
    tmux(&["send-keys", "-t", "bench", "q"]);
    std::thread::sleep(Duration::from_millis(200));
    tmux(&["kill-server"]);
}

/// `VmRSS` and `VmHWM` of a process, as `/proc` spells them.
fn memory(pid: &str) -> (String, String) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .map(|l| l.trim_start_matches(name).trim().to_string())
            .unwrap_or_else(|| "?".into())
    };
    (field("VmRSS:"), field("VmHWM:"))
}
