//! One command layer (issue 18): the TUI's `:` line and the CLI make the
//! same request and get the same outcome. For every report subcommand, the
//! document the TUI shows with `--json` (its `J` view) is the document
//! `hcpx --json` prints on stdout, on one store; and the TUI's words are
//! the CLI's words.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::KeyCode;
use serde_json::Value;
use tempfile::TempDir;

/// `hcpx ARGS` on the TUI's store, catalog and harness home, with `--json`
/// when `json`: stdout.
fn cli(dir: &TempDir, args: &[&str], json: bool) -> String {
    let catalog = catalog(dir);
    let mut cmd = assert_cmd::Command::cargo_bin("hcpx").unwrap();
    cmd.env("HCP_HOME", home(dir))
        .env("HOME", user_home(dir))
        .env("NO_COLOR", "1")
        .env_remove("HCP_PRINCIPAL")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .current_dir(dir.path())
        .timeout(std::time::Duration::from_secs(60));
    if json {
        cmd.arg("--json");
    }
    cmd.arg("--catalog").arg(&catalog).args(args);
    let out = cmd.output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    if !json {
        return text;
    }
    // The report itself, as the TUI's `:` line shows it: without the
    // `scope` the CLI adds to every result (HCP.md §15.1).
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(doc) => serde_json::to_string_pretty(&crate::common::unscoped(doc)).unwrap() + "\n",
        Err(_) => text,
    }
}

/// The TUI's report after `:LINE`: (its words, its document).
async fn tui_report(tui: &mut Tui, line: &str) -> (String, Option<String>) {
    tui.keys(&format!(":{line}")).await;
    tui.press(KeyCode::Enter).await;
    let report = tui.runner.app.report().expect("a report").clone();
    (report.text, report.json)
}

/// `text` with the one live measure, the free space doctor reports, left
/// out (other processes write to the same disk between the two runs).
fn steady(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(" MiB free") {
            Some(end) => {
                let start = line[..end]
                    .rfind(|c: char| !c.is_ascii_digit())
                    .map_or(0, |i| i + 1);
                format!("{}N{}", &line[..start], &line[end..])
            }
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const REPORTS: &[&str] = &[
    "doctor",
    "verify",
    "verify acme.notes",
    "show acme.notes",
    "availability",
    "availability acme.notes",
    "why acme.notes",
    "why acme.notes hello",
    "list",
    "catalog list",
    "harness list",
    "harness status",
    "outdated --offline",
];

#[tokio::test]
async fn every_report_is_the_same_document_and_words_in_the_tui_and_the_cli() {
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    engine(&dir).install("acme.notes", false).unwrap();
    // Another pack, activated: the lists have more than one row.
    one_command_pack(
        &catalog(&dir),
        "acme.clock",
        ("Acme clock", "Tell the time."),
        "{kind: public}",
        "now",
        "date",
    );
    install_active(&dir, "acme.clock");
    let mut tui = Tui::start(dir, 140, 50).await;
    for line in REPORTS {
        let words: Vec<&str> = line.split(' ').collect();
        let (text, doc) = tui_report(&mut tui, line).await;
        let doc = doc.unwrap_or_else(|| panic!(":{line}: no document; {text}"));
        let tui_doc: Value = serde_json::from_str(&steady(&doc)).unwrap();
        let cli_doc: Value = serde_json::from_str(&steady(&cli(&tui.dir, &words, true)))
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(tui_doc, cli_doc, ":{line} and hcpx --json {line} differ");
        assert_eq!(
            steady(text.trim_end()),
            steady(cli(&tui.dir, &words, false).trim_end()),
            ":{line} and hcpx {line} say different words"
        );
    }
}

/// A line's own `--principal` holds for its request, as on the CLI.
#[tokio::test]
async fn a_lines_principal_is_the_clis() {
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    install_active(&dir, "acme.notes");
    let mut tui = Tui::start(dir, 140, 50).await;
    let (_, doc) = tui_report(&mut tui, "availability --principal agent --json").await;
    let tui_doc: Value = serde_json::from_str(&doc.unwrap()).unwrap();
    assert_eq!(tui_doc["principal"], "agent", "{tui_doc}");
    let cli_doc: Value = serde_json::from_str(&cli(
        &tui.dir,
        &["availability", "--principal", "agent"],
        true,
    ))
    .unwrap();
    assert_eq!(tui_doc, cli_doc);
    // The TUI itself still acts for its own principal.
    let (_, doc) = tui_report(&mut tui, "availability --json").await;
    let doc: Value = serde_json::from_str(&doc.unwrap()).unwrap();
    assert_eq!(doc["principal"], "user");
    // `:principal agent` switches it.
    tui.keys(":principal agent").await;
    tui.press(KeyCode::Enter).await;
    let (_, doc) = tui_report(&mut tui, "availability --json").await;
    let doc: Value = serde_json::from_str(&doc.unwrap()).unwrap();
    assert_eq!(doc["principal"], "agent");
}

/// `grant` runs through the command layer too: the TUI says the CLI's
/// words (it used to say `already has` where the CLI says `already holds`).
#[tokio::test]
async fn grant_says_the_clis_words() {
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    let mut tui = Tui::start(dir, 140, 50).await;
    let first = cli(&tui.dir, &["grant", "agent", "verb.exec.read"], false);
    assert!(
        first.starts_with("granted verb.exec.read to agent"),
        "{first}"
    );
    let (text, doc) = tui_report(&mut tui, "grant agent verb.exec.read").await;
    assert_eq!(text.trim_end(), "agent already holds verb.exec.read");
    let doc: Value = serde_json::from_str(&doc.unwrap()).unwrap();
    let cli_doc: Value =
        serde_json::from_str(&cli(&tui.dir, &["grant", "agent", "verb.exec.read"], true)).unwrap();
    assert_eq!(doc, cli_doc);
}
