//! Shared helpers for the end-to-end tests: a throwaway store and packs
//! written on the fly, `require_tool`, bounded waits (no fixed sleeps), and
//! the request reader of the tests' HTTP servers.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A temporary `HCP_HOME` and a folder for packs.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        Sandbox {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// `hcpx` against this sandbox's store, with a clean principal.
    pub fn hcpx(&self) -> Command {
        let mut cmd = Command::cargo_bin("hcpx").expect("hcpx binary");
        cmd.env("HCP_HOME", self.home())
            .env_remove("HCP_PRINCIPAL")
            .env("NO_COLOR", "1")
            .current_dir(self.dir.path())
            .timeout(std::time::Duration::from_secs(60));
        cmd
    }

    /// `hcpx --json connect ID --secret-stdin` with `secret` on stdin.
    pub fn connect_secret(&self, id: &str, secret: impl Into<Vec<u8>>) -> std::process::Output {
        self.hcpx()
            .args(["--json", "connect", id, "--secret-stdin"])
            .write_stdin(secret)
            .output()
            .unwrap()
    }

    /// Runs `hcpx --json ARGS` (first, since after `--` it would be a k=v
    /// word), checks the exit code and parses stdout.
    pub fn json(&self, args: &[&str], code: i32) -> Value {
        let out = self
            .hcpx()
            .arg("--json")
            .args(args)
            .output()
            .expect("run hcpx");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "hcpx {args:?}: stdout {stdout} stderr {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("not one JSON document ({e}): {stdout}"))
    }

    /// [`Sandbox::json`] with environment variables set (`Some`) or removed
    /// (`None`).
    pub fn json_env(&self, args: &[&str], env: &[(&str, Option<&str>)], code: i32) -> Value {
        let mut cmd = self.hcpx();
        for (name, value) in env {
            match value {
                Some(value) => cmd.env(name, value),
                None => cmd.env_remove(name),
            };
        }
        let out = cmd.arg("--json").args(args).output().expect("run hcpx");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(code), "hcpx {args:?}: {stdout}");
        serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("not one JSON document ({e}): {stdout}"))
    }

    /// Writes a pack folder named `name` from `(relative path, text)` pairs.
    pub fn pack(&self, name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root = self.dir.path().join("src").join(name);
        for (rel, text) in files {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, text).expect("write");
        }
        root
    }

    /// A small valid pack with the given id, version and binding YAML.
    pub fn simple_pack(&self, id: &str, version: &str, binding: &str) -> PathBuf {
        self.pack(
            &format!("{id}-{version}"),
            &[
                ("pack.yaml", &simple_manifest(id, version, binding)),
                ("SKILL.md", &simple_skill(id)),
            ],
        )
    }

    pub fn state(&self) -> Value {
        let text = std::fs::read_to_string(self.home().join("state.json")).expect("state.json");
        serde_json::from_str(&text).expect("state.json parses")
    }
}

pub fn simple_manifest(id: &str, version: &str, binding: &str) -> String {
    format!(
        r#"hcp: "1"
id: {id}
name: Test pack
version: {version}
description: A pack for tests.
binding: {binding}
commands:
  - key: hello
    summary: Say hello
    effect: read
    args:
      - {{name: who, type: string, default: world}}
    adapter: {{kind: process, program: echo, argv: ["hello", "{{who}}"]}}
  - key: touch
    summary: Write something
    effect: write
    adapter: {{kind: process, program: "true"}}
"#
    )
}

pub fn simple_skill(id: &str) -> String {
    format!(
        "---\nname: {}\ndescription: Test skill.\n---\nRun `hello` to greet, `touch` to write.\n",
        id.replace('.', "-")
    )
}

/// The value of HTTP header `name` (any case) among `headers`.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The failing checks of `doctor --json` (which then exits 1), each as
/// `check: message` and its fix (empty when it has none).
pub fn doctor_failures(sb: &Sandbox) -> Vec<(String, String)> {
    let doc = sb.json(&["doctor"], 1);
    assert_eq!(doc["ok"], false, "{doc}");
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| {
            (
                format!(
                    "{}: {}",
                    c["check"].as_str().unwrap(),
                    c["message"].as_str().unwrap()
                ),
                c["fix"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The version in the installed manifest of pack `id` in the store at
/// `home` (its `version: ` line).
pub fn installed_version(home: &Path, id: &str) -> String {
    let text = std::fs::read_to_string(home.join("packs").join(id).join("pack.yaml")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("version: "))
        .unwrap()
        .to_string()
}

/// The names in a folder, sorted. A folder that cannot be read fails the
/// test: "no names" must not also mean "no folder".
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| {
            let e = e.unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
            e.file_name().to_string_lossy().into_owned()
        })
        .collect();
    names.sort();
    names
}

/// The keys of a JSON object, sorted.
pub fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

/// Makes a file executable.
pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Installs and activates the pack at `src`.
pub fn install_and_activate(sb: &Sandbox, src: &Path, id: &str) {
    sb.json(&["install", src.to_str().expect("utf-8 path")], 0);
    sb.json(&["activate", id], 0);
}

/// Copies a folder tree (files and folders only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Whether the programs a test needs are on `PATH`. When one is missing the
/// test should return at once: this prints `skipped: <test>: <tool> not
/// found on PATH` to stderr and returns false. Under `CI=true` a missing
/// tool fails the test instead: CI must not skip.
pub fn require_tools(tools: &[&str]) -> bool {
    use std::io::Write;
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|tool| !on_path(tool))
        .collect();
    if missing.is_empty() {
        return true;
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let what = format!("{} not found on PATH", missing.join(", "));
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test}: {what} (CI=true: CI must not skip a test)");
    }
    // Past the test harness's capture (which would hide it when the test
    // passes): straight to stderr.
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {what}");
    false
}

/// [`require_tools`] for one program.
pub fn require_tool(tool: &str) -> bool {
    require_tools(&[tool])
}

/// Whether `name` is an executable file in a folder on `PATH`.
fn on_path(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(name))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// Fails unless `out` exited 0, showing its stdout (the `--json` document).
#[track_caller]
pub fn assert_success(out: &std::process::Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// How long a test waits for a state before it fails: a guard against
/// hangs, never a measure of speed.
pub const BOUND: std::time::Duration = std::time::Duration::from_secs(30);
/// How often [`wait_for`] looks again.
pub const POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// Polls `check` every [`POLL`] for up to [`BOUND`]; fails naming `what`
/// and what it last saw.
#[track_caller]
pub fn wait_for<T>(what: &str, mut check: impl FnMut() -> Result<T, String>) -> T {
    let deadline = std::time::Instant::now() + BOUND;
    loop {
        match check() {
            Ok(value) => return value,
            Err(seen) if std::time::Instant::now() > deadline => {
                panic!("{what}: last seen {seen}")
            }
            Err(_) => std::thread::sleep(POLL),
        }
    }
}

/// [`wait_for`] a condition to hold.
#[track_caller]
pub fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    wait_for(what, || {
        if check() {
            Ok(())
        } else {
            Err("not yet".to_string())
        }
    });
}

/// Waits up to [`BOUND`] for `child` to exit; kills it and fails past that.
#[track_caller]
pub fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + BOUND;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("hcpx still runs after {BOUND:?}");
        }
        std::thread::sleep(POLL);
    }
}

/// Whether a process runs: it has a `/proc` entry and is not a zombie.
pub fn alive(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"));
    // The state follows the command name's closing parenthesis.
    stat.is_ok_and(|s| {
        s.rsplit_once(") ")
            .is_none_or(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
    })
}

/// One HTTP/1.1 request as a test server reads it.
pub struct Request {
    /// `GET /path HTTP/1.1`, without the line end.
    pub line: String,
    /// Each header's name and value, trimmed, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Reads one request (line, headers, a `Content-Length` body) from
/// `stream`, blocking with a 5 s read timeout; returns the reader, whose
/// stream the answer goes to.
pub fn read_request(
    stream: std::net::TcpStream,
) -> std::io::Result<(Request, std::io::BufReader<std::net::TcpStream>)> {
    use std::io::{BufRead, Read};
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(5)))?;
    let mut reader = std::io::BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" {
            break;
        }
        if let Some((n, v)) = header.trim_end().split_once(':') {
            headers.push((n.trim().to_string(), v.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let line = line.trim_end().to_string();
    Ok((
        Request {
            line,
            headers,
            body,
        },
        reader,
    ))
}

/// A CLI document without the `"scope"` and `"project"` the CLI adds to
/// every result (HCP.md §15.1): the report itself, as the TUI and the
/// bootstrap pack's builtin operations write it.
pub fn unscoped(mut doc: Value) -> Value {
    if let Some(map) = doc.as_object_mut() {
        map.remove("scope");
        map.remove("project");
    }
    doc
}

/// A `git` first on PATH that logs each command line it is given (what
/// any user of the machine can read in the process list), then runs the
/// real one: the PATH to run hcpx with, and the log.
pub fn logging_git(sb: &Sandbox) -> (String, PathBuf) {
    let bin = sb.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = sb.dir.path().join("git.log");
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real.trim()
    );
    std::fs::write(bin.join("git"), script).unwrap();
    make_executable(&bin.join("git"));
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (path, log)
}
