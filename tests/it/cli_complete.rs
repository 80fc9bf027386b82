//! Dynamic shell completion: `hcpx completions SHELL` registers hcpx
//! itself as the completer, and hcpx answers with subcommands, flags, the
//! pack ids of the store and the catalogs, and the verbs of the pack on the
//! line, for bash, zsh and fish.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Sandbox;

/// A store with demo.clock installed, and a catalog holding demo.notes.
fn setup() -> (Sandbox, String) {
    let sb = Sandbox::new();
    let src = sb.simple_pack("demo.clock", "1.0.0", "{kind: public}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    let cat = sb.dir.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    crate::common::copy_dir(
        &sb.simple_pack("demo.notes", "1.0.0", "{kind: public}"),
        &cat.join("notes"),
    );
    (sb, cat.display().to_string())
}

/// The candidates hcpx gives `shell` for the command line `words`, the
/// last word being the one completed.
fn candidates(sb: &Sandbox, shell: &str, words: &[&str]) -> Vec<String> {
    let mut cmd = sb.hcpx();
    cmd.env("HCPX_COMPLETE", shell)
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_IFS", "\n")
        .arg("--")
        .args(words);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{shell} {words:?}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        // fish: `value\thelp`; zsh: `value:help`.
        .map(|l| l.split(['\t', ':']).next().unwrap().to_string())
        .collect()
}

#[test]
fn pack_ids_verbs_and_subcommands_for_every_shell() {
    let (sb, cat) = setup();
    for shell in ["bash", "zsh", "fish"] {
        let got = candidates(&sb, shell, &["hcpx", "show", "demo."]);
        assert_eq!(got, ["demo.clock"], "{shell}: installed only");
        let got = candidates(&sb, shell, &["hcpx", "exec", "--catalog", &cat, "demo."]);
        assert_eq!(
            got,
            ["demo.clock", "demo.notes"],
            "{shell}: with the catalog"
        );
        let got = candidates(&sb, shell, &["hcpx", "exec", "demo.clock", "h"]);
        assert_eq!(got, ["hello"], "{shell}: verbs");
        let got = candidates(&sb, shell, &["hcpx", "harness", "enable", "c"]);
        assert_eq!(
            got,
            ["claude-code", "codex", "cursor", "copilot"],
            "{shell}: harness targets"
        );
        let got = candidates(
            &sb,
            shell,
            &["hcpx", "why", "--catalog", &cat, "demo.notes", "t"],
        );
        assert_eq!(got, ["touch"], "{shell}: verbs of a catalog pack");
        let got = candidates(&sb, shell, &["hcpx", "sh"]);
        assert_eq!(got, ["show"], "{shell}: subcommands");
        let got = candidates(&sb, shell, &["hcpx", "list", "--ca"]);
        assert_eq!(got, ["--catalog"], "{shell}: flags");
        let got = candidates(&sb, shell, &["hcpx", "list", "--catalog", "cata"]);
        assert_eq!(got, ["catalog/"], "{shell}: catalog folders");
    }
}

#[test]
fn every_subcommand_is_completed() {
    let sb = Sandbox::new();
    let got = candidates(&sb, "bash", &["hcpx", ""]);
    for sub in [
        "lint",
        "install",
        "activate",
        "connect",
        "exec",
        "deactivate",
        "uninstall",
        "list",
        "show",
        "availability",
        "why",
        "grant",
        "revoke",
        "tui",
        "doctor",
        "completions",
        "man",
    ] {
        assert!(got.iter().any(|c| c == sub), "{sub} not in {got:?}");
    }
}

#[test]
fn completion_creates_no_store() {
    let sb = Sandbox::new();
    assert!(candidates(&sb, "fish", &["hcpx", "show", "x"]).is_empty());
    assert!(!sb.home().exists(), "a TAB created the store");
}

#[test]
fn the_bash_script_completes_in_bash() {
    if !crate::common::require_tool("bash") {
        return;
    }
    let (sb, _cat) = setup();
    let script = sb.hcpx().args(["completions", "bash"]).output().unwrap();
    assert!(script.status.success());
    let script = String::from_utf8(script.stdout).unwrap();
    assert!(script.contains("complete -o nospace"), "{script}");
    let path = sb.dir.path().join("hcpx.bash");
    std::fs::write(&path, script).unwrap();
    let out = std::process::Command::new("bash")
        .env("HCP_HOME", sb.home())
        .arg("-c")
        .arg(format!(
            "source {}; COMP_WORDS=(hcpx exec demo.clock he); COMP_CWORD=3; \
             _clap_complete_hcpx hcpx he demo.clock; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display()
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.trim(), "hello", "{out:?}");
}

#[test]
fn completions_json_holds_the_script() {
    let sb = Sandbox::new();
    let doc = sb.json(&["completions", "zsh"], 0);
    assert_eq!(doc["shell"], "zsh");
    assert!(doc["script"].as_str().unwrap().contains("#compdef hcpx"));
}
