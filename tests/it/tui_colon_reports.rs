//! The `:` line's report subcommands (GitHub-style issue 11, item 4; issue
//! 18): `doctor`, `why`, `show`, `verify`, `catalog list`, `harness list`
//! run through the command layer, their words (the CLI's) in the Output
//! pane, `J` or `--json` their document, and the equivalent line in the
//! command log; `doctor --fix` and `sync` ask first; `upgrade ID` goes
//! through the `U` diff.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crate::tuikit::{colon as run, last_entry as last, shown_report as report};
use crossterm::event::KeyCode;
use hcpx::tui::dialog::Dialog;
use hcpx::tui::log::Outcome;

async fn notes_installed() -> Tui {
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    engine(&dir).install("acme.notes", false).unwrap();
    Tui::start(dir, 110, 40).await
}

#[tokio::test]
async fn doctor_show_why_verify_and_catalog_list_answer_in_the_output_pane() {
    let mut tui = notes_installed().await;
    run(&mut tui, "doctor").await;
    let entry = last(&tui);
    assert_eq!(entry.command.as_deref(), Some("hcpx doctor"), "{entry:?}");
    assert!(tui.screen().contains("$ hcpx doctor"), "{}", tui.screen());
    // The CLI's words; `J` the document, and back.
    assert!(report(&tui).contains("is writable"), "{}", report(&tui));
    tui.keys("J").await;
    assert!(report(&tui).contains("\"checks\""), "{}", report(&tui));
    tui.keys("J").await;
    assert!(!report(&tui).contains("\"checks\""), "{}", report(&tui));

    run(&mut tui, "show acme.notes").await;
    assert_eq!(last(&tui).command.as_deref(), Some("hcpx show acme.notes"));
    assert_eq!(last(&tui).outcome, Outcome::Done);
    let screen = tui.screen();
    assert!(screen.contains("$ hcpx show acme.notes"), "{screen}");
    assert!(screen.contains("installed at:"), "{screen}");

    run(&mut tui, "why acme.notes hello").await;
    assert_eq!(
        last(&tui).command.as_deref(),
        Some("hcpx why acme.notes hello")
    );
    let screen = tui.screen();
    assert!(screen.contains("$ hcpx why acme.notes hello"), "{screen}");
    assert!(screen.contains("fix: hcpx activate acme.notes"), "{screen}");

    run(&mut tui, "verify acme.notes").await;
    assert_eq!(
        last(&tui).command.as_deref(),
        Some("hcpx verify acme.notes")
    );
    assert_eq!(last(&tui).outcome, Outcome::Done, "{:?}", last(&tui));
    assert!(report(&tui).contains("acme.notes"), "{}", report(&tui));

    run(&mut tui, "catalog list --json").await;
    assert_eq!(last(&tui).command.as_deref(), Some("hcpx catalog list"));
    let screen = tui.screen();
    assert!(screen.contains("\"catalogs\""), "{screen}");

    run(&mut tui, "harness list").await;
    assert_eq!(last(&tui).command.as_deref(), Some("hcpx harness list"));
    tui.keys("J").await;
    assert!(report(&tui).contains("\"targets\""), "{}", report(&tui));

    // An engine error is said, with the line, and shown.
    run(&mut tui, "show acme.nope").await;
    assert_eq!(last(&tui).outcome, Outcome::Failed, "{:?}", last(&tui));
    assert_eq!(last(&tui).command.as_deref(), Some("hcpx show acme.nope"));
    assert!(tui.screen().contains("failed"), "{}", tui.screen());
}

#[tokio::test]
async fn doctor_fix_and_sync_ask_first() {
    let mut tui = notes_installed().await;
    run(&mut tui, "doctor --fix").await;
    assert!(
        matches!(tui.runner.app.dialog(), Some(Dialog::ConfirmQuery { .. })),
        "{}",
        tui.screen()
    );
    assert!(
        tui.screen().contains("hcpx doctor --fix"),
        "{}",
        tui.screen()
    );
    tui.keys("n").await;
    assert_eq!(last(&tui).outcome, Outcome::Cancelled);
    assert_eq!(last(&tui).command.as_deref(), Some("hcpx doctor --fix"));
    run(&mut tui, "doctor --fix").await;
    tui.keys("y").await;
    assert!(tui.runner.app.dialog().is_none());
    assert_eq!(last(&tui).command.as_deref(), Some("hcpx doctor --fix"));
    tui.keys("J").await;
    assert!(report(&tui).contains("\"fixed\""), "{}", report(&tui));

    run(&mut tui, "sync /nonexistent/hcp.lock --prune").await;
    assert!(matches!(
        tui.runner.app.dialog(),
        Some(Dialog::ConfirmQuery { .. })
    ));
    tui.keys("n").await;
    assert_eq!(last(&tui).outcome, Outcome::Cancelled);
    assert!(tui.installed("acme.notes"));
}

#[tokio::test]
async fn upgrade_from_the_line_shows_the_diff_and_y_upgrades() {
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    notes_with_a_newer_version(&dir);
    let mut tui = Tui::start(dir, 110, 32).await;
    tui.keys(":upg").await;
    tui.press(KeyCode::Tab).await;
    tui.keys("acme.n").await;
    tui.press(KeyCode::Tab).await;
    assert_eq!(tui.runner.app.cmdline().input, "upgrade acme.notes ");
    tui.press(KeyCode::Enter).await;
    assert!(
        matches!(tui.runner.app.dialog(), Some(Dialog::ConfirmUpgrade { .. })),
        "{}",
        tui.screen()
    );
    assert!(
        tui.screen().contains("acme.notes 1.2.0 → 1.3.0"),
        "{}",
        tui.screen()
    );
    tui.keys("y").await;
    let entry = last(&tui);
    assert_eq!(entry.outcome, Outcome::Done, "{entry:?}");
    assert_eq!(
        entry.command.as_deref(),
        Some("hcpx upgrade acme.notes --yes")
    );
}

#[tokio::test]
async fn completion_offers_the_new_subcommands_and_their_words() {
    let mut tui = notes_installed().await;
    tui.keys(":cat").await;
    tui.press(KeyCode::Tab).await;
    tui.keys("l").await;
    tui.press(KeyCode::Tab).await;
    assert_eq!(tui.runner.app.cmdline().input, "catalog list ");
    tui.press(KeyCode::Esc).await;
    tui.keys(":harness st").await;
    tui.press(KeyCode::Tab).await;
    assert_eq!(tui.runner.app.cmdline().input, "harness status ");
    tui.press(KeyCode::Esc).await;
    tui.keys(":why acme.notes he").await;
    tui.press(KeyCode::Tab).await;
    assert_eq!(tui.runner.app.cmdline().input, "why acme.notes hello ");
    tui.press(KeyCode::Esc).await;
    run(&mut tui, "frob").await;
    let entry = last(&tui);
    assert_eq!(entry.outcome, Outcome::Refused);
    assert!(
        entry.text.contains("doctor") && entry.text.contains("catalog"),
        "{entry:?}"
    );
}

#[tokio::test]
async fn hostile_words_reach_the_engine_and_no_control_character_the_screen() {
    let mut tui = notes_installed().await;
    run(&mut tui, "show ../../etc\u{1b}[2J").await;
    assert_eq!(last(&tui).outcome, Outcome::Failed, "{:?}", last(&tui));
    assert!(!tui.screen().contains('\u{1b}'));
    run(&mut tui, "why 'acme.notes' \u{9b}31m").await;
    assert!(!tui.screen().contains('\u{9b}'));
    assert!(!tui.screen().contains('\u{1b}'));
    run(&mut tui, "catalog remove /not/ours\u{1b}]0;x\u{7}").await;
    assert_eq!(last(&tui).outcome, Outcome::Failed, "{:?}", last(&tui));
    assert!(!tui.screen().contains('\u{1b}'));
    assert!(tui.installed("acme.notes"));
}
