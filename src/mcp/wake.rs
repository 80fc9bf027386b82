//! What wakes the watcher (HCP.md §16.6: an idle server does no work): the
//! operating system's file notifications (inotify on Linux, FSEvents on
//! macOS, kqueue on the BSDs) through the maintained `notify` crate, on
//! every folder whose entries the stamp reads ([`super::stamp::folders`]),
//! a folder that does not exist yet watched through its nearest existing
//! ancestor. An event only wakes the watcher, which then takes the stamp
//! as before and decides: the events are not read one by one. Only
//! changes are asked for (an entry made, removed, renamed, its metadata
//! changed, a file closed after a write), not reads: a program run from a
//! `PATH` folder, or the stamp's own look, wakes nothing.
//!
//! After each wake the folders not watched yet are added (a pack
//! installed since has a new folder); after a folder was removed or
//! renamed (a folder made again is a new inode), or the events overflowed,
//! every one is added again. Where there are no notifications (a system
//! where `notify` could only poll, or the kernel's watch limit reached)
//! the watcher falls back to a look once a second.

use notify::event::ModifyKind;
use notify::{Config, EventKind, EventKindMask, PathOp, Watcher, WatcherKind};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// How long the watcher waits after a first event for the rest of a
/// burst (one change writes several files) before it looks.
pub const SETTLE: std::time::Duration = std::time::Duration::from_millis(50);

/// The changes asked for: no open, no close after a read.
const CHANGES: EventKindMask = EventKindMask::CREATE
    .union(EventKindMask::REMOVE)
    .union(EventKindMask::MODIFY_META)
    .union(EventKindMask::MODIFY_NAME)
    .union(EventKindMask::ACCESS_CLOSE);

/// The file notifications of the server's folders.
pub struct Wake {
    watched: Mutex<Watched>,
    /// Set by an event after which a watch may be gone: the next
    /// [`Wake::watch`] adds every folder again.
    stale: Arc<AtomicBool>,
    events: tokio::sync::mpsc::UnboundedReceiver<()>,
}

/// The watcher and the folders given to it since it was last stale.
struct Watched {
    watcher: notify::RecommendedWatcher,
    folders: HashSet<PathBuf>,
}

impl Wake {
    /// Notifications, delivered from `notify`'s own thread; `None` where
    /// the system has none (`notify` would poll).
    pub fn new() -> Option<Wake> {
        if notify::RecommendedWatcher::kind() == WatcherKind::PollWatcher {
            return None;
        }
        let (send, events) = tokio::sync::mpsc::unbounded_channel();
        let stale = Arc::new(AtomicBool::new(false));
        let on_event = {
            let stale = Arc::clone(&stale);
            move |event: notify::Result<notify::Event>| {
                // Events lost (the queue overflowed) or a watch failed: an
                // `Err`, after which every folder is watched again.
                if event.map_or(true, |e| may_drop_a_watch(e.kind)) {
                    stale.store(true, Ordering::Relaxed);
                }
                // The receiver gone: the server is ending, nothing to wake.
                let _ = send.send(());
            }
        };
        let config = Config::default().with_event_kinds(CHANGES);
        let watcher = notify::RecommendedWatcher::new(on_event, config).ok()?;
        Some(Wake {
            watched: Mutex::new(Watched {
                watcher,
                folders: HashSet::new(),
            }),
            stale,
            events,
        })
    }

    /// Watches `folders` (each one, or its nearest existing ancestor).
    /// Returns whether every one is watched: if not, the caller also looks
    /// once a second.
    pub fn watch(&self, folders: &[PathBuf]) -> bool {
        let mut watched = self.watched.lock().unwrap_or_else(PoisonError::into_inner);
        if self.stale.swap(false, Ordering::Relaxed) {
            watched.folders.clear();
        }
        let Watched {
            watcher,
            folders: known,
        } = &mut *watched;
        let mut new: Vec<PathBuf> = Vec::new();
        for folder in folders {
            if let Some(at) = existing(folder)
                && !known.contains(at)
                && !new.iter().any(|n| n == at)
            {
                new.push(at.to_path_buf());
            }
        }
        let mut ops: Vec<PathOp> = new.iter().map(PathOp::watch_non_recursive).collect();
        let mut all = true;
        // One batch (FSEvents restarts its stream once); a folder that
        // fails is left out and the rest go on.
        while let Err(failed) = watcher.update_paths(std::mem::take(&mut ops)) {
            all = false;
            match failed.origin {
                Some(PathOp::Watch(path, _)) => new.retain(|n| *n != path),
                // Not one folder's failure: which ones hold is not known.
                _ => {
                    self.stale.store(true, Ordering::Relaxed);
                    return false;
                }
            }
            ops = failed.remaining;
        }
        known.extend(new);
        all
    }

    /// Waits for the next event, then for the burst to settle, and takes
    /// every event that came meanwhile. `false` when no more can come.
    pub async fn changed(&mut self) -> bool {
        if self.events.recv().await.is_none() {
            return false;
        }
        tokio::time::sleep(SETTLE).await;
        while self.events.try_recv().is_ok() {}
        true
    }
}

/// The variable that, in a debug build only, has the watcher write a line
/// `hcpx mcp: woken N` on stderr (not the protocol's) each time it wakes,
/// so a test can see that running a program from a watched folder wakes
/// nothing (inotify's open events are never asked for).
#[cfg(debug_assertions)]
pub const DEBUG_WAKES_VAR: &str = "HCPX_MCP_DEBUG_WAKES";

/// Counts a wake of the watcher (see [`DEBUG_WAKES_VAR`]); nothing in a
/// release build.
pub fn note_wake() {
    #[cfg(debug_assertions)]
    {
        use std::sync::atomic::AtomicU64;
        static WAKES: AtomicU64 = AtomicU64::new(0);
        let n = WAKES.fetch_add(1, Ordering::Relaxed) + 1;
        if std::env::var_os(DEBUG_WAKES_VAR).is_some() {
            eprintln!("hcpx mcp: woken {n}");
        }
    }
}

/// Whether a watch may be gone after an event of `kind`: a folder removed
/// or renamed (its watch went with it), or an event `notify` cannot name.
fn may_drop_a_watch(kind: EventKind) -> bool {
    !matches!(
        kind,
        EventKind::Create(_)
            | EventKind::Access(_)
            | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Metadata(_))
    )
}

/// `path`, or its nearest ancestor that exists.
fn existing(path: &Path) -> Option<&Path> {
    path.ancestors().find(|p| p.is_dir())
}
