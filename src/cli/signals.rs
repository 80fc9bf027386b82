//! Interruption (HCP.md §14.6): a thread that takes SIGINT, SIGTERM, SIGHUP
//! and SIGQUIT for the whole run of `hcpx`. On one, the engine ends the
//! process group of every command hcpx started (probes and the bootstrap
//! pack's `exec` included) and hcpx exits 128 + the signal, printing one
//! line on stderr and nothing on stdout.
//!
//! A command that shares the terminal (`hcpx exec` without `--json`) is
//! handed the signal instead, as if it came from the terminal (so Ctrl-C
//! reaches it though it runs in a process group of its own); when it has
//! exited, whatever is left of its group is killed and `hcpx exec` exits
//! 128 + the signal ([`interrupted`]). A second signal does not wait for
//! it: its group is killed and hcpx exits at once.
//!
//! Where the spec is silent:
//! - A signal that hcpx was started with ignored (`nohup`, a background job
//!   of a non-interactive shell) stays ignored, and so it is for the
//!   commands hcpx starts.
//! - SIGQUIT is taken like the three the spec names (exit 131).
//! - No JSON document is printed when hcpx is interrupted, even with
//!   `--json`: stdout is left as a process killed by the signal leaves it.

use crate::engine::exec::process::{self, Interruption};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The signal handed to a command sharing the terminal, or 0.
static FORWARDED: AtomicI32 = AtomicI32::new(0);

/// Set once hcpx is ending on a signal: the main thread prints nothing more
/// and leaves the exit (128 + signal) to the signal thread.
static ENDING: AtomicBool = AtomicBool::new(false);

/// What to undo before exiting on a signal (the TUI restores the terminal).
static BEFORE_EXIT: Mutex<Option<fn()>> = Mutex::new(None);

/// Starts the thread. Without it (it could not start), signals keep their
/// default action.
pub fn install() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let ignored = ignored_at_start();
    let wanted: Vec<i32> = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
        .into_iter()
        .filter(|&s| !is_in(ignored, s))
        .collect();
    let Ok(mut signals) = signal_hook::iterator::Signals::new(&wanted) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("hcpx-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                on_signal(signal);
            }
        });
}

fn on_signal(signal: i32) {
    match process::interrupt(signal, || ENDING.store(true, Ordering::SeqCst)) {
        Interruption::Forwarded => {
            let _ = FORWARDED.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
        }
        Interruption::Ended => {
            let undo = *BEFORE_EXIT.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(undo) = undo {
                undo();
            }
            eprintln!(
                "hcpx: interrupted by {}; every command it started was ended",
                signal_name(signal)
            );
            std::process::exit(128 + signal);
        }
    }
}

/// The signal handed to a command that shared the terminal, if one was:
/// `hcpx exec` then exits 128 + it once the command has ended.
pub fn interrupted() -> Option<i32> {
    match FORWARDED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Blocks for good when hcpx is ending on a signal, so that the main thread,
/// which may see its command end first, neither prints a result nor exits
/// with the command's code: the signal thread exits with 128 + signal.
pub fn hold_if_ending() {
    while ENDING.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

/// Runs `undo` before exiting on a signal (at most one; the last wins).
pub fn before_exit(undo: fn()) {
    *BEFORE_EXIT.lock().unwrap_or_else(|e| e.into_inner()) = Some(undo);
}

fn signal_name(signal: i32) -> String {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    match signal {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        SIGQUIT => "SIGQUIT".into(),
        other => format!("signal {other}"),
    }
}

/// The signals ignored when hcpx started, as a mask (Linux: `SigIgn` of
/// `/proc/self/status`, read once; elsewhere none).
fn ignored_at_start() -> u64 {
    // A proc file says its size is 0: read it into room for all of it, in
    // two calls rather than eight.
    use std::io::Read;
    let mut status = String::with_capacity(4096);
    let read =
        std::fs::File::open("/proc/self/status").and_then(|mut f| f.read_to_string(&mut status));
    if read.is_err() {
        return 0;
    }
    status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .unwrap_or(0)
}

/// Whether `signal` is in a `SigIgn`-style mask.
fn is_in(mask: u64, signal: i32) -> bool {
    (1..=64).contains(&signal) && mask & (1 << (signal - 1)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(signal_name(signal_hook::consts::SIGTERM), "SIGTERM");
        assert_eq!(signal_name(99), "signal 99");
    }

    #[test]
    fn default_dispositions_are_not_ignored() {
        // The test harness starts with SIGTERM at its default action.
        assert!(!is_in(ignored_at_start(), signal_hook::consts::SIGTERM));
        assert!(!is_in(u64::MAX, 0));
        assert!(is_in(
            1 << (signal_hook::consts::SIGHUP - 1),
            signal_hook::consts::SIGHUP
        ));
    }
}
