//! `why` lists every unmet condition, first one first, each with its fix
//! (HCP.md §11.3); a fix is a complete command line that carries the
//! `--catalog` and `--principal` the user gave, in `why`, in error hints
//! and pasted into a shell.

use crate::common::{Sandbox, require_tool};
use serde_json::{Value, json};
use std::path::PathBuf;

/// A sandbox with `acme.why` (an `env` Binding on `WHY_TOKEN`) in a
/// catalog folder whose name needs quoting; returns the catalog.
fn setup() -> (Sandbox, String) {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.why", "1.0.0", "{kind: env, env: [WHY_TOKEN]}");
    let from = src.parent().map(PathBuf::from).unwrap_or_default();
    let catalog = sb.dir.path().join("my packs");
    std::fs::rename(from, &catalog).unwrap_or_else(|e| panic!("rename: {e}"));
    (sb, catalog.display().to_string())
}

fn strings(value: &Value) -> Vec<Option<String>> {
    value
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// `hcpx why acme.why hello --catalog CATALOG --principal PRINCIPAL`.
fn why_args<'a>(catalog: &'a str, principal: &'a str) -> [&'a str; 7] {
    [
        "why",
        "acme.why",
        "hello",
        "--catalog",
        catalog,
        "--principal",
        principal,
    ]
}

#[test]
fn why_lists_every_unmet_condition_with_its_fix() {
    let (sb, catalog) = setup();
    // `bot` holds nothing: not even the default `verb.exec.read` (§9.3).
    sb.json(&["revoke", "bot", "verb.exec.read"], 0);
    let args = why_args(&catalog, "bot");
    let out = sb.json(&args, 0);
    let install = format!("hcpx install acme.why --catalog '{catalog}' --principal bot");
    assert_eq!(
        strings(&out["reasons"]),
        // Not activated and not connected follow from not installed: only
        // the conditions that hold apart from it are said too.
        ["not_installed", "grant_missing:verb.exec.read"].map(|r| Some(r.to_string()))
    );
    assert_eq!(
        strings(&out["fixes"]),
        [install.as_str(), "hcpx grant bot verb.exec.read:acme.why",].map(|f| Some(f.to_string()))
    );
    // The first of each, as before.
    assert_eq!(out["reason"], "not_installed");
    assert_eq!(out["fix"], json!(install));
    assert_eq!(out["executable"], false);

    // Text: every reason in order, each followed by its fix.
    let text = sb
        .hcpx()
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&text.stdout).to_string();
    let (first, rest) = text.split_once('\n').unwrap_or_default();
    assert_eq!(first, "principal: bot (grants: the user store's grants)");
    let lines: Vec<&str> = rest.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].contains("not installed"), "{text}");
    assert_eq!(lines[1], format!("  fix: {install}"));
    assert!(lines[2].contains("verb.exec.read"), "{text}");
    assert_eq!(lines[3], "  fix: hcpx grant bot verb.exec.read:acme.why");

    // Installed, the pack is said to need activating and connecting.
    sb.json(&["install", "acme.why", "--catalog", &catalog], 0);
    let out = sb.json(&args, 0);
    assert_eq!(
        strings(&out["reasons"]),
        [
            "not_activated",
            "not_connected",
            "grant_missing:verb.exec.read"
        ]
        .map(|r| Some(r.to_string()))
    );
    assert_eq!(
        strings(&out["fixes"]),
        [
            "hcpx activate acme.why",
            "hcpx connect acme.why --principal bot",
            "hcpx grant bot verb.exec.read:acme.why",
        ]
        .map(|f| Some(f.to_string()))
    );
}

#[test]
fn a_reason_without_a_fix_has_null_in_fixes() {
    let sb = Sandbox::new();
    let src = sb.pack(
        "acme.nofix",
        &[
            (
                "pack.yaml",
                "hcp: \"1\"\nid: acme.nofix\nname: No fix\nversion: 1.0.0\ndescription: A pack for tests.\nbinding: {kind: public}\ncommands:\n  - key: run\n    summary: Run it\n    effect: read\n    adapter: {kind: process, program: hcpx-test-no-such-program}\n",
            ),
            (
                "SKILL.md",
                "---\nname: acme-nofix\ndescription: Test skill.\n---\nUse `run`.\n",
            ),
        ],
    );
    let dir = src.display().to_string();
    sb.json(&["install", &dir], 0);
    let out = sb.json(&["why", "acme.nofix", "run"], 0);
    assert_eq!(
        strings(&out["reasons"]),
        [
            Some("not_activated".to_string()),
            Some("program_not_found:hcpx-test-no-such-program".to_string())
        ]
    );
    assert_eq!(
        strings(&out["fixes"]),
        [Some("hcpx activate acme.nofix".to_string()), None]
    );
    sb.json(&["activate", "acme.nofix"], 0);
    let out = sb.json(&["why", "acme.nofix", "run"], 0);
    assert_eq!(out["reason"], "program_not_found:hcpx-test-no-such-program");
    assert_eq!(out["fix"], Value::Null);
    assert_eq!(strings(&out["fixes"]), [None]);
}

#[test]
fn error_hints_carry_the_catalog_and_the_principal() {
    let (sb, catalog) = setup();
    let install = format!("hcpx install acme.why --catalog '{catalog}'");
    for (args, code) in [
        (
            vec!["exec", "acme.why", "hello", "--catalog", &catalog],
            126,
        ),
        (vec!["activate", "acme.why", "--catalog", &catalog], 3),
        (vec!["connect", "acme.why", "--catalog", &catalog], 3),
    ] {
        let out = sb.json(&args, code);
        assert_eq!(out["error"]["code"], "not_installed", "{args:?}");
        assert_eq!(out["error"]["hint"], json!(install), "{args:?}");
    }
    // The bootstrap pack's builtin answers with the same hint.
    let out = sb.json(
        &[
            "--catalog",
            &catalog,
            "exec",
            "hcp-cli",
            "activate",
            "--",
            "pack=acme.why",
        ],
        3,
    );
    assert_eq!(out["data"]["error"]["code"], "not_installed", "{out}");
    assert_eq!(out["data"]["error"]["hint"], json!(install), "{out}");
    sb.json(&["install", "acme.why", "--catalog", &catalog], 0);
    let out = sb.json(&["exec", "acme.why", "hello", "--principal", "ops"], 126);
    assert_eq!(out["error"]["code"], "not_activated");
    assert_eq!(out["error"]["hint"], "hcpx activate acme.why");
    // Text form: the same line after `hint:`.
    let text = sb
        .hcpx()
        .args(["exec", "acme.why", "hello", "--principal", "ops"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert!(stderr.contains("hint: hcpx activate acme.why"), "{stderr}");
}

#[test]
fn each_fix_works_when_pasted_into_a_shell() {
    if !require_tool("sh") {
        return;
    }
    let (sb, catalog) = setup();
    let bin = assert_cmd::cargo::cargo_bin("hcpx");
    let path = format!(
        "{}:{}",
        bin.parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        std::env::var("PATH").unwrap_or_default()
    );
    let why = |principal: &str| sb.json(&why_args(&catalog, principal), 0);
    for expected in ["not_installed", "not_activated", "not_connected"] {
        let out = why("user");
        assert_eq!(out["reason"], expected, "{out}");
        let fix = out["fix"].as_str().unwrap_or_default().to_string();
        let run = std::process::Command::new("sh")
            .args(["-c", &fix])
            .env("PATH", &path)
            .env("HCP_HOME", sb.home())
            .env_remove("HCP_PRINCIPAL")
            .env("WHY_TOKEN", "t0ken")
            .current_dir(sb.dir.path())
            .output()
            .unwrap_or_else(|e| panic!("sh: {e}"));
        assert!(
            run.status.success(),
            "`{fix}` failed: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let out = why("user");
    assert_eq!(out["executable"], true, "{out}");
    assert_eq!(out["reasons"], json!([]));
    assert_eq!(out["fixes"], json!([]));
}

/// `doctor` (and `verify`, and the bootstrap pack's `doctor`) name their
/// fixes in words, each command in them a line with the `--catalog` and
/// `--principal` the user gave, quoted as a shell needs.
#[test]
fn doctor_fixes_carry_the_catalog_and_principal_given() {
    let (sb, catalog) = setup();
    sb.json(&["install", "acme.why", "--catalog", &catalog], 0);
    // A store from before hcp.lock: the pack is not recorded.
    std::fs::remove_file(sb.home().join("hcp.lock")).unwrap_or_else(|e| panic!("{e}"));
    let flags = ["--catalog", catalog.as_str(), "--principal", "bot"];
    let quoted = format!("--catalog '{catalog}'");
    let expected = format!(
        "hcpx doctor --fix {quoted} records it as installed now (its source unknown unless a catalog holds that very copy), or reinstall it from its source: hcpx install SOURCE --force {quoted} --principal bot (or hcpx uninstall acme.why --principal bot)"
    );
    let fix_of = |doc: &Value| {
        doc["checks"]
            .as_array()
            .and_then(|checks| checks.iter().find(|c| c["check"] == "verify:acme.why"))
            .map(|c| c["fix"].clone())
            .unwrap_or_else(|| panic!("no verify:acme.why check: {doc}"))
    };
    // The flags before the subcommand, as `doctor` takes them.
    let doctor = [&flags[..], &["doctor"]].concat();
    assert_eq!(fix_of(&sb.json(&doctor, 1)), json!(expected));
    // The words: the same line after `fix:`.
    let text = sb
        .hcpx()
        .args(&doctor)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(stdout.contains(&format!("fix: {expected}")), "{stdout}");
    // The builtin answers with the same document.
    let builtin = [&flags[..], &["exec", "hcp-cli", "doctor"]].concat();
    assert_eq!(fix_of(&sb.json(&builtin, 1)["data"]), json!(expected));
    // verify's `integrity` error, its hint rendered the same way.
    let verify = [&flags[..], &["verify"]].concat();
    let out = sb.json(&verify, 1);
    assert_eq!(
        out["error"]["hint"],
        json!(format!(
            "reinstall from the recorded source (`hcpx install SOURCE --force {quoted} --principal bot`), or `hcpx uninstall acme.why --principal bot`; `hcpx doctor --fix {quoted}` records the installed packs hcp.lock does not list"
        )),
        "{out}"
    );
    // Without flags, the lines are the bare commands.
    assert!(
        fix_of(&sb.json(&["doctor"], 1))
            .as_str()
            .is_some_and(|f| f.starts_with("hcpx doctor --fix records it")
                && f.contains("hcpx install SOURCE --force (or hcpx uninstall acme.why)")),
        "{}",
        sb.json(&["doctor"], 1)
    );
}
