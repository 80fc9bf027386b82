//! The safe default grants (HCP.md §9.3–§9.4) on the real binary: on a
//! fresh store an agent may run read commands and nothing else, `user`
//! everything; the first `grant` writes what held until then; the key `"*"`
//! of `grants`; a project store without grants applies the user store's;
//! `availability`, `why` and `hcpx mcp` say where the grants come from.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, install_and_activate};
use crate::project_scope::Machine;
use serde_json::{Value, json};
use std::path::Path;

/// `hcpx --json --principal agent ARGS` (HOME in the sandbox), expecting
/// exit `code`.
fn as_agent(sb: &Sandbox, args: &[&str], code: i32) -> Value {
    let mut all = vec!["--principal", "agent"];
    all.extend(args);
    with_home(sb, &all, code)
}

/// `hcpx --json ARGS` with HOME in the sandbox (harness targets there).
fn with_home(sb: &Sandbox, args: &[&str], code: i32) -> Value {
    let home = sb.dir.path().join("user-home");
    std::fs::create_dir_all(&home).unwrap();
    let out = sb
        .hcpx()
        .env("HOME", &home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(code),
        "hcpx {args:?}: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// A fresh store holding `acme.x` (public) and `acme.e` (an env binding),
/// both activated by `user`.
fn fresh() -> Sandbox {
    let sb = Sandbox::new();
    install_and_activate(
        &sb,
        &sb.simple_pack("acme.x", "1.0.0", "{kind: public}"),
        "acme.x",
    );
    let env = sb.simple_pack("acme.e", "1.0.0", "{kind: env, env: [ACME_E_TOKEN]}");
    install_and_activate(&sb, &env, "acme.e");
    sb
}

fn refused(doc: &Value, grant: &str) {
    assert_eq!(doc["ok"], false, "{doc}");
    assert_eq!(doc["error"]["code"], "grant_missing", "{doc}");
    assert_eq!(doc["error"]["grant"], grant, "{doc}");
}

#[test]
fn on_a_fresh_store_an_agent_runs_read_commands_and_nothing_else() {
    let sb = fresh();
    let before = sb.state();
    assert!(before.get("grants").is_none(), "{before}");
    let out = as_agent(&sb, &["exec", "acme.x", "hello"], 0);
    assert_eq!(out["stdout"], "hello world\n", "{out}");
    refused(
        &as_agent(&sb, &["exec", "acme.x", "touch"], 126),
        "verb.exec.write",
    );
    let other = sb.simple_pack("acme.y", "1.0.0", "{kind: public}");
    refused(
        &as_agent(&sb, &["install", other.to_str().unwrap()], 4),
        "pack.install",
    );
    let connect = sb
        .hcpx()
        .env("ACME_E_TOKEN", "t")
        .args(["--json", "connect", "acme.e", "--principal", "agent"])
        .output()
        .unwrap();
    assert_eq!(connect.status.code(), Some(4));
    refused(
        &serde_json::from_slice(&connect.stdout).unwrap(),
        "pack.connect",
    );
    for grant in ["verb.exec.write", "*"] {
        refused(&as_agent(&sb, &["grant", "agent", grant], 4), "*");
    }
    refused(&as_agent(&sb, &["revoke", "user", "*"], 4), "*");
    refused(
        &as_agent(&sb, &["harness", "enable", "agents"], 4),
        "pack.install",
    );
    refused(&as_agent(&sb, &["uninstall", "acme.x"], 4), "pack.install");
    // HCP_PRINCIPAL names the agent as well.
    let out = sb.json_env(
        &["exec", "acme.x", "touch"],
        &[("HCP_PRINCIPAL", Some("agent"))],
        126,
    );
    refused(&out, "verb.exec.write");
    assert_eq!(sb.state(), before, "nothing refused changed the state");
    assert!(!sb.home().join("packs/acme.y").exists());
}

#[test]
fn on_a_fresh_store_the_user_does_everything() {
    let sb = fresh();
    with_home(&sb, &["exec", "acme.x", "touch"], 0);
    let other = sb.simple_pack("acme.y", "1.0.0", "{kind: public}");
    with_home(&sb, &["install", other.to_str().unwrap()], 0);
    let out = sb
        .hcpx()
        .env("ACME_E_TOKEN", "t")
        .args(["--json", "connect", "acme.e"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    with_home(&sb, &["harness", "enable", "agents"], 0);
    with_home(&sb, &["uninstall", "acme.y"], 0);
    with_home(&sb, &["grant", "ci", "verb.exec.read"], 0);
}

#[test]
fn the_first_grant_writes_what_held_until_then() {
    let sb = fresh();
    let out = sb.json(&["grant", "agent", "verb.exec.write:acme.x"], 0);
    assert_eq!(out["enforced_now"], true, "{out}");
    assert_eq!(out["written_from"], "default", "{out}");
    assert_eq!(
        sb.state()["grants"],
        json!({
            "*": ["verb.exec.read"],
            "agent": ["verb.exec.read", "verb.exec.write:acme.x"],
            "user": ["*"],
        })
    );
    as_agent(&sb, &["exec", "acme.x", "touch"], 0);
    let other = as_agent(&sb, &["why", "acme.e", "touch"], 0);
    assert_eq!(
        other["reasons"],
        json!(["not_connected", "grant_missing:verb.exec.write"]),
        "{other}"
    );
    // A principal not listed holds what `"*"` lists: still the reads.
    let ci = sb.json(&["exec", "acme.x", "hello", "--principal", "ci"], 0);
    assert_eq!(ci["stdout"], "hello world\n");
    // Granting it what `"*"` gives lists it with that grant.
    let text = sb
        .hcpx()
        .args(["grant", "bot", "verb.exec.read"])
        .output()
        .unwrap();
    assert!(text.status.success());
    let words = String::from_utf8_lossy(&text.stdout);
    assert!(words.contains("granted verb.exec.read to bot"), "{words}");
    assert_eq!(sb.state()["grants"]["bot"], json!(["verb.exec.read"]));
    sb.json(&["grant", "ops", "*"], 0);
    assert_eq!(sb.state()["grants"]["ops"], json!(["*"]));
}

#[test]
fn the_star_key_of_grants_reads_and_doctor_does_not_call_it_a_principal() {
    let sb = fresh();
    let mut state = sb.state();
    state["grants"] = json!({"user": ["*"], "*": []});
    std::fs::write(sb.home().join("state.json"), state.to_string()).unwrap();
    // `"*"` lists nothing: an agent not listed may not even read.
    refused(
        &as_agent(&sb, &["exec", "acme.x", "hello"], 126),
        "verb.exec.read",
    );
    sb.json(&["exec", "acme.x", "hello"], 0);
    let out = sb.hcpx().args(["--json", "doctor"]).output().unwrap();
    let doctor: Value = serde_json::from_slice(&out.stdout).unwrap();
    let grants: Vec<&Value> = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "store.grants" || c["check"] == "store.state")
        .collect();
    assert!(!grants.is_empty(), "{doctor}");
    assert!(grants.iter().all(|c| c["ok"] == true), "{doctor}");
    // Revoking a grant `"*"` gives keeps the principal listed with nothing.
    sb.json(&["grant", "bot", "verb.exec.read"], 0);
    sb.json(&["revoke", "bot", "verb.exec.read"], 0);
    assert_eq!(sb.state()["grants"]["bot"], json!([]));
}

#[test]
fn availability_and_why_name_the_principal_and_where_its_grants_come_from() {
    let sb = fresh();
    let doc = as_agent(&sb, &["availability"], 0);
    assert_eq!(doc["principal"], "agent", "{doc}");
    let packs = doc["packs"].as_array().unwrap();
    assert!(packs.iter().all(|p| p["grants_from"] == "default"), "{doc}");
    let why = as_agent(&sb, &["why", "acme.x", "touch"], 0);
    assert_eq!(why["principal"], "agent", "{why}");
    assert_eq!(why["grants_from"], "default", "{why}");
    assert_eq!(why["reason"], "grant_missing:verb.exec.write", "{why}");
    let words = sb
        .hcpx()
        .args(["availability", "--principal", "agent"])
        .output()
        .unwrap();
    let words = String::from_utf8_lossy(&words.stdout);
    assert!(
        words.contains("principal: agent (grants: defaults — read commands only)"),
        "{words}"
    );
    let words = sb
        .hcpx()
        .args(["why", "acme.x", "touch", "--principal", "agent"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&words.stdout).contains("principal: agent (grants: defaults"));
    sb.json(&["grant", "agent", "verb.exec.write:acme.x"], 0);
    let doc = as_agent(&sb, &["availability", "acme.x"], 0);
    assert_eq!(doc["packs"][0]["grants_from"], "user_store", "{doc}");
}

/// A project holding `acme.x` and `acme.y` (from `./tools`), on a fresh
/// user store.
fn project() -> (Machine, std::path::PathBuf) {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    for (name, id) in [("x", "acme.x"), ("y", "acme.y")] {
        m.pack(&proj.join("tools"), name, id);
        m.json(&proj, &["add", &format!("./tools/{name}")], 0);
    }
    (m, proj)
}

fn agent_in(m: &Machine, dir: &Path, args: &[&str], code: i32) -> Value {
    let mut all = vec!["--principal", "agent"];
    all.extend(args);
    m.json(dir, &all, code)
}

/// Each pack of an `availability` document as (pack_id, scope, grants_from).
fn sources(doc: &Value) -> Vec<(String, String, String)> {
    doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or("").to_string();
            (s("pack_id"), s("scope"), s("grants_from"))
        })
        .collect()
}

#[test]
fn a_project_store_without_grants_applies_the_user_stores() {
    let (m, proj) = project();
    let project_state = proj.join(".hcp/state.json");
    agent_in(&m, &proj, &["exec", "acme.x", "hello"], 0);
    refused(
        &agent_in(&m, &proj, &["exec", "acme.x", "touch"], 126),
        "verb.exec.write",
    );
    refused(&agent_in(&m, &proj, &["grant", "agent", "*"], 4), "*");
    let doc = agent_in(&m, &proj, &["availability"], 0);
    assert_eq!(doc["principal"], "agent");
    for (id, _, from) in sources(&doc) {
        assert_eq!(from, "default", "{id}: {doc}");
    }

    // A grant in the user store reaches the project's packs of that id.
    m.json(
        &proj,
        &["-g", "grant", "agent", "verb.exec.write:acme.x"],
        0,
    );
    agent_in(&m, &proj, &["exec", "acme.x", "touch"], 0);
    refused(
        &agent_in(&m, &proj, &["exec", "acme.y", "touch"], 126),
        "verb.exec.write",
    );
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(&project_state).unwrap()).unwrap();
    assert!(
        state.get("grants").is_none(),
        "the project store's own grants: {state}"
    );
    let doc = agent_in(&m, &proj, &["availability"], 0);
    for (id, _, from) in sources(&doc) {
        assert_eq!(from, "user_store", "{id}: {doc}");
    }

    // A grant inside the project writes the project store's grants, from
    // what it inherited; the user store's stay as they were.
    let user_before = std::fs::read(m.user_store().join("state.json")).unwrap();
    let out = m.json(&proj, &["grant", "agent", "verb.exec.write:acme.y"], 0);
    assert_eq!(out["written_from"], "user_store", "{out}");
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(&project_state).unwrap()).unwrap();
    assert_eq!(
        state["grants"],
        json!({
            "*": ["verb.exec.read"],
            "agent": ["verb.exec.read", "verb.exec.write:acme.x", "verb.exec.write:acme.y"],
            "user": ["*"],
        })
    );
    assert_eq!(
        std::fs::read(m.user_store().join("state.json")).unwrap(),
        user_before
    );
    agent_in(&m, &proj, &["exec", "acme.y", "touch"], 0);
    let doc = agent_in(&m, &proj, &["availability"], 0);
    let got = sources(&doc);
    assert!(
        got.iter().any(|(_, s, _)| s == "user"),
        "a user pack: {doc}"
    );
    for (id, scope, from) in got {
        let want = if scope == "project" {
            "project_store"
        } else {
            "user_store"
        };
        assert_eq!(from, want, "{id} ({scope}): {doc}");
    }
    let why = agent_in(&m, &proj, &["why", "acme.y", "touch"], 0);
    assert_eq!(why["grants_from"], "project_store", "{why}");
    assert_eq!(why["principal"], "agent", "{why}");
}

#[test]
fn hcpx_mcp_as_agent_on_a_fresh_store_offers_read_tools_only_and_says_why() {
    let (sb, _) = crate::mcp_server::sandbox();
    crate::mcp_server::runtime().block_on(async {
        let (client, _) = crate::mcp_server::connect(&sb, &["--principal", "agent"]).await;
        let info = client.peer_info().unwrap();
        let words = info.instructions.clone().unwrap_or_default();
        assert!(words.contains("`agent`"), "{words}");
        assert!(words.contains("default"), "{words}");
        assert!(words.contains("hcpx grant agent"), "{words}");
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert!(names.contains(&"t_mcp__echo"), "{names:?}");
        assert!(
            !names.contains(&"t_mcp__mark"),
            "a write command: {names:?}"
        );
        for tool in &tools {
            let doc = serde_json::to_value(tool).unwrap();
            assert_eq!(doc["annotations"]["readOnlyHint"], true, "{doc}");
        }
        client.cancel().await.unwrap();
    });
    crate::mcp_server::runtime().block_on(async {
        let (client, _) = crate::mcp_server::connect(&sb, &[]).await;
        let words = client
            .peer_info()
            .unwrap()
            .instructions
            .clone()
            .unwrap_or_default();
        assert!(words.contains("`user`"), "{words}");
        let tools = client.list_all_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "t_mcp__mark"));
        client.cancel().await.unwrap();
    });
}
