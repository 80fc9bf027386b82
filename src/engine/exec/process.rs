//! The `process` adapter (HCP.md §6.3): `{kind: process, program, argv, env}`.
//!
//! - `program` is a bare name looked up on the runtime's PATH, or `./path`
//!   inside the pack. A `./` program must stay inside the pack directory
//!   (checked both lexically and after resolving the real path), exist, be a
//!   regular file and be executable.
//! - Each argv element may hold `{name}` placeholders (§6.3). A value is
//!   always exactly one argv element: there is no shell, nothing is split,
//!   quoted or re-parsed. An element with a placeholder of an arg that has no
//!   value (absent, optional, no default) is dropped whole.
//! - Working directory: the pack directory. stdin: empty (`/dev/null`).
//! - Environment: the runtime's own, then `HCP_PACK_ID`, `HCP_PACK_DIR`,
//!   `HCP_VERB`, `HCP_ARG_<NAME>` per arg with a value, the adapter's `env`,
//!   then the Binding's material (§8.3); later ones win.
//! - The command runs in a process group of its own. On timeout the whole
//!   group gets SIGKILL and the exec fails with `timeout` (§6.3, §10.3).
//!
//! Where the spec is silent:
//! - PATH lookup uses the runtime's own `PATH` (not a `PATH` set by the
//!   adapter's `env`), skipping empty entries (no implicit current
//!   directory), so that [`resolve_program`] and availability agree. The
//!   resolved path is spawned; `argv[0]` is the program as written.
//! - `${NAME}` in an argv element is left as text: material reaches a
//!   process only through its environment, never its argv (which other users
//!   can read). The adapter's `env` values are taken literally.
//! - In capture mode the command is over when its leader has exited *and*
//!   its stdout and stderr are closed, as with a shell's `$(...)`: a
//!   background child that keeps them open counts as still running, and is
//!   killed with the group when the timeout comes. A child that closed them
//!   is left alone when the leader exits. A process that left the group
//!   (`setsid`) is out of reach: if it keeps the pipes open past the timeout,
//!   the exec still fails as a timeout and the reader threads end whenever
//!   it closes them.
//!
//! **Interruption** (§14.6). Every group [`run`] starts is on a registry
//! from its spawn until [`run`] returns; the front-ends, which handle the
//! signals (the engine catches none), end them all with [`interrupt`] or
//! [`end_all`], or those started inside one [`Scope`] (the TUI's jobs) with
//! [`Scope::cancel`] or [`Scope::end`]. So that no signal is lost:
//! - a group is spawned and registered under one lock, so a kill that comes
//!   during a spawn waits for the registration and then kills it;
//! - after [`end_all`] (or an [`interrupt`] that ended groups) nothing more
//!   is started: a later spawn fails (likewise in a scope after
//!   [`Scope::end`]);
//! - the leader is reaped only once its group is off the registry: until
//!   then it is at least a zombie, whose pid cannot be handed to another
//!   process, so a kill never reaches a group that is not ours;
//! - a command that shares the terminal ([`OutputMode::Inherit`], `hcpx exec`
//!   without `--json`) is handed the signal instead, as if it had come from
//!   the terminal; whatever is left of its group when the leader exits is
//!   killed then. A second signal kills the group at once.

use super::live::{Live, Stream, Tap};
use super::redact::Redactor;
use super::{Captured, ExecOutcome, ExecRequest, Limits, OutputMode, elapsed_ms, read_capped_live};
use crate::engine::error::{Error, ErrorCode};
use crate::engine::exec::args::{BoundArgs, value_text};
use crate::engine::pack::grammar::{self, Piece, template_pieces};
use crate::engine::policy::refusal::Refusal;
use rustix::process::{Pid, Signal, kill_process_group};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Component, Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// After a timeout kill, how long to wait for the leader to be reaped.
const REAP_GRACE: Duration = Duration::from_secs(2);

/// Finds the file a `program` names (§6.3): a bare name on the runtime's
/// PATH, or `./path` inside `pack_dir`. The result is an absolute path.
pub fn resolve_program(program: &str, pack_dir: &Path) -> Result<PathBuf, Refusal> {
    let not_found = |detail: String| Refusal::ProgramNotFound {
        program: program.to_string(),
        detail,
    };
    if let Some(rel) = program.strip_prefix("./") {
        if !stays_inside(Path::new(rel)) {
            return Err(not_found(format!("`{program}` leaves the pack directory")));
        }
        let root = pack_dir.canonicalize().map_err(|e| {
            not_found(format!(
                "`{program}` cannot be looked up: the pack directory {} cannot be read ({e})",
                pack_dir.display()
            ))
        })?;
        let Ok(real) = root.join(rel).canonicalize() else {
            return Err(not_found(format!("`{program}` does not exist in the pack")));
        };
        if real == root || !real.starts_with(&root) {
            return Err(not_found(format!("`{program}` leaves the pack directory")));
        }
        if !is_executable_file(&real) {
            return Err(not_found(format!(
                "`{program}` is not an executable file in the pack"
            )));
        }
        return Ok(real);
    }
    if !grammar::is_program_name(program) {
        return Err(not_found(format!(
            "`{program}` must be a bare name looked up on PATH or a `./` path inside the pack"
        )));
    }
    find_on_path(program, std::env::var_os("PATH").as_deref())
        .ok_or_else(|| not_found(format!("`{program}` is not found on PATH")))
}

/// A small `which`: the first executable regular file called `name` in the
/// directories of `path` (a `PATH`-style list). Empty entries are skipped.
pub fn find_on_path(name: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    let path = path?;
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable_file(candidate))
        .map(|found| std::path::absolute(&found).unwrap_or(found))
}

/// A regular file (after following links) that we may execute.
fn is_executable_file(path: &Path) -> bool {
    path.metadata().is_ok_and(|m| m.is_file())
        && rustix::fs::access(path, rustix::fs::Access::EXEC_OK).is_ok()
}

/// Whether a relative path stays inside its root, without touching the disk.
fn stays_inside(rel: &Path) -> bool {
    let mut depth: usize = 0;
    for part in rel.components() {
        match part {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    depth > 0
}

/// The argv after the program: placeholders replaced by the args' text, and
/// elements whose placeholders name an arg without a value dropped (§6.3).
pub fn build_argv(template: &[String], args: &BoundArgs) -> Vec<String> {
    template
        .iter()
        .filter_map(|element| {
            let mut out = String::new();
            for piece in template_pieces(element) {
                match piece {
                    Piece::Text(t) => out.push_str(t),
                    Piece::Arg(name) => out.push_str(&value_text(args.get(name)?)),
                    Piece::Material(name) => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                    }
                }
            }
            Some(out)
        })
        .collect()
}

enum Event {
    Exited(io::Result<ExitStatus>),
    Stdout(io::Result<Captured>),
    Stderr(io::Result<Captured>),
}

/// Runs a `process` command (§6.3).
pub(super) fn run(
    req: &ExecRequest<'_>,
    program: &str,
    argv: &[String],
    env: &BTreeMap<String, String>,
    limits: &Limits,
    redactor: &Redactor,
) -> Result<ExecOutcome, Error> {
    let path = resolve_program(program, req.pack_dir).map_err(|e| e.to_error())?;
    let pack_dir = std::path::absolute(req.pack_dir)
        .map_err(|e| Error::io("cannot resolve the pack directory", req.pack_dir, &e))?;
    if !pack_dir.is_dir() {
        return Err(Error::new(
            ErrorCode::Io,
            format!("the pack directory {} is missing", pack_dir.display()),
        )
        .path(pack_dir.display().to_string()));
    }

    let mut cmd = command(req, program, &path, &pack_dir, argv, env);

    let start = Instant::now();
    // The waiter reaps the leader once `registration` is dropped.
    let (release, released) = mpsc::channel();
    let (child, registration) = spawn_registered(&mut cmd, program, req.mode, release)?;
    let group = registration.group;
    let live = req.live.map(|tap| (tap.clone(), redactor.clone()));
    let (_registration, rx, pending) = watch(
        child,
        registration,
        released,
        (limits.output_bytes, live),
        "the command",
    )?;

    let deadline = start.checked_add(Duration::from_millis(req.command.timeout_ms));
    let gathered = gather(&rx, pending, deadline);
    if gathered.timed_out {
        return Err(timeout(req, group, &rx, gathered.status.is_some()));
    }
    // `_registration` lives until the outcome is read.
    finish(program, group, start, gathered)
}

/// The command of §6.3: `program` (found at `path`) with its argv, in the
/// pack directory, its own process group, empty stdin, and the `HCP_*`
/// variables, the adapter's `env` and the Binding's material.
fn command(
    req: &ExecRequest<'_>,
    program: &str,
    path: &Path,
    pack_dir: &Path,
    argv: &[String],
    env: &BTreeMap<String, String>,
) -> std::process::Command {
    let mut cmd = std::process::Command::new(path);
    cmd.arg0(program)
        .args(build_argv(argv, req.args))
        .current_dir(pack_dir)
        .stdin(Stdio::null())
        .process_group(0)
        .env("HCP_PACK_ID", req.pack_id)
        .env("HCP_PACK_DIR", pack_dir)
        .env("HCP_VERB", &req.command.key);
    for (name, value) in req.args.iter() {
        cmd.env(
            format!("HCP_ARG_{}", name.to_ascii_uppercase()),
            value_text(value),
        );
    }
    cmd.envs(env);
    cmd.envs(req.material.iter().map(|(k, v)| (k, v)));
    let (out, err) = match req.mode {
        OutputMode::Capture => (Stdio::piped(), Stdio::piped()),
        OutputMode::Inherit => (Stdio::inherit(), Stdio::inherit()),
    };
    cmd.stdout(out).stderr(err);
    cmd
}

/// Ends a command out of time (§6.3): kills its process group and waits
/// (at most [`REAP_GRACE`]) for the leader to die, so that the waiter reaps
/// it as soon as the group is off the registry and no zombie is left
/// behind; the readers end by themselves once every member of the group is
/// gone. Returns the `timeout` error.
fn timeout(req: &ExecRequest<'_>, group: Pid, rx: &mpsc::Receiver<Event>, exited: bool) -> Error {
    kill_group(group);
    let reap_by = Instant::now() + REAP_GRACE;
    let mut exited = exited;
    while !exited {
        let left = reap_by.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Event::Exited(_)) => exited = true,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Error::new(
        ErrorCode::Timeout,
        format!(
            "`{}` did not finish within {} ms; its process group was killed",
            req.command.key, req.command.timeout_ms
        ),
    )
    .hint("raise the command's `timeout_ms` (at most 600000) if it needs longer")
}

/// The outcome of a command that ended in time, from what the watchers
/// reported.
fn finish(
    program: &str,
    group: Pid,
    start: Instant,
    gathered: Gathered,
) -> Result<ExecOutcome, Error> {
    let Gathered {
        status,
        stdout,
        stderr,
        ..
    } = gathered;
    let status = match status {
        Some(Ok(s)) => s,
        Some(Err(e)) => {
            return Err(Error::new(
                ErrorCode::Io,
                format!("could not wait for `{program}`: {e}"),
            ));
        }
        None => {
            kill_group(group);
            return Err(Error::new(
                ErrorCode::Io,
                format!("lost track of `{program}` while it ran"),
            ));
        }
    };
    let duration_ms = elapsed_ms(start);
    let captured = |c: Option<io::Result<Captured>>, stream: &str| match c {
        None => Ok(Captured::default()),
        Some(Ok(c)) => Ok(c),
        Some(Err(e)) => Err(Error::new(
            ErrorCode::Io,
            format!("could not read the {stream} of `{program}`: {e}"),
        )),
    };
    let stdout = captured(stdout, "stdout")?;
    let stderr = captured(stderr, "stderr")?;
    Ok(ExecOutcome {
        exit_code: exit_code(status),
        duration_ms,
        stdout: stdout.text(),
        stderr: stderr.text(),
        data: None,
        truncated: stdout.truncated || stderr.truncated,
        stdout_truncated: stdout.truncated,
        stderr_truncated: stderr.truncated,
        killed: status.signal().is_some(),
    })
}

/// What the watchers reported before the deadline.
struct Gathered {
    status: Option<io::Result<ExitStatus>>,
    stdout: Option<io::Result<Captured>>,
    stderr: Option<io::Result<Captured>>,
    timed_out: bool,
}

/// Waits for `pending` watcher events (the exit status and each captured
/// stream) until `deadline`.
fn gather(rx: &mpsc::Receiver<Event>, mut pending: usize, deadline: Option<Instant>) -> Gathered {
    let mut status = None;
    let mut stdout = None;
    let mut stderr = None;
    let mut timed_out = false;
    while pending > 0 {
        let event = match deadline {
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    timed_out = true;
                    break;
                }
                rx.recv_timeout(left)
            }
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match event {
            Ok(Event::Exited(s)) => status = Some(s),
            Ok(Event::Stdout(c)) => stdout = Some(c),
            Ok(Event::Stderr(c)) => stderr = Some(c),
            Err(RecvTimeoutError::Timeout) => {
                timed_out = true;
                break;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
        pending -= 1;
    }
    Gathered {
        status,
        stdout,
        stderr,
        timed_out,
    }
}

/// What a tool the runtime itself runs (`git`, §13.1) printed, and how it
/// ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// Its exit code (128 + the signal when killed).
    pub exit_code: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// How much of a tool's stdout and stderr [`run_tool`] keeps.
const TOOL_OUTPUT_BYTES: usize = 4 * 1024 * 1024;

/// Runs a tool of the runtime's own (not a pack's command) to its end, in a
/// process group of its own registered like every command [`run`] starts,
/// so an interruption ends it (§14.6); stdin is `/dev/null`, stdout and
/// stderr are captured (each up to 4 MiB). No timeout: the caller's user
/// interrupts a tool that hangs.
pub fn run_tool(cmd: &mut std::process::Command, program: &str) -> Result<ToolOutput, Error> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped());
    run_tool_watched(cmd, program, &|| false).map(|(out, _)| out)
}

/// How often [`run_tool_watched`] asks whether to stop the tool.
const TOOL_WATCH_EVERY: Duration = Duration::from_millis(50);

/// [`run_tool`] with stdin and stdout as the caller set them on `cmd`
/// (a file, say), stderr captured, and `stop` asked every 50 ms while the
/// tool runs: when it says so, the tool's whole process group is killed
/// (SIGKILL) and the second value is true. A git fetch is bounded this way
/// (§14.8).
pub fn run_tool_watched(
    cmd: &mut std::process::Command,
    program: &str,
    stop: &dyn Fn() -> bool,
) -> Result<(ToolOutput, bool), Error> {
    cmd.stderr(Stdio::piped()).process_group(0);
    let (release, released) = mpsc::channel();
    let (child, registration) = spawn_registered(cmd, program, OutputMode::Capture, release)?;
    let (registration, rx, mut pending) = watch(
        child,
        registration,
        released,
        (TOOL_OUTPUT_BYTES, None),
        &format!("`{program}`"),
    )?;
    let (mut status, mut stdout, mut stderr) = (None, Vec::new(), Vec::new());
    let mut stopped = false;
    while pending > 0 {
        match rx.recv_timeout(TOOL_WATCH_EVERY) {
            Ok(Event::Exited(s)) => status = Some(s),
            Ok(Event::Stdout(c)) => stdout = c.map(|c| c.bytes).unwrap_or_default(),
            Ok(Event::Stderr(c)) => stderr = c.map(|c| c.bytes).unwrap_or_default(),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if !stopped && status.is_none() && stop() {
                    stopped = true;
                    kill_group(registration.group);
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        pending -= 1;
    }
    drop(registration);
    match status {
        Some(Ok(status)) => Ok((
            ToolOutput {
                exit_code: exit_code(status),
                stdout,
                stderr,
            },
            stopped,
        )),
        Some(Err(e)) => Err(Error::new(
            ErrorCode::Io,
            format!("could not wait for `{program}`: {e}"),
        )),
        None => Err(Error::new(
            ErrorCode::Io,
            format!("lost track of `{program}` while it ran"),
        )),
    }
}

/// Hands a started child to its watchers ([`start_watchers`]): returns
/// its registration, the channel they report on and how many reports to
/// wait for (each reader's and the waiter's). The threads are started
/// before the waiter is handed the child, so that if one cannot be started
/// the child is still ours to kill and reap; then the error names `what`
/// ran.
fn watch(
    mut child: Child,
    registration: Registration,
    released: mpsc::Receiver<()>,
    read: Reading,
    what: &str,
) -> Result<(Registration, mpsc::Receiver<Event>, usize), Error> {
    let group = registration.group;
    let (tx, rx) = mpsc::channel();
    let (child_tx, child_rx) = mpsc::channel();
    let pending = match start_watchers(&mut child, &tx, child_rx, released, read) {
        Ok(readers) => readers + 1,
        Err(e) => {
            kill_group(group);
            drop(registration);
            let _ = child.wait();
            return Err(thread_error(&e));
        }
    };
    if let Err(mpsc::SendError(mut child)) = child_tx.send(child) {
        kill_group(group);
        drop(registration);
        let _ = child.wait();
        return Err(Error::new(
            ErrorCode::Io,
            format!("the thread waiting for {what} stopped"),
        ));
    }
    Ok((registration, rx, pending))
}

/// How the streams are read: the cap on each, and the tap that sees them
/// live with the redactor that hides the material in what it sees.
type Reading = (usize, Option<(Tap, Redactor)>);

/// Starts the threads that watch a child: one that waits for it (once it is
/// sent the child) and one per piped stream that reads it. Returns how many
/// readers were started.
fn start_watchers(
    child: &mut Child,
    tx: &mpsc::Sender<Event>,
    child_rx: mpsc::Receiver<Child>,
    released: mpsc::Receiver<()>,
    (limit, tap): Reading,
) -> io::Result<usize> {
    let live = |stream| {
        tap.as_ref()
            .map(|(tap, redactor)| Live::new(tap.clone(), stream, redactor.clone()))
    };
    let waiter_tx = tx.clone();
    thread::Builder::new()
        .name("hcpx-exec-wait".into())
        .spawn(move || {
            if let Ok(mut child) = child_rx.recv() {
                let _ = waiter_tx.send(Event::Exited(wait_unreaped(&child)));
                // Reap only once the group is off the registry (its sender
                // is dropped with the registration).
                let _ = released.recv();
                let _ = child.wait();
            }
        })?;
    let mut readers = 0;
    if let Some(stdout) = child.stdout.take() {
        let tx = tx.clone();
        let live = live(Stream::Stdout);
        thread::Builder::new()
            .name("hcpx-exec-stdout".into())
            .spawn(move || tx.send(Event::Stdout(read_capped_live(stdout, limit, true, live))))?;
        readers += 1;
    }
    if let Some(stderr) = child.stderr.take() {
        let tx = tx.clone();
        let live = live(Stream::Stderr);
        thread::Builder::new()
            .name("hcpx-exec-stderr".into())
            .spawn(move || tx.send(Event::Stderr(read_capped_live(stderr, limit, true, live))))?;
        readers += 1;
    }
    Ok(readers)
}

/// The exit code of a finished process: its own, or 128 + the signal that
/// killed it.
fn exit_code(status: ExitStatus) -> i32 {
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(128)
}

/// SIGKILL to every process of the group. Never to group 0 or 1 (which
/// would mean our own group or every process).
fn kill_group(group: Pid) {
    if group.as_raw_nonzero().get() > 1 {
        let _ = kill_process_group(group, Signal::KILL);
    }
}

/// Waits until the child has exited, leaving it unreaped (a zombie) so its
/// pid, and so its group id, stay taken until [`Child::wait`] reaps it.
fn wait_unreaped(child: &Child) -> io::Result<ExitStatus> {
    use rustix::process::{WaitId, WaitIdOptions, waitid};
    let pid = Pid::from_child(child);
    loop {
        match waitid(
            WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
        ) {
            Ok(Some(status)) => {
                let raw = match (status.exit_status(), status.terminating_signal()) {
                    (Some(code), _) => (code & 0xff) << 8,
                    (None, Some(signal)) => signal & 0x7f,
                    (None, None) => continue,
                };
                return Ok(ExitStatus::from_raw(raw));
            }
            Ok(None) | Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// The process groups [`run`] started and has not finished with (§14.6).
struct Registry {
    /// Set by [`end_all`]: nothing more is started.
    closed: bool,
    /// Scopes [`Scope::end`] ended: nothing more is started in them.
    ended_scopes: Vec<u64>,
    groups: Vec<Started>,
}

struct Started {
    group: Pid,
    /// The [`Scope`] it was started in (0: none).
    scope: u64,
    mode: OutputMode,
    /// The signal an [`interrupt`] handed to a command sharing the
    /// terminal: what is left of its group is killed when it is taken off.
    signalled: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    closed: false,
    ended_scopes: Vec::new(),
    groups: Vec::new(),
});

static NEXT_SCOPE: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The scope of the commands this thread starts (0: none).
    static SCOPE: Cell<u64> = const { Cell::new(0) };
}

/// The commands started on threads inside [`Scope::run`], which can be
/// ended together without touching any other caller's: the TUI runs its
/// jobs in one, and cancels or ends what they started (§14.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope(u64);

impl Scope {
    /// A new scope, different from every other.
    pub fn new() -> Scope {
        Scope(NEXT_SCOPE.fetch_add(1, Ordering::Relaxed))
    }

    /// Runs `f`; the commands it starts on this thread belong to the scope.
    pub fn run<T>(self, f: impl FnOnce() -> T) -> T {
        /// Puts the outer scope back, also if `f` panics.
        struct Restore(u64);
        impl Drop for Restore {
            fn drop(&mut self) {
                SCOPE.with(|s| s.set(self.0));
            }
        }
        let _restore = Restore(SCOPE.with(|s| s.replace(self.0)));
        f()
    }

    /// Kills (SIGKILL) the group of every command of the scope still
    /// running; later ones may start. Returns how many groups.
    pub fn cancel(self) -> usize {
        kill_registered(&registry(), |g| g.scope == self.0)
    }

    /// As [`Scope::cancel`], and no command starts in the scope any more.
    pub fn end(self) -> usize {
        let mut registry = registry();
        registry.ended_scopes.push(self.0);
        kill_registered(&registry, |g| g.scope == self.0)
    }
}

impl Default for Scope {
    fn default() -> Self {
        Scope::new()
    }
}

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A group on the registry. Dropping it takes the group off (killing what is
/// left of it if a signal was handed to it), then lets the waiter reap the
/// leader.
struct Registration {
    group: Pid,
    _release: mpsc::Sender<()>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut registry = registry();
        if let Some(at) = registry.groups.iter().position(|g| g.group == self.group)
            && registry.groups.remove(at).signalled
        {
            kill_group(self.group);
        }
    }
}

/// Spawns `cmd` (which starts a process group of its own) and registers the
/// group, under the registry's lock.
fn spawn_registered(
    cmd: &mut std::process::Command,
    program: &str,
    mode: OutputMode,
    release: mpsc::Sender<()>,
) -> Result<(Child, Registration), Error> {
    let scope = SCOPE.with(Cell::get);
    let mut registry = registry();
    if registry.closed || registry.ended_scopes.contains(&scope) {
        return Err(Error::new(
            ErrorCode::Io,
            format!("`{program}` was not started: hcpx is stopping"),
        ));
    }
    let child = unless_busy(|| cmd.spawn()).map_err(|e| spawn_error(program, &e))?;
    let group = Pid::from_child(&child);
    registry.groups.push(Started {
        group,
        scope,
        mode,
        signalled: false,
    });
    Ok((
        child,
        Registration {
            group,
            _release: release,
        },
    ))
}

/// Runs `spawn`, again a few times while its program is "busy" (ETXTBSY).
/// A file written just before can be: a process another thread forked
/// meanwhile holds a copy of the writer's handle until it execs (in the
/// TUI, a job that spawns while another writes; in tests, a script written
/// just before it runs). The handle closes within moments, so the spawn is
/// tried again after pauses of 1, 2, 4… ms, about a quarter second in all.
fn unless_busy<T>(mut spawn: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let busy = Some(rustix::io::Errno::TXTBSY.raw_os_error());
    let mut pause = Duration::from_millis(1);
    for _ in 1..SPAWN_TRIES {
        match spawn() {
            Err(e) if e.raw_os_error() == busy => {
                thread::sleep(pause);
                pause *= 2;
            }
            done => return done,
        }
    }
    spawn()
}

/// How many times [`unless_busy`] tries.
const SPAWN_TRIES: u32 = 8;

/// What [`interrupt`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interruption {
    /// A command shares the terminal: it was handed the signal (as if it
    /// came from the terminal) and decides when it ends; whatever is left
    /// of its group is killed when it does. The caller waits for the exec
    /// to return, then exits 128 + the signal. A second signal ends it.
    Forwarded,
    /// Every running command's group was killed (SIGKILL) and nothing more
    /// will start: the caller exits 128 + the signal now.
    Ended,
}

/// For a front-end's signal handler, on SIGINT, SIGTERM, SIGHUP or SIGQUIT
/// (§14.6): a command sharing the terminal ([`OutputMode::Inherit`]) is
/// handed the first signal; otherwise, and on a second signal, as
/// [`end_all`], after calling `before_end` (so the front-end can hold its
/// output back before the commands it waits on are seen to end). `signal`
/// is a raw signal number.
pub fn interrupt(signal: i32, before_end: impl FnOnce()) -> Interruption {
    let mut registry = registry();
    let signal = Signal::from_named_raw(signal).unwrap_or(Signal::TERM);
    let mut forwarded = false;
    // A second signal does not wait for the command any more.
    for started in registry
        .groups
        .iter_mut()
        .filter(|g| g.mode == OutputMode::Inherit && !g.signalled)
    {
        started.signalled = true;
        forwarded = true;
        if started.group.as_raw_nonzero().get() > 1 {
            let _ = kill_process_group(started.group, signal);
        }
    }
    if forwarded {
        return Interruption::Forwarded;
    }
    before_end();
    end_locked(&mut registry);
    Interruption::Ended
}

/// Kills (SIGKILL) the group of every command still running and lets no
/// other start: for a front-end about to exit. Returns how many groups.
pub fn end_all() -> usize {
    end_locked(&mut registry())
}

fn end_locked(registry: &mut Registry) -> usize {
    registry.closed = true;
    kill_registered(registry, |_| true)
}

fn kill_registered(registry: &Registry, which: impl Fn(&Started) -> bool) -> usize {
    let mut killed = 0;
    for started in registry.groups.iter().filter(|g| which(g)) {
        kill_group(started.group);
        killed += 1;
    }
    killed
}

fn spawn_error(program: &str, e: &io::Error) -> Error {
    const ENOEXEC: i32 = 8;
    match e.kind() {
        io::ErrorKind::NotFound => Error::new(
            ErrorCode::ProgramNotFound,
            format!("`{program}` could not be started: it was not found"),
        ),
        io::ErrorKind::PermissionDenied => Error::new(
            ErrorCode::ProgramNotFound,
            format!("`{program}` could not be started: permission denied"),
        ),
        _ if e.raw_os_error() == Some(ENOEXEC) => Error::new(
            ErrorCode::Io,
            format!("`{program}` is not a program this system can run (a script without `#!`?)"),
        ),
        _ => Error::new(
            ErrorCode::Io,
            format!("`{program}` could not be started: {e}"),
        ),
    }
}

fn thread_error(e: &io::Error) -> Error {
    Error::new(
        ErrorCode::Io,
        format!("could not start a thread to watch the command: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_busy_program_is_tried_again_and_other_errors_are_not() {
        // Busy three times, then it starts.
        let seen = Cell::new(0);
        let started = unless_busy(|| {
            seen.set(seen.get() + 1);
            if seen.get() <= 3 {
                Err(io::Error::from_raw_os_error(
                    rustix::io::Errno::TXTBSY.raw_os_error(),
                ))
            } else {
                Ok(seen.get())
            }
        });
        assert_eq!(started.unwrap(), 4);
        // Busy for good: it gives up after SPAWN_TRIES and says why.
        let calls = Cell::new(0);
        let err = unless_busy(|| -> io::Result<()> {
            calls.set(calls.get() + 1);
            Err(io::Error::from_raw_os_error(
                rustix::io::Errno::TXTBSY.raw_os_error(),
            ))
        })
        .unwrap_err();
        assert_eq!(calls.get(), SPAWN_TRIES);
        assert_eq!(
            err.raw_os_error(),
            Some(rustix::io::Errno::TXTBSY.raw_os_error())
        );
        // Any other error is said at once.
        let calls = Cell::new(0);
        let err = unless_busy(|| -> io::Result<()> {
            calls.set(calls.get() + 1);
            Err(io::Error::from(io::ErrorKind::NotFound))
        })
        .unwrap_err();
        assert_eq!((calls.get(), err.kind()), (1, io::ErrorKind::NotFound));
    }

    fn bound(pairs: &[(&str, serde_json::Value)]) -> BoundArgs {
        use crate::engine::pack::manifest::{Adapter, Arg, ArgType, Command, Effect, OutputKind};
        let args = pairs
            .iter()
            .map(|(n, v)| Arg {
                name: n.to_string(),
                kind: match v {
                    serde_json::Value::Number(_) => ArgType::Integer,
                    serde_json::Value::Bool(_) => ArgType::Boolean,
                    _ => ArgType::String,
                },
                ..Arg::default()
            })
            .collect();
        let command = Command {
            key: "t".into(),
            summary: "t".into(),
            effect: Effect::Read,
            args,
            adapter: Adapter::Other { kind: "x".into() },
            timeout_ms: 1,
            output: OutputKind::Text,
        };
        let words: Vec<String> = pairs
            .iter()
            .map(|(n, v)| format!("{n}={}", value_text(v)))
            .collect();
        super::super::bind_args(&command, &words).unwrap_or_default()
    }

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn placeholders_are_replaced_and_absent_ones_dropped() {
        let args = bound(&[("repo", json!("a b; rm -rf /")), ("limit", json!(5))]);
        let argv = build_argv(
            &strings(&[
                "list",
                "--repo={repo}",
                "{repo}",
                "--limit",
                "{limit}",
                "--label={label}",
                "{a: .b}",
                "${TOKEN}",
                "{repo}{limit}",
            ]),
            &args,
        );
        assert_eq!(
            argv,
            strings(&[
                "list",
                "--repo=a b; rm -rf /",
                "a b; rm -rf /",
                "--limit",
                "5",
                "{a: .b}",
                "${TOKEN}",
                "a b; rm -rf /5",
            ])
        );
    }

    #[test]
    fn lexical_pack_escape() {
        assert!(stays_inside(Path::new("bin/run.sh")));
        assert!(stays_inside(Path::new("bin/../run.sh")));
        assert!(!stays_inside(Path::new("../run.sh")));
        assert!(!stays_inside(Path::new("bin/../../run.sh")));
        assert!(!stays_inside(Path::new(".")));
        assert!(!stays_inside(Path::new("/etc/passwd")));
    }

    #[test]
    fn which_on_path() {
        let path = std::env::var_os("PATH");
        let sh = find_on_path("sh", path.as_deref());
        assert!(sh.as_ref().is_some_and(|p| p.is_absolute()), "{sh:?}");
        assert_eq!(
            find_on_path("hcpx-no-such-program-xyz", path.as_deref()),
            None
        );
        assert_eq!(find_on_path("sh", None), None);
        // A directory is not a program, and empty entries are skipped.
        assert_eq!(find_on_path("bin", Some(OsStr::new("/:"))), None);
    }

    #[test]
    fn bare_names_must_be_program_names() {
        let dir = Path::new("/");
        for bad in ["", "bin/sh", "/bin/sh", "a b", ".."] {
            let err = resolve_program(bad, dir).err();
            assert!(
                matches!(err, Some(Refusal::ProgramNotFound { .. })),
                "{bad}: {err:?}"
            );
        }
    }

    /// Runs `sh -c SCRIPT` (in capture mode) on a thread, in `scope`.
    fn run_sh(
        scope: Scope,
        script: &str,
    ) -> thread::JoinHandle<Result<ExecOutcome, crate::engine::error::Error>> {
        use crate::engine::pack::manifest::{Adapter, Command, Effect, OutputKind};
        let command = Command {
            key: "t".into(),
            summary: "t".into(),
            effect: Effect::Read,
            args: vec![],
            adapter: Adapter::Process {
                program: "sh".into(),
                argv: vec!["-c".into(), script.into()],
                env: BTreeMap::new(),
            },
            timeout_ms: 600_000,
            output: OutputKind::Text,
        };
        thread::spawn(move || {
            let args = BoundArgs::new();
            let req = ExecRequest {
                pack_id: "acme.t",
                pack_dir: Path::new("/"),
                command: &command,
                args: &args,
                material: &[],
                base_url: None,
                mode: OutputMode::Capture,
                live: None,
            };
            scope.run(|| super::super::run(&req))
        })
    }

    fn pid_in(path: &Path) -> Pid {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let pid = std::fs::read_to_string(path)
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok())
                .and_then(Pid::from_raw);
            match pid {
                Some(pid) => return pid,
                None if Instant::now() > deadline => panic!("no pid in {}", path.display()),
                None => thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    /// Exists and is not a zombie.
    fn running(pid: Pid) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero()));
        stat.is_ok_and(|s| {
            s.rsplit_once(") ")
                .is_some_and(|(_, r)| !r.starts_with('Z'))
        })
    }

    #[test]
    fn a_scope_cancels_only_its_own_commands_and_an_ended_scope_starts_none()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let (mine, other) = (Scope::new(), Scope::new());
        let script = |name: &str| {
            let path = dir.path().join(name);
            let sh = format!(
                "sleep 1000 & echo $! > {0}.tmp; mv {0}.tmp {0}; wait",
                path.display()
            );
            (path, sh)
        };
        let (mine_pid, sh) = script("mine");
        let mine_run = run_sh(mine, &sh);
        let (other_pid, sh) = script("other");
        let other_run = run_sh(other, &sh);
        let (mine_pid, other_pid) = (pid_in(&mine_pid), pid_in(&other_pid));

        assert_eq!(mine.cancel(), 1);
        let outcome = mine_run.join().map_err(|_| "panicked")??;
        assert_eq!(outcome.exit_code, 128 + 9);
        // The grandchild was killed with its group (it may linger as a
        // zombie until its new parent reaps it).
        let deadline = Instant::now() + Duration::from_secs(10);
        while running(mine_pid) {
            assert!(Instant::now() < deadline, "the grandchild survived");
            thread::sleep(Duration::from_millis(20));
        }
        assert!(running(other_pid));

        // Cancelled, the scope still starts commands; ended, it does not.
        let done = run_sh(mine, "true").join().map_err(|_| "panicked")??;
        assert_eq!(done.exit_code, 0);
        assert_eq!(mine.end(), 0);
        let refused = run_sh(mine, "true").join().map_err(|_| "panicked")?;
        let err = refused.err().ok_or("an ended scope started a command")?;
        assert!(err.message.contains("hcpx is stopping"), "{}", err.message);

        // The other scope's command ran on; `end` stops it too.
        assert_eq!(other.end(), 1);
        let outcome = other_run.join().map_err(|_| "panicked")??;
        assert_eq!(outcome.exit_code, 128 + 9);
        Ok(())
    }

    #[test]
    fn exit_codes_of_signals() {
        assert_eq!(exit_code(ExitStatus::from_raw(0)), 0);
        assert_eq!(exit_code(ExitStatus::from_raw(3 << 8)), 3);
        assert_eq!(exit_code(ExitStatus::from_raw(9)), 137);
        assert_eq!(exit_code(ExitStatus::from_raw(15)), 143);
    }
}
