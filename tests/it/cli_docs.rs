//! Shell completions and the man page come from the clap definitions.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;

fn hcpx() -> Command {
    Command::cargo_bin("hcpx").unwrap()
}

#[test]
fn completions_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish"] {
        let out = hcpx().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let script = String::from_utf8(out.stdout).unwrap();
        for sub in [
            "lint",
            "install",
            "activate",
            "connect",
            "exec",
            "availability",
            "uninstall",
            "why",
        ] {
            assert!(script.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    hcpx().args(["completions", "tcsh"]).assert().code(2);
}

#[test]
fn man_page_is_roff_with_the_subcommands() {
    let out = hcpx().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH hcpx 1"));
    assert!(page.contains("availability"));
    let doc: serde_json::Value =
        serde_json::from_slice(&hcpx().args(["man", "--json"]).output().unwrap().stdout).unwrap();
    assert_eq!(doc["ok"], true);
    assert!(doc["roff"].as_str().unwrap().starts_with(".ie"));
}

#[test]
fn tui_with_json_is_a_usage_error_as_json() {
    let out = hcpx()
        .env("HCP_HOME", tempfile::tempdir().unwrap().path())
        .args(["tui", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "usage");
}
