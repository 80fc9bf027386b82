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

/// The raw lines hcpx prints for `shell` (value and description).
fn raw(sb: &Sandbox, shell: &str, words: &[&str]) -> String {
    let out = sb
        .hcpx()
        .env("HCPX_COMPLETE", shell)
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_IFS", "\n")
        .arg("--")
        .args(words)
        .output()
        .unwrap();
    assert!(out.status.success(), "{shell} {words:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Replaces the installed copy's manifest of `id` with `text`.
fn break_manifest(sb: &Sandbox, id: &str, text: &str) {
    std::fs::write(sb.home().join("packs").join(id).join("pack.yaml"), text).unwrap();
}

#[test]
fn descriptions_are_the_packs_names_and_the_verbs_summaries() {
    let (sb, cat) = setup();
    let got = raw(&sb, "fish", &["hcpx", "show", "--catalog", &cat, "demo."]);
    assert_eq!(got, "demo.clock\tTest pack\ndemo.notes\tTest pack\n");
    let got = raw(&sb, "fish", &["hcpx", "exec", "demo.clock", "h"]);
    assert_eq!(got, "hello\tSay hello\n");
    // bash shows no descriptions: none is printed.
    let got = raw(&sb, "bash", &["hcpx", "show", "--catalog", &cat, "demo."]);
    assert_eq!(got, "demo.clock\ndemo.notes");
}

#[test]
fn a_pack_whose_manifest_does_not_parse_is_offered_without_verbs() {
    let (sb, _cat) = setup();
    break_manifest(&sb, "demo.clock", "id: demo.clock\ncommands: [\n");
    for shell in ["bash", "zsh", "fish"] {
        // Its id is its folder's name, a checked id: still offered.
        let got = candidates(&sb, shell, &["hcpx", "exec", "demo."]);
        assert_eq!(got, ["demo.clock"], "{shell}");
        let got = candidates(&sb, shell, &["hcpx", "exec", "demo.clock", ""]);
        assert!(got.iter().all(|c| c.starts_with('-')), "{shell}: {got:?}");
    }
    // No manifest to name it: no description.
    assert_eq!(raw(&sb, "fish", &["hcpx", "exec", "demo."]), "demo.clock\n");
}

#[test]
fn a_pack_failing_lint_offers_its_verb_keys_only_and_terminal_safe_text() {
    let (sb, _cat) = setup();
    break_manifest(
        &sb,
        "demo.clock",
        "id: demo.clock\nname: \"Evil\\e]0;pwned\\a name\"\ncommands:\n\
         \x20 - {key: hello, summary: \"Say\\e[2J hi\", effect: nonsense}\n\
         \x20 - {key: \"Bad Key\", summary: bad}\n\
         \x20 - {key: \"x\\ny\", summary: bad}\n\
         \x20 - {key: hello.again}\n\
         \x20 - not a mapping\n",
    );
    for shell in ["bash", "zsh", "fish"] {
        let got = candidates(&sb, shell, &["hcpx", "exec", "demo.clock", "h"]);
        assert_eq!(got, ["hello", "hello.again"], "{shell}");
    }
    let got = raw(&sb, "fish", &["hcpx", "exec", "demo.clock", "h"]);
    assert!(!got.contains('\u{1b}') && !got.contains('\u{7}'), "{got:?}");
    assert!(got.starts_with("hello\tSay"), "{got:?}");
    let got = raw(&sb, "zsh", &["hcpx", "exec", "demo.c"]);
    assert!(!got.contains('\u{1b}') && !got.contains('\u{7}'), "{got:?}");
    assert!(got.starts_with("demo.clock:Evil"), "{got:?}");
}

#[test]
fn an_id_that_is_not_a_pack_id_reads_nothing_outside_the_store() {
    let (sb, _cat) = setup();
    // A manifest outside packs/ that a path-like "id" would reach.
    let outside = sb.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("pack.yaml"),
        "id: x.y\nname: n\ncommands: [{key: leaked, summary: s}]\n",
    )
    .unwrap();
    for id in ["../../outside", "../outside", "/tmp", "demo.clock/.."] {
        let got = candidates(&sb, "bash", &["hcpx", "exec", id, ""]);
        assert!(!got.iter().any(|c| c == "leaked"), "{id}: {got:?}");
    }
}

#[test]
fn a_catalog_pack_whose_declared_id_is_bad_is_not_offered() {
    let (sb, cat) = setup();
    let bad = std::path::Path::new(&cat).join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("pack.yaml"),
        "id: \"demo.\\e[31mred\"\nname: n\ncommands: [{key: run, summary: s}]\n",
    )
    .unwrap();
    let got = candidates(&sb, "fish", &["hcpx", "exec", "--catalog", &cat, "demo."]);
    assert_eq!(got, ["demo.clock", "demo.notes"]);
}

#[test]
fn past_100_matching_installed_packs_ids_come_without_descriptions() {
    let (sb, _cat) = setup();
    // 100 more installed packs (101 match `demo.`), written into packs/.
    for i in 0..100 {
        let id = format!("demo.p{i:03}");
        let dir = sb.home().join("packs").join(&id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("pack.yaml"),
            crate::common::simple_manifest(&id, "1.0.0", "{kind: public}"),
        )
        .unwrap();
    }
    let all = raw(&sb, "fish", &["hcpx", "exec", "demo."]);
    assert_eq!(all.lines().count(), 101, "{all}");
    assert!(all.lines().all(|l| !l.contains('\t')), "{all}");
    // Fewer matches: described again.
    let few = raw(&sb, "fish", &["hcpx", "exec", "demo.p00"]);
    assert_eq!(few.lines().count(), 10, "{few}");
    assert!(few.lines().all(|l| l.ends_with("\tTest pack")), "{few}");
}
