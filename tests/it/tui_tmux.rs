//! Smoke tests of the real `hcpx` binary's TUI in tmux (`tmuxkit`): type
//! keys with `send-keys`, read the screen with `capture-pane`, and check the
//! store. Waits poll for a state with a deadline; nothing sleeps long.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{require_tool, require_tools};
use crate::tmuxkit::{Session, wait_until};
use std::path::{Path, PathBuf};
use std::process::Command;

fn catalog() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/packs")
}

#[test]
fn real_tui_filters_installs_activates_runs_and_quits_restoring_the_terminal() {
    // demo.clock's commands are a python3 script.
    if !require_tools(&["tmux", "python3"]) {
        return;
    }
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

    s.select("demo.clock");

    s.press(&["i"]);
    s.wait_text("installed demo.clock 1.0.0");
    assert!(home.join("packs/demo.clock/pack.yaml").is_file());

    s.press(&["a"]);
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
    let before = s.wait_text("$ hcpx exec demo.clock now");
    assert!(before.contains("Availability"), "{before}");

    s.quit();
    // The alternate screen is gone: the TUI's frame is no longer shown.
    let after = s.screen();
    assert!(!after.contains("Availability"), "{after}");
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains("hcpx tui starts"), "{log}");
    assert!(log.contains("stage=\"install\""), "{log}");
}

#[test]
fn bare_hcpx_on_a_terminal_starts_the_tui_and_ctrl_c_quits() {
    if !require_tool("tmux") {
        return;
    }
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
    assert_eq!(s.wait_exit(), 0, "{}", s.screen());
    assert!(!s.screen().contains("Packs"));
}

#[test]
fn another_process_changing_the_store_shows_up_without_restarting() {
    if !require_tool("tmux") {
        return;
    }
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
    s.quit();
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

/// In a real terminal, Ctrl and Alt arrive as control bytes and ESC
/// prefixes: `Ctrl-U` (0x15), `Ctrl-A` (0x01) and `Alt-A` (ESC a) must not
/// uninstall, deactivate or activate.
#[test]
fn real_tui_ignores_ctrl_and_alt_letters_and_logs_what_it_did() {
    if !require_tool("tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let catalog = catalog();
    let s = Session::start(
        "modifiers",
        &[("HCP_HOME", &home)],
        &["tui", "--catalog", catalog.to_str().unwrap()],
    );
    s.wait_for("the pack list", |s| s.contains("demo.clock"));
    s.select("demo.clock");
    s.install_activate("demo.clock", "1.0.0");
    s.keys(&["C-u", "C-a", "M-a", "M-u", "C-l", "@"]);
    // The log shows once every key before it was handled.
    let screen = s.wait_text("2 done demo.clock: activated");
    assert!(!screen.contains("Uninstall demo.clock?"), "{screen}");
    assert!(!screen.contains("  3 "), "nothing else was done: {screen}");
    let state = std::fs::read_to_string(home.join("state.json")).unwrap();
    assert!(state.contains("demo.clock"), "{state}");
    assert!(home.join("packs/demo.clock").is_dir());
    s.quit();
}

/// `H` opens the Harnesses view; `Space` on `agents` (the first target,
/// always detected) enables it: `config.yaml` lists it, the bootstrap pack's
/// Skill lands in `$HOME/.agents/skills`, and the Log shows the command.
#[test]
fn real_tui_enables_a_harness_target_with_space() {
    if !require_tool("tmux") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let user = dir.path().join("user");
    std::fs::create_dir_all(&user).unwrap();
    let log = dir.path().join("tui.log");
    let s = Session::start(
        "harness",
        &[("HCP_HOME", &home), ("HOME", &user), ("HCPX_LOG", &log)],
        &["tui"],
    );
    s.wait_for("the pack list", |s| s.contains("hcp-cli"));
    s.keys(&["H"]);
    s.wait_text("~/.agents/skills");
    s.keys(&["Space"]);
    s.wait_text("enabled agents");
    let config = std::fs::read_to_string(home.join("config.yaml")).unwrap();
    assert!(config.contains("agents"), "{config}");
    let skills = user.join(".agents/skills");
    wait_until("the Skill placed in ~/.agents/skills", || {
        std::fs::read_dir(&skills).is_ok_and(|d| {
            d.filter_map(|e| e.ok())
                .any(|e| e.path().join("SKILL.md").is_file())
        })
    });
    s.keys(&["Escape"]);
    s.wait_for("the view closed", |s| !s.contains("~/.agents/skills"));
    s.keys(&["@"]);
    s.wait_text("hcpx harness enable agents");
    s.quit();
}
