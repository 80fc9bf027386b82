//! The demo recording (`screenshots/demo.cast`, made by
//! `bash assets/demo/record.sh`) is a valid asciinema v2 file made from the
//! committed tour (`assets/demo/tour.keys`), and the tour still works: it is
//! replayed here against the real binary (in tmux) and the store it leaves is
//! checked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::require_tools;
use crate::tmuxkit::Session;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sha256_prefix(path: &std::path::Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8(out.stdout).unwrap()[..16].to_string()
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
    let hash = sha256_prefix(&repo().join("assets/demo/tour.keys"));
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
    for expected in [
        "demo.sysinfo",
        "executable",
        "hostname",
        "demo.weather-api",
        "DEMO_API_TOKEN",
    ] {
        assert!(
            screen.contains(expected),
            "the recording never shows {expected}"
        );
    }
    // The terminal is restored at the end (alternate screen left).
    assert!(screen.contains("\u{1b}[?1049l"));
}

/// The tour's steps (`assets/demo/tour.keys`, the format `drive.py` reads),
/// each split into keys by tmux name: `<Enter>` and the like, else one
/// character at a time (sent literally).
fn tour_steps() -> Vec<(usize, String, Vec<Key>)> {
    let text = std::fs::read_to_string(repo().join("assets/demo/tour.keys")).unwrap();
    let mut steps = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
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
        steps.push((number + 1, keys.to_string(), split));
    }
    steps
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

/// Replays the tour's keys on the real binary in tmux, at the recording's
/// size. The recording paces the keys with fixed delays; here every key
/// waits for the state it needs instead. The TUI runs with
/// `HCPX_LOG_LEVEL=debug`, so its log says when it handled each key and
/// when no work is left; the next key goes only once the previous one was
/// handled and the work it started (an install, say) has finished. The
/// screen alone cannot tell that: it also changes on its own (a pack's
/// details arriving, the status line clearing), so a key could pass for
/// handled before it was read, and the next one be refused as busy.
#[test]
fn the_tour_replays_against_the_real_binary() {
    // The tour runs demo.sysinfo's summary, a python3 script.
    if !require_tools(&["tmux", "python3"]) {
        return;
    }
    let steps = tour_steps();
    assert!(!steps.is_empty(), "tour.keys has no steps");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let hcp = dir.path().join("hcp");
    let log = dir.path().join("tui.log");
    let catalog = repo().join("assets/packs");
    let s = Session::start_sized(
        "tour",
        &[("HCP_HOME", &hcp), ("HOME", &home), ("HCPX_LOG", &log)],
        &["tui", "--catalog", catalog.to_str().unwrap()],
        110,
        32,
    );
    s.wait_loaded();
    for (line, keys, split) in &steps {
        for key in split {
            match key {
                Key::Named(name) => s.keys(&[name]),
                Key::Text(c) => s.type_text(&c.to_string()),
            }
            s.settle_for(&format!("tour.keys:{line} `{keys}`"));
        }
    }
    let refused: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.contains("refused"))
        .map(str::to_string)
        .collect();
    assert!(refused.is_empty(), "the TUI refused keys: {refused:?}");
    assert_eq!(
        s.wait_exit(),
        0,
        "the TUI did not quit cleanly: {}",
        s.screen()
    );
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
