//! Every process the server's commands started, also one that left its
//! process group or made a session of its own (HCP.md §16.6: end of stdin
//! ends them all; a new session is no escape).
//!
//! The exec path ends the process groups it started
//! (`engine::exec::process::end_all`), but a process that called `setsid`
//! (or `setpgid`) is in no group of ours, and once its parent exits the
//! kernel hands it to init. So the server makes itself a *child
//! subreaper* (`PR_SET_CHILD_SUBREAPER`, Linux): an orphan among its
//! descendants is handed to the server instead, and every process a
//! command started stays below it in the process tree. At end of input
//! [`end_descendants`] kills (SIGKILL) every process below the server,
//! found through `/proc`, until none is left.
//!
//! An orphan handed to the server is its child: when it exits, the server
//! must reap it, or it stays a zombie. [`reap_on_exit`] starts a thread
//! that, woken by `SIGCHLD` (an idle server is not woken at all), reaps
//! them at most once a second since it reads the process table — also an
//! orphan that exits between calls; and at the end, [`end_descendants`]
//! does. A reap takes the zombies among its children that it did not
//! spawn itself — those in another session, or in a group that is neither
//! the server's nor led by themselves (every process the runtime spawns
//! leads a group of its own or shares the server's, and is reaped by the
//! code that spawned it, which a reap here must not pre-empt).
//!
//! Elsewhere than Linux these do nothing: the process groups are ended as
//! before.

#[cfg(target_os = "linux")]
mod linux {
    use rustix::process::{Pid, Signal, WaitOptions, getpid, kill_process, waitpid};
    use std::collections::HashMap;

    /// One line of the process table.
    struct Proc {
        ppid: i32,
        pgrp: i32,
        session: i32,
        zombie: bool,
    }

    /// Every process of `/proc`, by pid.
    fn table() -> HashMap<i32, Proc> {
        let mut procs = HashMap::new();
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return procs;
        };
        for entry in dir.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            if let Some(p) = stat(pid) {
                procs.insert(pid, p);
            }
        }
        procs
    }

    /// `/proc/PID/stat`: the fields after the command name's `)`.
    fn stat(pid: i32) -> Option<Proc> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (_, rest) = text.rsplit_once(") ")?;
        let mut fields = rest.split(' ');
        let state = fields.next()?;
        let mut number = || fields.next()?.parse::<i32>().ok();
        Some(Proc {
            ppid: number()?,
            pgrp: number()?,
            session: number()?,
            zombie: state == "Z" || state == "X",
        })
    }

    pub fn adopt_orphans() {
        if let Err(e) = rustix::process::set_child_subreaper(Pid::from_raw(1)) {
            tracing::info!("mcp: cannot become a child subreaper: {e}");
        }
    }

    pub fn reap_orphans() {
        let me = getpid().as_raw_nonzero().get();
        let procs = table();
        let Some(own) = procs.get(&me) else { return };
        let (own_group, own_session) = (own.pgrp, own.session);
        for (pid, p) in &procs {
            let foreign = p.session != own_session || (p.pgrp != *pid && p.pgrp != own_group);
            if p.ppid == me && p.zombie && foreign {
                let _ = waitpid(Pid::from_raw(*pid), WaitOptions::NOHANG);
            }
        }
    }

    pub fn end_descendants() -> usize {
        let me = getpid().as_raw_nonzero().get();
        let mut killed = 0;
        // A process may fork while its parent is killed: look again until
        // a look finds none alive (bounded, as a fork bomb could go on).
        for _ in 0..100 {
            let procs = table();
            let mut alive = Vec::new();
            for (pid, p) in &procs {
                if !p.zombie && below(&procs, *pid, me) {
                    alive.push(*pid);
                }
            }
            if alive.is_empty() {
                break;
            }
            for pid in alive {
                if let Some(pid) = Pid::from_raw(pid)
                    && kill_process(pid, Signal::KILL).is_ok()
                {
                    killed += 1;
                }
            }
            reap_orphans();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        reap_orphans();
        killed
    }

    /// Whether `pid` is a descendant of `root`.
    fn below(procs: &HashMap<i32, Proc>, pid: i32, root: i32) -> bool {
        let mut at = pid;
        // The chain is at most as long as the table.
        for _ in 0..=procs.len() {
            let Some(p) = procs.get(&at) else {
                return false;
            };
            if p.ppid == root {
                return true;
            }
            if p.ppid <= 1 {
                return false;
            }
            at = p.ppid;
        }
        false
    }
}

/// Makes the server the reaper of its descendants' orphans (Linux).
pub fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    linux::adopt_orphans();
}

/// Starts the thread that reaps the orphans handed to the server once
/// they exit: woken by `SIGCHLD`, it looks at most once a second (a child
/// that exits meanwhile is seen by the next look, as its signal waits).
pub fn reap_on_exit() {
    #[cfg(target_os = "linux")]
    {
        use signal_hook::consts::SIGCHLD;
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGCHLD]) else {
            return;
        };
        let started = std::thread::Builder::new()
            .name("hcpx-mcp-reaper".into())
            .spawn(move || {
                for _ in signals.forever() {
                    linux::reap_orphans();
                    std::thread::sleep(std::time::Duration::from_secs(1));
                }
            });
        if let Err(e) = started {
            tracing::info!("mcp: no reaper thread: {e}");
        }
    }
}

/// Kills every process below the server, whatever its group or session;
/// returns how many were killed.
pub fn end_descendants() -> usize {
    #[cfg(target_os = "linux")]
    return linux::end_descendants();
    #[cfg(not(target_os = "linux"))]
    0
}
