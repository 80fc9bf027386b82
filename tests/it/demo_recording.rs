//! The demo recording (`screenshots/demo.cast`, made by
//! `bash assets/demo/record.sh`) is a valid asciinema v2 file made from the
//! committed tour (`assets/demo/tour.keys`) and its setup
//! (`assets/demo/setup.sh`), and shows today's UI; the tour still works: it
//! is replayed here against the real binary (in tmux) in the same setup,
//! the screen is checked at each of its `= NAME` marks (the install, the
//! matrix, the upgrade diff, the Harnesses view, the project…), and the
//! stores it leaves are checked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::require_tools;
use crate::tmuxkit::Session;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The first 16 hex digits of the SHA-256 of the files, one after the
/// other (`cat FILES | sha256sum`, as `record.sh` computes it).
fn sha256_prefix(paths: &[PathBuf]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for path in paths {
        hasher.update(std::fs::read(path).unwrap());
    }
    let digest = hasher.finalize();
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The recording's output with its escape sequences (CSI: colours, cursor
/// moves) taken out, so words split only by a style change read whole.
fn strip_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.next_if_eq(&'[').is_some() {
            // Parameters and intermediates, then one final byte.
            for p in chars.by_ref() {
                if ('@'..='~').contains(&p) {
                    break;
                }
            }
        } else {
            chars.next();
        }
    }
    out
}

#[test]
fn the_recording_is_asciinema_v2_made_from_the_committed_tour() {
    let text = std::fs::read_to_string(repo().join("screenshots/demo.cast")).unwrap();
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["version"], 2);
    assert_eq!(
        (header["width"].as_u64(), header["height"].as_u64()),
        (Some(110), Some(32))
    );
    let hash = sha256_prefix(&[
        repo().join("assets/demo/tour.keys"),
        repo().join("assets/demo/setup.sh"),
    ]);
    assert_eq!(
        header["title"].as_str(),
        Some(format!("hcpx tour {hash}").as_str()),
        "the recording is out of date: run `bash assets/demo/record.sh`"
    );
    let mut last = 0.0;
    let mut screen = String::new();
    for line in lines {
        let event: Value = serde_json::from_str(line).unwrap();
        let time = event[0].as_f64().unwrap();
        assert!(time >= last, "event times go backwards");
        last = time;
        assert_eq!(event[1], "o");
        screen.push_str(event[2].as_str().unwrap());
    }
    let text = strip_escapes(&screen);
    // Today's UI, each scene of the tour: the focus marker, the mcp column,
    // the key bar's words, the fix line, the upgrade diff, the Harnesses
    // view, the project's SCOPE column.
    for expected in [
        "▶ Packs",
        "▶ Availability",
        "demo.sysinfo",
        "✓ mcp",
        "⏎ commands",
        "␣ mark",
        "@ log",
        "DEMO_API_TOKEN",
        "fix:",
        "release-notes",
        "demo.clock 1.0.0 → 1.1.0",
        "▲ runs the program sleep",
        "TARGET",
        "enabled claude-code",
        "SCOPE",
        "project myapp",
    ] {
        assert!(
            text.contains(expected),
            "the recording never shows {expected:?}: run `bash assets/demo/record.sh`"
        );
    }
    // The terminal is restored at the end (alternate screen left).
    assert!(screen.contains("\u{1b}[?1049l"));
}

/// The tour (`assets/demo/tour.keys`, the format `drive.py` reads) in
/// parts: the first in the setup's folder, each `cd DIR` line starting the
/// next in DIR. A part is its steps (each split into keys by tmux name:
/// `<Enter>` and the like, else one character at a time, sent literally)
/// and its `= NAME` marks.
fn tour() -> Vec<Part> {
    let text = std::fs::read_to_string(repo().join("assets/demo/tour.keys")).unwrap();
    let mut parts = vec![Part {
        folder: None,
        items: Vec::new(),
    }];
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(folder) = line.strip_prefix("cd ") {
            parts.push(Part {
                folder: Some(folder.trim().to_string()),
                items: Vec::new(),
            });
            continue;
        }
        let items = &mut parts.last_mut().unwrap().items;
        if let Some(name) = line.strip_prefix('=') {
            items.push(Item::Mark(name.trim().to_string()));
            continue;
        }
        // The delay is the recording's pacing; the replay waits for states.
        let (delay, keys) = line.split_once(' ').unwrap_or((line, ""));
        assert!(
            delay.parse::<f64>().is_ok(),
            "tour.keys:{}: {line}",
            number + 1
        );
        let keys = keys.trim();
        items.push(Item::Step(number + 1, keys.to_string(), split_keys(keys)));
    }
    parts
}

struct Part {
    folder: Option<String>,
    items: Vec<Item>,
}

enum Item {
    /// Line number, the keys as written, the keys to send.
    Step(usize, String, Vec<Key>),
    /// `= NAME`: a point whose screen [`FRAMES`] describes.
    Mark(String),
}

fn split_keys(keys: &str) -> Vec<Key> {
    let mut split = Vec::new();
    let mut rest = keys;
    while let Some(c) = rest.chars().next() {
        let named = rest
            .strip_prefix('<')
            .and_then(|r| r.split_once('>'))
            .and_then(|(name, after)| Some((tmux_key(name)?, after)));
        match named {
            Some((key, after)) => {
                split.push(Key::Named(key));
                rest = after;
            }
            None => {
                split.push(Key::Text(c));
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    split
}

enum Key {
    Named(&'static str),
    Text(char),
}

/// `drive.py`'s key names as tmux names.
fn tmux_key(name: &str) -> Option<&'static str> {
    Some(match name {
        "Enter" => "Enter",
        "Esc" => "Escape",
        "Tab" => "Tab",
        "BackTab" => "BTab",
        "Space" => "Space",
        "Up" => "Up",
        "Down" => "Down",
        "Right" => "Right",
        "Left" => "Left",
        "Backspace" => "BSpace",
        "C-c" => "C-c",
        _ => return None,
    })
}

/// What the screen shows at each mark of the tour: today's UI, so a tour
/// (and a recording made from it) that no longer shows it fails here.
const FRAMES: &[(&str, &[&str])] = &[
    (
        "browse",
        // The focus marker, the update mark on demo.clock, today's key bar.
        &[
            "▶ Packs",
            "↑ demo.clock",
            "⏎ commands",
            "/ filter",
            "␣ mark",
            "@ log",
        ],
    ),
    (
        "installed",
        &[
            "▶   demo.sysinfo     1.0.0   ● executable",
            "✓ mcp",
            "$ hcpx activate demo.sysinfo",
        ],
    ),
    (
        "matrix",
        &[
            "▶ Availability demo.sysinfo",
            "activated connected grant adapter executable",
            "summary read   ✓",
            "`hcpx mcp --principal user` lists it as a tool",
            "⏎ run",
        ],
    ),
    (
        "fix",
        &[
            "needs DEMO_API_TOKEN set",
            "fix: press e to set DEMO_API_TOKEN",
        ],
    ),
    (
        "diff",
        &[
            "demo.clock 1.0.0 → 1.1.0",
            "new command timer (read)",
            "▲ runs the program sleep",
            "y upgrade",
        ],
    ),
    (
        "harnesses",
        &[
            "TARGET       DETECTED  ENABLED",
            "▶ claude-code  yes       yes",
            "enabled claude-code",
            "mcp: not configured in ~/.claude.json",
        ],
    ),
    ("log", &["▶Log", "$ hcpx harness enable claude-code"]),
    (
        "help",
        &["Keys", "harness targets on/off", "upgrade: diff, then y/n"],
    ),
    (
        "project",
        &[
            "project myapp",
            "SCOPE",
            "▶ demo.text        ● executable  project",
            "demo.sysinfo     ● executable  user",
            "installed in the project's store",
        ],
    ),
];

/// Builds the tour's world with `assets/demo/setup.sh` (as `record.sh`
/// does) in `work`.
fn setup(work: &Path) {
    let out = Command::new("bash")
        .arg(repo().join("assets/demo/setup.sh"))
        .arg(env!("CARGO_BIN_EXE_hcpx"))
        .arg(work)
        .env_remove("HCP_HOME")
        .output()
        .unwrap();
    assert!(out.status.success(), "setup.sh: {out:?}");
}

/// Replays one part of the tour in tmux, waiting at each mark for the
/// screen [`FRAMES`] describes; returns the marks passed.
fn replay(n: usize, part: &Part, work: &Path) -> Vec<String> {
    let cwd = part
        .folder
        .as_ref()
        .map_or(work.to_path_buf(), |f| work.join(f));
    let log = work.join(format!("tui-{n}.log"));
    let (home, hcp, catalog) = (work.join("home"), work.join("hcp"), work.join("catalog"));
    let s = Session::start_at(
        &format!("tour{n}"),
        &[("HCP_HOME", &hcp), ("HOME", &home), ("HCPX_LOG", &log)],
        &["tui", "--catalog", catalog.to_str().unwrap()],
        (110, 32),
        Some(&cwd),
    );
    s.wait_loaded();
    let mut shown = Vec::new();
    for item in &part.items {
        match item {
            Item::Mark(name) => {
                // The frame is drawn just after the work settles: wait for
                // it, with a bound (the screen is in the panic).
                let expected = frame(name);
                s.wait_for(
                    &format!("tour.keys `= {name}` to show {expected:?}"),
                    |screen| expected.iter().all(|text| screen.contains(text)),
                );
                shown.push(name.clone());
            }
            Item::Step(line, keys, split) => {
                for key in split {
                    match key {
                        Key::Named(name) => s.keys(&[name]),
                        Key::Text(c) => s.type_text(&c.to_string()),
                    }
                    s.settle_for(&format!("tour.keys:{line} `{keys}`"));
                }
            }
        }
    }
    let refused: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.contains("refused"))
        .map(str::to_string)
        .collect();
    assert!(
        refused.is_empty(),
        "the TUI refused keys: {refused:?}\n{}",
        s.screen()
    );
    assert_eq!(
        s.wait_exit(),
        0,
        "the TUI did not quit cleanly: {}",
        s.screen()
    );
    shown
}

/// Replays the tour's keys on the real binary in tmux, at the recording's
/// size, in the world `setup.sh` builds. The recording paces the keys with
/// fixed delays; here every key waits for the state it needs instead. The
/// TUI runs with `HCPX_LOG_LEVEL=debug`, so its log says when it handled
/// each key and when no work is left; the next key goes only once the
/// previous one was handled and the work it started (an install, say) has
/// finished. The screen alone cannot tell that: it also changes on its own
/// (a pack's details arriving, the status line clearing), so a key could
/// pass for handled before it was read, and the next one be refused as
/// busy. At each `= NAME` mark the screen is checked against [`FRAMES`],
/// and at the end the stores the tour leaves.
#[test]
fn the_tour_replays_against_the_real_binary() {
    // The tour runs demo.sysinfo's summary, a python3 script.
    if !require_tools(&["tmux", "python3", "bash"]) {
        return;
    }
    let parts = tour();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().canonicalize().unwrap();
    setup(&work);
    let mut shown = Vec::new();
    for (n, part) in parts.iter().enumerate() {
        shown.extend(replay(n, part, &work));
    }
    check_frames(&shown);
    check_stores(&work);
}

/// What [`FRAMES`] says the screen shows at mark `name`.
fn frame(name: &str) -> &'static [&'static str] {
    FRAMES.iter().find(|(mark, _)| *mark == name).map_or_else(
        || panic!("tour.keys `= {name}`: not in FRAMES"),
        |(_, e)| *e,
    )
}

/// Every frame of [`FRAMES`] is a mark the tour passed.
fn check_frames(shown: &[String]) {
    for (name, _) in FRAMES {
        assert!(
            shown.iter().any(|mark| mark == name),
            "tour.keys has no `= {name}` mark: the tour no longer shows it"
        );
    }
}

/// What the tour leaves: its packs installed and activated in the user
/// store, demo.clock upgraded, Claude Code's folder (in the throwaway
/// home) holding the Skills.
fn check_stores(work: &Path) {
    let hcp = work.join("hcp");
    assert_eq!(
        crate::common::installed_version(&hcp, "demo.clock"),
        "1.1.0",
        "the tour's `U`, `y` did not upgrade demo.clock"
    );
    let skills = work.join("home/.claude/skills");
    for skill in ["demo-sysinfo", "demo-clock", "release-notes"] {
        assert!(
            skills.join(skill).join("SKILL.md").is_file(),
            "enabling claude-code did not place {skill} in {}",
            skills.display()
        );
    }
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(hcp.join("state.json")).unwrap()).unwrap();
    for id in ["demo.sysinfo", "demo.weather-api", "release-notes"] {
        assert!(
            hcp.join("packs").join(id).is_dir(),
            "{id} not installed by the tour"
        );
        assert!(
            state["activated"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v == id),
            "{id} not activated by the tour"
        );
    }
}
