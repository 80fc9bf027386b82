//! End-to-end tests of `hcpx connect` and `hcpx exec` on the real binary:
//! bindings (§8), grants (§9), the exec result and exit codes (§6.7, §10.3),
//! and the bootstrap pack (§11.4).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, install_and_activate, keys, make_executable};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;

const SCRIPT_PACK: &str = r#"hcp: "1"
id: acme.run
name: Runner
version: 1.0.0
description: Runs test scripts.
commands:
  - key: echo
    summary: Print each argument on its own line
    effect: read
    args:
      - {name: text, type: string, required: true}
      - {name: extra, type: string}
    adapter: {kind: process, program: ./bin/args, argv: ["{text}", "--extra={extra}"]}
  - key: code
    summary: Exit with a code
    effect: read
    args: [{name: n, type: integer, default: 0}]
    adapter: {kind: process, program: ./bin/code, argv: ["{n}"]}
  - key: slow
    summary: Sleep
    effect: read
    timeout_ms: 300
    adapter: {kind: process, program: sleep, argv: ["30"]}
  - key: json
    summary: Print JSON
    effect: read
    output: json
    args: [{name: mode, type: enum, values: [fast, slow], default: fast}, {name: flag, type: boolean, default: false}]
    adapter: {kind: process, program: ./bin/json, argv: ["{mode}", "{flag}"]}
  - key: env
    summary: Print the HCP environment
    effect: write
    adapter: {kind: process, program: ./bin/env}
  - key: missing
    summary: A program that is not there
    effect: read
    adapter: {kind: process, program: hcpx-test-no-such-program}
"#;

const SCRIPT_SKILL: &str = "---\nname: acme-run\ndescription: d\n---\nUse `echo`, `code`, `slow`, `json`, `env`, `missing`.\n";

fn script_pack(sb: &Sandbox) -> PathBuf {
    let src = sb.pack(
        "run",
        &[
            ("pack.yaml", SCRIPT_PACK),
            ("SKILL.md", SCRIPT_SKILL),
            ("bin/args", "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n"),
            ("bin/code", "#!/bin/sh\necho out; echo err >&2; exit \"$1\"\n"),
            ("bin/json", "#!/bin/sh\nprintf '{\"mode\": \"%s\", \"flag\": %s}\\n' \"$1\" \"$2\"\n"),
            (
                "bin/env",
                "#!/bin/sh\necho \"id=$HCP_PACK_ID verb=$HCP_VERB dir=$HCP_PACK_DIR\"\npwd\ncat\necho stdin-done\n",
            ),
        ],
    );
    for script in ["args", "code", "json", "env"] {
        make_executable(&src.join("bin").join(script));
    }
    src
}

fn ready(sb: &Sandbox) {
    install_and_activate(sb, &script_pack(sb), "acme.run");
}

#[test]
fn json_result_has_exactly_the_fields_of_section_6_7() {
    let sb = Sandbox::new();
    ready(&sb);
    let out = sb.json(&["exec", "acme.run", "code", "--", "n=0"], 0);
    assert_eq!(
        keys(&out),
        [
            "data",
            "duration_ms",
            "exit_code",
            "ok",
            "pack_id",
            "scope",
            "stderr",
            "stderr_truncated",
            "stdout",
            "stdout_truncated",
            "verb_key"
        ]
    );
    assert_eq!(out["ok"], true);
    assert_eq!(out["pack_id"], "acme.run");
    assert_eq!(out["verb_key"], "code");
    assert_eq!(out["stdout"], "out\n");
    assert_eq!(out["stderr"], "err\n");
    assert_eq!(out["data"], Value::Null);
    let failed = sb.json(&["exec", "acme.run", "code", "--", "n=3"], 3);
    assert_eq!(failed["ok"], false);
    assert_eq!(failed["exit_code"], 3);
}

#[test]
fn without_json_output_passes_through_and_the_exit_code_is_the_commands() {
    let sb = Sandbox::new();
    ready(&sb);
    let out = sb
        .hcpx()
        .args(["exec", "acme.run", "code", "--", "n=7"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "out\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "err\n");
}

#[test]
fn shell_metacharacters_are_passed_as_data() {
    let sb = Sandbox::new();
    ready(&sb);
    let nasty = "; rm -rf / $(id) `id` 'a b' \"c\" | && > /tmp/x *";
    let out = sb.json(
        &["exec", "acme.run", "echo", "--", &format!("text={nasty}")],
        0,
    );
    // One argv element, unchanged; the absent optional arg's element is dropped.
    assert_eq!(out["stdout"], format!("[{nasty}]\n"));
    let out = sb.json(
        &["exec", "acme.run", "echo", "--", "text=a", "extra=b c"],
        0,
    );
    assert_eq!(out["stdout"], "[a]\n[--extra=b c]\n");
}

#[test]
fn environment_working_directory_and_empty_stdin() {
    let sb = Sandbox::new();
    ready(&sb);
    let out = sb
        .hcpx()
        .args(["exec", "acme.run", "env", "--json"])
        .write_stdin("should not be read")
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let dir = sb.home().join("packs/acme.run");
    let stdout = doc["stdout"].as_str().unwrap();
    assert_eq!(
        stdout,
        format!(
            "id=acme.run verb=env dir={}\n{}\nstdin-done\n",
            dir.display(),
            dir.canonicalize().unwrap().display()
        )
    );
}

#[test]
fn output_json_is_parsed_into_data_with_typed_defaults() {
    let sb = Sandbox::new();
    ready(&sb);
    let out = sb.json(&["exec", "acme.run", "json"], 0);
    assert_eq!(out["data"], json!({"mode": "fast", "flag": false}));
    let out = sb.json(
        &["exec", "acme.run", "json", "--", "mode=slow", "flag=true"],
        0,
    );
    assert_eq!(out["data"], json!({"mode": "slow", "flag": true}));
}

#[test]
fn exit_codes_of_section_10_3() {
    let sb = Sandbox::new();
    let src = script_pack(&sb);
    sb.json(&["install", src.to_str().unwrap()], 0);
    // 126: refused, not activated; nothing ran.
    let out = sb.json(&["exec", "acme.run", "code"], 126);
    assert_eq!(out["error"]["code"], "not_activated");
    assert_eq!(out["error"]["pack_id"], "acme.run");
    assert_eq!(out["error"]["hint"], "hcpx activate acme.run");
    sb.json(&["activate", "acme.run"], 0);
    // 127: pack or verb not found.
    assert_eq!(
        sb.json(&["exec", "acme.nope", "code"], 127)["error"]["code"],
        "not_found"
    );
    let out = sb.json(&["exec", "acme.run", "nope"], 127);
    assert_eq!(out["error"]["code"], "not_found");
    assert_eq!(out["error"]["verb_key"], "nope");
    // 125: usage, naming the arg.
    for (word, arg) in [("n=abc", "n"), ("bogus=1", "bogus")] {
        let out = sb.json(&["exec", "acme.run", "code", "--", word], 125);
        assert_eq!(out["error"]["code"], "usage");
        assert_eq!(out["error"]["arg"], arg);
    }
    let out = sb.json(&["exec", "acme.run", "json", "--", "mode=medium"], 125);
    assert_eq!(out["error"]["arg"], "mode");
    let out = sb.json(&["exec", "acme.run", "echo"], 125);
    assert_eq!(out["error"]["arg"], "text");
    // 124: timeout.
    let out = sb.json(&["exec", "acme.run", "slow"], 124);
    assert_eq!(out["error"]["code"], "timeout");
    // 126: program not found.
    let out = sb.json(&["exec", "acme.run", "missing"], 126);
    assert_eq!(out["error"]["code"], "program_not_found");
}

#[test]
fn grants_refuse_exec_with_126_and_name_the_grant() {
    let sb = Sandbox::new();
    ready(&sb);
    sb.json(&["grant", "agent", "verb.exec.read"], 0);
    sb.json(&["exec", "acme.run", "code", "--principal", "agent"], 0);
    let out = sb.json(&["exec", "acme.run", "env", "--principal", "agent"], 126);
    assert_eq!(out["error"]["code"], "grant_missing");
    assert_eq!(out["error"]["grant"], "verb.exec.write");
    assert_eq!(
        out["error"]["hint"],
        "hcpx grant agent verb.exec.write:acme.run"
    );
}

#[test]
fn sense_only_packs_activate_but_never_execute() {
    let sb = Sandbox::new();
    let manifest = SCRIPT_PACK.replace("commands:", "sense_only: true\ncommands:");
    let src = sb.pack(
        "sense",
        &[("pack.yaml", &manifest), ("SKILL.md", SCRIPT_SKILL)],
    );
    for s in ["args", "code", "json", "env"] {
        let path = src.join("bin").join(s);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        make_executable(&path);
    }
    install_and_activate(&sb, &src, "acme.run");
    assert!(sb.home().join("skills/acme.run/SKILL.md").is_file());
    let avail = sb.json(&["availability", "acme.run"], 0);
    let pack = &avail["packs"][0];
    assert_eq!(pack["sense"]["active"], true);
    assert_eq!(pack["commands"][0]["executable"], false);
    assert_eq!(pack["commands"][0]["reasons"], json!(["sense_only"]));
    assert_eq!(
        sb.json(&["exec", "acme.run", "code"], 126)["error"]["code"],
        "sense_only"
    );
}

fn env_pack(sb: &Sandbox, probe_exit: &str) -> PathBuf {
    let manifest = r#"hcp: "1"
id: acme.env
name: Env
version: 1.0.0
description: Env binding.
binding: {kind: env, env: [ACME_TOKEN, ACME_REGION], probe: check}
commands:
  - key: check
    summary: Probe
    effect: read
    adapter: {kind: process, program: ./bin/check}
  - key: show
    summary: Show the region
    effect: read
    adapter: {kind: process, program: ./bin/show}
"#
    .to_string();
    let src = sb.pack(
        "env",
        &[
            ("pack.yaml", &manifest),
            (
                "SKILL.md",
                "---\nname: acme-env\ndescription: d\n---\nRun `check`, `show`.\n",
            ),
            (
                "bin/check",
                &format!("#!/bin/sh\necho probing >&2\nexit {probe_exit}\n"),
            ),
            ("bin/show", "#!/bin/sh\necho \"region=$ACME_REGION\"\n"),
        ],
    );
    make_executable(&src.join("bin/check"));
    make_executable(&src.join("bin/show"));
    src
}

#[test]
fn env_binding_names_the_missing_variables_then_connects() {
    let sb = Sandbox::new();
    install_and_activate(&sb, &env_pack(&sb, "0"), "acme.env");
    let both = [("ACME_TOKEN", Some("t")), ("ACME_REGION", Some("eu"))];
    let doc = sb.json_env(
        &["connect", "acme.env"],
        &[both[0], ("ACME_REGION", None)],
        3,
    );
    assert_eq!(doc["error"]["code"], "env_missing");
    assert_eq!(doc["error"]["missing"], json!(["ACME_REGION"]));

    let doc = sb.json_env(&["connect", "acme.env"], &both, 0);
    assert_eq!(doc["changed"], true);
    assert_eq!(doc["probe"]["verb_key"], "check");
    let doc = sb.json_env(&["exec", "acme.env", "show"], &both, 0);
    // An `env` Binding's values are redacted like secrets (§14.3).
    assert_eq!(doc["stdout"], "region=********\n");
}

#[test]
fn a_failing_probe_records_nothing() {
    let sb = Sandbox::new();
    install_and_activate(&sb, &env_pack(&sb, "4"), "acme.env");
    let env = [("ACME_TOKEN", Some("t")), ("ACME_REGION", Some("eu"))];
    let doc = sb.json_env(&["connect", "acme.env"], &env, 1);
    assert_eq!(doc["error"]["code"], "probe_failed");
    assert_eq!(doc["error"]["verb_key"], "check");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("probing")
    );
    assert!(
        !sb.state()["connected"]
            .as_array()
            .unwrap()
            .contains(&json!("acme.env"))
    );
}

fn secret_pack(sb: &Sandbox, probe_ok: bool) -> PathBuf {
    let manifest = r#"hcp: "1"
id: acme.secret
name: Secret
version: 1.0.0
description: Secret binding.
binding: {kind: secret, secret: {name: ACME_SECRET, prompt: "ACME token"}, probe: check}
commands:
  - key: check
    summary: Probe
    effect: read
    adapter: {kind: process, program: ./bin/check}
  - key: leak
    summary: Prints the secret, which hcpx must hide
    effect: read
    adapter: {kind: process, program: ./bin/leak}
  - key: length
    summary: Prints the length of the secret
    effect: read
    adapter: {kind: process, program: ./bin/length}
"#;
    let check = if probe_ok {
        "#!/bin/sh\ntest -n \"$ACME_SECRET\"\n"
    } else {
        "#!/bin/sh\necho \"bad token $ACME_SECRET\" >&2\nexit 1\n"
    };
    let src = sb.pack(
        "secret",
        &[
            ("pack.yaml", manifest),
            (
                "SKILL.md",
                "---\nname: acme-secret\ndescription: d\n---\nRun `check`, `leak`, `length`.\n",
            ),
            ("bin/check", check),
            (
                "bin/leak",
                "#!/bin/sh\necho \"token=$ACME_SECRET\"\necho \"$ACME_SECRET\" >&2\n",
            ),
            (
                "bin/length",
                "#!/bin/sh\nprintf '%s' \"$ACME_SECRET\" | wc -c\n",
            ),
        ],
    );
    for s in ["check", "leak", "length"] {
        make_executable(&src.join("bin").join(s));
    }
    src
}

#[test]
fn secret_binding_stores_the_secret_privately_and_never_prints_it() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let secret = "s3cr3t-value-XYZ";
    install_and_activate(&sb, &secret_pack(&sb, true), "acme.secret");
    // Without a terminal and without --secret-stdin: a usage error.
    let out = sb.hcpx().args(["connect", "acme.secret"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = sb.connect_secret("acme.secret", format!("{secret}\n"));
    common::assert_success(&out);
    let path = sb.home().join("secrets/acme.secret");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), secret);
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let length = sb.json(&["exec", "acme.secret", "length"], 0);
    assert_eq!(
        length["stdout"].as_str().unwrap().trim(),
        secret.len().to_string()
    );
    let leak = sb
        .hcpx()
        .args(["exec", "acme.secret", "leak", "--json"])
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&leak.stdout),
        String::from_utf8_lossy(&leak.stderr)
    );
    assert!(!all.contains(secret), "{all}");
    assert!(all.contains("token=********"), "{all}");
    for args in [
        &["availability", "--json"][..],
        &["list", "--json"],
        &["doctor", "--json"],
    ] {
        let out = sb.hcpx().args(args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        // A report that mentions the pack, so the check below can fail.
        let doc: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not one JSON document ({e}): {stdout}"));
        assert!(doc.to_string().contains("acme.secret"), "{args:?}: {doc}");
        assert!(!stdout.contains(secret), "{args:?}: {stdout}");
    }
    sb.json(&["uninstall", "acme.secret"], 0);
    assert!(!path.exists());
}

#[test]
fn a_failing_secret_probe_stores_nothing_and_hides_the_secret() {
    let sb = Sandbox::new();
    let secret = "another-secret-123";
    install_and_activate(&sb, &secret_pack(&sb, false), "acme.secret");
    let out = sb.connect_secret("acme.secret", secret);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("probe_failed"));
    assert!(!text.contains(secret), "{text}");
    assert!(!sb.home().join("secrets/acme.secret").exists());
    assert!(
        !sb.state()["connected"]
            .as_array()
            .unwrap()
            .contains(&json!("acme.secret"))
    );
}

/// A one-request-at-a-time HTTP server on 127.0.0.1 that records requests.
fn serve(responses: usize) -> (u16, std::sync::mpsc::Receiver<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(responses) {
            let Ok(mut stream) = stream else { continue };
            stream
                .set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .ok();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).ok();
            head.push_str(&String::from_utf8_lossy(&body));
            let status = if head.starts_with("GET /v1/missing") {
                "404 Not Found"
            } else {
                "200 OK"
            };
            let reply = r#"{"temp": 21}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
            let _ = tx.send(head);
        }
    });
    (port, rx)
}

#[allow(clippy::too_many_lines)] // a long scenario, not yet split (issue 18)
#[test]
fn http_adapter_against_a_loopback_server() {
    let sb = Sandbox::new();
    let (port, requests) = serve(3);
    let manifest = format!(
        r#"hcp: "1"
id: acme.api
name: API
version: 1.0.0
description: HTTP API.
binding: {{kind: env, env: [API_TOKEN], base_url: "http://127.0.0.1:{port}/v1"}}
commands:
  - key: get
    summary: Get a city
    effect: read
    output: json
    args: [{{name: city, type: string, required: true}}]
    adapter: {{kind: http, method: GET, url: "/weather/{{city}}", headers: {{Authorization: "Bearer ${{API_TOKEN}}"}}}}
  - key: post
    summary: Post a reading
    effect: write
    args: [{{name: temp, type: number, required: true}}, {{name: note, type: string, default: hi}}]
    adapter: {{kind: http, method: POST, url: /readings, body: {{temp: "{{temp}}", text: "note: {{note}}"}}}}
  - key: missing
    summary: Not found
    effect: read
    adapter: {{kind: http, method: GET, url: /missing}}
"#
    );
    let src = sb.pack(
        "api",
        &[
            ("pack.yaml", &manifest),
            (
                "SKILL.md",
                "---\nname: acme-api\ndescription: d\n---\nRun `get`, `post`, `missing`.\n",
            ),
        ],
    );
    install_and_activate(&sb, &src, "acme.api");
    let run = |args: &[&str]| {
        let out = sb
            .hcpx()
            .args(args)
            .env("API_TOKEN", "tok-123")
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), doc)
    };
    assert_eq!(run(&["connect", "acme.api", "--json"]).0, Some(0));
    let (code, doc) = run(&[
        "exec",
        "acme.api",
        "get",
        "--json",
        "--",
        "city=São Paulo/x",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(doc["data"], json!({"temp": 21}));
    let head = requests
        .recv_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    assert!(
        head.starts_with("GET /v1/weather/S%C3%A3o%20Paulo%2Fx HTTP/1.1"),
        "{head}"
    );
    assert!(
        head.to_ascii_lowercase()
            .contains("authorization: bearer tok-123"),
        "{head}"
    );

    let (code, _) = run(&["exec", "acme.api", "post", "--json", "--", "temp=21.5"]);
    assert_eq!(code, Some(0));
    let head = requests
        .recv_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    let body: Value = serde_json::from_str(&head[head.find('{').unwrap()..]).unwrap();
    assert_eq!(body, json!({"temp": 21.5, "text": "note: hi"}));

    let (code, doc) = run(&["exec", "acme.api", "missing", "--json"]);
    assert_eq!(code, Some(1));
    assert_eq!(doc["exit_code"], 1);
}

#[test]
fn the_bootstrap_pack_mirrors_the_cli() {
    let sb = Sandbox::new();
    let out = sb.json(&["exec", "hcp-cli", "list"], 0);
    assert_eq!(out["data"]["ok"], true);
    assert_eq!(out["data"]["packs"][0]["pack_id"], "hcp-cli");
    let src = sb.simple_pack("acme.boot", "1.0.0", "{kind: public}");
    let source = format!("source={}", src.display());
    let out = sb.json(&["exec", "hcp-cli", "install", "--", &source], 0);
    assert_eq!(out["data"]["action"], "installed");
    sb.json(&["exec", "hcp-cli", "activate", "--", "pack=acme.boot"], 0);
    let out = sb.json(
        &[
            "exec",
            "hcp-cli",
            "exec",
            "--",
            "pack=acme.boot",
            "verb=hello",
            "args=who=you",
        ],
        0,
    );
    assert_eq!(out["data"]["stdout"], "hello you\n");
    let out = sb.json(&["exec", "hcp-cli", "uninstall", "--", "pack=hcp-cli"], 3);
    assert_eq!(out["data"]["error"]["code"], "bootstrap_protected");
    // Without --json the answer is the subcommand's JSON document.
    let out = sb
        .hcpx()
        .args(["exec", "hcp-cli", "availability", "--", "pack=acme.boot"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["packs"][0]["status"], "executable");
}

#[test]
fn ctrl_c_reaches_a_command_that_shares_the_terminal() {
    let sb = Sandbox::new();
    let manifest = r#"hcp: "1"
id: acme.wait
name: Wait
version: 1.0.0
description: Waits for a signal.
commands:
  - key: wait
    summary: Wait until interrupted
    effect: read
    timeout_ms: 60000
    adapter: {kind: process, program: ./bin/wait}
"#;
    let src = sb.pack(
        "wait",
        &[
            ("pack.yaml", manifest),
            ("SKILL.md", "---\nname: acme-wait\ndescription: d\n---\nRun `wait`.\n"),
            (
                "bin/wait",
                "#!/bin/sh\ntrap 'echo got-INT; exit 130' INT\necho ready\nwhile :; do sleep 0.05; done\n",
            ),
        ],
    );
    make_executable(&src.join("bin/wait"));
    install_and_activate(&sb, &src, "acme.wait");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"))
        .args(["exec", "acme.wait", "wait"])
        .env("HCP_HOME", sb.home())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = rustix::process::Pid::from_child(&child);
    // Every line the command prints, read off this thread so a hang fails
    // the test instead of blocking it.
    let stdout = child.stdout.take().unwrap();
    let (lines_tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let _ = lines_tx.send(line.unwrap_or_default());
        }
    });
    let wait = std::time::Duration::from_secs(20);
    let outcome = (|| {
        let ready = lines.recv_timeout(wait).map_err(|_| "no `ready` line")?;
        assert_eq!(ready, "ready");
        rustix::process::kill_process(pid, rustix::process::Signal::INT)
            .map_err(|_| "kill failed")?;
        let got = lines
            .recv_timeout(wait)
            .map_err(|_| "the command never saw SIGINT")?;
        assert_eq!(got, "got-INT");
        let deadline = std::time::Instant::now() + wait;
        loop {
            if let Some(status) = child.try_wait().map_err(|_| "wait failed")? {
                return Ok(status);
            }
            if std::time::Instant::now() > deadline {
                return Err("hcpx did not end after SIGINT");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    })();
    if outcome.is_err() {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        let _ = child.kill();
    }
    assert_eq!(outcome.unwrap().code(), Some(130));
}

#[test]
fn exec_refuses_an_unconnected_pack_and_a_variable_unset_since_connect() {
    let sb = Sandbox::new();
    install_and_activate(&sb, &env_pack(&sb, "0"), "acme.env");
    let out = sb.json(&["exec", "acme.env", "show"], 126);
    assert_eq!(out["error"]["code"], "not_connected");
    assert_eq!(out["error"]["hint"], "hcpx connect acme.env");
    let both = [("ACME_TOKEN", Some("t")), ("ACME_REGION", Some("eu"))];
    sb.json_env(&["connect", "acme.env"], &both, 0);
    // Connected, but the variable is gone now: refused, naming it.
    let doc = sb.json_env(
        &["exec", "acme.env", "show"],
        &[both[0], ("ACME_REGION", None)],
        126,
    );
    assert_eq!(doc["error"]["code"], "env_missing");
    assert_eq!(doc["error"]["missing"], json!(["ACME_REGION"]));
}
