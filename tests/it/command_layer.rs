//! One command layer (issue 18): the TUI's `:` line and the CLI make the
//! same request and get the same outcome. For every report subcommand, the
//! document the TUI shows with `--json` (its `J` view) is the document
//! `hcpx --json` prints on stdout, on one store; and the TUI's words are
//! the CLI's words. For every lifecycle subcommand, the document and the
//! words the command layer's `execute` gives in process are the ones
//! `hcpx` prints for the same words. The lifecycle keys (`i`, `a`, `c`,
//! `u`, the masked input of a secret, the picker's listing and choice),
//! the Harnesses view's toggle and `U`'s confirmed upgrade show in the
//! Output pane the words, the command and (`J`) the document of the
//! `hcpx` command they run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::KeyCode;
use hcpx::engine::ops::Engine;
use serde_json::Value;
use tempfile::TempDir;

/// `hcpx` on the TUI's store and harness home, nothing more set.
fn cli_cmd(dir: &TempDir) -> assert_cmd::Command {
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
    cmd
}

/// `hcpx ARGS` on the TUI's store, catalog and harness home, with `--json`
/// when `json`: stdout.
fn cli(dir: &TempDir, args: &[&str], json: bool) -> String {
    let catalog = catalog(dir);
    let mut cmd = cli_cmd(dir);
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

/// `hcpx --json ARGS` on the TUI's store, catalog and harness home: its
/// stdout exactly, `scope` included (HCP.md §15.1), as the TUI's `J`
/// shows the `:` line's document.
fn cli_exact(dir: &TempDir, args: &[&str]) -> String {
    let mut cmd = cli_cmd(dir);
    cmd.arg("--json")
        .arg("--catalog")
        .arg(catalog(dir))
        .args(args);
    String::from_utf8(cmd.output().unwrap().stdout).unwrap()
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
        // Byte for byte, nothing stripped.
        assert_eq!(
            steady(&doc),
            steady(cli_exact(&tui.dir, &words).trim_end()),
            ":{line} and hcpx --json {line} differ"
        );
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
    let cli_doc: Value = serde_json::from_str(&cli_exact(
        &tui.dir,
        &["availability", "--principal", "agent"],
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
        serde_json::from_str(&cli_exact(&tui.dir, &["grant", "agent", "verb.exec.read"])).unwrap();
    assert_eq!(doc, cli_doc);
}

/// `doc` without what differs between two runs of the same command: how
/// long it took.
fn steady_doc(mut doc: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("duration_ms");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut doc);
    doc
}

/// What the command layer answers `words` with, in process, on the test's
/// store: the outcome's document, or the error's as the CLI prints it; and
/// the outcome's words and notes (empty for an error).
fn executed(dir: &TempDir, words: &str) -> (Value, String, String) {
    use hcpx::command::execute::{Interaction, execute_with};
    use hcpx::command::{Request, line};
    use hcpx::engine::ops::docs::Failure;
    use hcpx::fixline::{FixFlags, with_hint};
    let words: Vec<String> = words.split(' ').map(str::to_string).collect();
    let invocation = line::parse(&words).unwrap_or_else(|e| panic!("{words:?}: {e:?}"));
    let flags = FixFlags {
        principal: None,
        catalogs: vec![catalog(dir).display().to_string()],
        global: false,
    };
    let engine = engine(dir);
    let request = Request::parse(&invocation.command).expect("a request of the command layer");
    match request.and_then(|r| execute_with(&engine, &r, &flags, Interaction::default())) {
        Ok(outcome) => (
            steady_doc(serde_json::to_value(&outcome).unwrap()),
            hcpx::command::style::plain(&outcome.to_string()),
            hcpx::command::style::plain(&outcome.notes()),
        ),
        Err(err) => (
            steady_doc(serde_json::to_value(Failure::new(&with_hint(&err, &flags))).unwrap()),
            String::new(),
            String::new(),
        ),
    }
}

/// `hcpx --json WORDS`'s document, as [`steady_doc`].
fn cli_doc(dir: &TempDir, words: &str) -> Value {
    let words: Vec<&str> = words.split(' ').collect();
    let out = cli(dir, &words, true);
    steady_doc(serde_json::from_str(&out).unwrap_or_else(|e| panic!("{words:?}: {e}: {out}")))
}

/// A lifecycle command line, and how to put the store back as it was
/// before it ran.
struct Case {
    words: String,
    undo: Box<dyn Fn(&Engine)>,
}

fn case(words: impl Into<String>, undo: impl Fn(&Engine) + 'static) -> Case {
    Case {
        words: words.into(),
        undo: Box::new(undo),
    }
}

fn nothing(_: &Engine) {}

/// For every lifecycle subcommand (and its failures: a word that is not an
/// id among good ones, a pack that is not there, an unknown target), the
/// document the command layer's `execute` gives is the document `hcpx
/// --json` prints for the same words, on the same store.
/// A store with `acme.notes` installed, `acme.echo` (whose `say` echoes)
/// activated, and a folder `more` outside the catalog holding `acme.more`.
fn lifecycle_store() -> (TempDir, std::path::PathBuf) {
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    one_command_pack(
        &catalog(&dir),
        "acme.echo",
        ("Acme echo", "Say nothing."),
        "{kind: public}",
        "say",
        "echo",
    );
    engine(&dir).install("acme.notes", false).unwrap();
    install_active(&dir, "acme.echo");
    let other = dir.path().join("more");
    std::fs::create_dir_all(&other).unwrap();
    one_command_pack(
        &other,
        "acme.more",
        ("Acme more", "More."),
        "{kind: public}",
        "go",
        "echo",
    );
    (dir, other)
}

/// The subcommands that name installed packs, and grants.
fn pack_cases() -> Vec<Case> {
    vec![
        case("activate acme.notes", |e| {
            e.deactivate(&[pack("acme.notes")]);
        }),
        case("activate acme.notes Acme.Echo acme.echo", |e| {
            e.deactivate(&[pack("acme.notes")]);
        }),
        case("activate Acme.Notes", nothing),
        case("activate nope.nope", nothing),
        case("deactivate acme.echo", |e| {
            e.activate(&[pack("acme.echo")]);
        }),
        case("deactivate acme.notes", nothing),
        case("deactivate ../x", nothing),
        case("uninstall acme.notes", |e| {
            e.install("acme.notes", false).unwrap();
        }),
        case("uninstall acme.notes Bad acme.nope", |e| {
            e.install("acme.notes", false).unwrap();
        }),
        case("uninstall hcp-cli", nothing),
        case("connect acme.echo", nothing),
        case("connect acme.notes", nothing),
        case("connect Bad", nothing),
        case("exec acme.echo say", nothing),
        case("exec acme.echo nope", nothing),
        case("exec acme.notes hello", nothing),
        case("exec Bad say", nothing),
        case("upgrade --dry-run", nothing),
        case("upgrade acme.notes", nothing),
        case("upgrade Bad", nothing),
        // (A grant that succeeds ends the single-user default, which no
        // revoke puts back: `grant_says_the_clis_words` has it.)
        case("grant a$b verb.exec.read", nothing),
        case("grant agent verb.nope", nothing),
        case("revoke agent verb.nope", nothing),
    ]
}

/// The subcommands that name sources, folders, files and targets.
fn source_cases(dir: &TempDir, other: &std::path::Path) -> Vec<Case> {
    let path = |p: &std::path::Path| p.display().to_string();
    let notes = path(&catalog(dir).join("acme.notes"));
    let source = path(other);
    vec![
        case("install acme.notes", nothing),
        case("install acme.notes --force", nothing),
        case("install acme.notes nope.zz", nothing),
        case(format!("install {}", path(&other.join("acme.more"))), |e| {
            e.uninstall(&pack("acme.more")).unwrap();
        }),
        case(format!("install --list {source}"), nothing),
        case(format!("lint {notes}"), nothing),
        case(format!("lint {notes} {source} --deny-warnings"), nothing),
        case(
            format!("sync {}", path(&home(dir).join("hcp.lock"))),
            nothing,
        ),
        case("sync /nonexistent/hcp.lock", nothing),
        case(format!("catalog add {source}"), {
            let source = source.clone();
            move |e: &Engine| {
                e.catalog_remove(&source).unwrap();
            }
        }),
        case("catalog remove /not/a/catalog", nothing),
        case("harness enable claude-code codex", |e| {
            e.harness_disable(&[
                hcpx::engine::harness::TargetName::ClaudeCode,
                hcpx::engine::harness::TargetName::Codex,
            ])
            .unwrap();
        }),
        case("harness enable bogus", nothing),
        case("harness disable cursor", nothing),
        case("harness sync", nothing),
    ]
}

/// For every lifecycle subcommand (and its failures: a word that is not an
/// id among good ones, a pack that is not there, an unknown target), the
/// document the command layer's `execute` gives is the document `hcpx
/// --json` prints for the same words, on the same store, and its words
/// the words `hcpx` prints.
#[test]
fn every_lifecycle_request_is_the_clis_document() {
    let (dir, other) = lifecycle_store();
    let cases = pack_cases().into_iter().chain(source_cases(&dir, &other));
    for Case { words, undo } in cases {
        let (doc, text, _) = executed(&dir, &words);
        undo(&engine(&dir));
        assert_eq!(
            doc,
            cli_doc(&dir, &words),
            "execute and hcpx --json {words}"
        );
        undo(&engine(&dir));
        // The words are the CLI's too (an exec's pass through instead).
        if !words.starts_with("exec") {
            let said = cli(&dir, &words.split(' ').collect::<Vec<_>>(), false);
            undo(&engine(&dir));
            assert_eq!(text, said, "execute and hcpx {words} say different words");
        }
    }
}

/// The `:` line's changes run as requests of the command layer too: for
/// the lines that leave the store as it was (a dry run, a listing, a
/// failure), the TUI's document and words are the CLI's.
#[tokio::test]
async fn the_lines_changes_are_the_clis_documents_and_words() {
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    notes_with_a_newer_version(&dir);
    let listed = catalog(&dir).display().to_string();
    let mut tui = Tui::start(dir, 140, 50).await;
    for line in [
        "upgrade --dry-run".to_string(),
        "upgrade acme.notes --dry-run --offline".to_string(),
        format!("install {listed} --list"),
        "harness disable codex cursor".to_string(),
    ] {
        let words: Vec<&str> = line.split(' ').collect();
        let (text, doc) = tui_report(&mut tui, &line).await;
        let doc = doc.unwrap_or_else(|| panic!(":{line}: no document; {text}"));
        assert_eq!(
            doc,
            cli_exact(&tui.dir, &words).trim_end(),
            ":{line} and hcpx --json {line} differ"
        );
        assert_eq!(
            text.trim_end(),
            cli(&tui.dir, &words, false).trim_end(),
            ":{line} and hcpx {line} say different words"
        );
    }
}

/// The Output pane after `keys` (a lifecycle key and what it asks, as
/// typed): its words, its `$ COMMAND` line, and the document `J` shows.
async fn key_answer(tui: &mut Tui, keys: &str) -> (String, String, String) {
    tui.keys(keys).await;
    shown_answer(tui).await
}

/// The Output pane's answer: its words, its `$ COMMAND` line, and the
/// document `J` shows (then `J` again: the words).
async fn shown_answer(tui: &mut Tui) -> (String, String, String) {
    let report = tui.runner.app.report().expect("a report").clone();
    assert!(report.ok, "{}", report.text);
    tui.keys("J").await;
    let shown = tui.runner.app.report().expect("a report");
    assert!(shown.show_json, "J shows the document");
    let doc = shown.shown().to_string();
    tui.keys("J").await;
    assert_eq!(tui.runner.app.report().unwrap().shown(), report.text);
    (report.text, report.command, doc)
}

/// `text` with a probe's duration (`(12 ms)`), which differs by run, as
/// `N`.
fn steady_ms(text: &str) -> String {
    match text.find(" ms)") {
        Some(end) => {
            let start = text[..end].rfind('(').map_or(end, |i| i + 1);
            let rest = &text[end + " ms)".len()..];
            format!("{}N ms){}", &text[..start], steady_ms(rest))
        }
        None => text.to_string(),
    }
}

/// `hcpx WORDS` and `hcpx --json WORDS` on the store as it is: (the
/// words, the document as [`steady_doc`]); `undo` puts the store back
/// after each.
fn cli_answer(dir: &TempDir, words: &str, undo: impl Fn(&Engine)) -> (String, Value) {
    let said = cli(dir, &words.split(' ').collect::<Vec<_>>(), false);
    undo(&engine(dir));
    let doc = cli_doc(dir, words);
    undo(&engine(dir));
    (said, doc)
}

/// The lifecycle keys run the command layer's requests: after `i`, `a`
/// (activate, then deactivate), `c` and `u` on a pack, the Output pane
/// says the words `hcpx` prints for the same command on the same store,
/// under that command, and `J` shows the document `hcpx --json` prints.
#[tokio::test]
async fn each_lifecycle_key_says_the_clis_words_and_document() {
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    let notes = || pack("acme.notes");
    // Each key: the keys typed, the CLI's words for it, and how to put
    // the store back after the CLI ran it (before the TUI runs it).
    let cases: Vec<(&str, Case)> = vec![
        (
            "i",
            case("install acme.notes", move |e| {
                e.uninstall(&notes()).unwrap();
            }),
        ),
        (
            "a",
            case("activate acme.notes", move |e| {
                e.deactivate(&[notes()]);
            }),
        ),
        (
            "c",
            case("connect acme.notes", move |e| {
                e.deactivate(&[notes()]);
                e.activate(&[notes()]);
            }),
        ),
        (
            // Connected: `a` asks before it drops the connection.
            "ay",
            case("deactivate acme.notes", move |e| {
                e.activate(&[notes()]);
                e.connect(&notes(), &mut no_secret).unwrap();
            }),
        ),
        (
            "uy",
            case("uninstall acme.notes", move |e| {
                e.install("acme.notes", false).unwrap();
            }),
        ),
    ];
    let mut tui = Tui::start_at(dir, "acme.notes", 140, 50).await;
    for (keys, Case { words, undo }) in cases {
        let (cli_words, cli_doc) = cli_answer(&tui.dir, &words, undo);
        let (text, command, doc) = key_answer(&mut tui, keys).await;
        assert_eq!(
            steady_ms(&text),
            steady_ms(&cli_words),
            "{keys} and hcpx {words} say different words"
        );
        let doc: Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(steady_doc(doc), cli_doc, "{keys} and hcpx --json {words}");
        let catalogs = if keys == "i" {
            " --catalog ./catalog"
        } else {
            ""
        };
        assert_eq!(command, format!("hcpx {words}{catalogs}"), "{keys}");
    }
    assert!(!tui.installed("acme.notes"));
}

/// `a` on two marked packs is `hcpx activate A B`: one request, the CLI's
/// words for both (and in the log, their lines joined), its one document.
#[tokio::test]
async fn a_key_on_marked_packs_is_one_request_of_them_all() {
    let (dir, _) = lifecycle_store();
    let mut tui = Tui::start(dir, 140, 50).await;
    // acme.echo (active) and acme.notes (not), the first two rows: `a`
    // activates both.
    tui.keys("g  ").await;
    assert_eq!(tui.runner.app.keyed(), ["acme.echo", "acme.notes"]);
    let undo = |e: &Engine| {
        e.deactivate(&[pack("acme.notes")]);
    };
    let words = "activate acme.echo acme.notes";
    let (cli_words, cli_doc) = cli_answer(&tui.dir, words, undo);
    let (text, command, doc) = key_answer(&mut tui, "a").await;
    assert_eq!(text, cli_words);
    assert_eq!(
        text,
        "acme.echo: already activated\nacme.notes: activated\n"
    );
    assert_eq!(command, format!("hcpx {words}"));
    let doc: Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(steady_doc(doc), cli_doc);
    let last = tui.runner.app.log().entries.last().unwrap();
    assert_eq!(
        last.text,
        "acme.echo: already activated; acme.notes: activated"
    );
}

/// `c` on a `secret` Binding: the masked input is the request's secret
/// (as `--secret-stdin` is the CLI's), the words and document are
/// `hcpx connect`'s, and the secret is in neither.
#[tokio::test]
async fn connect_with_the_masked_input_says_the_clis_words() {
    const SECRET: &str = "s3cr3t-token-value";
    let dir = sandbox();
    vault_pack(&catalog(&dir));
    install_active(&dir, "acme.vault");
    let cli_connect = |dir: &TempDir, json: bool| {
        let mut cmd = cli_cmd(dir);
        cmd.write_stdin(SECRET);
        if json {
            cmd.arg("--json");
        }
        cmd.args(["--catalog", &catalog(dir).display().to_string()]);
        cmd.args(["connect", "acme.vault", "--secret-stdin"]);
        let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        let e = engine(dir);
        e.deactivate(&[pack("acme.vault")]);
        e.activate(&[pack("acme.vault")]);
        out
    };
    let cli_words = cli_connect(&dir, false);
    let cli_doc: Value = serde_json::from_str(&cli_connect(&dir, true)).unwrap();
    let cli_doc = crate::common::unscoped(cli_doc);
    let mut tui = Tui::start_at(dir, "acme.vault", 140, 50).await;
    tui.keys("c").await;
    tui.keys(SECRET).await;
    tui.press(KeyCode::Enter).await;
    let (text, command, doc) = shown_answer(&mut tui).await;
    assert!(tui.connected().contains(&"acme.vault".to_string()));
    assert_eq!(text, cli_words);
    assert_eq!(text, "connected acme.vault (secret binding)\n");
    assert_eq!(command, "hcpx connect acme.vault");
    assert!(!doc.contains(SECRET), "{doc}");
    let doc: Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(doc, cli_doc);
}

/// A failure is said as the CLI's error: `J` shows the document `hcpx
/// --json` prints for it (`ok: false` and the error), and the dialog
/// shows the error.
#[tokio::test]
async fn a_failed_key_shows_the_clis_error_document() {
    let dir = sandbox();
    failing_probe_pack(&catalog(&dir));
    install_active(&dir, "acme.probe");
    let cli_doc = cli_doc(&dir, "connect acme.probe");
    let mut tui = Tui::start_at(dir, "acme.probe", 140, 50).await;
    tui.keys("c").await;
    assert!(matches!(
        tui.runner.app.dialog(),
        Some(hcpx::tui::dialog::Dialog::Error(_))
    ));
    tui.press(KeyCode::Esc).await;
    let report = tui.runner.app.report().expect("a report").clone();
    assert!(!report.ok);
    assert!(report.text.starts_with("probe_failed: "), "{}", report.text);
    let doc: Value = serde_json::from_str(report.json.as_deref().unwrap()).unwrap();
    assert_eq!(doc["ok"], false, "{doc}");
    assert_eq!(steady_doc(doc), cli_doc);
}

/// `:install COLLECTION`: the TUI runs `hcpx install COLLECTION --list`
/// (its words in the Output pane) and opens the picker; the choice is
/// `hcpx install COLLECTION --skill ID`, whose words and document are the
/// CLI's.
#[tokio::test]
async fn the_pickers_listing_and_choice_are_the_clis_words() {
    let (dir, other) = lifecycle_store();
    one_command_pack(
        &other,
        "acme.most",
        ("Acme most", "Most."),
        "{kind: public}",
        "go",
        "echo",
    );
    let source = other.display().to_string();
    let list = format!("install {source} --list");
    let (listed, _) = cli_answer(&dir, &list, |_| {});
    let chosen = format!("install {source} --skill acme.most");
    let (cli_words, cli_doc) = cli_answer(&dir, &chosen, |e| {
        e.uninstall(&pack("acme.most")).unwrap();
    });
    let mut tui = Tui::start(dir, 140, 50).await;
    tui.keys(&format!(":install {source}")).await;
    tui.press(KeyCode::Enter).await;
    assert!(matches!(
        tui.runner.app.dialog(),
        Some(hcpx::tui::dialog::Dialog::Picker(_))
    ));
    let report = tui.runner.app.report().expect("the listing").clone();
    assert_eq!(report.text, listed);
    assert_eq!(report.command, format!("hcpx {list}"));
    tui.keys("acme.most").await;
    tui.press(KeyCode::Enter).await;
    let (text, command, doc) = shown_answer(&mut tui).await;
    assert!(tui.installed("acme.most"));
    assert_eq!(text, cli_words);
    assert_eq!(command, format!("hcpx {chosen}"));
    let doc: Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(steady_doc(doc), cli_doc);
}

/// The Harnesses view's `Space` runs `hcpx harness enable TARGET`, then
/// `hcpx harness disable TARGET`: each time the Output pane says the
/// words `hcpx` prints for it on the same store, under that command, and
/// `J` shows the document `hcpx --json` prints; the view reads every
/// target again.
#[tokio::test]
async fn the_harness_toggle_says_the_clis_words_and_document() {
    use hcpx::engine::harness::TargetName;
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    install_active(&dir, "acme.notes");
    let mut tui = Tui::start_at(dir, "acme.notes", 140, 50).await;
    tui.keys("H").await;
    tui.keys("g").await;
    for _ in 0..16 {
        if tui.runner.app.harnesses().selected_row().map(|r| r.name) == Some(TargetName::ClaudeCode)
        {
            break;
        }
        tui.keys("j").await;
    }
    let cases = [
        case("harness enable claude-code", |e| {
            e.harness_disable(&[TargetName::ClaudeCode]).unwrap();
        }),
        case("harness disable claude-code", |e| {
            e.harness_enable(&[TargetName::ClaudeCode]).unwrap();
        }),
    ];
    for (enabled, Case { words, undo }) in [true, false].into_iter().zip(cases) {
        let (cli_words, cli_doc) = cli_answer(&tui.dir, &words, undo);
        tui.keys(" ").await;
        let row = tui.runner.app.harnesses().selected_row().unwrap().clone();
        assert_eq!(row.enabled, enabled, "the view reads the targets again");
        // `J` is the main screen's: the view closes first.
        tui.press(KeyCode::Esc).await;
        let (text, command, doc) = shown_answer(&mut tui).await;
        assert_eq!(
            text, cli_words,
            "Space and hcpx {words} say different words"
        );
        assert!(text.starts_with(if enabled { "enabled" } else { "disabled" }));
        assert_eq!(command, format!("hcpx {words}"));
        let doc: Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(steady_doc(doc), cli_doc, "Space and hcpx --json {words}");
        tui.keys("H").await;
    }
}

/// `U`, then `y` on the diff: the Output pane says the words `hcpx
/// upgrade acme.notes --yes` prints on an equivalent store, under that
/// command, and `J` shows the document `hcpx --json` prints (the
/// sandbox's folder aside).
#[tokio::test]
async fn the_confirmed_upgrade_says_the_clis_words_and_document() {
    let words = "upgrade acme.notes --yes";
    let (said_in, doc_in) = (
        notes_with_an_update(sandbox()),
        notes_with_an_update(sandbox()),
    );
    let cli_words = cli(&said_in, &words.split(' ').collect::<Vec<_>>(), false);
    let cli_doc = cli_doc(&doc_in, words);
    let folder = doc_in.path().display().to_string();
    let mut tui = Tui::start_at(notes_with_an_update(sandbox()), "acme.notes", 140, 50).await;
    tui.keys("U").await;
    assert!(matches!(
        tui.runner.app.dialog(),
        Some(hcpx::tui::dialog::Dialog::ConfirmUpgrade { .. })
    ));
    tui.keys("y").await;
    assert!(tui.runner.app.dialog().is_none());
    let (text, command, doc) = shown_answer(&mut tui).await;
    assert_eq!(text, cli_words, "U and hcpx {words} say different words");
    assert!(
        text.starts_with("upgraded acme.notes 1.2.0 -> 1.3.0\n"),
        "{text}"
    );
    assert_eq!(command, format!("hcpx {words}"));
    let doc = doc.replace(&tui.dir.path().display().to_string(), &folder);
    let doc: Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(steady_doc(doc), cli_doc, "U and hcpx --json {words}");
    assert_eq!(cli_doc["results"][0]["applied"], true, "{cli_doc}");
}
