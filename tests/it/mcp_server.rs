//! `hcpx mcp` driven by rmcp's own client (HCP.md §16): initialize,
//! tools/list, a call per argument type, `output: json` as
//! structuredContent, a refused call, a secret never shown, list_changed
//! after another process grants, cancellation killing the process group,
//! the Skills as resources, an upgrade the client has not listed, and end
//! of stdin ending the server and its commands.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, alive, wait_until};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, JsonObject, Request};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// The test pack: one command per thing a call can do.
pub const MANIFEST: &str = r#"hcp: "1"
id: t.mcp
name: MCP test pack
version: 1.0.0
description: Commands for the MCP tests.
binding: {kind: public}
commands:
  - key: echo
    summary: Print every argument
    effect: read
    args:
      - {name: s, type: string, required: true, description: a string}
      - {name: i, type: integer, default: 0}
      - {name: n, type: number, default: 0.5}
      - {name: b, type: boolean, default: false}
      - {name: e, type: enum, values: [x, y], default: x}
    adapter: {kind: process, program: printf, argv: ["%s|%s|%s|%s|%s", "{s}", "{i}", "{n}", "{b}", "{e}"]}
  - key: argv
    summary: Count the words and bytes of one argument
    effect: read
    args:
      - {name: s, type: string, required: true}
    adapter: {kind: process, program: sh, argv: ["-c", "printf '%s words, ' \"$#\"; printf %s \"$1\" | wc -c", "sh", "{s}"]}
  - key: info
    summary: A JSON document
    effect: read
    output: json
    adapter: {kind: process, program: echo, argv: ['{"answer": 42, "list": [1, 2]}']}
  - key: fail
    summary: Print on both streams and fail
    effect: read
    adapter: {kind: process, program: sh, argv: ["-c", "echo out; echo err >&2; exit 3"]}
  - key: nap
    summary: Write its pid to a file, then sleep
    effect: read
    args:
      - {name: file, type: string, required: true}
    adapter: {kind: process, program: sh, argv: ["-c", "echo $$ > \"$1\"; exec sleep 60", "sh", "{file}"]}
  - key: mark
    summary: Create a file
    effect: write
    args:
      - {name: file, type: string, required: true}
    adapter: {kind: process, program: touch, argv: ["{file}"]}
"#;

pub const SKILL: &str = "---\nname: t-mcp\ndescription: Test skill for MCP.\n---\nUse echo, argv, info, fail, nap and mark.\n";

/// A sandbox with the test pack installed and activated; returns it and
/// the pack's source folder.
pub fn sandbox() -> (Sandbox, PathBuf) {
    let sb = Sandbox::new();
    let src = sb.pack(
        "t-mcp",
        &[
            ("pack.yaml", MANIFEST),
            ("SKILL.md", SKILL),
            ("scripts/helper.sh", "#!/bin/sh\necho helper\n"),
        ],
    );
    crate::common::install_and_activate(&sb, &src, "t.mcp");
    (sb, src)
}

/// A client handler that counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
pub struct Watcher {
    pub changed: Arc<Notify>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }
}

pub type Client = RunningService<RoleClient, Watcher>;

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// `hcpx mcp ARGS` on the sandbox's store, as an rmcp client's child.
pub async fn connect(sb: &Sandbox, args: &[&str]) -> (Client, Watcher) {
    let mut cmd = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"));
    cmd.env("HCP_HOME", sb.home())
        .env_remove("HCP_PRINCIPAL")
        .current_dir(sb.dir.path())
        .arg("mcp")
        .args(args);
    let transport = TokioChildProcess::new(cmd).unwrap();
    let watcher = Watcher::default();
    let client = watcher.clone().serve(transport).await.unwrap();
    (client, watcher)
}

pub fn args(value: Value) -> JsonObject {
    value.as_object().unwrap().clone()
}

pub async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args(arguments)))
        .await
        .unwrap()
}

pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[test]
fn initialize_negotiates_and_lists_typed_tools() {
    let (sb, _) = sandbox();
    runtime().block_on(async {
        let (client, _) = connect(&sb, &[]).await;
        let info = client.peer_info().unwrap();
        assert_eq!(info.protocol_version.as_str(), "2025-11-25");
        assert_eq!(info.server_info.as_ref().unwrap().name, "hcpx");
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        for name in ["t_mcp__echo", "t_mcp__info", "t_mcp__mark", "hcp-cli__list"] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        let re = regex::Regex::new("^[a-zA-Z0-9_-]{1,64}$").unwrap();
        assert!(names.iter().all(|n| re.is_match(n)), "{names:?}");
        let echo = tools.iter().find(|t| t.name == "t_mcp__echo").unwrap();
        let doc = serde_json::to_value(echo).unwrap();
        assert_eq!(doc["title"], "Print every argument");
        assert!(
            doc["description"]
                .as_str()
                .unwrap()
                .contains("Commands for the MCP tests.")
        );
        assert_eq!(
            doc["inputSchema"],
            json!({
                "type": "object",
                "properties": {
                    "s": {"type": "string", "description": "a string"},
                    "i": {"type": "integer", "default": 0},
                    "n": {"type": "number", "default": 0.5},
                    "b": {"type": "boolean", "default": false},
                    "e": {"type": "string", "enum": ["x", "y"], "default": "x"}
                },
                "required": ["s"],
                "additionalProperties": false
            })
        );
        assert_eq!(
            doc["annotations"],
            json!({"title": "Print every argument", "readOnlyHint": true,
                   "destructiveHint": false, "openWorldHint": false})
        );
        assert_eq!(doc["_meta"]["hcp/pack_id"], "t.mcp");
        assert_eq!(doc["_meta"]["hcp/verb_key"], "echo");
        assert_eq!(doc["_meta"]["hcp/effect"], "read");
        let mark =
            serde_json::to_value(tools.iter().find(|t| t.name == "t_mcp__mark").unwrap()).unwrap();
        assert_eq!(mark["annotations"]["readOnlyHint"], false);
        assert_eq!(mark["annotations"]["destructiveHint"], true);
        client.cancel().await.unwrap();
    });
}

#[test]
fn calls_take_every_argument_type_and_report_json_and_failures() {
    let (sb, _) = sandbox();
    runtime().block_on(async {
        let (client, _) = connect(&sb, &[]).await;
        let all = json!({"s": "hi", "i": -5, "n": 2.5, "b": true, "e": "y"});
        let r = call(&client, "t_mcp__echo", all).await;
        assert_eq!(text(&r), "hi|-5|2.5|true|y");
        assert_eq!(r.is_error, Some(false));
        let r = call(&client, "t_mcp__echo", json!({"s": "only"})).await;
        assert_eq!(text(&r), "only|0|0.5|false|x", "defaults fill the rest");

        let r = call(&client, "t_mcp__info", json!({})).await;
        assert_eq!(
            r.structured_content,
            Some(json!({"answer": 42, "list": [1, 2]}))
        );

        let r = call(&client, "t_mcp__fail", json!({})).await;
        assert_eq!(r.is_error, Some(true));
        assert_eq!(text(&r), "out\n--- stderr ---\nerr\n");
        assert_eq!(r.meta.as_ref().unwrap().0["hcp/exit_code"], 3);

        // A bad argument names it; nothing runs.
        for (bad, arg) in [
            (json!({"s": "a", "i": "5"}), "i"),
            (json!({"s": "a", "i": 1.5}), "i"),
            (json!({"s": "a", "e": "z"}), "e"),
            (json!({"s": "a", "zz": "1"}), "zz"),
            (json!({}), "s"),
        ] {
            let r = call(&client, "t_mcp__echo", bad.clone()).await;
            assert_eq!(r.is_error, Some(true), "{bad}");
            let words = text(&r);
            assert!(words.starts_with("refused (usage)"), "{bad}: {words}");
            assert!(
                words.contains(&format!("`{arg}`")) || words.contains(arg),
                "{bad}: {words}"
            );
            assert_eq!(r.meta.as_ref().unwrap().0["hcp/error"]["arg"], arg, "{bad}");
        }
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_grant_revoked_since_the_listing_is_refused_with_its_fix_and_nothing_runs() {
    let (sb, _) = sandbox();
    sb.json(&["grant", "agent", "verb.exec.read"], 0);
    sb.json(&["grant", "agent", "verb.exec.write:t.mcp"], 0);
    let marker = sb.dir.path().join("marked");
    runtime().block_on(async {
        let (client, watcher) = connect(&sb, &["--principal", "agent"]).await;
        let tools = client.list_all_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "t_mcp__mark"));
        sb.json(&["revoke", "agent", "verb.exec.write:t.mcp"], 0);
        let file = marker.display().to_string();
        let r = call(&client, "t_mcp__mark", json!({ "file": file })).await;
        assert_eq!(r.is_error, Some(true));
        let words = text(&r);
        assert!(words.starts_with("refused (grant_missing)"), "{words}");
        assert!(
            words.contains("fix: ask the user to run: `hcpx grant agent verb.exec.write:t.mcp`"),
            "{words}"
        );
        assert!(words.contains("nothing ran"));
        assert_eq!(
            r.meta.as_ref().unwrap().0["hcp/error"]["grant"],
            "verb.exec.write"
        );
        assert!(!marker.exists(), "the command ran");
        // The change was announced, and the next listing leaves it out.
        tokio::time::timeout(Duration::from_secs(10), watcher.changed.notified())
            .await
            .expect("list_changed");
        let tools = client.list_all_tools().await.unwrap();
        assert!(!tools.iter().any(|t| t.name == "t_mcp__mark"));
        assert!(tools.iter().any(|t| t.name == "t_mcp__echo"));
        client.cancel().await.unwrap();
    });
}

#[test]
fn list_changed_comes_within_two_seconds_of_a_grant_from_another_process() {
    let (sb, _) = sandbox();
    sb.json(&["grant", "agent", "verb.exec.read"], 0);
    runtime().block_on(async {
        let (client, watcher) = connect(&sb, &["--principal", "agent"]).await;
        let before = client.list_all_tools().await.unwrap();
        assert!(!before.iter().any(|t| t.name == "t_mcp__mark"));
        let notified = watcher.changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        sb.json(&["grant", "agent", "verb.exec.write"], 0);
        let granted = Instant::now();
        tokio::time::timeout(Duration::from_secs(10), notified)
            .await
            .expect("list_changed");
        let took = granted.elapsed();
        assert!(took <= Duration::from_secs(2), "list_changed took {took:?}");
        let after = client.list_all_tools().await.unwrap();
        assert!(after.iter().any(|t| t.name == "t_mcp__mark"));
        client.cancel().await.unwrap();
    });
}

/// Waits for the pid a `nap` call wrote.
pub fn pid_in(file: &Path) -> i32 {
    crate::common::wait_for("the command's pid", || {
        std::fs::read_to_string(file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .ok_or_else(|| "no pid yet".to_string())
    })
}

#[test]
fn a_cancelled_call_ends_its_process_group_within_three_seconds() {
    let (sb, _) = sandbox();
    let file = sb.dir.path().join("nap.pid");
    runtime().block_on(async {
        let (client, _) = connect(&sb, &[]).await;
        let params = CallToolRequestParams::new("t_mcp__nap")
            .with_arguments(args(json!({"file": file.display().to_string()})));
        let request = ClientRequest::CallToolRequest(Request::new(params));
        let handle = client
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .unwrap();
        let pid = tokio::task::spawn_blocking({
            let file = file.clone();
            move || pid_in(&file)
        })
        .await
        .unwrap();
        assert!(alive(pid));
        let cancelled = Instant::now();
        handle.cancel(Some("test".into())).await.unwrap();
        tokio::task::spawn_blocking(move || {
            wait_until("the cancelled command ends", || !alive(pid));
        })
        .await
        .unwrap();
        let took = cancelled.elapsed();
        assert!(took <= Duration::from_secs(3), "cancel took {took:?}");
        // The server goes on serving.
        let r = call(&client, "t_mcp__echo", json!({"s": "after"})).await;
        assert_eq!(text(&r), "after|0|0.5|false|x");
        client.cancel().await.unwrap();
    });
}

#[test]
fn skills_are_resources_with_their_bundled_files() {
    let (sb, _) = sandbox();
    runtime().block_on(async {
        let (client, _) = connect(&sb, &[]).await;
        let resources = client.list_all_resources().await.unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
        assert!(uris.contains(&"hcp://skills/t-mcp/SKILL.md"), "{uris:?}");
        assert!(
            uris.contains(&"hcp://skills/t-mcp/scripts/helper.sh"),
            "{uris:?}"
        );
        assert!(!uris.iter().any(|u| u.ends_with("pack.yaml")), "{uris:?}");
        let skill = resources
            .iter()
            .find(|r| r.uri == "hcp://skills/t-mcp/SKILL.md")
            .unwrap();
        assert_eq!(skill.mime_type.as_deref(), Some("text/markdown"));
        let read = client
            .read_resource(rmcp::model::ReadResourceRequestParams::new(
                "hcp://skills/t-mcp/SKILL.md",
            ))
            .await
            .unwrap();
        let doc = serde_json::to_value(&read.contents[0]).unwrap();
        assert_eq!(doc["text"], SKILL);
        assert_eq!(doc["mimeType"], "text/markdown");
        // Only what was listed is read: no way out of the pack.
        for uri in [
            "hcp://skills/t-mcp/../../state.json",
            "hcp://skills/t-mcp/pack.yaml",
            "hcp://skills/t-mcp/%2e%2e/%2e%2e/state.json",
        ] {
            let err = client
                .read_resource(rmcp::model::ReadResourceRequestParams::new(uri))
                .await;
            assert!(err.is_err(), "{uri} was served");
        }
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_secret_is_never_in_a_result() {
    let sb = Sandbox::new();
    let manifest = r#"hcp: "1"
id: t.secret
name: Secret pack
version: 1.0.0
description: Prints its secret.
binding: {kind: secret, secret: {name: TOKEN, prompt: "Token?"}}
commands:
  - key: leak
    summary: Print the token everywhere
    effect: read
    adapter: {kind: process, program: sh, argv: ["-c", "echo \"out $TOKEN\"; echo \"err $TOKEN\" >&2"]}
  - key: leakjson
    summary: Print the token in JSON
    effect: read
    output: json
    adapter: {kind: process, program: sh, argv: ["-c", "printf '{\"t\": \"%s\"}' \"$TOKEN\""]}
"#;
    let skill = "---\nname: t-secret\ndescription: Secret.\n---\nleak and leakjson.\n";
    let src = sb.pack("t-secret", &[("pack.yaml", manifest), ("SKILL.md", skill)]);
    crate::common::install_and_activate(&sb, &src, "t.secret");
    let secret = "s3cr3t-VALUE-9f8e7d";
    crate::common::assert_success(&sb.connect_secret("t.secret", secret));
    runtime().block_on(async {
        let (client, _) = connect(&sb, &[]).await;
        for tool in ["t_secret__leak", "t_secret__leakjson"] {
            let r = call(&client, tool, json!({})).await;
            let doc = serde_json::to_string(&r).unwrap();
            assert!(!doc.contains(secret), "{doc}");
            assert!(doc.contains("********"), "{doc}");
        }
        let tools = serde_json::to_string(&client.list_all_tools().await.unwrap()).unwrap();
        assert!(!tools.contains(secret));
        client.cancel().await.unwrap();
    });
}

#[test]
fn an_upgrade_with_other_arguments_is_not_served_under_the_old_listing() {
    let (sb, _) = sandbox();
    runtime().block_on(async {
        let (client, _) = connect(&sb, &[]).await;
        client.list_all_tools().await.unwrap();
        // 2.0.0: `echo` takes other arguments, `info` is unchanged.
        let v2 = MANIFEST
            .replace("version: 1.0.0", "version: 2.0.0")
            .replace(
                "{name: s, type: string, required: true, description: a string}",
                "{name: t, type: string, required: true}",
            )
            .replace("\"{s}\", \"{i}\"", "\"{t}\", \"{i}\"");
        let src = sb.pack("t-mcp-2", &[("pack.yaml", &v2), ("SKILL.md", SKILL)]);
        // Other argv: an escalating replacement, consented to (§11.1).
        let out = sb
            .hcpx()
            .args(["--json", "install", src.to_str().unwrap(), "--yes"])
            .output()
            .unwrap();
        crate::common::assert_success(&out);
        let r = call(&client, "t_mcp__echo", json!({"s": "old"})).await;
        assert_eq!(r.is_error, Some(true));
        let words = text(&r);
        assert!(words.contains("list the tools again"), "{words}");
        assert!(words.contains("nothing ran"), "{words}");
        let r = call(&client, "t_mcp__info", json!({})).await;
        assert_eq!(r.is_error, Some(false), "same name and schema: served");
        // Listed again, the new schema is served.
        client.list_all_tools().await.unwrap();
        let r = call(&client, "t_mcp__echo", json!({"t": "new"})).await;
        assert_eq!(text(&r), "new|0|0.5|false|x");
        client.cancel().await.unwrap();
    });
}

#[test]
fn end_of_stdin_ends_the_server_and_every_command_it_started() {
    use std::io::{BufRead, Write};
    let (sb, _) = sandbox();
    let file = sb.dir.path().join("eof.pid");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"))
        .env("HCP_HOME", sb.home())
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "t_mcp__nap", "arguments": {"file": file.display().to_string()}}});
    writeln!(stdin, "{call}").unwrap();
    stdin.flush().unwrap();
    let pid = pid_in(&file);
    drop(stdin);
    let status = crate::common::wait_exit(&mut child);
    assert!(status.success(), "{status:?}");
    wait_until("the command ends with the server", || !alive(pid));
}

/// The test binary's absolute path, links resolved: what a printed
/// configuration starts (§16.7).
fn hcpx_path() -> String {
    std::fs::canonicalize(assert_cmd::cargo::cargo_bin("hcpx"))
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn print_config_names_the_agent_principal_for_each_harness() {
    let sb = Sandbox::new();
    for (target, file, key) in [
        ("claude-code", ".mcp.json", "mcpServers"),
        ("cursor", ".cursor/mcp.json", "mcpServers"),
        ("vscode", ".vscode/mcp.json", "servers"),
        ("gemini", "~/.gemini/settings.json", "mcpServers"),
    ] {
        let out = sb
            .hcpx()
            .args(["mcp", "--print-config", target])
            .output()
            .unwrap();
        crate::common::assert_success(&out);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let server = &doc[key]["hcpx"];
        assert_eq!(server["command"], hcpx_path(), "{target}");
        assert_eq!(
            server["args"],
            json!(["mcp", "--principal", "agent"]),
            "{target}"
        );
        assert_eq!(server["env"]["HCP_HOME"], sb.home().display().to_string());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(file),
            "{target}"
        );
    }
    let doc = sb.json(&["mcp", "--print-config", "codex"], 0);
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["target"], "codex");
    assert_eq!(doc["format"], "toml");
    assert_eq!(doc["file"], "~/.codex/config.toml");
    let config = doc["config"].as_str().unwrap();
    let program = hcpx_path();
    assert!(
        config.starts_with(&format!("[mcp_servers.hcpx]\ncommand = \"{program}\"\n")),
        "{config}"
    );
    assert!(
        config.contains(r#"args = ["mcp", "--principal", "agent"]"#),
        "{config}"
    );
    // Another target is a usage error; so is --json without --print-config.
    let out = sb
        .hcpx()
        .args(["mcp", "--print-config", "emacs"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let doc = sb.json(&["mcp"], 2);
    assert_eq!(doc["error"]["code"], "usage");
}

#[test]
fn print_config_carries_the_store_and_the_one_line_commands_name_the_server_first() {
    let sb = Sandbox::new();
    let program = hcpx_path();
    let doc = sb.json(&["mcp", "--print-config", "codex"], 0);
    let config = doc["config"].as_str().unwrap();
    // Codex passes no environment of the shell: the store goes with it.
    let home = sb.home().display().to_string();
    assert!(
        config.contains(&format!("env = {{ HCP_HOME = \"{home}\" }}")),
        "{config}"
    );
    assert_eq!(
        doc["command"],
        format!("codex mcp add hcpx --env HCP_HOME={home} -- {program} mcp --principal agent")
    );
    // Claude Code takes the server's name before `-e` (a list).
    let claude = sb.json(&["mcp", "--print-config", "claude-code"], 0);
    assert_eq!(
        claude["command"],
        format!(
            "claude mcp add --scope project hcpx -e HCP_HOME={home} -- {program} mcp --principal agent"
        )
    );
    let gemini = sb.json(&["mcp", "--print-config", "gemini"], 0);
    assert_eq!(
        gemini["command"],
        format!(
            "gemini mcp add --scope user hcpx {program} -e HCP_HOME={home} -- mcp --principal agent"
        )
    );
    // `$HCP_PRINCIPAL` is the principal named instead of `agent`.
    let out = sb
        .hcpx()
        .env("HCP_PRINCIPAL", "bot")
        .args(["mcp", "--print-config", "cursor"])
        .output()
        .unwrap();
    crate::common::assert_success(&out);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["mcpServers"]["hcpx"]["args"],
        json!(["mcp", "--principal", "bot"])
    );
}
