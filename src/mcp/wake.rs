//! What wakes the watcher (HCP.md §16.6: an idle server does no work): the
//! operating system's file notifications (inotify on Linux) on every
//! folder whose entries the stamp reads ([`super::stamp::folders`]), a
//! folder that does not exist yet watched through its nearest existing
//! ancestor. An event only wakes the watcher, which then takes the stamp
//! as before and decides: the events are not read one by one.
//!
//! The watches are added again after each wake (a pack installed since
//! has a new folder; a folder made again is a new inode); adding one that
//! is there already changes nothing. Where there are no notifications (not
//! Linux, or the kernel's watch limit reached) the watcher falls back to a
//! look once a second.

use std::path::{Path, PathBuf};

/// How long the watcher waits after a first event for the rest of a
/// burst (one change writes several files) before it looks.
pub const SETTLE: std::time::Duration = std::time::Duration::from_millis(50);

/// The file notifications of the server's folders.
pub struct Wake {
    #[cfg(target_os = "linux")]
    fd: std::sync::Arc<std::os::fd::OwnedFd>,
    events: tokio::sync::mpsc::UnboundedReceiver<()>,
}

impl Wake {
    /// Notifications, with a thread that waits for them; `None` where the
    /// system has none.
    pub fn new() -> Option<Wake> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::inotify::{CreateFlags, init};
            let fd = std::sync::Arc::new(init(CreateFlags::CLOEXEC).ok()?);
            let (send, events) = tokio::sync::mpsc::unbounded_channel();
            let reader = std::sync::Arc::clone(&fd);
            std::thread::Builder::new()
                .name("hcpx-mcp-inotify".into())
                .spawn(move || {
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        match rustix::io::read(&*reader, &mut buf) {
                            Ok(_) => {
                                if send.send(()).is_err() {
                                    return;
                                }
                            }
                            Err(rustix::io::Errno::INTR) => {}
                            Err(_) => return,
                        }
                    }
                })
                .ok()?;
            Some(Wake { fd, events })
        }
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// Watches `folders` (each one, or its nearest existing ancestor).
    /// Returns whether every one is watched: if not, the caller also looks
    /// once a second.
    pub fn watch(&self, folders: &[PathBuf]) -> bool {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::inotify::{WatchFlags, add_watch};
            let flags = WatchFlags::CREATE
                | WatchFlags::DELETE
                | WatchFlags::MOVED_FROM
                | WatchFlags::MOVED_TO
                | WatchFlags::CLOSE_WRITE
                | WatchFlags::ATTRIB
                | WatchFlags::DELETE_SELF
                | WatchFlags::MOVE_SELF
                | WatchFlags::ONLYDIR;
            let mut all = true;
            for folder in folders {
                let Some(at) = existing(folder) else {
                    continue;
                };
                if add_watch(&*self.fd, at, flags).is_err() {
                    all = false;
                }
            }
            all
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = folders;
            false
        }
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

/// `path`, or its nearest ancestor that exists.
fn existing(path: &Path) -> Option<&Path> {
    path.ancestors().find(|p| p.is_dir())
}
