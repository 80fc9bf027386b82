//! Shell completions and the man page come from the clap definitions.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;

fn hcpx() -> Command {
    Command::cargo_bin("hcpx").unwrap()
}

#[test]
fn completions_register_hcpx_for_each_shell() {
    // The scripts ask hcpx itself on TAB (see cli_complete), so every
    // subcommand is completed without being written into them.
    for (shell, marker) in [
        ("bash", "complete -o nospace"),
        ("zsh", "#compdef hcpx"),
        ("fish", "complete --keep-order --exclusive --command hcpx"),
    ] {
        let out = hcpx().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("COMPLETE="), "{shell}: {script}");
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

fn help_of(args: &[&str]) -> String {
    let out = hcpx().args(args).arg("--help").output().unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The environment variables `hcpx --help` and the man page both name.
const ENV_VARS: [&str; 7] = [
    "HCP_HOME",
    "HCP_PRINCIPAL",
    "HCPX_LOG",
    "HCPX_LOG_LEVEL",
    "NO_COLOR",
    "HCPX_LOCK_TIMEOUT_MS",
    "HCPX_FETCH_MAX_BYTES",
];

#[test]
fn every_subcommand_help_has_examples_described_args_and_no_spec_references() {
    use clap::CommandFactory;
    let root = help_of(&[]);
    for var in ENV_VARS {
        assert!(root.contains(var), "hcpx --help lacks {var}");
    }
    assert!(!root.contains('§'));
    let cmd = hcpx::cli::Cli::command();
    for sub in cmd.get_subcommands() {
        let name = sub.get_name();
        let help = help_of(&[name]);
        assert!(help.contains("\nExamples:\n  hcpx "), "{name}: {help}");
        assert!(!help.contains('§'), "{name}: {help}");
        for arg in sub.get_arguments() {
            assert!(
                arg.get_help().is_some(),
                "{name}: argument {} has no description",
                arg.get_id()
            );
        }
    }
}

#[test]
fn flags_appear_only_where_they_apply() {
    let tui = help_of(&["tui"]);
    assert!(!tui.contains("--json"), "{tui}");
    assert!(tui.contains("--principal") && tui.contains("--catalog"));
    let lint = help_of(&["lint"]);
    assert!(!lint.contains("--principal") && !lint.contains("--catalog"));
    assert!(lint.contains("--json"));
    for sub in ["completions", "man"] {
        let help = help_of(&[sub]);
        assert!(!help.contains("--principal") && !help.contains("--catalog"));
    }
    let grant = help_of(&["grant"]);
    assert!(!grant.contains("--catalog") && grant.contains("--principal"));
    // Where a subcommand lacks a flag, giving it there is a usage error.
    hcpx()
        .args(["lint", ".", "--catalog", "x"])
        .assert()
        .code(2);
}

#[test]
fn flags_work_before_and_after_the_subcommand() {
    let home = tempfile::tempdir().unwrap();
    let cat = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = hcpx()
            .env("HCP_HOME", home.path())
            .env_remove("HCP_PRINCIPAL")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}"))
    };
    let cat = cat.path().to_str().unwrap();
    for args in [
        vec!["--json", "list"],
        vec!["list", "--json"],
        vec!["--json", "--catalog", cat, "list"],
        vec!["list", "--catalog", cat, "--json"],
        vec!["--catalog", cat, "list", "--catalog", cat, "--json"],
    ] {
        assert_eq!(run(&args)["ok"], true, "{args:?}");
    }
    let doc = run(&["--json", "--principal", "bot", "availability"]);
    assert_eq!(doc["principal"], "bot");
    let doc = run(&["availability", "--principal", "bot", "--json"]);
    assert_eq!(doc["principal"], "bot");
    // After the subcommand wins over before it.
    let doc = run(&[
        "--principal",
        "a",
        "availability",
        "--principal",
        "b",
        "--json",
    ]);
    assert_eq!(doc["principal"], "b");
}

#[test]
fn man_page_has_environment_exit_status_and_examples() {
    let out = hcpx().arg("man").output().unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    for section in [".SH ENVIRONMENT", ".SH \"EXIT STATUS\"", ".SH EXAMPLES"] {
        assert!(page.contains(section), "man page lacks {section}");
    }
    for var in ENV_VARS {
        assert!(page.contains(var), "man page lacks {var}");
    }
    assert!(page.contains("hcpx exec demo.clock now \\-\\- tz=Europe/Berlin"));
    assert!(page.contains("\\fB127\\fR"));
    assert!(!page.contains('§'));
}

/// Every page the man page of hcpx names in its SUBCOMMANDS section
/// (`hcpx-exec(1)`, `hcpx-catalog-add(1)` on the page of `catalog`) is
/// printed by `hcpx man exec`, `hcpx man catalog add`.
#[test]
fn every_man_page_the_man_page_names_exists() {
    fn named(page: &str) -> Vec<String> {
        page.split("\\-")
            .collect::<Vec<_>>()
            .join("-")
            .split(|c: char| c.is_whitespace())
            .filter_map(|w| w.strip_suffix("(1)"))
            .filter_map(|w| w.strip_prefix("hcpx-"))
            .map(str::to_string)
            .collect()
    }
    let page = |words: &[&str]| {
        let out = hcpx().arg("man").args(words).output().unwrap();
        assert!(out.status.success(), "hcpx man {words:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let mut todo = named(&page(&[]));
    assert!(todo.contains(&"exec".to_string()), "{todo:?}");
    assert!(!todo.contains(&"help".to_string()), "{todo:?}");
    let mut seen = 0;
    while let Some(name) = todo.pop() {
        let words: Vec<&str> = name.split('-').collect();
        let text = page(&words);
        assert!(
            text.contains(&format!(".TH hcpx-{name} 1")),
            "{name}: {text}"
        );
        todo.extend(named(&text));
        seen += 1;
    }
    // The nested pages too (`catalog add`, `harness enable`, ...).
    assert!(seen > 30, "{seen} pages");
    let out = hcpx().args(["man", "exce"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `exec`?"));
}

/// An argument's help says its default once.
#[test]
fn upgrade_help_says_its_default_once() {
    let help = help_of(&["upgrade"]);
    let arguments = help
        .split("Arguments:")
        .nth(1)
        .and_then(|rest| rest.split("Options:").next())
        .unwrap();
    assert_eq!(arguments.matches("default:").count(), 1, "{arguments}");
}
