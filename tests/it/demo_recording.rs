//! The demo recording (`screenshots/demo.cast`, made by
//! `bash assets/demo/record.sh`) is a valid asciinema v2 file made from the
//! committed tour (`assets/demo/tour.keys`), and the tour still works: it is
//! replayed here against the real binary and the store it leaves is checked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

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

#[test]
fn the_tour_replays_against_the_real_binary() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let hcp = dir.path().join("hcp");
    let mut child = Command::new("python3")
        .arg(repo().join("assets/demo/drive.py"))
        .arg(repo().join("assets/demo/tour.keys"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_hcpx"))
        .args(["tui", "--catalog"])
        .arg(repo().join("assets/packs"))
        .env("HCP_HOME", &hcp)
        .env("HOME", &home)
        .env("HCPX_LOG", dir.path().join("tui.log"))
        .env("TERM", "xterm-256color")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the tour did not finish");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "the TUI did not quit cleanly: {status}");
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(hcp.join("state.json")).unwrap()).unwrap();
    for id in ["demo.sysinfo", "demo.weather-api"] {
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
