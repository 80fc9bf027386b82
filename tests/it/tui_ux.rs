//! A newcomer's walk through the TUI (HCP.md §11, §10.1 hints): what the
//! screen offers must do what it says, for the pack it names.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::KeyCode;

#[tokio::test]
async fn a_fix_names_a_key_only_when_the_key_acts_on_that_pack() {
    let dir = sandbox_with(notes_pack);
    vault_pack(&catalog(&dir));
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 40).await;

    // `i` would install the selected acme.notes, not acme.vault: the
    // hint gives only the command line.
    colon(&mut tui, "exec acme.vault whoami").await;
    let screen = tui.screen();
    assert!(
        screen.contains("hint: run hcpx install acme.vault"),
        "{screen}"
    );
    assert!(!screen.contains("press i, or run hcpx install acme.vault"));
    tui.keys("i").await;
    assert!(tui.installed("acme.notes"));
    assert!(!tui.installed("acme.vault"));

    // With acme.vault selected, `i` is the fix, and says so.
    tui.select("acme.vault").await;
    colon(&mut tui, "exec acme.vault whoami").await;
    let screen = tui.screen();
    assert!(
        screen.contains("press i, or run hcpx install acme.vault"),
        "{screen}"
    );
}

/// The key bar: the screen's last line.
fn key_bar(tui: &Tui) -> String {
    tui.screen().lines().last().unwrap_or_default().to_string()
}

#[tokio::test]
async fn the_key_bar_shows_the_keys_of_the_open_dialog() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 40).await;
    assert!(key_bar(&tui).contains("i install"), "{}", tui.screen());
    tui.keys("iac").await;

    // The run form takes letters as text: the bar offers its own keys.
    tui.press(KeyCode::Enter).await;
    tui.keys("x").await;
    let bar = key_bar(&tui);
    assert!(bar.contains("Enter run"), "{}", tui.screen());
    assert!(bar.contains("Esc cancel"), "{bar}");
    assert!(!bar.contains("install"), "{bar}");
    // A string field: nothing to choose from, so no `← → ␣ choose`.
    assert!(!tui.screen().contains("choose"), "{}", tui.screen());
    tui.press(KeyCode::Esc).await;
    assert!(key_bar(&tui).contains("x exec"), "{}", tui.screen());

    // A question: y or n.
    tui.press(KeyCode::Left).await;
    tui.keys("u").await;
    let bar = key_bar(&tui);
    assert!(bar.contains("y yes") && bar.contains("n Esc no"), "{bar}");
    tui.keys("n").await;
    assert!(tui.installed("acme.notes"));

    // The harness targets.
    tui.keys("H").await;
    assert!(key_bar(&tui).contains("enable/disable"), "{}", tui.screen());
    tui.keys("H").await;
    assert!(key_bar(&tui).contains("? help"), "{}", tui.screen());
}

#[tokio::test]
async fn at_80_columns_ids_are_whole_and_the_status_keeps_its_symbol() {
    let dir = sandbox_with(notes_pack);
    one_command_pack(
        &catalog(&dir),
        "acme.weather-api",
        ("Weather", "Forecasts."),
        "{kind: public}",
        "forecast",
        "true",
    );
    one_command_pack(
        &catalog(&dir),
        "acme.weather-app",
        ("Weather app", "The app."),
        "{kind: public}",
        "open",
        "true",
    );
    let mut tui = Tui::start_at(dir, "acme.weather-api", 80, 24).await;
    tui.keys("i").await;
    tui.press(KeyCode::Esc).await;
    let screen = tui.screen();
    // Two ids that differ in their last letter stay apart.
    assert!(screen.contains("acme.weather-api ◌"), "{screen}");
    assert!(screen.contains("acme.weather-app ○"), "{screen}");
    // Wide enough, the status has its word again.
    tui.resize(120, 40).await;
    assert!(tui.screen().contains("◌ installed"), "{}", tui.screen());
}

#[tokio::test]
async fn colon_install_of_another_pack_shows_that_packs_lint() {
    let dir = sandbox_with(notes_pack);
    vault_pack(&catalog(&dir));
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 40).await;
    tui.press(KeyCode::Esc).await;
    colon(&mut tui, "install acme.vault").await;
    assert!(tui.installed("acme.vault"));
    assert!(!tui.installed("acme.notes"));
    let screen = tui.screen();
    assert!(screen.contains("acme.vault is clean"), "{screen}");
    assert!(!screen.contains("acme.notes is clean"), "{screen}");
    assert!(screen.contains("Availability acme.vault"), "{screen}");
}

#[tokio::test]
async fn outcomes_read_as_sentences() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 40).await;
    tui.keys("iac").await;
    // `hcpx connect`'s words, its lines joined: the probe, then the
    // binding in one pair of brackets.
    let screen = tui.screen();
    assert!(screen.contains(" probe hello passed ("), "{screen}");
    assert!(
        screen.contains(" ms); connected acme.notes (local binding)"),
        "{screen}"
    );
    // The selected target marked as in the other lists.
    tui.keys("H").await;
    assert!(tui.screen().contains("│ ▶ agents"), "{}", tui.screen());
    // Its header in capitals, as the Packs and Availability headers.
    assert!(
        tui.screen().contains("TARGET       DETECTED  ENABLED"),
        "{}",
        tui.screen()
    );
    tui.keys(" ").await;
    let log = format!("{:?}", tui.runner.app.log().entries);
    // `hcpx harness enable agents`'s words, their lines joined.
    assert!(log.contains("enabled agents; agents "), "{log}");
    assert!(
        log.contains(" (2 of 2 placed); placed hcp-cli (hcp-cli)"),
        "{log}"
    );
}

#[tokio::test]
async fn c_on_an_env_pack_says_the_whole_fix_in_the_status_line() {
    let dir = sandbox();
    one_command_pack(
        &catalog(&dir),
        "acme.weather-api",
        ("Weather", "Forecasts."),
        "{kind: env, env: [ACME_UX_UNSET_TOKEN]}",
        "forecast",
        "true",
    );
    let mut tui = Tui::start_at(dir, "acme.weather-api", 120, 40).await;
    tui.keys("iac").await;
    let status = tui.screen().lines().rev().nth(1).unwrap().to_string();
    assert!(
        status.contains(
            "acme.weather-api needs ACME_UX_UNSET_TOKEN set: press e to set it for this \
             session, or export it before hcpx tui"
        ),
        "{status}"
    );
}

#[tokio::test]
async fn the_key_bar_calls_slash_search_in_a_text_pane() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 40).await;
    tui.press(KeyCode::Esc).await;
    assert!(key_bar(&tui).contains("/ filter"), "{}", tui.screen());
    // Packs → Availability → Details: `/` searches the pane's text.
    tui.press(KeyCode::Tab).await;
    tui.press(KeyCode::Tab).await;
    let bar = key_bar(&tui);
    assert!(bar.contains("/ search") && !bar.contains("filter"), "{bar}");
    tui.keys("/hello").await;
    tui.press(KeyCode::Enter).await;
    assert!(
        tui.screen().contains("`hello`: match 1 of"),
        "{}",
        tui.screen()
    );
}

#[tokio::test]
async fn a_long_log_line_goes_on_under_its_text() {
    let dir = sandbox_with(notes_pack);
    vault_pack(&catalog(&dir));
    let mut tui = Tui::start(dir, 100, 30).await;
    // Mark both packs, install them: one long line and a long command.
    tui.keys("gk").await;
    tui.keys("  ").await;
    tui.keys("i@").await;
    let screen = tui.screen();
    let log: Vec<&str> = screen
        .lines()
        .filter_map(|l| l.rsplit("││").next())
        .filter(|l| !l.trim_matches(|c| c == ' ' || c == '│').is_empty())
        .collect();
    assert!(
        log.iter().any(|l| l.starts_with("  1 done installed")),
        "{screen}"
    );
    // The line after the head continues at the text, clear of `  1 done `;
    // the command's own continuation sits under `hcpx`.
    let head = log.iter().position(|l| l.starts_with("  1 done")).unwrap();
    let next = log[head + 1];
    assert!(
        next.starts_with("         ") && !next.starts_with("          "),
        "{screen}"
    );
    let command = log
        .iter()
        .position(|l| l.starts_with("    $ hcpx install"))
        .unwrap();
    assert!(log[command + 1].starts_with("      "), "{screen}");
    assert!(!log[command + 1].starts_with("       "), "{screen}");
}

#[tokio::test]
async fn at_60_columns_the_availability_pane_shows_whole_words() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 60, 15).await;
    tui.press(KeyCode::Esc).await;
    let screen = tui.screen();
    // Too narrow for a column per condition: the command and whether it
    // can run, not `COM EFF act co gra`; the reason below says which.
    assert!(screen.contains("COMMAND EFFECT executable"), "{screen}");
    assert!(screen.contains("hello   read   ✗"), "{screen}");
    assert!(screen.contains("not installed"), "{screen}");
    tui.resize(120, 40).await;
    assert!(
        tui.screen()
            .contains("activated connected grant adapter executable"),
        "{}",
        tui.screen()
    );
}

#[tokio::test]
async fn at_60_columns_every_lower_tab_shows_and_a_click_opens_it() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 60, 15).await;
    tui.keys("@").await;
    let screen = tui.screen();
    let tabs = screen
        .lines()
        .find(|l| l.contains("Details"))
        .unwrap()
        .to_string();
    assert!(tabs.contains("Log"), "{screen}");
    // A click on a tab's title opens that pane.
    let at = |word: &str| {
        let byte = tabs.find(word).unwrap();
        tabs[..byte].chars().count() as u16
    };
    let row = screen.lines().position(|l| l.contains("Details")).unwrap() as u16;
    tui.click(at("Lint"), row).await;
    assert_eq!(tui.runner.app.lower(), hcpx::tui::pane::Pane::Lint);
    tui.click(at("Log"), row).await;
    assert_eq!(tui.runner.app.lower(), hcpx::tui::pane::Pane::Log);
}

/// The status line: the screen's last line but one.
fn status_line(tui: &Tui) -> String {
    tui.screen()
        .lines()
        .rev()
        .nth(1)
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn a_greyed_key_says_its_fix_as_every_other_fix() {
    let dir = sandbox_with(notes_pack);
    vault_pack(&catalog(&dir));
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 40).await;
    tui.keys("a").await;
    assert!(
        status_line(&tui).contains(
            "acme.notes is not installed — fix: press i, or run hcpx install acme.notes --catalog ./catalog"
        ),
        "{}",
        tui.screen()
    );
    tui.keys("ic").await;
    assert!(
        status_line(&tui).contains(
            "acme.notes is not activated — fix: press a, or run hcpx activate acme.notes"
        ),
        "{}",
        tui.screen()
    );
    // Marked packs: the key, for all of them.
    tui.press(KeyCode::Esc).await;
    tui.keys("gk  ").await;
    tui.keys("c").await;
    assert!(
        status_line(&tui).contains("acme.notes, acme.vault are not activated — fix: press a"),
        "{}",
        tui.screen()
    );
}

#[tokio::test]
async fn a_boolean_field_takes_t_and_f_and_no_other_letter() {
    let dir = sandbox();
    write_pack(
        &catalog(&dir),
        "acme.flag",
        r#"hcp: "1"
id: acme.flag
name: Acme flag
version: 1.0.0
description: Echo a flag.
binding: {kind: public}
commands:
  - key: say
    summary: Say the flag
    effect: read
    args:
      - {name: loud, type: boolean, default: false, description: Shout}
    adapter: {kind: process, program: echo, argv: ["loud={loud}"]}
"#,
        "---\nname: acme-flag\ndescription: Flags.\n---\nRun `say`.\n",
    );
    let mut tui = Tui::start_at(dir, "acme.flag", 120, 40).await;
    tui.keys("ia").await;
    tui.press(KeyCode::Enter).await;
    // Typing the word out, with a slip at the end, is still a boolean.
    tui.keys("xtruex").await;
    assert!(tui.screen().contains("loud true▏"), "{}", tui.screen());
    assert!(key_bar(&tui).contains("← → ␣ choose"), "{}", tui.screen());
    tui.press(KeyCode::Enter).await;
    assert!(tui.screen().contains("loud=true"), "{}", tui.screen());
}

#[tokio::test]
async fn at_80x24_the_help_shows_every_key() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start(dir, 80, 24).await;
    tui.keys("?").await;
    let screen = tui.screen();
    for b in hcpx::tui::keys::KEYS {
        assert!(screen.contains(b.help), "{}: {screen}", b.help);
    }
    assert!(screen.contains("click; the wheel scrolls"), "{screen}");
    assert!(screen.contains("any key closes"), "{screen}");
    tui.keys("x").await;
    assert!(tui.runner.app.dialog().is_none());
}

#[tokio::test]
async fn dot_runs_again_what_the_colon_line_ran() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 40).await;
    tui.keys("iac").await;
    colon(&mut tui, "exec acme.notes hello -- who=colon").await;
    assert!(tui.screen().contains("hello colon"), "{}", tui.screen());
    assert!(key_bar(&tui).contains(". rerun"), "{}", tui.screen());
    tui.keys(".").await;
    let runs: Vec<_> = tui
        .runner
        .app
        .log()
        .entries
        .iter()
        .filter(|e| e.command.as_deref() == Some("hcpx exec acme.notes hello -- who=colon"))
        .collect();
    assert_eq!(runs.len(), 2, "{:?}", tui.runner.app.log().entries);
    assert!(
        !tui.screen().contains("nothing run yet"),
        "{}",
        tui.screen()
    );
}

#[tokio::test]
async fn at_60x15_the_help_says_keys_are_left_out_and_how_to_close_it() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start(dir, 60, 15).await;
    tui.keys("?").await;
    let screen = tui.screen();
    assert!(screen.contains("a larger window shows them"), "{screen}");
    assert!(screen.contains("any key closes"), "{screen}");
}
