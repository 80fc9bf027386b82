//! Running one command of a pack (HCP.md §6): binding its args (`args`,
//! §6.2), carrying it out through its adapter (`process` §6.3, `http` §6.4)
//! and reporting the result (§6.7) with the Binding's material redacted
//! (`redact`, §14.3). `git` runs the `git` program to fetch a git source
//! (§13.1).
//!
//! This part of the engine knows nothing of the store, grants or terminals:
//! the caller has already checked the preconditions of §6.1 (activated,
//! connected, grant held, not `sense_only`), gathered the Binding's material
//! (§8.3) and found the installed pack directory. [`run`] runs the command
//! and says how it ended; [`runnable`] is the adapter part of availability
//! (§11.3 reasons `program_not_found:<program>`, `adapter_unsupported:<kind>`).
//!
//! `builtin` adapters (§6.5) are the runtime's own operations: [`run`]
//! refuses them and the caller dispatches them itself.
//!
//! Decisions where the spec is silent:
//! - **Exit codes.** A command that ran reports its own exit code; one killed
//!   by a signal reports 128 + the signal number, like a shell. An `http`
//!   command reports 0 for a status below 400 and 1 otherwise (§6.4). A
//!   command that did not run, or ran out of time, is an `Err`: the caller
//!   maps its code to the exit code of §10.3 (124 for `timeout`).
//! - **Output.** In [`OutputMode::Capture`] stdout and stderr are captured
//!   (as UTF-8, invalid bytes replaced), each up to [`Limits::output_bytes`]
//!   (8 MiB by default). Past the limit the first bytes are kept (an
//!   incomplete UTF-8 character at the cut is dropped), the rest is read and
//!   thrown away so the command is never blocked on a full pipe, and
//!   [`ExecOutcome::stdout_truncated`] or [`ExecOutcome::stderr_truncated`]
//!   is set. In [`OutputMode::Inherit`] a `process` command's streams go
//!   straight to the caller's own (for `hcpx exec` without `--json`, §6.7),
//!   and an `http` response body goes to the sink the caller passes to
//!   [`run_to`] (the engine never prints); the outcome's `stdout` is then
//!   empty, `data` is `None`, and `stderr` holds only the runtime's `hcpx:`
//!   lines, for the caller to show.
//! - **`output: json`** (§4). When captured stdout parses as JSON it becomes
//!   `data`. When it does not (or was truncated), `data` is `None` (`null` in
//!   the `--json` document), the exit code is left as it is, and one line
//!   starting with `hcpx:` that says why is appended to `stderr` — except when
//!   the command failed and printed nothing on stdout, where a note would
//!   only be noise.
//! - **Secrets.** The Binding's material reaches only the process environment
//!   (`process`) or header values (`http`). [`run_to`], which the runtime
//!   calls, redacts every material value (§14.3, [`redact`]) in captured
//!   `stdout` and `stderr`, in `data`, in a streamed `http` body and in
//!   error messages ([`run`] and [`run_with`] return the output as the
//!   command printed it, for tests of the adapters), and the `Debug` form of
//!   [`ExecRequest`] shows material names only. A `process` command's output
//!   in [`OutputMode::Inherit`] is not seen by the runtime, so it is not
//!   redacted.

pub mod args;
pub mod git;
pub mod gittree;
pub mod http;
pub mod live;
pub mod process;
pub mod redact;

pub use args::{BoundArgs, bind_args, bind_named, value_text};

use crate::engine::error::{Error, ErrorCode};
use crate::engine::pack::manifest::{Adapter, Command, OutputKind};
pub use crate::engine::policy::refusal::Refusal;
use serde::Serialize;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::Path;

/// Where a command's stdout and stderr go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// Captured into [`ExecOutcome`] (for `--json`, probes, the TUI).
    Capture,
    /// Passed straight through to the caller's stdout and stderr.
    Inherit,
}

/// Bounds on what one exec may hold in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes kept of each captured stream (stdout, stderr, a response
    /// body).
    pub output_bytes: usize,
}

/// Default cap on each captured stream: 8 MiB.
pub const OUTPUT_LIMIT: usize = 8 * 1024 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            output_bytes: OUTPUT_LIMIT,
        }
    }
}

/// Everything needed to run one command.
#[derive(Clone, Copy)]
pub struct ExecRequest<'a> {
    pub pack_id: &'a str,
    /// The installed pack directory: the working directory of a `process`
    /// command, the root `./` programs resolve against.
    pub pack_dir: &'a Path,
    pub command: &'a Command,
    pub args: &'a BoundArgs,
    /// The Binding's material (§8.3) as `(NAME, value)` pairs. Values may be
    /// secrets.
    pub material: &'a [(String, String)],
    /// The Binding's `base_url`, for relative `http` urls.
    pub base_url: Option<&'a str>,
    pub mode: OutputMode,
    /// Called with the output as it is read (`process` commands in
    /// [`OutputMode::Capture`]); see [`live`].
    pub live: Option<&'a live::Tap>,
}

impl fmt::Debug for ExecRequest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecRequest")
            .field("pack_id", &self.pack_id)
            .field("pack_dir", &self.pack_dir)
            .field("verb_key", &self.command.key)
            .field("args", self.args)
            .field("material", &RedactedMaterial(self.material))
            .field("base_url", &self.base_url)
            .field("mode", &self.mode)
            .field("live", &self.live.is_some())
            .finish()
    }
}

/// Shows material as `NAME=<redacted>`.
pub struct RedactedMaterial<'a>(pub &'a [(String, String)]);

impl fmt::Debug for RedactedMaterial<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|(name, _)| (name, "<redacted>")))
            .finish()
    }
}

/// How a command that ran ended (§6.7).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecOutcome {
    /// The command's exit code; 128 + signal if a signal killed it; for
    /// `http`, 0 below status 400 and 1 from 400 on.
    pub exit_code: i32,
    pub duration_ms: u64,
    /// Captured stdout (empty in [`OutputMode::Inherit`], but for an `http`
    /// body run without a sink).
    pub stdout: String,
    /// Captured stderr, plus any `hcpx:` note (see the module docs).
    pub stderr: String,
    /// stdout parsed as JSON, for `output: json` commands.
    pub data: Option<serde_json::Value>,
    /// Whether stdout or stderr was cut at [`Limits::output_bytes`]
    /// (either of the two flags below).
    pub truncated: bool,
    /// Whether captured stdout was cut at [`Limits::output_bytes`] (§6.7).
    pub stdout_truncated: bool,
    /// Whether captured stderr was cut at [`Limits::output_bytes`] (§6.7).
    pub stderr_truncated: bool,
    /// Whether a signal ended the command (cancelled, killed): its streams
    /// may stop in the middle of a value, so a tail that begins one is
    /// hidden as at the cap (§14.3). Not in the JSON document.
    #[serde(skip)]
    pub killed: bool,
}

/// Runs `req.command` with the default [`Limits`]. What the command
/// printed is returned as is: the runtime calls [`run_to`] with the
/// Binding's [`redact::Redactor`].
pub fn run(req: &ExecRequest<'_>) -> Result<ExecOutcome, Error> {
    run_with(req, &Limits::default())
}

/// Runs `req.command` with the given limits, without redaction. In
/// [`OutputMode::Inherit`], an `http` response body is captured as in
/// [`OutputMode::Capture`] (there is no sink to stream it to): use
/// [`run_to`] to stream it.
pub fn run_with(req: &ExecRequest<'_>, limits: &Limits) -> Result<ExecOutcome, Error> {
    run_to(req, limits, None, &redact::Redactor::default())
}

/// Runs `req.command` with the given limits; in [`OutputMode::Inherit`], an
/// `http` response body is written to `sink` as it arrives. Every value
/// `redactor` knows is hidden in stdout, stderr, `data`, the streamed body
/// and error messages (§14.3): the runtime passes
/// [`redact::Redactor::for_material`] of `req.material`. Every error
/// carries the pack_id and verb_key.
pub fn run_to(
    req: &ExecRequest<'_>,
    limits: &Limits,
    sink: Option<&mut dyn Write>,
    redactor: &redact::Redactor,
) -> Result<ExecOutcome, Error> {
    let result = match &req.command.adapter {
        Adapter::Process { program, argv, env } => {
            process::run(req, program, argv, env, limits, redactor)
        }
        Adapter::Http {
            method,
            url,
            headers,
            body,
        } => http::run(
            req,
            &http::HttpSpec {
                method,
                url,
                headers,
                body: body.as_ref(),
            },
            limits,
            sink.map(|sink| redactor.writer(sink)),
        ),
        Adapter::Builtin { op } => Err(Error::new(
            ErrorCode::AdapterUnsupported,
            format!("`{op}` is a builtin operation: the runtime runs it, not the exec engine"),
        )),
        Adapter::Other { kind } => {
            Err(Refusal::AdapterUnsupported { kind: kind.clone() }.to_error())
        }
    };
    let mut outcome = result.map_err(|e| {
        redactor
            .error(e)
            .pack(req.pack_id.to_string())
            .verb(req.command.key.clone())
    })?;
    redact_stream(
        redactor,
        &mut outcome.stderr,
        outcome.stderr_truncated || outcome.killed,
    );
    // In Inherit mode stdout is captured only for an `http` body without a
    // sink.
    let captured = req.mode == OutputMode::Capture || !outcome.stdout.is_empty();
    if req.command.output == OutputKind::Json && captured {
        parse_data(&mut outcome);
    }
    redact_stream(
        redactor,
        &mut outcome.stdout,
        outcome.stdout_truncated || outcome.killed,
    );
    if let Some(data) = outcome.data.as_mut()
        && redactor.value(data)
        && redactor.leaks_through_json(&outcome.stdout)
    {
        // An escape the text forms do not know: show the redacted data.
        outcome.stdout = serde_json::to_string(data).unwrap_or_default();
        outcome.stdout.push('\n');
    }
    Ok(outcome)
}

/// Redacts one captured stream; one cut at the cap, or by a signal, may
/// end with part of a value.
fn redact_stream(redactor: &redact::Redactor, text: &mut String, cut: bool) {
    if cut {
        redactor.cut_text(text);
    } else {
        redactor.text(text);
    }
}

/// Fills `data` from stdout, or explains in stderr why it could not.
fn parse_data(outcome: &mut ExecOutcome) {
    let note = if outcome.stdout_truncated {
        Some("stdout was cut at the output limit, so it is not parsed as JSON".to_string())
    } else {
        match serde_json::from_str(&outcome.stdout) {
            Ok(value) => {
                outcome.data = Some(value);
                None
            }
            Err(_) if outcome.exit_code != 0 && outcome.stdout.trim().is_empty() => None,
            Err(_) if outcome.stdout.trim().is_empty() => {
                Some("stdout is empty, but the command declares `output: json`".to_string())
            }
            Err(e) => Some(format!("stdout is not valid JSON ({e})")),
        }
    };
    if let Some(note) = note {
        if !outcome.stderr.is_empty() && !outcome.stderr.ends_with('\n') {
            outcome.stderr.push('\n');
        }
        outcome.stderr.push_str("hcpx: ");
        outcome.stderr.push_str(&note);
        outcome.stderr.push('\n');
    }
}

/// Whether `adapter` can run here (§6.3 "Runnable", §6.4, §6.6): a
/// `process` program is found, on PATH or as an executable file inside
/// `pack_dir`; `http` and `builtin` always can; any other kind cannot.
pub fn runnable(adapter: &Adapter, pack_dir: &Path) -> Result<(), Refusal> {
    match adapter {
        Adapter::Process { program, .. } => process::resolve_program(program, pack_dir).map(|_| ()),
        Adapter::Http { .. } | Adapter::Builtin { .. } => Ok(()),
        Adapter::Other { kind } => Err(Refusal::AdapterUnsupported { kind: kind.clone() }),
    }
}

/// One captured stream.
#[derive(Debug, Default)]
pub(crate) struct Captured {
    pub(crate) bytes: Vec<u8>,
    pub(crate) truncated: bool,
}

impl Captured {
    /// The bytes as UTF-8 (invalid bytes replaced). When the stream was cut,
    /// an incomplete character at the cut is dropped.
    pub(crate) fn text(&self) -> String {
        let bytes = if self.truncated {
            &self.bytes[..complete_utf8_len(&self.bytes)]
        } else {
            &self.bytes[..]
        };
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// The length of `bytes` without an incomplete UTF-8 sequence at its end.
pub(crate) fn complete_utf8_len(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let b = bytes[len - back];
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if needed > back { len - back } else { len };
    }
    len
}

/// Reads `reader` to its end keeping at most `limit` bytes. With `drain`,
/// what is past the limit is read and discarded (so a writer is never blocked
/// on a full pipe); without, reading stops there.
pub(crate) fn read_capped(reader: impl Read, limit: usize, drain: bool) -> io::Result<Captured> {
    read_capped_live(reader, limit, drain, None)
}

/// [`read_capped`], passing what is kept to `live` as it is read.
pub(crate) fn read_capped_live(
    mut reader: impl Read,
    limit: usize,
    drain: bool,
    mut live: Option<live::Live>,
) -> io::Result<Captured> {
    let mut bytes = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX);
    match live.as_mut() {
        None => {
            reader.by_ref().take(cap).read_to_end(&mut bytes)?;
        }
        Some(live) => read_live(reader.by_ref().take(cap), &mut bytes, live)?,
    }
    let mut probe = [0u8; 1];
    let more = loop {
        match reader.read(&mut probe) {
            Ok(n) => break n > 0,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    if let Some(live) = live {
        live.finish(more);
    }
    if more && drain {
        io::copy(&mut reader, &mut io::sink())?;
    }
    Ok(Captured {
        bytes,
        truncated: more,
    })
}

/// Reads `reader` to its end into `bytes`, each read passed to `live`.
fn read_live(mut reader: impl Read, bytes: &mut Vec<u8>, live: &mut live::Live) -> io::Result<()> {
    let mut buf = [0u8; 8192];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                bytes.extend_from_slice(&buf[..n]);
                live.push(&buf[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

fn elapsed_ms(start: std::time::Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Reads an error's locating fields through its JSON form (§10.1), the
/// same whichever way `Error` stores them.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::engine::error::Error;

    pub(crate) fn field(e: &Error, name: &str) -> Option<String> {
        let json = serde_json::to_value(e).ok()?;
        json.get(name)?.as_str().map(str::to_string)
    }

    pub(crate) fn list(e: &Error, name: &str) -> Option<Vec<String>> {
        let json = serde_json::to_value(e).ok()?;
        serde_json::from_value(json.get(name)?.clone()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pack::manifest::Effect;
    use std::collections::BTreeMap;

    fn outcome(exit_code: i32, stdout: &str, stderr: &str) -> ExecOutcome {
        ExecOutcome {
            exit_code,
            duration_ms: 0,
            stdout: stdout.into(),
            stderr: stderr.into(),
            data: None,
            truncated: false,
            stdout_truncated: false,
            stderr_truncated: false,
            killed: false,
        }
    }

    #[test]
    fn json_output_is_parsed_into_data() {
        let mut o = outcome(0, "{\"a\": [1, 2]}\n", "");
        parse_data(&mut o);
        assert_eq!(o.data, Some(serde_json::json!({"a": [1, 2]})));
        assert_eq!(o.stderr, "");
    }

    #[test]
    fn json_output_that_does_not_parse_leaves_a_note() {
        let mut o = outcome(0, "not json", "warn");
        parse_data(&mut o);
        assert_eq!(o.data, None);
        assert!(
            o.stderr.starts_with("warn\nhcpx: stdout is not valid JSON"),
            "{}",
            o.stderr
        );
        assert_eq!(o.exit_code, 0);

        let mut o = outcome(0, "", "");
        parse_data(&mut o);
        assert!(o.stderr.contains("stdout is empty"));

        let mut o = outcome(3, "", "boom\n");
        parse_data(&mut o);
        assert_eq!(o.stderr, "boom\n");

        let mut o = outcome(0, "[1,", "");
        o.stdout_truncated = true;
        parse_data(&mut o);
        assert!(o.stderr.contains("cut at the output limit"));
    }

    #[test]
    fn capped_reads() -> io::Result<()> {
        let c = read_capped(&b"hello world"[..], 5, true)?;
        assert_eq!(c.bytes, b"hello");
        assert!(c.truncated);
        let c = read_capped(&b"hello"[..], 5, false)?;
        assert_eq!(c.bytes, b"hello");
        assert!(!c.truncated);
        let c = read_capped(&b""[..], 0, true)?;
        assert!(!c.truncated);
        Ok(())
    }

    #[test]
    fn debug_never_shows_material_values() {
        let command = Command {
            key: "x".into(),
            summary: "x".into(),
            effect: Effect::Read,
            args: vec![],
            adapter: Adapter::Process {
                program: "true".into(),
                argv: vec![],
                env: BTreeMap::new(),
            },
            timeout_ms: 1000,
            output: OutputKind::Text,
        };
        let material = vec![("API_TOKEN".to_string(), "s3cr3t-value".to_string())];
        let args = BoundArgs::new();
        let req = ExecRequest {
            pack_id: "acme.x",
            pack_dir: Path::new("/nonexistent"),
            command: &command,
            args: &args,
            material: &material,
            base_url: None,
            mode: OutputMode::Capture,
            live: None,
        };
        let shown = format!("{req:?} {req:#?}");
        assert!(shown.contains("API_TOKEN"));
        assert!(!shown.contains("s3cr3t"), "{shown}");
    }

    #[test]
    fn other_and_builtin_adapters_do_not_run() {
        let dir = Path::new("/");
        let other = Adapter::Other {
            kind: "grpc".into(),
        };
        let err = runnable(&other, dir).err();
        assert_eq!(
            err.as_ref().map(ToString::to_string).as_deref(),
            Some("adapter_unsupported:grpc")
        );
        assert_eq!(
            runnable(&Adapter::Builtin { op: "list".into() }, dir),
            Ok(())
        );
        let http = Adapter::Http {
            method: "GET".into(),
            url: "/x".into(),
            headers: BTreeMap::new(),
            body: None,
        };
        assert_eq!(runnable(&http, dir), Ok(()));
    }
}
