//! The real `hcpx` binary in tmux, for the tests that need a terminal: type
//! keys with `send-keys`, read the screen with `capture-pane`. Each session
//! runs its own tmux server (`-L`), killed by a guard even when the test
//! fails. Every wait polls for a state with a generous deadline and fails
//! showing the screen it last saw; nothing waits a fixed time.
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
        let session = Session {
            target: format!("{socket}:0"),
            socket,
            status,
        };
        cmd.extend(["env".to_string(), "-u".into(), "HCP_PRINCIPAL".into()]);
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

    pub fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.target]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen with its colours and attributes as escape sequences, to
    /// see changes that move no text (the focused pane's border).
    pub fn styled_screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-e", "-t", &self.target]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Polls the styled screen until `ok` holds; panics with the screen at
    /// the deadline.
    pub fn wait_for_styled(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        self.poll(what, Session::styled_screen, ok)
    }

    /// Sends keys by tmux name (`Enter`, `Tab`, `C-c`, or one character).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.target];
        args.extend(keys);
        assert!(self.tmux(&args).status.success());
    }

    /// Types text literally.
    pub fn type_text(&self, text: &str) {
        assert!(
            self.tmux(&["send-keys", "-t", &self.target, "-l", text])
                .status
                .success()
        );
    }

    /// Polls the screen until `ok` holds; panics with the screen at the
    /// deadline.
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        self.poll(what, Session::screen, ok)
    }

    /// Polls `capture` until `ok` holds its text; panics with the plain
    /// screen at the deadline.
    fn poll(
        &self,
        what: &str,
        capture: fn(&Session) -> String,
        ok: impl Fn(&str) -> bool,
    ) -> String {
        let start = Instant::now();
        loop {
            let screen = capture(self);
            if ok(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out after {DEADLINE:?} waiting for {what}; screen:\n{}",
                self.screen()
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
        self.keys(&["i"]);
        self.wait_text(&format!("installed {id} {version}"));
        self.keys(&["a"]);
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
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// Whether the TUI shows work in progress: a spinner frame (the status
/// line's, or the browser's while the store loads) or "loading…".
pub fn busy(screen: &str) -> bool {
    screen.contains("loading…") || hcpx::tui::theme::SPINNER.iter().any(|s| screen.contains(s))
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
