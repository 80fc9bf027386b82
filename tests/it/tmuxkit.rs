//! The real `hcpx` binary in tmux, for the tests that need a terminal: type
//! keys with `send-keys`, read the screen with `capture-pane`. Each session
//! runs its own tmux server (`-L`), killed by a guard even when the test
//! fails. Every wait polls for a state with a generous deadline and fails
//! showing the screen it last saw; nothing waits a fixed time. Whether a
//! key was handled and its work is done is read from the TUI's own log
//! (`HCPX_LOG_LEVEL=debug`, [`Session::settle`]), never guessed from the
//! screen, which also changes on its own.
//!
//! Tests using this call `common::require_tool("tmux")` first.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long any one wait may take, even on a loaded 2-core machine.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(50);

/// A tmux server with one session running hcpx; killed on drop.
pub struct Session {
    socket: String,
    target: String,
    /// Where the wrapper shell writes hcpx's exit status.
    status: std::path::PathBuf,
    /// The TUI's log (`HCPX_LOG`, written at `debug`): the test's, else
    /// one next to `status`. [`Session::settle`] reads it.
    log: std::path::PathBuf,
    /// Keys sent so far.
    sent: std::cell::Cell<usize>,
}

impl Session {
    /// Starts `hcpx ARGS` in a 120×40 session with the given environment.
    pub fn start(name: &str, env: &[(&str, &Path)], args: &[&str]) -> Session {
        Session::start_sized(name, env, args, 120, 40)
    }

    /// Starts `hcpx ARGS` in a `width`×`height` session.
    pub fn start_sized(
        name: &str,
        env: &[(&str, &Path)],
        args: &[&str],
        width: u16,
        height: u16,
    ) -> Session {
        Session::start_at(name, env, args, (width, height), None)
    }

    /// Starts `hcpx ARGS` in a 120×40 session whose working directory is
    /// `cwd` (a project folder, HCP.md §15.1).
    pub fn start_in(name: &str, env: &[(&str, &Path)], args: &[&str], cwd: &Path) -> Session {
        Session::start_at(name, env, args, (120, 40), Some(cwd))
    }

    /// Starts `hcpx ARGS` in a `width`×`height` session, in `cwd` when
    /// given (else the test's working directory).
    pub fn start_at(
        name: &str,
        env: &[(&str, &Path)],
        args: &[&str],
        (width, height): (u16, u16),
        cwd: Option<&Path>,
    ) -> Session {
        let socket = format!("hcpx-test-{name}-{}", std::process::id());
        let status = std::env::temp_dir().join(format!("{socket}.status"));
        let _ = std::fs::remove_file(&status);
        // tmux does not always learn a dead pane's exit status (3.3a leaves
        // `pane_dead_status` empty under load): a shell writes it instead.
        let mut cmd = vec![
            "sh".to_string(),
            "-c".into(),
            format!("\"$@\"; echo $? > '{}'", status.display()),
            "sh".into(),
        ];
        // The TUI's log, in the test's file or in one of the session's own.
        let given = env.iter().find(|(k, _)| *k == "HCPX_LOG");
        let log = given.map_or_else(
            || std::env::temp_dir().join(format!("{socket}.log")),
            |(_, v)| v.to_path_buf(),
        );
        if given.is_none() {
            let _ = std::fs::remove_file(&log);
        }
        let session = Session {
            target: format!("{socket}:0"),
            socket,
            status,
            log,
            sent: std::cell::Cell::new(0),
        };
        cmd.extend(["env".to_string(), "-u".into(), "HCP_PRINCIPAL".into()]);
        // The event loop then logs each key handled and each moment no
        // work is left, which `settle` waits on.
        cmd.push("HCPX_LOG_LEVEL=debug".into());
        if given.is_none() {
            cmd.push(format!("HCPX_LOG={}", session.log.display()));
        }
        for (k, v) in env {
            cmd.push(format!("{k}={}", v.display()));
        }
        cmd.push("TERM=xterm-256color".into());
        cmd.push(env!("CARGO_BIN_EXE_hcpx").into());
        cmd.extend(args.iter().map(|a| a.to_string()));
        let (width, height) = (width.to_string(), height.to_string());
        let mut tmux_args: Vec<String> = [
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            &session.socket,
            "-x",
            &width,
            "-y",
            &height,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if let Some(cwd) = cwd {
            tmux_args.extend(["-c".to_string(), cwd.display().to_string()]);
        }
        tmux_args.extend(cmd);
        // Keep the pane after hcpx exits, to see what it left on screen.
        tmux_args.extend([";", "set-option", "-g", "remain-on-exit", "on"].map(String::from));
        let out = session.tmux(&tmux_args);
        assert!(out.status.success(), "tmux: {out:?}");
        session
    }

    pub fn tmux<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap()
    }

    /// The pane's title, as the program in it set it (the terminal's
    /// window title).
    pub fn title(&self) -> String {
        let out = self.tmux(&["display-message", "-p", "-t", &self.target, "#{pane_title}"]);
        String::from_utf8_lossy(&out.stdout).trim_end().to_string()
    }

    pub fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.target]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Sends keys by tmux name (`Enter`, `Tab`, `C-c`, or one character).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.target];
        args.extend(keys);
        assert!(self.tmux(&args).status.success());
        self.sent.set(self.sent.get() + keys.len());
    }

    /// Types text literally.
    pub fn type_text(&self, text: &str) {
        assert!(
            self.tmux(&["send-keys", "-t", &self.target, "-l", text])
                .status
                .success()
        );
        self.sent.set(self.sent.get() + text.chars().count());
    }

    /// Sends keys, then [`settle`](Session::settle)s.
    pub fn press(&self, keys: &[&str]) {
        self.keys(keys);
        self.settle();
    }

    /// Waits until the TUI has handled every key sent so far and the work
    /// they started has finished (or hcpx has exited), by its log: the
    /// screen cannot tell, as it also changes on its own (a pack's details
    /// arriving, the status line clearing), and a key pressed while work
    /// runs is refused as busy.
    pub fn settle(&self) {
        self.settle_for("the keys sent");
    }

    /// [`settle`](Session::settle), naming `what` was sent if it times out.
    pub fn settle_for(&self, what: &str) {
        let log = &self.log;
        let n = self.sent.get();
        wait_until(
            &format!("{what}: key {n} to be handled and its work to finish"),
            || {
                let text = std::fs::read_to_string(log).unwrap_or_default();
                settled(&text, n) || self.exited()
            },
        );
    }

    /// Waits until the TUI's first load and the work it started are done.
    pub fn wait_loaded(&self) {
        let log = &self.log;
        wait_until(
            "the first load to finish (an `idle` line in the log)",
            || {
                let text = std::fs::read_to_string(log).unwrap_or_default();
                text.lines().any(|l| l.ends_with(" idle"))
            },
        );
    }

    /// Polls the screen until `ok` holds; panics with the screen at the
    /// deadline.
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out after {DEADLINE:?} waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// Selects pack `id` by filtering for it (`/ID`, Enter) and waits for
    /// its row to be marked.
    pub fn select(&self, id: &str) {
        self.keys(&["/"]);
        self.type_text(id);
        self.keys(&["Enter"]);
        self.wait_text(&format!("▶ {id}"));
    }

    /// Installs (`i`) then activates (`a`) the selected pack `id` at
    /// `version`, waiting for each to be reported.
    pub fn install_activate(&self, id: &str, version: &str) {
        self.press(&["i"]);
        self.wait_text(&format!("installed {id} {version}"));
        self.press(&["a"]);
        self.wait_text(&format!("{id}: activated"));
    }

    /// Quits with `q` and checks hcpx exits with status 0.
    pub fn quit(&self) {
        self.keys(&["q"]);
        assert_eq!(self.wait_exit(), 0, "{}", self.screen());
    }

    pub fn wait_text(&self, text: &str) -> String {
        self.wait_for(&format!("`{text}`"), |s| s.contains(text))
    }

    /// Whether hcpx has exited.
    pub fn exited(&self) -> bool {
        std::fs::read_to_string(&self.status).is_ok_and(|t| !t.trim().is_empty())
    }

    /// Waits until hcpx has exited; returns its exit status.
    pub fn wait_exit(&self) -> i32 {
        let start = Instant::now();
        loop {
            let text = std::fs::read_to_string(&self.status).unwrap_or_default();
            if let Ok(code) = text.trim().parse() {
                return code;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "hcpx did not exit within {DEADLINE:?}; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(POLL);
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.status);
        let own_log = std::env::temp_dir().join(format!("{}.log", self.socket));
        if self.log == own_log {
            let _ = std::fs::remove_file(&own_log);
        }
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// Polls `ok` until it holds; panics naming `what` at the deadline.
pub fn wait_until(what: &str, ok: impl Fn() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(
            start.elapsed() < DEADLINE,
            "timed out after {DEADLINE:?} waiting for {what}"
        );
        std::thread::sleep(POLL);
    }
}

/// Whether the TUI's log says key number `n` was handled and, if work was
/// in flight then, that all work finished after it.
fn settled(log: &str, n: usize) -> bool {
    let mut lines = log.lines();
    let handled = format!(" key={n} ");
    let Some(line) = lines.find(|l| l.contains("key handled") && l.contains(&handled)) else {
        return false;
    };
    line.ends_with(" in_flight=0") || lines.any(|l| l.ends_with(" idle"))
}
