//! Logs go to a file, never to the screen: `$HCPX_LOG` if set, else
//! `tui.log` in the user's cache folder (`~/.cache/hcpx/` on Linux), at the
//! level `$HCPX_LOG_LEVEL` names (`error`, `warn`, `info`, the default,
//! `debug` or `trace`). At `debug` the event loop says when it handled a
//! key and when no work is left: scripts that drive the TUI (the tour
//! replay) wait on those lines instead of on a clock.
//! Nothing secret is logged: secrets never pass through a log call, and
//! actions are logged by what they did, not by the keys typed.

use std::path::PathBuf;
use tracing_appender::non_blocking::WorkerGuard;

/// Where the log goes.
pub fn log_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HCPX_LOG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    directories::ProjectDirs::from("", "", "hcpx").map(|d| d.cache_dir().join("tui.log"))
}

/// Starts logging to the file; the guard flushes it when dropped. `None`
/// when the file cannot be opened (the TUI then runs without a log).
pub fn init() -> Option<WorkerGuard> {
    let path = log_path()?;
    // Never writable by group or others, whatever the umask (HCP.md §14.1).
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(dir)
            .ok()?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
        .ok()?;
    let (writer, guard) = tracing_appender::non_blocking(file);
    let subscriber = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_max_level(level())
        .finish();
    tracing::subscriber::set_global_default(subscriber).ok()?;
    Some(guard)
}

/// The level `$HCPX_LOG_LEVEL` names; `info` when unset or unknown.
fn level() -> tracing::Level {
    std::env::var("HCPX_LOG_LEVEL")
        .ok()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(tracing::Level::INFO)
}
