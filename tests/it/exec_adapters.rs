//! The exec engine through the library API (HCP.md §6): the `process`
//! adapter against small scripts in a temporary pack, the `http` adapter
//! against a loopback server started by each test. Every wait is bounded by
//! [`DEADLINE`], a guard against hangs, never a measure of speed (that is
//! `cargo bench --bench cli`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hcpx::engine::error::{Error, ErrorCode};
use hcpx::engine::exec::{
    self, BoundArgs, ExecOutcome, ExecRequest, Limits, OutputMode, bind_args,
};
use hcpx::engine::pack::manifest::{Adapter, Arg, ArgType, Command, Effect, OutputKind};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// How long a wait may take before the test fails, even on a loaded 2-core
/// machine in a debug build.
const DEADLINE: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------- helpers

fn arg(name: &str, kind: ArgType) -> Arg {
    Arg {
        name: name.into(),
        kind,
        ..Arg::default()
    }
}

fn command(adapter: Adapter, args: Vec<Arg>) -> Command {
    Command {
        key: "test.run".into(),
        summary: "A test command".into(),
        effect: Effect::Read,
        args,
        adapter,
        timeout_ms: 10_000,
        output: OutputKind::Text,
    }
}

fn process(program: &str, argv: &[&str]) -> Adapter {
    Adapter::Process {
        program: program.into(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        env: BTreeMap::new(),
    }
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

/// A temporary pack directory with executable scripts in it.
struct Pack {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl Pack {
    fn new() -> Result<Pack, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("pack");
        std::fs::create_dir(&root)?;
        Ok(Pack { dir, root })
    }

    fn path(&self) -> &Path {
        &self.root
    }

    /// Writes `rel` inside the pack (or `../rel` outside it) as an
    /// executable shell script.
    fn script(&self, rel: &str, body: &str) -> Result<PathBuf, Box<dyn std::error::Error>> {
        let path = self.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n"))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        Ok(path)
    }
}

struct Run<'a> {
    pack_dir: &'a Path,
    command: &'a Command,
    args: BoundArgs,
    material: Vec<(String, String)>,
    base_url: Option<String>,
    mode: OutputMode,
    limits: Limits,
}

impl<'a> Run<'a> {
    fn new(pack_dir: &'a Path, command: &'a Command) -> Self {
        Run {
            pack_dir,
            command,
            args: BoundArgs::new(),
            material: Vec::new(),
            base_url: None,
            mode: OutputMode::Capture,
            limits: Limits::default(),
        }
    }

    fn words(mut self, w: &[&str]) -> Result<Self, Error> {
        self.args = bind_args(self.command, &words(w))?;
        Ok(self)
    }

    fn material(mut self, name: &str, value: &str) -> Self {
        self.material.push((name.into(), value.into()));
        self
    }

    fn base_url(mut self, url: &str) -> Self {
        self.base_url = Some(url.into());
        self
    }

    fn go(&self) -> Result<ExecOutcome, Error> {
        let req = ExecRequest {
            pack_id: "test.pack",
            pack_dir: self.pack_dir,
            command: self.command,
            args: &self.args,
            material: &self.material,
            base_url: self.base_url.as_deref(),
            mode: self.mode,
            live: None,
        };
        exec::run_with(&req, &self.limits)
    }
}

/// A field of an error's JSON form (§10.1).
fn field(e: &Error, name: &str) -> Option<String> {
    let json = serde_json::to_value(e).ok()?;
    json.get(name)?.as_str().map(str::to_string)
}

fn expect_err(result: Result<ExecOutcome, Error>) -> Result<Error, String> {
    match result {
        Ok(o) => Err(format!("expected an error, got {o:?}")),
        Err(e) => Ok(e),
    }
}

/// Polls `cond` until it holds (true) or [`DEADLINE`] passes (false).
fn wait_until(mut cond: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + DEADLINE;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Fails unless the process whose pid the pack's `file` holds ends within
/// [`DEADLINE`].
fn assert_ends(pack: &Pack, file: &str) -> TestResult {
    let pid: i32 = std::fs::read_to_string(pack.path().join(file))?
        .trim()
        .parse()?;
    assert!(
        wait_until(|| !crate::common::alive(pid)),
        "{file} {pid} still running {DEADLINE:?} after the timeout"
    );
    Ok(())
}

/// Runs `f` on a thread and returns what it returns; fails the test if it
/// has not returned within [`DEADLINE`] (a run that should time out but
/// waits for its children would otherwise hang the test).
#[track_caller]
fn within_deadline<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(value) => value,
        Err(RecvTimeoutError::Timeout) => panic!("{what} did not return within {DEADLINE:?}"),
        Err(RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
    }
}

/// [`Run::go`] of `command` in `pack_dir` with `mode`, within [`DEADLINE`].
#[track_caller]
fn go_within_deadline(
    pack_dir: &Path,
    command: &Command,
    mode: OutputMode,
    base_url: Option<&str>,
) -> Result<ExecOutcome, Error> {
    let (dir, command) = (pack_dir.to_path_buf(), command.clone());
    let base_url = base_url.map(str::to_string);
    within_deadline("exec", move || {
        let mut run = Run::new(&dir, &command);
        run.mode = mode;
        if let Some(url) = &base_url {
            run = run.base_url(url);
        }
        run.go()
    })
}

// ---------------------------------------------------------------- process

/// Runs `adapter` (no args) in `pack` with a `timeout_ms` budget, within
/// the test's deadline, and returns the error it must end with.
fn timed_out(
    pack: &Pack,
    adapter: Adapter,
    timeout_ms: u64,
    mode: OutputMode,
    base_url: Option<&str>,
) -> Result<Error, String> {
    let mut c = command(adapter, vec![]);
    c.timeout_ms = timeout_ms;
    expect_err(go_within_deadline(pack.path(), &c, mode, base_url))
}

#[test]
fn shell_metacharacters_arrive_as_one_argv_element_each() -> TestResult {
    let pack = Pack::new()?;
    pack.script(
        "bin/argv.sh",
        r#"for a in "$@"; do printf '%s\0' "$a"; done"#,
    )?;
    let c = command(
        process(
            "./bin/argv.sh",
            &["{a}", "--b={b}", "{c}", "{d}", "{e}", "{f}"],
        ),
        vec![
            arg("a", ArgType::String),
            arg("b", ArgType::String),
            arg("c", ArgType::String),
            arg("d", ArgType::String),
            arg("e", ArgType::String),
            arg("f", ArgType::String),
        ],
    );
    let values = [
        "; rm -rf /",
        "$(id)",
        "a b",
        r#""double" 'single' \back"#,
        "*",
        "line1\nline2 `id` $HOME",
    ];
    let given: Vec<String> = ["a", "b", "c", "d", "e", "f"]
        .iter()
        .zip(values)
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    let given: Vec<&str> = given.iter().map(String::as_str).collect();
    let out = Run::new(pack.path(), &c).words(&given)?.go()?;
    assert_eq!(out.exit_code, 0, "{out:?}");
    let got: Vec<&str> = out.stdout.split_terminator('\0').collect();
    let mut expected = values.to_vec();
    let b = format!("--b={}", values[1]);
    expected[1] = &b;
    assert_eq!(got, expected);
    Ok(())
}

#[test]
fn absent_optional_args_drop_their_elements_and_defaults_fill_in() -> TestResult {
    let pack = Pack::new()?;
    pack.script("argv.sh", r#"for a in "$@"; do printf '[%s]' "$a"; done"#)?;
    let c = command(
        process(
            "./argv.sh",
            &["list", "--label", "{label}", "--limit={limit}", "{all}"],
        ),
        vec![
            arg("label", ArgType::String),
            Arg {
                default: Some(serde_json::json!(30)),
                ..arg("limit", ArgType::Integer)
            },
            arg("all", ArgType::Boolean),
        ],
    );
    let out = Run::new(pack.path(), &c).words(&[])?.go()?;
    // `--label` is a literal element: only elements naming an absent arg go.
    assert_eq!(out.stdout, "[list][--label][--limit=30]");
    let out = Run::new(pack.path(), &c)
        .words(&["label=bug", "all=false", "limit=2"])?
        .go()?;
    assert_eq!(out.stdout, "[list][--label][bug][--limit=2][false]");
    Ok(())
}

#[test]
fn environment_stdin_and_working_directory() -> TestResult {
    let pack = Pack::new()?;
    pack.script(
        "env.sh",
        r#"printf 'id=%s\ndir=%s\nverb=%s\nlimit=%s\nq=%s\nmode=%s\ntoken=%s\nshared=%s\nlabel=%s\n' \
  "$HCP_PACK_ID" "$HCP_PACK_DIR" "$HCP_VERB" "$HCP_ARG_LIMIT" "$HCP_ARG_Q" "$MODE" "$API_TOKEN" "$SHARED" "${HCP_ARG_LABEL-unset}"
printf 'stdin=%s\n' "$(wc -c)"
printf 'pwd=%s\n' "$(pwd -P)"
printf 'home=%s\n' "${HOME:+set}""#,
    )?;
    let mut env = BTreeMap::new();
    env.insert("MODE".to_string(), "fast".to_string());
    env.insert("SHARED".to_string(), "from-adapter".to_string());
    let c = command(
        Adapter::Process {
            program: "./env.sh".into(),
            argv: vec![],
            env,
        },
        vec![
            arg("limit", ArgType::Integer),
            arg("q", ArgType::String),
            arg("label", ArgType::String),
        ],
    );
    let out = Run::new(pack.path(), &c)
        .words(&["limit=7", "q=a b"])?
        .material("API_TOKEN", "tok-secret")
        .material("SHARED", "from-material")
        .go()?;
    let dir = std::path::absolute(pack.path())?;
    let real = pack.path().canonicalize()?;
    let expected = format!(
        "id=test.pack\ndir={}\nverb=test.run\nlimit=7\nq=a b\nmode=fast\ntoken=tok-secret\n\
         shared=from-material\nlabel=unset\nstdin=0\npwd={}\nhome=set\n",
        dir.display(),
        real.display()
    );
    assert_eq!(out.stdout, expected);
    assert_eq!(out.exit_code, 0);
    Ok(())
}

#[test]
fn programs_on_path_keep_their_name_as_argv0() -> TestResult {
    let pack = Pack::new()?;
    let c = command(
        process("sh", &["-c", "printf '%s|%s' \"$0\" \"$1\"", "{x}"]),
        vec![arg("x", ArgType::String)],
    );
    let out = Run::new(pack.path(), &c).words(&["x=$(id)"])?.go()?;
    assert_eq!(out.stdout, "$(id)|");
    let c = command(
        process("sh", &["-c", "printf %s \"$0\"", "{x}"]),
        vec![arg("x", ArgType::String)],
    );
    let out = Run::new(pack.path(), &c).words(&["x=v"])?.go()?;
    assert_eq!(out.stdout, "v");
    let c = command(process("sh", &["-c", "echo $0"]), vec![]);
    let out = Run::new(pack.path(), &c).go()?;
    assert_eq!(out.stdout, "sh\n");
    Ok(())
}

#[test]
fn exit_codes_and_signals() -> TestResult {
    let pack = Pack::new()?;
    let c = command(process("sh", &["-c", "echo oops >&2; exit 3"]), vec![]);
    let out = Run::new(pack.path(), &c).go()?;
    assert_eq!((out.exit_code, out.stderr.as_str()), (3, "oops\n"));
    let c = command(process("sh", &["-c", "kill -TERM $$"]), vec![]);
    assert_eq!(Run::new(pack.path(), &c).go()?.exit_code, 143);
    let c = command(process("sh", &["-c", "kill -KILL $$"]), vec![]);
    assert_eq!(Run::new(pack.path(), &c).go()?.exit_code, 137);
    Ok(())
}

#[test]
fn json_output_becomes_data() -> TestResult {
    let pack = Pack::new()?;
    let mut c = command(
        process("printf", &["{\"n\": %s}", "{n}"]),
        vec![arg("n", ArgType::Integer)],
    );
    c.output = OutputKind::Json;
    let out = Run::new(pack.path(), &c).words(&["n=4"])?.go()?;
    assert_eq!(out.data, Some(serde_json::json!({"n": 4})));
    let mut c = command(process("printf", &["nope"]), vec![]);
    c.output = OutputKind::Json;
    let out = Run::new(pack.path(), &c).go()?;
    assert_eq!(out.data, None);
    assert_eq!(out.exit_code, 0);
    assert!(
        out.stderr.starts_with("hcpx: stdout is not valid JSON"),
        "{}",
        out.stderr
    );
    Ok(())
}

#[test]
fn timeout_kills_the_whole_process_group() -> TestResult {
    let pack = Pack::new()?;
    pack.script(
        "slow.sh",
        "sleep 100 &\necho $! > child.pid\necho $$ > leader.pid\nsleep 100",
    )?;
    let start = Instant::now();
    let err = timed_out(
        &pack,
        process("./slow.sh", &[]),
        500,
        OutputMode::Capture,
        None,
    )?;
    let took = start.elapsed();
    assert_eq!(err.code, ErrorCode::Timeout, "{err:?}");
    assert_eq!(err.code.exec_exit_code(), 124);
    assert!(err.message.contains("500 ms"), "{}", err.message);
    assert_eq!(field(&err, "pack_id").as_deref(), Some("test.pack"));
    assert_eq!(field(&err, "verb_key").as_deref(), Some("test.run"));
    // Not before its time (a lower bound only: a loaded machine makes the
    // timeout later, never earlier).
    assert!(took >= Duration::from_millis(450), "{took:?}");
    // The leader and its background child are both killed, not left to
    // finish their `sleep 100`.
    for file in ["child.pid", "leader.pid"] {
        assert_ends(&pack, file)?;
    }
    Ok(())
}

#[test]
fn a_background_child_holding_stdout_counts_as_running() -> TestResult {
    let pack = Pack::new()?;
    pack.script(
        "daemon.sh",
        "sleep 100 &\necho $! > child.pid\necho started",
    )?;
    let err = timed_out(
        &pack,
        process("./daemon.sh", &[]),
        400,
        OutputMode::Capture,
        None,
    )?;
    assert_eq!(err.code, ErrorCode::Timeout);
    assert_ends(&pack, "child.pid")
}

#[test]
fn timeout_in_inherit_mode() -> TestResult {
    let pack = Pack::new()?;
    let err = timed_out(
        &pack,
        process("sleep", &["100"]),
        300,
        OutputMode::Inherit,
        None,
    )?;
    assert_eq!(err.code, ErrorCode::Timeout);
    let c = command(process("true", &[]), vec![]);
    let mut run = Run::new(pack.path(), &c);
    run.mode = OutputMode::Inherit;
    let out = run.go()?;
    assert_eq!((out.exit_code, out.stdout.as_str()), (0, ""));
    Ok(())
}

#[test]
fn output_is_capped_without_exhausting_memory() -> TestResult {
    let pack = Pack::new()?;
    // 50 MB on stdout, 3 MB on stderr.
    let c = command(
        process(
            "sh",
            &[
                "-c",
                "head -c 3000000 /dev/zero >&2; head -c 52428800 /dev/zero; echo done >&2",
            ],
        ),
        vec![],
    );
    let out = Run::new(pack.path(), &c).go()?;
    assert_eq!(out.exit_code, 0);
    assert!(out.truncated);
    assert_eq!(out.stdout.len(), exec::OUTPUT_LIMIT);
    assert_eq!(out.stderr.len(), 3_000_005);

    let mut run = Run::new(pack.path(), &c);
    run.limits = Limits { output_bytes: 1000 };
    let out = run.go()?;
    assert!(out.truncated);
    assert_eq!((out.stdout.len(), out.stderr.len()), (1000, 1000));
    Ok(())
}

#[test]
fn programs_that_leave_the_pack_are_refused() -> TestResult {
    let pack = Pack::new()?;
    pack.script("../outside.sh", "echo escaped")?;
    std::os::unix::fs::symlink(
        pack.dir.path().join("outside.sh"),
        pack.path().join("link.sh"),
    )?;
    for program in ["./../outside.sh", "./bin/../../outside.sh", "./link.sh"] {
        let c = command(process(program, &[]), vec![]);
        let err = expect_err(Run::new(pack.path(), &c).go())?;
        assert_eq!(err.code, ErrorCode::ProgramNotFound, "{program}: {err:?}");
        assert!(err.message.contains("leaves the pack"), "{}", err.message);
        let reason = exec::runnable(&c.adapter, pack.path()).err();
        assert_eq!(
            reason.as_ref().map(ToString::to_string),
            Some(format!("program_not_found:{program}"))
        );
    }
    Ok(())
}

#[test]
fn missing_and_non_executable_programs() -> TestResult {
    let pack = Pack::new()?;
    std::fs::write(pack.path().join("plain.sh"), "#!/bin/sh\necho hi\n")?;
    std::fs::set_permissions(
        pack.path().join("plain.sh"),
        std::fs::Permissions::from_mode(0o644),
    )?;
    for (program, words) in [
        ("hcpx-surely-no-such-program", "not found on PATH"),
        ("./missing.sh", "does not exist in the pack"),
        ("./plain.sh", "not an executable file"),
        ("/bin/sh", "bare name"),
    ] {
        let c = command(process(program, &[]), vec![]);
        let err = expect_err(Run::new(pack.path(), &c).go())?;
        assert_eq!(err.code, ErrorCode::ProgramNotFound, "{program}");
        assert!(err.message.contains(program), "{}", err.message);
        assert!(err.message.contains(words), "{}", err.message);
        assert_eq!(err.code.exec_exit_code(), 126);
        assert!(exec::runnable(&c.adapter, pack.path()).is_err());
    }
    pack.script("ok.sh", "true")?;
    assert_eq!(
        exec::runnable(&process("./ok.sh", &[]), pack.path()),
        Ok(())
    );
    assert_eq!(exec::runnable(&process("sh", &[]), pack.path()), Ok(()));
    Ok(())
}

#[test]
fn builtin_and_unknown_adapters_are_not_run_here() -> TestResult {
    let pack = Pack::new()?;
    let c = command(Adapter::Builtin { op: "list".into() }, vec![]);
    let err = expect_err(Run::new(pack.path(), &c).go())?;
    assert_eq!(err.code, ErrorCode::AdapterUnsupported);
    assert!(err.message.contains("builtin"));
    let c = command(
        Adapter::Other {
            kind: "grpc".into(),
        },
        vec![],
    );
    let err = expect_err(Run::new(pack.path(), &c).go())?;
    assert_eq!(err.code, ErrorCode::AdapterUnsupported);
    assert!(err.message.contains("grpc"));
    Ok(())
}

// ---------------------------------------------------------------- http

/// One request as the loopback server saw it.
#[derive(Debug)]
struct Seen {
    request_line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        crate::common::header(&self.headers, name)
    }
}

/// A one-shot HTTP server on 127.0.0.1: answers one request with `status`
/// and `body`, and reports what it saw. `stall` makes it never answer: it
/// waits for the client to give up and close the connection.
struct Server {
    base: String,
    seen: mpsc::Receiver<Seen>,
}

fn serve(status: &str, body: Vec<u8>, stall: bool) -> Result<Server, Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let base = format!("http://{}", listener.local_addr()?);
    let status = status.to_string();
    let (tx, seen) = mpsc::channel();
    thread::spawn(move || {
        let until = Instant::now() + DEADLINE;
        let stream = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(_) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
                Err(_) => return,
            }
        };
        let _ = handle(stream, &status, &body, stall, &tx);
    });
    Ok(Server { base, seen })
}

fn handle(
    stream: TcpStream,
    status: &str,
    body: &[u8],
    stall: bool,
    tx: &mpsc::Sender<Seen>,
) -> std::io::Result<()> {
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let (request, mut reader) = crate::common::read_request(stream)?;
    let _ = tx.send(Seen {
        request_line: request.line,
        headers: request.headers,
        body: request.body,
    });
    if stall {
        reader.get_ref().set_read_timeout(Some(2 * DEADLINE))?;
        let _ = reader.read_to_end(&mut Vec::new());
        return Ok(());
    }
    let mut out = reader.into_inner();
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    out.write_all(body)?;
    out.flush()
}

fn http(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<serde_json::Value>,
) -> Adapter {
    Adapter::Http {
        method: method.into(),
        url: url.into(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body,
    }
}

fn seen(server: &Server) -> Result<Seen, mpsc::RecvTimeoutError> {
    server.seen.recv_timeout(DEADLINE)
}

#[test]
fn http_get_percent_encodes_placeholders() -> TestResult {
    let server = serve("200 OK", br#"{"items": [1, 2]}"#.to_vec(), false)?;
    let mut c = command(
        http("GET", "/items/{name}?q={q}&label={label}", &[], None),
        vec![
            arg("name", ArgType::String),
            arg("q", ArgType::String),
            arg("label", ArgType::String),
        ],
    );
    c.output = OutputKind::Json;
    let pack = Pack::new()?;
    let out = Run::new(pack.path(), &c)
        .words(&["name=a b/c", "q=x&y=1#z"])?
        .base_url(&format!("{}/api/", server.base))
        .go()?;
    let req = seen(&server)?;
    assert_eq!(
        req.request_line,
        "GET /api/items/a%20b%2Fc?q=x%26y%3D1%23z HTTP/1.1"
    );
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.stdout, r#"{"items": [1, 2]}"#);
    assert_eq!(out.data, Some(serde_json::json!({"items": [1, 2]})));
    assert_eq!(out.stderr, "");
    Ok(())
}

#[test]
fn http_post_sends_a_typed_json_body_and_header_material() -> TestResult {
    let server = serve("201 Created", b"created".to_vec(), false)?;
    // An absolute url: base_url is not used.
    let c = command(
        http(
            "POST",
            &format!("{}/issues", server.base),
            &[
                ("Authorization", "Bearer ${API_TOKEN}"),
                ("X-Count", "{count}"),
            ],
            Some(serde_json::json!({
                "title": "{title}",
                "count": "{count}",
                "ratio": "{ratio}",
                "draft": "{draft}",
                "text": "{title} x{count}",
                "label": "{label}"
            })),
        ),
        vec![
            arg("title", ArgType::String),
            arg("count", ArgType::Integer),
            arg("ratio", ArgType::Number),
            arg("draft", ArgType::Boolean),
            arg("label", ArgType::String),
        ],
    );
    let pack = Pack::new()?;
    let out = Run::new(pack.path(), &c)
        .words(&["title=Fix \"it\"", "count=5", "ratio=0.5", "draft=true"])?
        .material("API_TOKEN", "tok-xyz-123")
        .base_url("http://127.0.0.1:9/unused")
        .go()?;
    let req = seen(&server)?;
    assert_eq!(req.request_line, "POST /issues HTTP/1.1");
    assert_eq!(req.header("authorization"), Some("Bearer tok-xyz-123"));
    assert_eq!(req.header("x-count"), Some("5"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    let body: serde_json::Value = serde_json::from_slice(&req.body)?;
    assert_eq!(
        body,
        serde_json::json!({
            "title": "Fix \"it\"",
            "count": 5,
            "ratio": 0.5,
            "draft": true,
            "text": "Fix \"it\" x5"
        })
    );
    assert_eq!((out.exit_code, out.stdout.as_str()), (0, "created"));
    Ok(())
}

#[test]
fn http_status_404_is_exit_code_1() -> TestResult {
    let server = serve(
        "404 Not Found",
        br#"{"message": "no such repo"}"#.to_vec(),
        false,
    )?;
    let c = command(http("DELETE", "/repos/x", &[], None), vec![]);
    let pack = Pack::new()?;
    let out = Run::new(pack.path(), &c).base_url(&server.base).go()?;
    assert_eq!(seen(&server)?.request_line, "DELETE /repos/x HTTP/1.1");
    assert_eq!(out.exit_code, 1);
    assert_eq!(out.stdout, r#"{"message": "no such repo"}"#);
    assert_eq!(out.stderr, "hcpx: HTTP 404 Not Found\n");
    Ok(())
}

#[test]
fn http_connection_refused_is_an_io_error_without_secrets() -> TestResult {
    let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let c = command(
        http(
            "GET",
            "/x",
            &[("Authorization", "Bearer ${API_TOKEN}")],
            None,
        ),
        vec![],
    );
    let pack = Pack::new()?;
    let err = expect_err(
        Run::new(pack.path(), &c)
            .material("API_TOKEN", "tok-very-secret")
            .base_url(&format!("http://127.0.0.1:{port}"))
            .go(),
    )?;
    assert_eq!(err.code, ErrorCode::Io, "{err:?}");
    assert!(
        err.message.contains(&format!("127.0.0.1:{port}")),
        "{}",
        err.message
    );
    let everything = format!("{err:?} {err} {}", serde_json::to_string(&err)?);
    assert!(!everything.contains("tok-very-secret"), "{everything}");
    Ok(())
}

#[test]
fn http_timeout() -> TestResult {
    let server = serve("200 OK", Vec::new(), true)?;
    let pack = Pack::new()?;
    // The server never answers; only the command's timeout ends the wait.
    let err = timed_out(
        &pack,
        http("GET", "/slow", &[], None),
        300,
        OutputMode::Capture,
        Some(&server.base),
    )?;
    assert_eq!(err.code, ErrorCode::Timeout, "{err:?}");
    assert_eq!(seen(&server)?.request_line, "GET /slow HTTP/1.1");
    Ok(())
}

#[test]
fn http_body_is_capped() -> TestResult {
    let server = serve("200 OK", vec![b'x'; 2 * 1024 * 1024], false)?;
    let c = command(http("GET", "/big", &[], None), vec![]);
    let pack = Pack::new()?;
    let mut run = Run::new(pack.path(), &c).base_url(&server.base);
    run.limits = Limits {
        output_bytes: 1024 * 1024,
    };
    let out = run.go()?;
    assert!(out.truncated);
    assert_eq!(out.stdout.len(), 1024 * 1024);
    Ok(())
}

#[test]
fn http_missing_material_names_it() -> TestResult {
    let c = command(
        http(
            "GET",
            "http://127.0.0.1:9/x",
            &[("Authorization", "Bearer ${API_TOKEN}")],
            None,
        ),
        vec![],
    );
    let pack = Pack::new()?;
    let err = expect_err(Run::new(pack.path(), &c).go())?;
    assert_eq!(err.code, ErrorCode::EnvMissing);
    assert!(err.message.contains("${API_TOKEN}"));
    Ok(())
}
