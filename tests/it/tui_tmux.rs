//! Smoke tests of the real `hcpx` binary's TUI in tmux: type keys with
//! `send-keys`, read the screen with `capture-pane`, and check the store.
//! Each test runs its own tmux server (`-L`), killed by a guard even when
//! the test fails. Waits poll with a deadline; nothing sleeps long.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(30);

/// A tmux server with one session running hcpx; killed on drop.
struct Session {
    socket: String,
    target: String,
}

impl Session {
    /// Starts `hcpx ARGS` in a 120×40 session with the given environment.
    fn start(name: &str, env: &[(&str, &Path)], args: &[&str]) -> Session {
        let ok = Command::new("tmux").arg("-V").output();
        assert!(
            ok.is_ok_and(|o| o.status.success()),
            "these tests need tmux on PATH (apt-get install tmux)"
        );
        let socket = format!("hcpx-test-{name}-{}", std::process::id());
        let session = Session {
            target: format!("{socket}:0"),
            socket,
        };
        let mut cmd = vec!["env".to_string(), "-u".into(), "HCP_PRINCIPAL".into()];
        for (k, v) in env {
            cmd.push(format!("{k}={}", v.display()));
        }
        cmd.push("TERM=xterm-256color".into());
        cmd.push(env!("CARGO_BIN_EXE_hcpx").into());
        cmd.extend(args.iter().map(|a| a.to_string()));
        let mut tmux_args: Vec<String> = [
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            &session.socket,
            "-x",
            "120",
            "-y",
            "40",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        tmux_args.extend(cmd);
        // Keep the pane after hcpx exits, to see what it left on screen.
        tmux_args.extend([";", "set-option", "-g", "remain-on-exit", "on"].map(String::from));
        let out = session.tmux(&tmux_args);
        assert!(out.status.success(), "tmux: {out:?}");
        session
    }

    fn tmux<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap()
    }

    fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.target]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Sends keys by tmux name (`Enter`, `Tab`, `C-c`, or one character).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.target];
        args.extend(keys);
        assert!(self.tmux(&args).status.success());
    }

    /// Types text literally.
    fn type_text(&self, text: &str) {
        assert!(
            self.tmux(&["send-keys", "-t", &self.target, "-l", text])
                .status
                .success()
        );
    }

    /// Polls the screen until `ok` holds; panics with the screen at the
    /// deadline.
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_text(&self, text: &str) -> String {
        self.wait_for(&format!("`{text}`"), |s| s.contains(text))
    }

    /// Waits until hcpx has exited.
    fn wait_exit(&self) {
        let start = Instant::now();
        loop {
            let out = self.tmux(&["display-message", "-p", "-t", &self.target, "#{pane_dead}"]);
            if String::from_utf8_lossy(&out.stdout).trim() == "1" {
                return;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "hcpx did not exit; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

fn catalog() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/packs")
}

fn wait_until(what: &str, ok: impl Fn() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn real_tui_filters_installs_activates_runs_and_quits_restoring_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let log = dir.path().join("tui.log");
    let catalog = catalog();
    let catalog_arg = catalog.to_str().unwrap();
    let s = Session::start(
        "smoke",
        &[("HCP_HOME", &home), ("HCPX_LOG", &log)],
        &["tui", "--catalog", catalog_arg],
    );
    s.wait_for("the pack list", |s| {
        s.contains("hcp-cli") && s.contains("demo.clock")
    });

    s.keys(&["/"]);
    s.type_text("demo.clock");
    s.keys(&["Enter"]);
    s.wait_text("▶ demo.clock");

    s.keys(&["i"]);
    s.wait_text("installed demo.clock 1.0.0");
    assert!(home.join("packs/demo.clock/pack.yaml").is_file());

    s.keys(&["a"]);
    s.wait_text("demo.clock: activated");
    let state = std::fs::read_to_string(home.join("state.json")).unwrap();
    assert!(state.contains("demo.clock"), "{state}");
    assert!(home.join("skills/demo.clock/SKILL.md").is_file());
    s.wait_text("● executable");

    // Run `now` (the first command) with its defaults.
    s.keys(&["x"]);
    s.wait_text("Run demo.clock now");
    s.keys(&["Enter"]);
    s.wait_text("exit 0");
    s.wait_text("$ hcpx exec demo.clock now");

    s.keys(&["q"]);
    s.wait_exit();
    // The alternate screen is gone: the TUI's frame is no longer shown.
    let after = s.screen();
    assert!(!after.contains("Availability"), "{after}");
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains("hcpx tui starts"), "{log}");
    assert!(log.contains("stage=\"install\""), "{log}");
}

#[test]
fn bare_hcpx_on_a_terminal_starts_the_tui_and_ctrl_c_quits() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let log = dir.path().join("tui.log");
    let s = Session::start("bare", &[("HCP_HOME", &home), ("HCPX_LOG", &log)], &[]);
    s.wait_for("the TUI", |s| {
        s.contains("Packs 1") && s.contains("hcp-cli")
    });
    s.keys(&["?"]);
    s.wait_text("any key closes");
    s.keys(&["C-c"]);
    s.wait_exit();
    assert!(!s.screen().contains("Packs"));
}

#[test]
fn another_process_changing_the_store_shows_up_without_restarting() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let log = dir.path().join("tui.log");
    let catalog = catalog();
    let s = Session::start(
        "watch",
        &[("HCP_HOME", &home), ("HCPX_LOG", &log)],
        &["tui", "--catalog", catalog.to_str().unwrap()],
    );
    s.wait_for("the pack list", |s| s.contains("demo.text"));
    wait_until("the store", || home.join("state.json").is_file());
    let out = Command::new(env!("CARGO_BIN_EXE_hcpx"))
        .env("HCP_HOME", &home)
        .args([
            "install",
            "demo.text",
            "--catalog",
            catalog.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    s.wait_for("demo.text to show as installed", |screen| {
        screen
            .lines()
            .any(|l| l.contains("demo.text") && l.contains("◌ installed"))
    });
    s.keys(&["q"]);
    s.wait_exit();
}

#[test]
fn bare_hcpx_without_a_terminal_prints_help() {
    let out = Command::new(env!("CARGO_BIN_EXE_hcpx"))
        .env("HCP_HOME", tempfile::tempdir().unwrap().path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Usage: hcpx"), "{stdout}");
    assert!(stdout.contains("tui"), "{stdout}");
}

#[test]
fn hcpx_tui_without_a_terminal_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hcpx"))
        .env("HCP_HOME", home.path())
        .arg("tui")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("needs a terminal"), "{stderr}");
}
