//! `hcpx mcp` under load and honest to the agent (HCP.md §16.3, §16.6),
//! driven by raw JSON-RPC over the child's stdio: the call limit
//! (`HCPX_MCP_MAX_CALLS`), waiting calls starting in order, a cancelled
//! waiting call never starting, `ping` and cancellations answered with 300
//! calls in flight; a timeout that says the command may have done part of
//! its work, a cut said in the text, a tool not granted refused with a fix
//! for the user; an over-size message answered with its id, batches under
//! 2025-03-26 only; a command in a session of its own ended with the
//! server; `tools/list` in pages of 500; progress while a call runs; an
//! idle server that does no work, and that programs run from a folder on
//! its `PATH` do not wake.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, alive, wait_until};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// The load test pack.
const MANIFEST: &str = r#"hcp: "1"
id: t.load
name: MCP load test pack
version: 1.0.0
description: Commands for the MCP load tests.
binding: {kind: public}
commands:
  - key: nap
    summary: Write its pid to a file, then sleep
    effect: read
    args:
      - {name: file, type: string, required: true}
    adapter: {kind: process, program: sh, argv: ["-c", "echo $$ > \"$1\"; exec sleep 60", "sh", "{file}"]}
  - key: note
    summary: Append a word to a file
    effect: write
    args:
      - {name: file, type: string, required: true}
      - {name: word, type: string, required: true}
    adapter: {kind: process, program: sh, argv: ["-c", "echo \"$2\" >> \"$1\"", "sh", "{file}", "{word}"]}
  - key: step
    summary: Write a first step, then take too long
    effect: write
    timeout_ms: 1000
    args:
      - {name: file, type: string, required: true}
    adapter: {kind: process, program: sh, argv: ["-c", "echo one >> \"$1\"; exec sleep 60", "sh", "{file}"]}
  - key: big
    summary: Print more than the output cap
    effect: read
    adapter: {kind: process, program: sh, argv: ["-c", "head -c 9000000 /dev/zero | tr '\\0' a"]}
  - key: escape
    summary: Start a sleeper in a session of its own, and return
    effect: read
    args:
      - {name: file, type: string, required: true}
    adapter: {kind: process, program: sh, argv: ["escape.sh", "{file}"]}
  - key: orphan
    summary: Start a short sleeper in a session of its own, and return
    effect: read
    args:
      - {name: file, type: string, required: true}
    adapter: {kind: process, program: sh, argv: ["orphan.sh", "{file}"]}
  - key: slow
    summary: Print a line, wait, print another
    effect: read
    adapter: {kind: process, program: sh, argv: ["progress.sh"]}
  - key: hello
    summary: Say hello
    effect: read
    adapter: {kind: process, program: echo, argv: ["hello"]}
"#;

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    let skill = "---\nname: t-load\ndescription: Load test skill.\n---\nUse nap, note and hello.\n";
    let escape =
        "setsid sh -c 'echo $$ > \"$1\"; exec sleep 60' sh \"$1\" </dev/null >/dev/null 2>&1 &\n";
    let src = sb.pack(
        "t-load",
        &[
            ("pack.yaml", MANIFEST),
            ("SKILL.md", skill),
            ("escape.sh", escape),
            (
                "orphan.sh",
                "setsid sh -c 'echo $$ > \"$1\"; exec sleep 1' sh \"$1\" </dev/null >/dev/null 2>&1 &\n",
            ),
            (
                "progress.sh",
                "printf 'step \\033[31mone\\n'\nsleep 2.5\necho done\n",
            ),
        ],
    );
    crate::common::install_and_activate(&sb, &src, "t.load");
    sb
}

/// `hcpx mcp` with raw pipes, initialized; its messages arrive on a
/// channel, so that a test waits for one with a bound.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
}

impl Raw {
    fn start(sb: &Sandbox, envs: &[(&str, &str)], version: &str) -> Raw {
        Raw::start_with(sb, envs, version, &[])
    }

    /// As [`Raw::start`], `hcpx mcp ARGS`.
    fn start_with(sb: &Sandbox, envs: &[(&str, &str)], version: &str, args: &[&str]) -> Raw {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("hcpx"))
            .env("HCP_HOME", sb.home())
            .env_remove("HCP_PRINCIPAL")
            .env_remove("HCPX_MCP_MAX_CALLS")
            .envs(envs.iter().copied())
            .current_dir(sb.dir.path())
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, messages) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON from the server ({e}): {line}"));
                if send.send(value).is_err() {
                    return;
                }
            }
        });
        let mut raw = Raw {
            child,
            stdin: Some(stdin),
            messages,
        };
        raw.send(
            &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        );
        let init = raw.answer(&json!("init"), Duration::from_secs(30));
        assert!(init.get("result").is_some(), "{init}");
        raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        raw
    }

    fn line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.line(&message.to_string());
    }

    fn call(&mut self, id: &Value, tool: &str, arguments: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
    }

    fn cancel(&mut self, id: &Value) {
        self.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "test"}}),
        );
    }

    /// The next message that is no notification, within `bound`.
    #[track_caller]
    fn next(&mut self, bound: Duration) -> Value {
        let deadline = Instant::now() + bound;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if message.get("method").is_none() => return message,
                Ok(_) => {}
                Err(e) => panic!("no message within {bound:?}: {e}"),
            }
        }
    }

    /// Every message until the answer to `id` (within `bound`), each with
    /// when it came, and that answer.
    #[track_caller]
    fn until(&mut self, id: &Value, bound: Duration) -> (Vec<(Instant, Value)>, Value) {
        let deadline = Instant::now() + bound;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if message.get("id") == Some(id) => return (seen, message),
                Ok(message) => seen.push((Instant::now(), message)),
                Err(e) => panic!("no answer to {id} within {bound:?}: {e}"),
            }
        }
    }

    /// The answer to request `id`, within `bound` (other messages are
    /// dropped).
    #[track_caller]
    fn answer(&mut self, id: &Value, bound: Duration) -> Value {
        let deadline = Instant::now() + bound;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if message.get("id") == Some(id) => return message,
                Ok(_) => {}
                Err(e) => panic!("no answer to {id} within {bound:?}: {e}"),
            }
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The pid a `nap` wrote into `file`, if it has.
fn pid_of(file: &Path) -> Option<i32> {
    std::fs::read_to_string(file).ok()?.trim().parse().ok()
}

fn nap_files(dir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n).map(|i| dir.join(format!("nap{i}.pid"))).collect()
}

#[test]
fn waiting_calls_start_in_order_and_a_cancelled_one_never_starts() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[("HCPX_MCP_MAX_CALLS", "1")], "2025-11-25");
    let nap = sb.dir.path().join("first.pid");
    let log = sb.dir.path().join("log");
    // The one slot is taken...
    raw.call(&json!("nap"), "t_load__nap", json!({"file": nap}));
    crate::common::wait_for("the nap to start", || {
        pid_of(&nap).ok_or_else(|| "no pid yet".to_string())
    });
    // ...so these wait, in order; the fifth is cancelled while it waits.
    for i in 1..=10 {
        raw.call(
            &json!(format!("note{i}")),
            "t_load__note",
            json!({"file": log, "word": i.to_string()}),
        );
    }
    raw.cancel(&json!("note5"));
    // A ping is answered while every call waits.
    raw.send(&json!({"jsonrpc": "2.0", "id": "ping", "method": "ping"}));
    raw.answer(&json!("ping"), Duration::from_secs(1));
    assert!(
        !log.exists(),
        "a call started while the only slot was taken"
    );
    raw.cancel(&json!("nap"));
    for i in (1..=10).filter(|i| *i != 5) {
        let reply = raw.answer(&json!(format!("note{i}")), crate::common::BOUND);
        assert_eq!(reply["result"]["isError"], false, "{reply}");
    }
    // The last one is done: every earlier one has written.
    let written = std::fs::read_to_string(&log).unwrap();
    assert_eq!(written, "1\n2\n3\n4\n6\n7\n8\n9\n10\n");
}

#[test]
fn three_hundred_calls_in_flight_still_answer_ping_and_cancellations_within_a_second() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    let files = nap_files(sb.dir.path(), 300);
    for (i, file) in files.iter().enumerate() {
        raw.call(&json!(i), "t_load__nap", json!({"file": file}));
    }
    // The default limit: 64 run, the others wait.
    wait_until("64 naps running", || {
        files.iter().filter(|f| f.exists()).count() >= 64
    });
    let started = Instant::now();
    raw.send(&json!({"jsonrpc": "2.0", "id": "ping", "method": "ping"}));
    let pong = raw.answer(&json!("ping"), Duration::from_secs(1));
    assert_eq!(pong["result"], json!({}), "{pong}");
    assert!(started.elapsed() < Duration::from_secs(1));
    // The first 64 came first, so they run; the waiting ones are
    // cancelled first (else a slot freed by a killed command goes to a
    // call not cancelled yet).
    let running: Vec<i32> = files.iter().filter_map(|f| pid_of(f)).collect();
    assert_eq!(running.len(), 64, "not 64 running at once");
    assert!(files[..64].iter().all(|f| f.exists()), "not the first 64");
    for i in (0..300).rev() {
        raw.cancel(&json!(i));
    }
    // The cancellations are applied within a second: the 64 running
    // commands are killed...
    let cancelled = Instant::now();
    wait_until("the cancelled commands end", || {
        running.iter().all(|p| !alive(*p))
    });
    let took = cancelled.elapsed();
    assert!(took < Duration::from_secs(3), "cancel took {took:?}");
    // ...and none of the 236 waiting ones starts: a call sent now runs at
    // once, and no other nap ever wrote its pid.
    raw.call(&json!("after"), "t_load__hello", json!({}));
    let reply = raw.answer(&json!("after"), Duration::from_secs(10));
    assert_eq!(reply["result"]["content"][0]["text"], "hello\n", "{reply}");
    let ran = files.iter().filter(|f| f.exists()).count();
    assert_eq!(ran, 64, "cancelled waiting calls started");
}

/// The text of a `tools/call` answer.
fn text_of(reply: &Value) -> String {
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {reply}"))
        .to_string()
}

#[test]
fn a_timed_out_write_says_it_started_and_may_have_done_part_of_its_work() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    let file = sb.dir.path().join("steps");
    raw.call(&json!(1), "t_load__step", json!({"file": file}));
    let reply = raw.answer(&json!(1), crate::common::BOUND);
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert_eq!(reply["result"]["_meta"]["hcp/error"]["code"], "timeout");
    let words = text_of(&reply);
    assert!(
        words.contains("was started and stopped after 1000 ms"),
        "{words}"
    );
    assert!(words.contains("may have done part of its work"), "{words}");
    assert!(!words.contains("nothing ran"), "{words}");
    // It did: its first step is written.
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\n");
}

#[test]
fn output_cut_at_the_cap_ends_the_text_with_the_cut_line() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    raw.call(&json!(1), "t_load__big", json!({}));
    let reply = raw.answer(&json!(1), crate::common::BOUND);
    let words = text_of(&reply);
    assert!(
        words.ends_with("\n[hcpx: stdout cut at 8388608 bytes]"),
        "ends with {:?}",
        &words[words.len().saturating_sub(80)..]
    );
    assert_eq!(reply["result"]["_meta"]["hcp/stdout_truncated"], true);
}

#[test]
fn a_tool_not_granted_is_a_refusal_with_a_fix_for_the_user_not_an_unknown_tool() {
    let sb = sandbox();
    let mut raw = Raw::start_with(&sb, &[], "2025-11-25", &["--principal", "agent"]);
    raw.send(&json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list"}));
    let list = raw.answer(&json!("list"), crate::common::BOUND);
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    // Under the default grants the agent is offered read commands only.
    assert!(names.contains(&"t_load__hello"), "{names:?}");
    assert!(!names.contains(&"t_load__note"), "{names:?}");
    let log = sb.dir.path().join("log");
    raw.call(&json!(1), "t_load__note", json!({"file": log, "word": "x"}));
    let reply = raw.answer(&json!(1), crate::common::BOUND);
    assert!(reply.get("error").is_none(), "an unknown tool: {reply}");
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let error = &reply["result"]["_meta"]["hcp/error"];
    assert_eq!(error["code"], "grant_missing", "{reply}");
    assert_eq!(error["grant"], "verb.exec.write", "{reply}");
    let words = text_of(&reply);
    assert!(words.starts_with("refused (grant_missing)"), "{words}");
    assert!(
        words.contains("ask the user to run: `hcpx grant agent verb.exec.write:t.load`"),
        "{words}"
    );
    assert!(words.contains("nothing ran"), "{words}");
    assert!(!log.exists(), "the command ran");
    // A name that is no command of an activated pack is still unknown.
    raw.call(&json!(2), "t_load__nosuch", json!({}));
    let reply = raw.answer(&json!(2), crate::common::BOUND);
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
}

/// The session id of a process (`/proc/PID/stat`, the sixth field).
fn session_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let (_, rest) = stat.rsplit_once(") ").unwrap();
    rest.split(' ').nth(3).unwrap().parse().unwrap()
}

#[test]
fn end_of_stdin_ends_a_command_that_made_its_own_session() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    let file = sb.dir.path().join("escaped.pid");
    raw.call(&json!(1), "t_load__escape", json!({"file": file}));
    let reply = raw.answer(&json!(1), crate::common::BOUND);
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    let pid = crate::common::wait_for("the escaped sleeper's pid", || {
        pid_of(&file).ok_or_else(|| "no pid yet".to_string())
    });
    assert!(alive(pid));
    assert_eq!(
        session_of(pid),
        pid,
        "the sleeper has no session of its own"
    );
    // Its parent is gone: it is in no group and no session of the server.
    drop(raw.stdin.take());
    let status = crate::common::wait_exit(&mut raw.child);
    assert!(status.success(), "{status:?}");
    wait_until("the escaped sleeper ends with the server", || !alive(pid));
}

#[test]
fn an_over_size_message_is_answered_with_its_id() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    let big = format!(
        r#"{{"jsonrpc": "2.0", "id": "big-1", "method": "tools/call", "params": {{"name": "t_load__hello", "arguments": {{"s": "{}"}}}}}}"#,
        "a".repeat(5 * 1024 * 1024)
    );
    raw.line(&big);
    let reply = raw.next(crate::common::BOUND);
    assert_eq!(
        reply["id"],
        "big-1",
        "{}",
        &reply.to_string()[..200.min(reply.to_string().len())]
    );
    assert_eq!(reply["error"]["code"], -32600);
    // An id after a part too long to read is not guessed.
    let late = format!(
        r#"{{"jsonrpc": "2.0", "params": {{"s": "{}"}}, "id": 9, "method": "ping"}}"#,
        "a".repeat(5 * 1024 * 1024)
    );
    raw.line(&late);
    let reply = raw.next(crate::common::BOUND);
    assert_eq!(reply["id"], Value::Null);
    assert_eq!(reply["error"]["code"], -32600);
    // Still serving.
    raw.call(&json!(2), "t_load__hello", json!({}));
    assert_eq!(
        text_of(&raw.answer(&json!(2), crate::common::BOUND)),
        "hello\n"
    );
}

#[test]
fn batches_are_answered_as_one_array_under_2025_03_26_only() {
    let sb = sandbox();
    let batch = json!([
        {"jsonrpc": "2.0", "id": "p", "method": "ping"},
        {"jsonrpc": "2.0", "id": "h", "method": "tools/call",
         "params": {"name": "t_load__hello", "arguments": {}}},
        {"jsonrpc": "2.0", "method": "notifications/progress",
         "params": {"progressToken": 1, "progress": 1}},
        42
    ]);
    let mut raw = Raw::start(&sb, &[], "2025-03-26");
    raw.send(&batch);
    let reply = raw.next(crate::common::BOUND);
    let answers = reply
        .as_array()
        .unwrap_or_else(|| panic!("no array: {reply}"));
    assert_eq!(answers.len(), 3, "{reply}");
    let by_id = |id: Value| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer to {id}: {reply}"))
    };
    assert_eq!(by_id(json!("p"))["result"], json!({}));
    assert_eq!(text_of(by_id(json!("h"))), "hello\n");
    assert_eq!(by_id(Value::Null)["error"]["code"], -32600);
    // A newer revision has no batches.
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    raw.send(&batch);
    let reply = raw.next(crate::common::BOUND);
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_eq!(reply["id"], Value::Null);
}

#[test]
fn tools_are_listed_in_pages_of_500_with_a_next_cursor() {
    let sb = sandbox();
    let mut manifest = String::from(
        "hcp: \"1\"\nid: t.many\nname: Many\nversion: 1.0.0\ndescription: Many commands.\nbinding: {kind: public}\ncommands:\n",
    );
    for i in 0..600 {
        manifest.push_str(&format!(
            "  - {{key: c{i:03}, summary: Command {i}, effect: read, adapter: {{kind: process, program: \"true\"}}}}\n"
        ));
    }
    let skill = "---\nname: t-many\ndescription: Many commands.\n---\nMany.\n";
    let src = sb.pack("t-many", &[("pack.yaml", &manifest), ("SKILL.md", skill)]);
    crate::common::install_and_activate(&sb, &src, "t.many");
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    let list = |raw: &mut Raw, id: &str, cursor: Option<&Value>| {
        let mut params = json!({});
        if let Some(cursor) = cursor {
            params["cursor"] = cursor.clone();
        }
        raw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}));
        raw.answer(&json!(id), crate::common::BOUND)
    };
    let first = list(&mut raw, "1", None);
    let tools = first["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 500);
    let cursor = first["result"]["nextCursor"].clone();
    assert!(cursor.is_string(), "{}", first["result"]["nextCursor"]);
    let second = list(&mut raw, "2", Some(&cursor));
    let more = second["result"]["tools"].as_array().unwrap();
    // 600 of t.many, t.load's own and the bootstrap pack's.
    assert!(more.len() > 106 && more.len() <= 500, "{}", more.len());
    assert!(
        second["result"].get("nextCursor").is_none(),
        "{}",
        second["result"]["nextCursor"]
    );
    let mut names: Vec<&str> = tools
        .iter()
        .chain(more)
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 500 + more.len(), "a tool on two pages");
    for i in 0..600 {
        let name = format!("t_many__c{i:03}");
        assert!(
            names.binary_search(&name.as_str()).is_ok(),
            "{name} missing"
        );
    }
    // A cursor that is none of ours is refused.
    let bad = list(&mut raw, "3", Some(&json!("nonsense")));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

#[test]
fn a_call_with_a_progress_token_gets_progress_at_most_once_a_second() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    raw.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "t_load__slow", "arguments": {}, "_meta": {"progressToken": "tok"}}}),
    );
    let (seen, reply) = raw.until(&json!(1), crate::common::BOUND);
    assert_eq!(text_of(&reply), "step \u{1b}[31mone\ndone\n");
    let progress: Vec<&(Instant, Value)> = seen
        .iter()
        .filter(|(_, m)| m["method"] == "notifications/progress")
        .collect();
    assert!(progress.len() >= 2, "{seen:?}");
    for (_, note) in &progress {
        assert_eq!(note["params"]["progressToken"], "tok", "{note}");
        // The newest line, its ESC replaced.
        assert_eq!(note["params"]["message"], "step \u{fffd}[31mone", "{note}");
    }
    for pair in progress.windows(2) {
        let gap = pair[1].0 - pair[0].0;
        assert!(gap >= Duration::from_millis(800), "two within {gap:?}");
        assert!(
            pair[1].1["params"]["progress"].as_f64() > pair[0].1["params"]["progress"].as_f64()
        );
    }
}

/// The voluntary context switches of every thread of `pid`: how often it
/// woke up.
fn wakeups(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("status")).ok())
        .filter_map(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
                .and_then(|v| v.trim().parse::<u64>().ok())
        })
        .sum()
}

#[test]
fn an_idle_server_does_not_wake_up_and_still_sees_a_change() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    raw.send(&json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list"}));
    raw.answer(&json!("list"), crate::common::BOUND);
    let pid = raw.child.id();
    // The work of the answer done: no wakeup for half a second (bounded).
    let mut last = wakeups(pid);
    let mut quiet_since = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(10);
    while quiet_since.elapsed() < Duration::from_millis(500) {
        assert!(Instant::now() < deadline, "the server never went idle");
        std::thread::sleep(crate::common::POLL);
        let now = wakeups(pid);
        if now != last {
            last = now;
            quiet_since = Instant::now();
        }
    }
    // A window of idleness is what is measured here: three seconds in
    // which nothing changes, where a poll every 250 ms would wake it a
    // dozen times and more.
    let before = wakeups(pid);
    std::thread::sleep(Duration::from_secs(3));
    let woke = wakeups(pid) - before;
    assert!(woke <= 1, "an idle server woke {woke} times in 3 s");
    // A change is still seen, from the file notifications.
    sb.json(&["deactivate", "t.load"], 0);
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = raw
            .messages
            .recv_timeout(left)
            .expect("no list_changed within 2 s");
        if message["method"] == "notifications/tools/list_changed" {
            break;
        }
    }
}

/// A server started with its watcher's wakes on a channel (the debug
/// build's `HCPX_MCP_DEBUG_WAKES` lines on stderr), `PATH` being
/// `path_first` then the system's folders.
fn with_wakes(sb: &Sandbox, path_first: &Path) -> (Child, ChildStdin, Receiver<u64>) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("hcpx"))
        .env("HCP_HOME", sb.home())
        .env("PATH", format!("{}:/usr/bin:/bin", path_first.display()))
        .env("HCPX_MCP_DEBUG_WAKES", "1")
        .env_remove("HCP_PRINCIPAL")
        .current_dir(sb.dir.path())
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (send, wakes) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if let Some(n) = line.strip_prefix("hcpx mcp: woken ") {
                let _ = send.send(n.trim().parse().unwrap_or(0));
            }
        }
    });
    let (said, answers) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = said.send(line);
        }
    });
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    // The answers to `initialize` and `tools/list`: the server is serving.
    let deadline = Instant::now() + crate::common::BOUND;
    let mut answered = 0;
    while answered < 2 {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = answers
            .recv_timeout(left)
            .expect("no answer from the server");
        answered += usize::from(line.contains("\"id\":1") || line.contains("\"id\":2"));
    }
    (child, stdin, wakes)
}

/// Waits (bounded) until the watcher has not woken for 500 ms; the wakes
/// so far.
#[track_caller]
fn quiet(wakes: &Receiver<u64>, mut seen: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(
            Instant::now() < deadline,
            "the server never went quiet (woken {seen} times)"
        );
        match wakes.recv_timeout(Duration::from_millis(500)) {
            Ok(n) => seen = seen.max(n),
            Err(mpsc::RecvTimeoutError::Timeout) => return seen,
            Err(e) => panic!("the server ended: {e}"),
        }
    }
}

/// Running programs from a folder on the server's `PATH` wakes nothing:
/// the watch asks for changes only, never for inotify's open events
/// (which `notify` 8 asked for whatever it was told), so an agent running
/// commands all day costs an idle server nothing (§16.6). A folder made
/// there afterwards still wakes it: the folder is watched.
#[test]
fn programs_run_from_a_path_folder_do_not_wake_an_idle_server() {
    let sb = sandbox();
    let bin = sb.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let tru = bin.join("true");
    std::fs::copy("/usr/bin/true", &tru)
        .or_else(|_| std::fs::copy("/bin/true", &tru))
        .unwrap();
    let (mut child, stdin, wakes) = with_wakes(&sb, &bin);
    let before = quiet(&wakes, 0);
    // At least 100 runs and 300 ms of them: with open events asked for,
    // each run wakes the watcher, several times over its 50 ms settle.
    let started = Instant::now();
    let mut runs = 0;
    while runs < 100 || started.elapsed() < Duration::from_millis(300) {
        assert!(Command::new(&tru).status().unwrap().success());
        runs += 1;
    }
    let after = quiet(&wakes, before);
    assert_eq!(
        after - before,
        0,
        "{runs} runs of {} woke the idle server {} times",
        tru.display(),
        after - before
    );
    // The folder is watched: a change in it wakes the server.
    std::fs::create_dir(bin.join("new")).unwrap();
    let woke = wakes
        .recv_timeout(Duration::from_secs(5))
        .expect("a folder made on PATH did not wake the server");
    assert!(woke > after, "{woke} after {after}");
    drop(stdin);
    crate::common::wait_exit(&mut child);
}

/// Past 4,096 requests being answered, a request of a batch is turned away
/// in the batch's array as a lone one is (`ping` answered, a call
/// `-32000` busy), instead of being taken past the bound (§16.6).
#[test]
fn a_batch_past_the_in_flight_bound_is_answered_busy() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[("HCPX_MCP_MAX_CALLS", "1")], "2025-03-26");
    let files = sb.dir.path().join("naps");
    std::fs::create_dir_all(&files).unwrap();
    // One runs, 4,095 wait for its slot: 4,096 in flight.
    for i in 0..4096 {
        let file = files.join(format!("n{i}")).display().to_string();
        raw.call(&json!(i), "t_load__nap", json!({"file": file}));
    }
    raw.send(&json!([
        {"jsonrpc": "2.0", "id": "bp", "method": "ping"},
        {"jsonrpc": "2.0", "id": "bc", "method": "tools/call",
         "params": {"name": "t_load__hello", "arguments": {}}},
    ]));
    let deadline = Instant::now() + crate::common::BOUND;
    let answers = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match raw.messages.recv_timeout(left) {
            Ok(Value::Array(answers)) => break answers,
            Ok(_) => {}
            Err(e) => panic!("the batch was not answered: {e}"),
        }
    };
    let by_id = |id: &str| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer to {id}: {answers:?}"))
    };
    assert_eq!(by_id("bp")["result"], json!({}));
    assert_eq!(by_id("bc")["error"]["code"], -32000, "{answers:?}");
    drop(raw.stdin.take());
    crate::common::wait_exit(&mut raw.child);
}

/// An orphan a command left (in a session of its own, handed to the
/// server) that exits between calls is reaped then, not left a zombie
/// until the next call (§16.6).
#[test]
fn an_orphan_that_exits_between_calls_is_reaped() {
    let sb = sandbox();
    let mut raw = Raw::start(&sb, &[], "2025-11-25");
    let file = sb.dir.path().join("orphan.pid");
    raw.call(
        &json!(1),
        "t_load__orphan",
        json!({"file": file.display().to_string()}),
    );
    let reply = raw.answer(&json!(1), crate::common::BOUND);
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    wait_until("the orphan writes its pid", || pid_of(&file).is_some());
    let pid = pid_of(&file).unwrap();
    // It sleeps 1 s, exits, and no call comes after it: gone from the
    // process table (not a zombie), with no other request sent.
    wait_until("the orphan is reaped", || {
        !Path::new(&format!("/proc/{pid}")).exists()
    });
}
