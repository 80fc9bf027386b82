//! What `hcpx exec` returns is safe (HCP.md §6.7, §8.3, §14.3, §14.4):
//! material is redacted in every output field, cut streams are flagged,
//! http redirects stay within one origin and url placeholders cannot walk
//! up the API's path. Every test runs the real binary against a throwaway
//! store; http tests against loopback servers started by the test.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, install_and_activate, make_executable};
use serde_json::{Value, json};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

/// An `env` Binding's value with characters JSON escapes: `"`, `\`, `/`.
const TOKEN: &str = r#"tok"en\/s3cr3t-42"#;

// ---------------------------------------------------------------- helpers

/// Runs `hcpx ARGS` with `ACME_TOKEN` set to `token`: exit code, stdout,
/// stderr.
fn run(sb: &Sandbox, args: &[&str], token: &str) -> (Option<i32>, String, String) {
    let out = sb
        .hcpx()
        .args(args)
        .env("ACME_TOKEN", token)
        .output()
        .expect("run hcpx");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`run`] with `--json`: checks the exit code, parses stdout.
fn run_json(sb: &Sandbox, args: &[&str], token: &str, code: i32) -> (Value, String) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let (got, stdout, stderr) = run(sb, &all, token);
    assert_eq!(got, Some(code), "hcpx {args:?}: {stdout} {stderr}");
    let doc = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not one JSON document ({e}): {stdout}"));
    (doc, stdout)
}

/// The forms a value takes in text: raw and JSON-escaped.
fn forms(value: &str) -> Vec<String> {
    let escaped = serde_json::to_string(value).unwrap();
    let escaped = escaped[1..escaped.len() - 1].to_string();
    vec![
        value.to_string(),
        escaped.clone(),
        escaped.replace('/', "\\/"),
    ]
}

fn assert_hidden(text: &str, value: &str) {
    for form in forms(value) {
        assert!(!text.contains(&form), "`{form}` shown in:\n{text}");
    }
}

/// An `env` Binding pack `acme.api` (variable `ACME_TOKEN`) with the given
/// commands (YAML list items) and scripts under `bin/`, installed,
/// activated and connected.
fn env_pack(sb: &Sandbox, base_url: &str, probe: bool, commands: &str, scripts: &[(&str, &str)]) {
    let probe = if probe { ", probe: check" } else { "" };
    let manifest = format!(
        r#"hcp: "1"
id: acme.api
name: Api
version: 1.0.0
description: Safety tests.
binding: {{kind: env, env: [ACME_TOKEN], base_url: "{base_url}"{probe}}}
commands:
{commands}"#
    );
    let keys: Vec<String> = commands
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- key: "))
        .map(|k| format!("`{k}`"))
        .collect();
    let skill = format!(
        "---\nname: acme-api\ndescription: d\n---\nRun {}.\n",
        keys.join(", ")
    );
    let mut files: Vec<(String, String)> =
        vec![("pack.yaml".into(), manifest), ("SKILL.md".into(), skill)];
    for (name, body) in scripts {
        files.push((format!("bin/{name}"), format!("#!/bin/sh\n{body}\n")));
    }
    let pairs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let src: PathBuf = sb.pack("api", &pairs);
    for (name, _) in scripts {
        make_executable(&src.join("bin").join(name));
    }
    install_and_activate(sb, &src, "acme.api");
}

fn process_command(key: &str, output: &str) -> String {
    format!(
        "  - key: {key}\n    summary: Test\n    effect: read\n    output: {output}\n    adapter: {{kind: process, program: ./bin/{key}}}\n"
    )
}

// ---------------------------------------------------------------- servers

/// One request as a loopback server saw it.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: Vec<(String, String)>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        crate::common::header(&self.headers, name)
    }
}

/// A reply: status line, extra headers, body.
type Reply = (String, Vec<(String, String)>, Vec<u8>);
type Handler = Arc<dyn Fn(&Seen) -> Reply + Send + Sync>;

/// A loopback HTTP server answering requests one at a time until dropped;
/// it reports every request it saw.
struct Server {
    base: String,
    seen: mpsc::Receiver<Seen>,
    stop: Arc<AtomicBool>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Server {
    fn start(handler: Handler) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, seen) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        thread::spawn(move || {
            let until = Instant::now() + Duration::from_secs(60);
            while !stopped.load(Ordering::Relaxed) && Instant::now() < until {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = answer(stream, &handler, &tx);
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Server { base, seen, stop }
    }

    /// Every request seen so far (the caller has waited for hcpx to exit,
    /// and a request is reported before it is answered).
    fn requests(&self) -> Vec<Seen> {
        self.seen.try_iter().collect()
    }
}

fn answer(stream: TcpStream, handler: &Handler, tx: &mpsc::Sender<Seen>) -> std::io::Result<()> {
    let (request, reader) = crate::common::read_request(stream)?;
    let seen = Seen {
        path: request
            .line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string(),
        headers: request.headers,
    };
    let _ = tx.send(seen.clone());
    let (status, extra, body) = handler(&seen);
    let mut out = reader.into_inner();
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\n",
        body.len()
    )?;
    for (n, v) in extra {
        write!(out, "{n}: {v}\r\n")?;
    }
    write!(
        out,
        "Content-Type: application/json\r\nConnection: close\r\n\r\n"
    )?;
    out.write_all(&body)?;
    out.flush()
}

/// Answers every request with its path and `X-Api-Key` as JSON.
fn echo(seen: &Seen) -> Reply {
    let body = json!({"path": seen.path, "x-api-key": seen.header("x-api-key")});
    ("200 OK".into(), vec![], body.to_string().into_bytes())
}

fn http_command(key: &str, url: &str, args: &str) -> String {
    format!(
        "  - key: {key}\n    summary: Test\n    effect: read\n    output: json\n{args}    adapter: {{kind: http, method: GET, url: \"{url}\", headers: {{X-Api-Key: \"${{ACME_TOKEN}}\"}}}}\n"
    )
}

// ---------------------------------------------------------------- redaction

#[test]
fn a_json_command_printing_its_secret_shows_it_nowhere() {
    let sb = Sandbox::new();
    // A secret with a quote, a backslash, a slash and a non-ASCII letter.
    let secret = "s3\"cr\\t/é-zq9";
    let manifest = r#"hcp: "1"
id: acme.secret
name: Secret
version: 1.0.0
description: Secret binding.
binding: {kind: secret, secret: {name: ACME_SECRET, prompt: "token"}}
commands:
  - key: leak
    summary: Prints the secret JSON-escaped, as most JSON encoders do
    effect: read
    output: json
    adapter: {kind: process, program: ./bin/leak}
  - key: odd
    summary: Prints the secret with an escape nobody needs
    effect: read
    output: json
    adapter: {kind: process, program: ./bin/odd}
"#;
    // `esc` is a minimal JSON encoder; `ascii` escapes é as Python does.
    let esc = r#"esc() { printf '%s' "$ACME_SECRET" | sed 's/\\/\\\\/g; s/"/\\"/g'; }"#;
    let leak = format!(
        "{esc}\nprintf '{{\"minimal\": \"%s\", \"ascii\": \"%s\", \"slash\": \"%s\"}}\\n' \"$(esc)\" \"$(esc | sed 's/é/\\\\u00e9/g')\" \"$(esc | sed 's|/|\\\\/|g')\""
    );
    let odd = format!("{esc}\nprintf '[\"%s\"]\\n' \"$(esc | sed 's/^s/\\\\u0073/')\"");
    let src = sb.pack(
        "secret",
        &[
            ("pack.yaml", manifest),
            (
                "SKILL.md",
                "---\nname: acme-secret\ndescription: d\n---\nRun `leak`, `odd`.\n",
            ),
            ("bin/leak", &format!("#!/bin/sh\n{leak}\n")),
            ("bin/odd", &format!("#!/bin/sh\n{odd}\n")),
        ],
    );
    make_executable(&src.join("bin/leak"));
    make_executable(&src.join("bin/odd"));
    install_and_activate(&sb, &src, "acme.secret");
    let out = sb.connect_secret("acme.secret", secret);
    assert_eq!(out.status.code(), Some(0));

    let (doc, text) = run_json(&sb, &["exec", "acme.secret", "leak"], "", 0);
    assert_eq!(
        doc["data"],
        json!({"minimal": "********", "ascii": "********", "slash": "********"}),
        "{text}"
    );
    assert_eq!(
        doc["stdout"],
        "{\"minimal\": \"********\", \"ascii\": \"********\", \"slash\": \"********\"}\n"
    );
    assert_hidden(&text, secret);
    assert!(!text.contains("\\u00e9-zq9"), "{text}");

    // An escape no list knows: stdout, parsed, would still show it, so the
    // redacted data is shown instead.
    let (doc, text) = run_json(&sb, &["exec", "acme.secret", "odd"], "", 0);
    assert_eq!(doc["data"], json!(["********"]), "{text}");
    let reparsed: Value = serde_json::from_str(doc["stdout"].as_str().unwrap()).unwrap();
    assert_eq!(reparsed, json!(["********"]));
    assert!(!text.contains("zq9"), "{text}");
}

#[test]
fn env_binding_values_are_redacted_in_stdout_and_stderr() {
    let sb = Sandbox::new();
    env_pack(
        &sb,
        "http://127.0.0.1:9",
        false,
        &process_command("show", "text"),
        &[(
            "show",
            "printf 'token=%s\\n' \"$ACME_TOKEN\"; printf 'err %s\\n' \"$ACME_TOKEN\" >&2; exit 3",
        )],
    );
    run_json(&sb, &["connect", "acme.api"], TOKEN, 0);
    let (doc, text) = run_json(&sb, &["exec", "acme.api", "show"], TOKEN, 3);
    assert_eq!(doc["stdout"], "token=********\n");
    assert_eq!(doc["stderr"], "err ********\n");
    assert_hidden(&text, TOKEN);
}

#[test]
fn a_failing_probe_does_not_show_an_env_value() {
    let sb = Sandbox::new();
    env_pack(
        &sb,
        "http://127.0.0.1:9",
        true,
        &process_command("check", "text"),
        &[(
            "check",
            "printf 'rejected key %s\\n' \"$ACME_TOKEN\" >&2; exit 1",
        )],
    );
    let (doc, text) = run_json(&sb, &["connect", "acme.api"], TOKEN, 1);
    assert_eq!(doc["error"]["code"], "probe_failed");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(message.contains("rejected key ********"), "{message}");
    assert_hidden(&text, TOKEN);
    // The text form too.
    let (code, stdout, stderr) = run(&sb, &["connect", "acme.api"], TOKEN);
    assert_eq!(code, Some(1));
    assert_hidden(&format!("{stdout}{stderr}"), TOKEN);
}

#[test]
fn an_http_server_echoing_the_header_does_not_show_it() {
    let server = Server::start(Arc::new(echo));
    let sb = Sandbox::new();
    env_pack(
        &sb,
        &server.base,
        false,
        &http_command("me", "/me", ""),
        &[],
    );
    run_json(&sb, &["connect", "acme.api"], TOKEN, 0);
    let (doc, text) = run_json(&sb, &["exec", "acme.api", "me"], TOKEN, 0);
    assert_eq!(doc["data"], json!({"path": "/me", "x-api-key": "********"}));
    assert_hidden(&text, TOKEN);
    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].header("x-api-key"), Some(TOKEN));

    // Without --json the body streams through hcpx, redacted as well.
    let (code, stdout, stderr) = run(&sb, &["exec", "acme.api", "me"], TOKEN);
    assert_eq!(code, Some(0), "{stderr}");
    let body: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(body["x-api-key"], "********");
    assert_hidden(&format!("{stdout}{stderr}"), TOKEN);
}

/// The `leak` command of `acme.api` run through the bootstrap pack's
/// builtin `exec`.
const BUILTIN_LEAK: &[&str] = &[
    "exec",
    "hcp-cli",
    "exec",
    "--",
    "pack=acme.api",
    "verb=leak",
];

#[test]
fn the_bootstrap_pack_exec_does_not_show_it_either() {
    let sb = Sandbox::new();
    env_pack(
        &sb,
        "http://127.0.0.1:9",
        false,
        &process_command("leak", "json"),
        &[(
            "leak",
            // A minimal JSON encoder, then the value as a string.
            r#"printf '{"token": "%s"}\n' "$(printf '%s' "$ACME_TOKEN" | sed 's/\\/\\\\/g; s/"/\\"/g')""#,
        )],
    );
    run_json(&sb, &["connect", "acme.api"], TOKEN, 0);
    let (doc, text) = run_json(&sb, &["exec", "acme.api", "leak"], TOKEN, 0);
    assert_eq!(doc["data"], json!({"token": "********"}));
    assert_hidden(&text, TOKEN);

    let (doc, text) = run_json(&sb, BUILTIN_LEAK, TOKEN, 0);
    assert_eq!(doc["data"]["data"], json!({"token": "********"}), "{text}");
    assert_hidden(&text, TOKEN);
    // Without --json the answer is the same document.
    let (code, stdout, stderr) = run(&sb, BUILTIN_LEAK, TOKEN);
    assert_eq!(code, Some(0), "{stderr}");
    assert_hidden(&format!("{stdout}{stderr}"), TOKEN);
}

// ---------------------------------------------------------------- truncation

/// More than the 8 MiB cap on each stream.
const BIG: usize = 9 * 1024 * 1024;
const CAP: usize = 8 * 1024 * 1024;

#[test]
fn streams_cut_at_the_cap_are_flagged() {
    let sb = Sandbox::new();
    let big =
        format!("head -c {BIG} /dev/zero | tr '\\0' x; head -c {BIG} /dev/zero | tr '\\0' y >&2");
    let commands = format!(
        "{}{}",
        process_command("big", "text"),
        process_command("small", "text")
    );
    env_pack(
        &sb,
        "http://127.0.0.1:9",
        false,
        &commands,
        &[("big", &big), ("small", "echo fine")],
    );
    run_json(&sb, &["connect", "acme.api"], TOKEN, 0);
    let (doc, _) = run_json(&sb, &["exec", "acme.api", "big"], TOKEN, 0);
    assert_eq!(doc["stdout_truncated"], true);
    assert_eq!(doc["stderr_truncated"], true);
    assert_eq!(doc["stdout"].as_str().unwrap().len(), CAP);
    assert_eq!(doc["stderr"].as_str().unwrap().len(), CAP);
    let (doc, _) = run_json(&sb, &["exec", "acme.api", "small"], TOKEN, 0);
    assert_eq!(doc["stdout_truncated"], false);
    assert_eq!(doc["stderr_truncated"], false);
}

#[test]
fn a_value_split_by_the_cap_is_hidden() {
    let sb = Sandbox::new();
    let token = "abcdefgh-split-token";
    // The cap falls three bytes into the token.
    let script = format!(
        "head -c {} /dev/zero | tr '\\0' x; printf '%s' \"$ACME_TOKEN\"; head -c 1000 /dev/zero",
        CAP - 3
    );
    env_pack(
        &sb,
        "http://127.0.0.1:9",
        false,
        &process_command("edge", "text"),
        &[("edge", &script)],
    );
    run_json(&sb, &["connect", "acme.api"], token, 0);
    let (doc, _) = run_json(&sb, &["exec", "acme.api", "edge"], token, 0);
    assert_eq!(doc["stdout_truncated"], true);
    let stdout = doc["stdout"].as_str().unwrap();
    assert!(stdout.ends_with("xxx********"), "{}", &stdout[CAP - 20..]);
}

#[test]
fn a_value_cut_by_a_signal_is_hidden() {
    let sb = Sandbox::new();
    let token = "abcdefgh-killed-token";
    // The command prints the first half of its token, then a signal ends it
    // (as a cancel or a kill would): the half must not reach the result.
    let script = "printf 'before '; printf '%s' \"$ACME_TOKEN\" | head -c 10; \
                  printf '%s' \"$ACME_TOKEN\" | head -c 10 >&2; kill -9 $$";
    env_pack(
        &sb,
        "http://127.0.0.1:9",
        false,
        &process_command("half", "text"),
        &[("half", script)],
    );
    run_json(&sb, &["connect", "acme.api"], token, 0);
    let (doc, raw) = run_json(&sb, &["exec", "acme.api", "half"], token, 137);
    assert_eq!(doc["exit_code"], 137, "{raw}");
    assert_eq!(doc["stdout"], "before ********", "{raw}");
    assert_eq!(doc["stderr"], "********", "{raw}");
    assert!(!raw.contains("abcdefgh"), "{raw}");
}

#[test]
fn an_ordinary_exit_keeps_a_tail_that_only_looks_like_a_value() {
    let sb = Sandbox::new();
    let token = "abcdefgh-plain-token";
    // A command that ends by itself printed what it meant to: `abc` is not
    // the value, and stays.
    env_pack(
        &sb,
        "http://127.0.0.1:9",
        false,
        &process_command("plain", "text"),
        &[("plain", "printf 'x abc'")],
    );
    run_json(&sb, &["connect", "acme.api"], token, 0);
    let (doc, raw) = run_json(&sb, &["exec", "acme.api", "plain"], token, 0);
    assert_eq!(doc["stdout"], "x abc", "{raw}");
}

// ---------------------------------------------------------------- http

#[test]
fn redirects_are_followed_only_within_one_origin() {
    let other = Server::start(Arc::new(echo));
    let elsewhere = format!("{}/steal", other.base);
    let leaky = format!("{}/steal?k=", other.base);
    let origin = Server::start(Arc::new(move |seen: &Seen| match seen.path.as_str() {
        // A location that names the key it was sent.
        "/leaky" => {
            let key = seen.header("x-api-key").unwrap_or_default();
            let location = format!("{leaky}{key}");
            (
                "307 Temporary Redirect".into(),
                vec![("Location".into(), location)],
                vec![],
            )
        }
        "/same" => (
            "302 Found".into(),
            vec![("Location".into(), "/final".into())],
            vec![],
        ),
        "/away" => (
            "302 Found".into(),
            vec![("Location".into(), elsewhere.clone())],
            b"moved".to_vec(),
        ),
        _ => echo(seen),
    }));
    let sb = Sandbox::new();
    let commands = format!(
        "{}{}{}",
        http_command("same", "/same", ""),
        http_command("away", "/away", ""),
        http_command("leaky", "/leaky", "")
    );
    env_pack(&sb, &origin.base, false, &commands, &[]);
    run_json(&sb, &["connect", "acme.api"], TOKEN, 0);

    let (doc, _) = run_json(&sb, &["exec", "acme.api", "same"], TOKEN, 0);
    assert_eq!(doc["data"]["path"], "/final");
    let seen = origin.requests();
    assert_eq!(
        seen.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(),
        ["/same", "/final"]
    );
    assert_eq!(seen[1].header("x-api-key"), Some(TOKEN));

    let (doc, text) = run_json(&sb, &["exec", "acme.api", "away"], TOKEN, 1);
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["exit_code"], 1);
    assert_eq!(doc["stdout"], "");
    let stderr = doc["stderr"].as_str().unwrap();
    assert!(
        stderr.contains(&format!("{}/steal", other.base)),
        "{stderr}"
    );
    assert_eq!(doc["data"], Value::Null, "{text}");

    // Without --json: the same refusal, on stderr, exit 1.
    let (code, stdout, stderr) = run(&sb, &["exec", "acme.api", "away"], TOKEN);
    assert_eq!(code, Some(1));
    assert_eq!(stdout, "");
    assert!(
        stderr.contains(&format!("{}/steal", other.base)),
        "{stderr}"
    );

    // The refusal names the location, with the key in it redacted.
    let (doc, text) = run_json(&sb, &["exec", "acme.api", "leaky"], TOKEN, 1);
    let stderr = doc["stderr"].as_str().unwrap();
    assert!(
        stderr.contains(&format!("{}/steal?k=********", other.base)),
        "{stderr}"
    );
    assert_hidden(&text, TOKEN);

    assert_eq!(origin.requests().len(), 3);
    let stolen = other.requests();
    assert!(stolen.is_empty(), "the other server saw {stolen:?}");
}

#[test]
fn url_placeholders_cannot_walk_up_the_path() {
    let server = Server::start(Arc::new(echo));
    let sb = Sandbox::new();
    let args = "    args: [{name: id, type: string, required: true}]\n";
    env_pack(
        &sb,
        &format!("{}/api/v1", server.base),
        false,
        &http_command("item", "/items/{id}", args),
        &[],
    );
    run_json(&sb, &["connect", "acme.api"], TOKEN, 0);
    for bad in ["id=..", "id=."] {
        let (doc, text) = run_json(&sb, &["exec", "acme.api", "item", "--", bad], TOKEN, 125);
        assert_eq!(doc["error"]["code"], "usage", "{text}");
        assert_eq!(doc["error"]["arg"], "id");
    }
    assert!(server.requests().is_empty());
    let (doc, _) = run_json(
        &sb,
        &["exec", "acme.api", "item", "--", "id=../../admin"],
        TOKEN,
        0,
    );
    assert_eq!(doc["data"]["path"], "/api/v1/items/..%2F..%2Fadmin");
}
