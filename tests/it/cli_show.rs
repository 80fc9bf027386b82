//! `hcpx show PACK_ID`, `hcpx exec PACK_ID VERB --help` and the did-you-mean
//! hints of `not_found` and `usage` errors, on the real binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, install_and_activate};
use std::path::PathBuf;

const SECRET_PACK: &str = r#"hcp: "1"
id: acme.vault
name: Vault
version: 2.1.0
description: Reads from a vault.
license: MIT
homepage: https://example.com/vault
binding:
  kind: secret
  secret: {name: VAULT_TOKEN, prompt: "Vault token"}
  probe: whoami
  base_url: https://vault.example.com
requires: {bins: [sh]}
commands:
  - key: whoami
    summary: Who the token belongs to
    effect: read
    adapter: {kind: process, program: echo, argv: ["me"]}
  - key: put
    summary: Store a value
    effect: write
    args:
      - {name: key, type: string, required: true, description: "The key"}
      - {name: mode, type: enum, values: [fast, safe], default: safe}
    adapter: {kind: process, program: echo, argv: ["{key}", "{mode}"]}
"#;

const SECRET_SKILL: &str = "---\nname: acme-vault\ndescription: d\n---\nUse `whoami` and `put`.\n";

fn vault(sb: &Sandbox) -> PathBuf {
    sb.pack(
        "vault",
        &[("pack.yaml", SECRET_PACK), ("SKILL.md", SECRET_SKILL)],
    )
}

fn catalog(sb: &Sandbox) -> String {
    let cat = sb.dir.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    crate::common::copy_dir(
        &sb.simple_pack("demo.clock", "1.0.0", "{kind: public}"),
        &cat.join("demo.clock"),
    );
    cat.display().to_string()
}

#[test]
fn show_json_has_manifest_commands_args_binding_and_paths() {
    let sb = Sandbox::new();
    install_and_activate(&sb, &vault(&sb), "acme.vault");
    let doc = sb.json(&["show", "acme.vault"], 0);
    assert_eq!(doc["connected"], false);
    assert_eq!(doc["commands"][1]["executable"], false);
    assert_eq!(doc["commands"][1]["reasons"][0], "not_connected");
    let text = sb.hcpx().args(["show", "acme.vault"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(stdout.contains("put (write, not_connected)"), "{stdout}");
    let secret = "s3cr3t-value-never-shown";
    let mut connect = sb.hcpx();
    connect
        .args(["connect", "acme.vault", "--secret-stdin"])
        .write_stdin(secret)
        .assert()
        .success();
    let doc = sb.json(&["show", "acme.vault"], 0);
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["pack_id"], "acme.vault");
    assert_eq!(doc["version"], "2.1.0");
    assert_eq!(doc["license"], "MIT");
    assert_eq!(doc["homepage"], "https://example.com/vault");
    assert_eq!(doc["plane"], "tool");
    assert_eq!(doc["requires"]["bins"][0], "sh");
    assert_eq!(doc["binding"]["kind"], "secret");
    assert_eq!(doc["binding"]["secret"]["name"], "VAULT_TOKEN");
    assert_eq!(doc["binding"]["probe"], "whoami");
    assert_eq!(doc["binding"]["base_url"], "https://vault.example.com");
    assert_eq!(doc["installed"], true);
    assert_eq!(doc["activated"], true);
    assert_eq!(doc["connected"], true);
    let installed = doc["installed_path"].as_str().unwrap();
    assert!(installed.ends_with("packs/acme.vault"), "{installed}");
    assert_eq!(doc["skill"]["copied"], true);
    assert!(
        doc["skill"]["path"]
            .as_str()
            .unwrap()
            .ends_with("skills/acme.vault/SKILL.md")
    );
    let put = &doc["commands"][1];
    assert_eq!(put["verb_key"], "put");
    assert_eq!(put["summary"], "Store a value");
    assert_eq!(put["effect"], "write");
    assert_eq!(put["executable"], true);
    assert_eq!(put["reasons"], serde_json::json!([]));
    assert_eq!(put["args"][0]["name"], "key");
    assert_eq!(put["args"][0]["type"], "string");
    assert_eq!(put["args"][0]["required"], true);
    assert_eq!(put["args"][0]["description"], "The key");
    assert_eq!(put["args"][1]["default"], "safe");
    assert_eq!(put["args"][1]["values"][1], "safe");
    assert_eq!(doc["commands"][0]["executable"], true);
    // The secret value is in no output, text or JSON.
    assert!(!doc.to_string().contains(secret));
    let text = sb.hcpx().args(["show", "acme.vault"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(!stdout.contains(secret));
    assert!(stdout.contains("VAULT_TOKEN"), "{stdout}");
    assert!(stdout.contains("put (write, executable)"), "{stdout}");
    assert!(
        stdout.contains("key=<string>  required  The key"),
        "{stdout}"
    );
}

#[test]
fn show_of_a_hostile_catalog_pack_is_terminal_safe() {
    let sb = Sandbox::new();
    let cat = sb.dir.path().join("catalog");
    let hostile = SECRET_PACK
        .replace("name: Vault", "name: \"Vault \\e[31mred\"")
        .replace(
            "summary: Store a value",
            "summary: \"Store \\u202e a value\"",
        )
        .replace(
            "description: \"The key\"",
            "description: \"The \\e]0;title\\a key\"",
        );
    let src = sb.pack(
        "hostile",
        &[("pack.yaml", &hostile), ("SKILL.md", SECRET_SKILL)],
    );
    crate::common::copy_dir(&src, &cat.join("acme.vault"));
    let cat = cat.display().to_string();
    let out = sb
        .hcpx()
        .args(["--catalog", &cat, "show", "acme.vault"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("unavailable"), "{stdout}");
    assert!(stdout.contains("put"), "{stdout}");
    for bad in ['\u{1b}', '\u{7}', '\u{202e}'] {
        assert!(!stdout.contains(bad), "{stdout:?}");
    }
    // JSON keeps the data, escaped.
    let doc = sb.json(&["--catalog", &cat, "show", "acme.vault"], 0);
    assert_eq!(doc["name"], "Vault \u{1b}[31mred");
}

#[test]
fn show_a_catalog_pack_and_an_unknown_one() {
    let sb = Sandbox::new();
    let cat = catalog(&sb);
    let doc = sb.json(&["--catalog", &cat, "show", "demo.clock"], 0);
    assert_eq!(doc["status"], "available");
    assert_eq!(doc["installed_path"], serde_json::Value::Null);
    assert!(
        doc["catalog_path"]
            .as_str()
            .unwrap()
            .ends_with("demo.clock")
    );
    assert_eq!(doc["skill"]["copied"], false);
    assert_eq!(doc["commands"][0]["reasons"][0], "not_activated");
    let doc = sb.json(&["--catalog", &cat, "show", "demo.clok"], 5);
    assert_eq!(doc["error"]["code"], "not_found");
    assert_eq!(doc["error"]["hint"], "did you mean `demo.clock`?");
}

#[test]
fn did_you_mean_for_pack_ids_verbs_and_args() {
    let sb = Sandbox::new();
    let cat = catalog(&sb);
    let doc = sb.json(&["--catalog", &cat, "install", "demo.clok"], 5);
    assert_eq!(doc["error"]["code"], "not_found");
    assert_eq!(doc["error"]["hint"], "did you mean `demo.clock`?");
    sb.json(&["--catalog", &cat, "install", "demo.clock"], 0);
    let doc = sb.json(&["activate", "demo.clokc"], 5);
    assert_eq!(doc["error"]["hint"], "did you mean `demo.clock`?");
    sb.json(&["activate", "demo.clock"], 0);
    let doc = sb.json(&["exec", "demo.clock", "helo"], 127);
    assert_eq!(doc["error"]["code"], "not_found");
    assert!(
        doc["error"]["hint"]
            .as_str()
            .unwrap()
            .starts_with("did you mean `hello`?"),
        "{doc}"
    );
    let doc = sb.json(&["exec", "demo.clock", "hello", "--", "woh=x"], 125);
    assert_eq!(doc["error"]["code"], "usage");
    assert!(
        doc["error"]["hint"]
            .as_str()
            .unwrap()
            .starts_with("did you mean `who`?"),
        "{doc}"
    );
    // Text form: the hint line on stderr.
    let out = sb
        .hcpx()
        .args(["--catalog", &cat, "uninstall", "demo.clok"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("hint: did you mean `demo.clock`?"),
        "{stderr}"
    );
}

#[test]
fn a_kv_word_before_dashes_hints_to_add_them() {
    let sb = Sandbox::new();
    let doc = sb.json(&["exec", "demo.clock", "now", "tz=UTC"], 125);
    assert_eq!(doc["error"]["code"], "usage");
    assert_eq!(
        doc["error"]["hint"],
        "arguments go after `--`: hcpx exec PACK_ID VERB -- tz=UTC"
    );
    let out = sb
        .hcpx()
        .args(["exec", "demo.clock", "now", "tz=UTC"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hint: arguments go after `--`"), "{stderr}");
}

#[test]
fn exec_verb_help_prints_the_command_args() {
    let sb = Sandbox::new();
    install_and_activate(&sb, &vault(&sb), "acme.vault");
    for flag in ["--help", "-h"] {
        let out = sb
            .hcpx()
            .args(["exec", "acme.vault", "put", flag])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.starts_with("Store a value\n"), "{stdout}");
        assert!(
            stdout.contains("Usage: hcpx exec acme.vault put -- key=<string> [mode=<enum>]"),
            "{stdout}"
        );
        assert!(
            stdout.contains("mode=<enum>  optional, default: \"safe\", values: fast|safe"),
            "{stdout}"
        );
        assert!(stdout.contains("not executable"), "{stdout}");
    }
    // Global flags around it still work; --json gives the command's entry.
    let doc = sb.json(&["exec", "acme.vault", "put", "--help"], 0);
    assert_eq!(doc["command"]["verb_key"], "put");
    assert_eq!(doc["command"]["args"][0]["name"], "key");
    // `hcpx exec --help` stays clap's help of exec itself.
    let out = sb.hcpx().args(["exec", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Usage: hcpx exec"), "{stdout}");
    // After `--`, `--help` is the command's own word: nothing is shown.
    let out = sb
        .hcpx()
        .args(["exec", "acme.vault", "put", "--", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(126));
    // An unknown verb: not_found with a suggestion, exec's exit code.
    let doc = sb.json(&["exec", "acme.vault", "pt", "--help"], 127);
    assert!(
        doc["error"]["hint"]
            .as_str()
            .unwrap()
            .starts_with("did you mean `put`?")
    );
}
