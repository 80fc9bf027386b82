//! Principal names (HCP.md §9.1): `--principal`, `$HCP_PRINCIPAL` and the
//! PRINCIPAL of `grant`/`revoke` follow `^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$`,
//! else `usage` (exit 2) before any grant, the name shown escaped; one in
//! `state.json`'s `grants` is `store_corrupt`. And every command line a
//! hint shows has its words shell-quoted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Sandbox;
use serde_json::{Value, json};

const BAD: &[&str] = &[
    "us\u{202e}er",
    "us\u{200b}er",
    "$(touch pwned)",
    "ci bot",
    "-x",
    "a'b",
];

fn run(sb: &Sandbox, args: &[&str], env: Option<&str>, code: i32) -> Value {
    let mut cmd = sb.hcpx();
    if let Some(p) = env {
        cmd.env("HCP_PRINCIPAL", p);
    }
    let out = cmd.arg("--json").args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(code), "{args:?} {env:?}: {stdout}");
    serde_json::from_str(&stdout).unwrap()
}

fn assert_usage_escaped(doc: &Value, name: &str) {
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&name.escape_default().to_string()),
        "{message}"
    );
    for c in ['\u{202e}', '\u{200b}'] {
        assert!(!message.contains(c), "{message:?}");
    }
}

#[test]
fn a_principal_outside_the_grammar_is_a_usage_error() {
    let sb = Sandbox::new();
    sb.json(&["grant", "agent", "verb.exec.read"], 0);
    let before = sb.state();
    for name in BAD {
        let doc = run(&sb, &["--principal", name, "availability"], None, 2);
        assert_usage_escaped(&doc, name);
        let doc = run(&sb, &["availability"], Some(name), 2);
        assert_usage_escaped(&doc, name);
        // As the grant's subject, and before the granter's own grant is
        // checked (`agent` holds no `*`: that would be exit 4).
        for verb in ["grant", "revoke"] {
            let doc = run(
                &sb,
                &["--principal", "agent", verb, name, "verb.exec.read"],
                None,
                2,
            );
            assert_usage_escaped(&doc, name);
        }
    }
    assert_eq!(sb.state(), before);
    let long = "a".repeat(65);
    run(&sb, &["grant", &long, "verb.exec.read"], None, 2);
    run(&sb, &["grant", &"a".repeat(64), "verb.exec.read"], None, 0);
    run(
        &sb,
        &["grant", "bot@host.example", "verb.exec.read"],
        None,
        0,
    );
}

#[test]
fn a_bad_principal_in_state_json_is_store_corrupt() {
    let sb = Sandbox::new();
    sb.json(&["grant", "agent", "verb.exec.read"], 0);
    let path = sb.home().join("state.json");
    let mut state = sb.state();
    state["grants"]["ag\u{202e}ent"] = json!(["*"]);
    std::fs::write(&path, serde_json::to_vec(&state).unwrap()).unwrap();
    let doc = run(&sb, &["availability"], None, 1);
    assert_eq!(doc["error"]["code"], "store_corrupt", "{doc}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(message.contains("ag\\u{202e}ent"), "{message}");
}

#[test]
fn no_hint_hands_a_shell_an_unquoted_principal() {
    let sb = Sandbox::new();
    sb.json(&["grant", "agent", "verb.exec.read"], 0);
    // On the old code this principal was accepted, and the hint of the
    // refused grant was `hcpx grant $(touch pwned) '*'`.
    let out = sb
        .hcpx()
        .args([
            "--principal",
            "$(touch pwned)",
            "grant",
            "bot",
            "pack.connect",
        ])
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(!said.contains("hcpx grant $("), "{said}");
    // A principal that may not change grants is shown the grant to ask for
    // as a command line, every word quoted where a shell needs it.
    let doc = run(
        &sb,
        &["--principal", "agent", "grant", "bot", "pack.connect"],
        None,
        4,
    );
    assert_eq!(doc["error"]["grant"], "*");
    assert_eq!(doc["error"]["hint"], "hcpx grant agent '*'");
}

#[test]
fn doctor_hands_no_shell_a_grant_from_state_json() {
    let sb = Sandbox::new();
    sb.json(&["grant", "agent", "verb.exec.read"], 0);
    let path = sb.home().join("state.json");
    let mut state = sb.state();
    state["grants"]["agent"] = json!(["verb.exec.read'; touch pwned; '"]);
    std::fs::write(&path, serde_json::to_vec(&state).unwrap()).unwrap();
    let doc = run(&sb, &["doctor"], None, 1);
    let checks = doc["checks"].as_array().unwrap();
    let grants: Vec<&Value> = checks
        .iter()
        .filter(|c| c["check"] == "store.grants")
        .collect();
    assert!(!grants.is_empty(), "{doc}");
    for check in grants {
        let fix = check["fix"].as_str().unwrap_or_default();
        assert!(
            !fix.contains("hcpx revoke"),
            "a command line from the file: {fix}"
        );
    }
}
