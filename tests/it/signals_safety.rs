//! Nothing hcpx starts outlives it (HCP.md §14.6), and `hcpx exec`'s own
//! usage errors exit 125 (§10.3).
//!
//! Each interruption test runs a pack command that writes its pid and a
//! background grandchild's pid to a file, then waits; the test signals the
//! real `hcpx` binary and checks its exit code and that both processes are
//! gone. Every wait is bounded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, install_and_activate, make_executable, wait_for};
use crossterm::event::KeyCode;
use hcpx::tui::dialog::Dialog;
use rustix::process::{Pid, Signal};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

/// Writes "LEADER GRANDCHILD" to `$SIGNALS_PIDS` (atomically), then waits
/// for the background grandchild, which sleeps.
const WAIT_SCRIPT: &str = r#"#!/bin/sh
sleep 1000 &
echo "$$ $!" > "$SIGNALS_PIDS.tmp"
mv "$SIGNALS_PIDS.tmp" "$SIGNALS_PIDS"
wait
"#;

fn skill(id: &str) -> String {
    format!(
        "---\nname: {}\ndescription: Test skill.\n---\nRun `wait`.\n",
        id.replace('.', "-")
    )
}

/// A pack whose `wait` command runs [`WAIT_SCRIPT`]; with `probe`, its
/// binding is `local` with `wait` as the probe.
fn wait_pack(sb: &Sandbox, id: &str, probe: bool) -> PathBuf {
    script_pack(sb, id, probe, WAIT_SCRIPT)
}

/// A pack whose `wait` command runs `script`.
fn script_pack(sb: &Sandbox, id: &str, probe: bool, script: &str) -> PathBuf {
    let binding = if probe {
        "{kind: local, probe: wait}"
    } else {
        "{kind: public}"
    };
    let manifest = format!(
        r#"hcp: "1"
id: {id}
name: Wait
version: 1.0.0
description: Waits until it is killed.
binding: {binding}
commands:
  - key: wait
    summary: Wait
    effect: read
    timeout_ms: 600000
    adapter: {{kind: process, program: ./bin/wait}}
"#
    );
    let src = sb.pack(
        id,
        &[
            ("pack.yaml", &manifest),
            ("SKILL.md", &skill(id)),
            ("bin/wait", script),
        ],
    );
    make_executable(&src.join("bin/wait"));
    install_and_activate(sb, &src, id);
    src
}

/// Starts `hcpx ARGS` against the sandbox, with `$SIGNALS_PIDS` set.
fn spawn_hcpx(sb: &Sandbox, args: &[&str], pids: &Path) -> Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"))
        .args(args)
        .env("HCP_HOME", sb.home())
        .env_remove("HCP_PRINCIPAL")
        .env("NO_COLOR", "1")
        .env("SIGNALS_PIDS", pids)
        .current_dir(sb.dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hcpx")
}

/// The leader's and the grandchild's pids, once written.
fn read_pids(path: &Path) -> [Pid; 2] {
    wait_for("the command's pid file", || {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let pids: Vec<Pid> = text
            .split_whitespace()
            .filter_map(|w| w.parse::<i32>().ok())
            .filter_map(Pid::from_raw)
            .collect();
        <[Pid; 2]>::try_from(pids).map_err(|p| format!("{p:?}"))
    })
}

/// Whether a process runs: it exists and is not a zombie.
fn alive(pid: Pid) -> bool {
    common::alive(pid.as_raw_nonzero().get())
}

fn assert_gone(pids: [Pid; 2]) {
    wait_for("the command's processes to end", || {
        let left: Vec<Pid> = pids.into_iter().filter(|&p| alive(p)).collect();
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("still running: {left:?}"))
        }
    });
}

/// Kills what a failed test may have left behind.
/// Kills, when a test ends, the processes it started that are still those
/// processes: each pid is kept with its start time, and one whose start
/// time changed is another process that reused the pid (pids wrap at
/// 32768 here, and the suite starts thousands), which is left alone.
struct Cleanup(Vec<(Pid, Option<String>)>);

impl Cleanup {
    fn of(pids: impl IntoIterator<Item = Pid>) -> Cleanup {
        let mut cleanup = Cleanup(Vec::new());
        cleanup.add(pids);
        cleanup
    }

    fn add(&mut self, pids: impl IntoIterator<Item = Pid>) {
        self.0
            .extend(pids.into_iter().map(|pid| (pid, started(pid))));
    }
}

/// The start time of `pid` (field 22 of `/proc/PID/stat`), if it runs.
fn started(pid: Pid) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero())).ok()?;
    let (_, rest) = stat.rsplit_once(") ")?;
    rest.split_whitespace().nth(19).map(str::to_string)
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        for (pid, start) in &self.0 {
            if start.is_some() && started(*pid) == *start {
                let _ = rustix::process::kill_process(*pid, Signal::KILL);
            }
        }
    }
}

/// Runs `hcpx ARGS`, waits for its command's pids, sends `signal` to hcpx,
/// and checks that hcpx exits `128 + signal` and both processes are gone.
/// Returns hcpx's stdout and stderr.
fn interrupt(sb: &Sandbox, args: &[&str], signal: Signal) -> (String, String) {
    let pids_file = sb.dir.path().join(format!("pids-{}", signal.as_raw()));
    let mut hcpx = spawn_hcpx(sb, args, &pids_file);
    let hcpx_pid = Pid::from_child(&hcpx);
    let mut cleanup = Cleanup::of([hcpx_pid]);
    let pids = read_pids(&pids_file);
    cleanup.add(pids);
    assert!(pids.iter().all(|&p| alive(p)), "the command did not start");
    rustix::process::kill_process(hcpx_pid, signal).expect("signal hcpx");
    let status = wait_for("hcpx to exit", || {
        hcpx.try_wait()
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "still running".to_string())
    });
    assert_gone(pids);
    let out = hcpx.wait_with_output().expect("hcpx output");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(
        status.code(),
        Some(128 + signal.as_raw()),
        "{args:?}: {status:?}; stdout {stdout}; stderr {stderr}"
    );
    (stdout, stderr)
}

#[test]
fn exec_json_ends_the_command_group_on_sigterm_sigint_and_sighup() {
    let sb = Sandbox::new();
    wait_pack(&sb, "acme.wait", false);
    for signal in [Signal::TERM, Signal::INT, Signal::HUP] {
        let (stdout, stderr) = interrupt(&sb, &["exec", "acme.wait", "wait", "--json"], signal);
        assert_eq!(stdout, "", "no document after an interruption");
        assert!(stderr.contains("interrupted"), "{stderr}");
    }
}

#[test]
fn a_connect_probe_is_ended_and_nothing_is_recorded() {
    let sb = Sandbox::new();
    wait_pack(&sb, "acme.probe", true);
    interrupt(&sb, &["connect", "acme.probe", "--json"], Signal::TERM);
    let connected = sb.state()["connected"].clone();
    assert!(
        !connected
            .as_array()
            .is_some_and(|c| c.iter().any(|id| id == "acme.probe")),
        "{connected}"
    );
    // Without --json too.
    interrupt(&sb, &["connect", "acme.probe"], Signal::INT);
}

#[test]
fn the_bootstrap_exec_ends_the_command_it_runs() {
    let sb = Sandbox::new();
    wait_pack(&sb, "acme.wait", false);
    let args = [
        "exec",
        "hcp-cli",
        "exec",
        "--json",
        "--",
        "pack=acme.wait",
        "verb=wait",
    ];
    interrupt(&sb, &args, Signal::TERM);
    // Without --json the bootstrap pack still captures the inner command.
    interrupt(&sb, &[&args[..3], &args[4..]].concat(), Signal::HUP);
}

#[test]
fn passthrough_hands_ctrl_c_to_the_command_then_ends_what_is_left() {
    // The command shares the terminal: SIGINT is handed to it (its shell
    // dies of it), but its background child ignores SIGINT, as background
    // jobs of a non-interactive shell do; hcpx still ends it and exits 130.
    let sb = Sandbox::new();
    wait_pack(&sb, "acme.wait", false);
    interrupt(&sb, &["exec", "acme.wait", "wait"], Signal::INT);
    interrupt(&sb, &["exec", "acme.wait", "wait"], Signal::TERM);
}

// --- §10.3: usage errors of `hcpx exec`'s own command line exit 125. ---

fn usage(sb: &Sandbox, args: &[&str], code: i32) -> (Value, String) {
    let out = sb.hcpx().args(args).output().expect("run hcpx");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stdout} {stderr}");
    let doc = if args.contains(&"--json") {
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
    } else {
        Value::Null
    };
    (doc, stderr)
}

#[test]
fn a_missing_verb_exits_125_and_names_it() {
    let sb = Sandbox::new();
    let (_, stderr) = usage(&sb, &["exec", "hcp-cli"], 125);
    assert!(stderr.contains("<VERB>"), "{stderr}");
    let (doc, _) = usage(&sb, &["exec", "hcp-cli", "--json"], 125);
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["error"]["code"], "usage");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(message.contains("VERB"), "{message}");
    let (doc, _) = usage(&sb, &["--json", "--principal", "user", "exec"], 125);
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("PACK_ID") && message.contains("VERB"),
        "{message}"
    );
}

#[test]
fn an_unknown_flag_of_exec_exits_125() {
    let sb = Sandbox::new();
    usage(&sb, &["exec", "hcp-cli", "list", "--bogus"], 125);
    let (doc, _) = usage(&sb, &["exec", "hcp-cli", "list", "--bogus", "--json"], 125);
    assert_eq!(doc["error"]["code"], "usage");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--bogus")
    );
}

#[test]
fn a_k_v_word_before_the_double_dash_exits_125() {
    let sb = Sandbox::new();
    usage(&sb, &["exec", "hcp-cli", "lint", "path=."], 125);
    let (doc, _) = usage(&sb, &["--json", "exec", "hcp-cli", "lint", "path=."], 125);
    assert_eq!(doc["error"]["code"], "usage");
    assert!(doc["error"]["message"].as_str().unwrap().contains("path=."));
}

#[test]
fn other_subcommands_keep_exit_2_for_usage() {
    let sb = Sandbox::new();
    usage(&sb, &["activate"], 2);
    let (doc, _) = usage(&sb, &["activate", "--json"], 2);
    assert_eq!(doc["error"]["code"], "usage");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("PACK_ID")
    );
    usage(&sb, &["list", "--bogus"], 2);
    // `exec` as a value, not the subcommand.
    usage(&sb, &["--principal", "exec", "list", "--bogus"], 2);
    // Help still exits 0.
    usage(&sb, &["exec", "--help"], 0);
}

// --- The TUI (§14.6): quitting while a command runs asks first. ---

/// A catalog pack whose `wait` command runs [`WAIT_SCRIPT`] with the pid
/// file given in its manifest's env.
fn tui_wait_pack(catalog: &Path, pids: &Path) {
    let script = catalog.join("acme.wait/bin/wait");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(&script, WAIT_SCRIPT).unwrap();
    make_executable(&script);
    crate::tuikit::write_pack(
        catalog,
        "acme.wait",
        &format!(
            r#"hcp: "1"
id: acme.wait
name: Wait
version: 1.0.0
description: Waits until it is killed.
binding: {{kind: public}}
commands:
  - key: wait
    summary: Wait
    effect: read
    timeout_ms: 600000
    adapter: {{kind: process, program: ./bin/wait, env: {{SIGNALS_PIDS: "{}"}}}}
"#,
            pids.display()
        ),
        &skill("acme.wait"),
    );
}

/// A TUI with `acme.wait` installed and activated, and `wait` started
/// (without waiting for it); returns the TUI and the command's pids.
async fn tui_running() -> (crate::tuikit::Tui, [Pid; 2]) {
    let dir = crate::tuikit::sandbox();
    let pids_file = dir.path().join("pids");
    tui_wait_pack(&crate::tuikit::catalog(&dir), &pids_file);
    let mut tui = crate::tuikit::Tui::start(dir, 100, 30).await;
    tui.select("acme.wait").await;
    tui.keys("ia").await;
    assert!(tui.installed("acme.wait"), "{}", tui.screen());
    // `x` runs the command (it has no args): dispatched without settling,
    // since settling would wait for it to end.
    tui.runner
        .handle_event(&crate::tuikit::key(KeyCode::Char('x')));
    let pids = read_pids(&pids_file);
    assert!(pids.iter().all(|&p| alive(p)));
    (tui, pids)
}

#[tokio::test]
async fn quitting_the_tui_while_a_command_runs_asks_then_ends_it() {
    let (mut tui, pids) = tui_running().await;
    let _cleanup = Cleanup::of(pids);
    // `q` asks; `n` keeps the command running.
    tui.runner
        .handle_event(&crate::tuikit::key(KeyCode::Char('q')));
    assert!(!tui.runner.app.has_quit());
    assert!(matches!(
        tui.runner.app.dialog(),
        Some(Dialog::ConfirmQuit { .. })
    ));
    tui.runner.draw().unwrap();
    let screen = tui.screen();
    assert!(
        screen.contains("acme.wait wait is still running"),
        "{screen}"
    );
    tui.runner
        .handle_event(&crate::tuikit::key(KeyCode::Char('n')));
    assert!(!tui.runner.app.has_quit());
    assert!(tui.runner.app.dialog().is_none());
    assert!(pids.iter().all(|&p| alive(p)));
    // `q` again, then `y`: the command's group is ended and the TUI quits.
    tui.runner
        .handle_event(&crate::tuikit::key(KeyCode::Char('q')));
    tui.runner
        .handle_event(&crate::tuikit::key(KeyCode::Char('y')));
    assert!(tui.runner.app.has_quit());
    assert_gone(pids);
    tui.runner.settle().await.unwrap();
}

#[tokio::test]
async fn ctrl_c_twice_ends_the_command_and_quits() {
    let (mut tui, pids) = tui_running().await;
    let _cleanup = Cleanup::of(pids);
    tui.runner.handle_event(&crate::tuikit::ctrl('c'));
    assert!(!tui.runner.app.has_quit());
    tui.runner.handle_event(&crate::tuikit::ctrl('c'));
    assert!(tui.runner.app.has_quit());
    assert_gone(pids);
}

#[tokio::test]
async fn x_cancels_the_running_command_and_the_tui_goes_on() {
    let (mut tui, pids) = tui_running().await;
    let _cleanup = Cleanup::of(pids);
    tui.runner.draw().unwrap();
    let screen = tui.screen();
    assert!(screen.contains("X cancels it"), "{screen}");
    tui.runner
        .handle_event(&crate::tuikit::key(KeyCode::Char('X')));
    assert_gone(pids);
    tui.runner.settle().await.unwrap();
    assert!(!tui.runner.app.has_quit());
    assert!(tui.runner.app.running().is_none());
    let screen = tui.screen();
    assert!(screen.contains("cancelled"), "{screen}");
    // Nothing is left to ask about: `q` quits at once.
    tui.keys("q").await;
    assert!(tui.runner.app.has_quit());
}

#[test]
fn passthrough_a_second_signal_does_not_wait_for_a_command_that_traps_the_first() {
    let sb = Sandbox::new();
    let script = r#"#!/bin/sh
trap 'touch "$SIGNALS_PIDS.int"' INT
sleep 1000 &
echo "$$ $!" > "$SIGNALS_PIDS.tmp"
mv "$SIGNALS_PIDS.tmp" "$SIGNALS_PIDS"
while :; do wait; done
"#;
    script_pack(&sb, "acme.trap", false, script);
    let pids_file = sb.dir.path().join("pids-trap");
    let mut hcpx = spawn_hcpx(&sb, &["exec", "acme.trap", "wait"], &pids_file);
    let hcpx_pid = Pid::from_child(&hcpx);
    let mut cleanup = Cleanup::of([hcpx_pid]);
    let pids = read_pids(&pids_file);
    cleanup.add(pids);
    rustix::process::kill_process(hcpx_pid, Signal::INT).unwrap();
    let mut trapped = pids_file.into_os_string();
    trapped.push(".int");
    let trapped = PathBuf::from(trapped);
    wait_for("the command to trap SIGINT", || {
        trapped
            .exists()
            .then_some(())
            .ok_or_else(|| "no trap yet".to_string())
    });
    // It handled the signal and goes on; so does hcpx.
    assert!(hcpx.try_wait().unwrap().is_none());
    assert!(pids.iter().all(|&p| alive(p)));
    rustix::process::kill_process(hcpx_pid, Signal::INT).unwrap();
    let status = wait_for("hcpx to exit", || {
        hcpx.try_wait()
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "still running".to_string())
    });
    assert_eq!(status.code(), Some(130));
    assert_gone(pids);
}
