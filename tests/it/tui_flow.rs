//! The TUI's flow under a fast typist and a running command: no key is
//! lost whatever the burst (each is applied, in order, to the state it was
//! typed for), the focus stays where the user put it, `Esc` in the masked
//! input cancels quietly, and a running command's output shows live,
//! redacted (HCP.md §6.7, §14.3, §14.6).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::{Event, KeyCode};
use hcpx::tui::action::Pane;

/// Hands `events` to the loop as one burst, with no worker result in
/// between (a typist faster than any read), then lets the work finish.
async fn burst(tui: &mut Tui, events: Vec<Event>) {
    for event in &events {
        tui.runner.handle_event(event);
    }
    tui.runner.settle().await.unwrap();
}

fn chars(keys: &str) -> Vec<Event> {
    keys.chars().map(|c| key(KeyCode::Char(c))).collect()
}

#[tokio::test]
async fn a_burst_right_after_the_selection_changes_loses_no_key() {
    let dir = sandbox_with(mixed_pack);
    notes_pack(&catalog(&dir));
    let mut tui = Tui::start_at(dir, "acme.mixed", 120, 40).await;
    tui.press(KeyCode::Esc).await;
    for round in 0..100 {
        // `j` selects acme.notes (its read is pending), Tab goes to its
        // commands, `j` moves to the second one.
        let mut keys = chars("j");
        keys.push(key(KeyCode::Tab));
        keys.extend(chars("j"));
        burst(&mut tui, keys).await;
        let app = &tui.runner.app;
        let at = app.selected_row().map(|r| r.id().to_string());
        assert_eq!(at.as_deref(), Some("acme.notes"), "round {round}");
        assert_eq!(app.focus(), Pane::Matrix, "round {round}");
        assert_eq!(app.matrix_row(), 1, "round {round}: the second j was lost");
        // Back to acme.mixed, in Packs, in one burst too.
        burst(
            &mut tui,
            vec![key(KeyCode::BackTab), key(KeyCode::Char('k'))],
        )
        .await;
        let at = tui.runner.app.selected_row().map(|r| r.id().to_string());
        assert_eq!(at.as_deref(), Some("acme.mixed"), "round {round}");
    }
}

#[tokio::test]
async fn esc_in_the_masked_input_cancels_quietly_and_the_next_key_works() {
    use hcpx::tui::log::Outcome;
    let dir = sandbox_with(vault_pack);
    notes_pack(&catalog(&dir));
    let mut tui = Tui::start(dir, 100, 30).await;
    // acme.notes, acme.vault, hcp-cli: `j` selects acme.vault.
    tui.keys("j").await;
    tui.keys("ia").await;
    tui.keys("c").await;
    assert!(
        matches!(
            tui.runner.app.dialog(),
            Some(hcpx::tui::app::Dialog::Secret(_))
        ),
        "{}",
        tui.screen()
    );
    tui.press(KeyCode::Esc).await;
    assert!(tui.runner.app.dialog().is_none(), "{}", tui.screen());
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Cancelled, "{last:?}");
    assert!(last.text.contains("cancelled"), "{last:?}");
    assert!(!tui.screen().contains("usage"), "{}", tui.screen());
    assert!(!tui.connected().contains(&"acme.vault".to_string()));
    // No modal eats the next key: `c` right after the Esc asks for the
    // secret again (not "busy"), and `k` typed with the Esc moves.
    tui.keys("c").await;
    assert!(
        matches!(
            tui.runner.app.dialog(),
            Some(hcpx::tui::app::Dialog::Secret(_))
        ),
        "{}",
        tui.screen()
    );
    burst(&mut tui, vec![key(KeyCode::Esc), key(KeyCode::Char('k'))]).await;
    assert!(tui.runner.app.dialog().is_none(), "{}", tui.screen());
    let at = tui.runner.app.selected_row().map(|r| r.id().to_string());
    assert_eq!(at.as_deref(), Some("acme.notes"), "{}", tui.screen());
}

#[tokio::test]
async fn after_an_exec_the_focus_stays_and_output_says_new_until_focused() {
    let dir = sandbox_with(notes_pack);
    install_connected(&dir, "acme.notes");
    let mut config = config();
    config.theme = hcpx::tui::theme::Theme::NO_COLOR;
    let mut tui = Tui::start_with(dir, 100, 30, config).await;
    tui.select("acme.notes").await;
    tui.press(KeyCode::Tab).await;
    // Without colour the focused pane's title is marked.
    let screen = tui.screen();
    assert!(screen.contains("▶ Availability acme.notes"), "{screen}");
    assert!(!screen.contains("▶ Packs"), "{screen}");
    tui.keys("x").await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert_eq!(tui.runner.app.focus(), Pane::Matrix, "{screen}");
    assert_eq!(tui.runner.app.lower(), Pane::Output, "{screen}");
    assert!(screen.contains("hello world"), "{screen}");
    assert!(screen.contains(" new output "), "{screen}");
    // `j` still moves in Availability, where the user was.
    tui.keys("j").await;
    assert_eq!(tui.runner.app.matrix_row(), 1);
    // Seen once Output has the keys.
    tui.press(KeyCode::Right).await;
    let screen = tui.screen();
    assert_eq!(tui.runner.app.focus(), Pane::Output, "{screen}");
    assert!(!screen.contains("new output"), "{screen}");
    assert!(screen.contains("▶Output"), "{screen}");
}
