//! The real binary in tmux with a command that keeps running (§14.6): `X`
//! cancels it, and Ctrl-C while it runs asks before quitting; either way no
//! process of it is left behind.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::require_tools;
use crate::tmuxkit::{Session, wait_until};
use std::path::{Path, PathBuf};

/// A catalog with one pack whose `wait` command records its pid (and its
/// child's) and then sleeps.
fn catalog(dir: &Path) -> (PathBuf, PathBuf) {
    let pids = dir.join("pids");
    let pack = dir.join("catalog/acme.wait");
    std::fs::create_dir_all(&pack).unwrap();
    let script = format!("sleep 600 & echo $$ $! > '{}'; wait", pids.display());
    std::fs::write(
        pack.join("pack.yaml"),
        format!(
            "hcp: \"1\"\nid: acme.wait\nname: Wait\nversion: 1.0.0\ndescription: Waits.\n\
             commands:\n  - key: wait\n    summary: Wait for a long time\n    effect: read\n\
             \x20   timeout_ms: 600000\n\
             \x20   adapter: {{kind: process, program: sh, argv: [\"-c\", {script:?}]}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        pack.join("SKILL.md"),
        "---\nname: acme-wait\ndescription: Waits.\n---\nRun `wait`.\n",
    )
    .unwrap();
    (dir.join("catalog"), pids)
}

fn alive(pid: i32) -> bool {
    // A zombie has exited: only its entry is left until it is reaped.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

/// Starts the TUI, installs and activates the pack, runs `wait`, and
/// returns the session and the two pids once they are recorded.
fn running(name: &str, dir: &Path) -> (Session, Vec<i32>) {
    let (catalog, pids) = catalog(dir);
    let home = dir.join("home");
    let log = dir.join("tui.log");
    let s = Session::start(
        name,
        &[("HCP_HOME", &home), ("HCPX_LOG", &log)],
        &["tui", "--catalog", catalog.to_str().unwrap()],
    );
    s.wait_for("the pack list", |s| s.contains("acme.wait"));
    s.select("acme.wait");
    s.install_activate("acme.wait", "1.0.0");
    s.wait_text("● executable");
    // A command without args runs at once; one with args opens its form.
    s.keys(&["x"]);
    let screen = s.wait_for("the command to start or its form", |screen| {
        screen.contains("Run acme.wait wait") || pids.is_file()
    });
    if screen.contains("Run acme.wait wait") {
        s.keys(&["Enter"]);
    }
    wait_until("the command to record its pids", || {
        std::fs::read_to_string(&pids).is_ok_and(|t| t.split_whitespace().count() == 2)
    });
    let pids: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(pids.iter().all(|&p| alive(p)), "the command did not start");
    (s, pids)
}

#[test]
fn x_cancels_a_running_command_and_leaves_no_process() {
    if !require_tools(&["tmux"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (s, pids) = running("cancel", dir.path());
    s.keys(&["X"]);
    wait_until("the command and its child to be gone", || {
        pids.iter().all(|&p| !alive(p))
    });
    // The TUI goes on: once it has seen the run end (the processes can be
    // gone a moment before), q quits at once, nothing runs any more.
    s.settle_for("X");
    s.quit();
}

#[test]
fn ctrl_c_while_a_command_runs_asks_then_ends_it_and_quits() {
    if !require_tools(&["tmux"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (s, pids) = running("quitrun", dir.path());
    s.keys(&["C-c"]);
    s.wait_text("Quit anyway?");
    assert!(pids.iter().all(|&p| alive(p)), "asking must not end it");
    s.keys(&["y"]);
    assert_eq!(s.wait_exit(), 0, "{}", s.screen());
    wait_until("the command and its child to be gone", || {
        pids.iter().all(|&p| !alive(p))
    });
}
