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

const TOKEN: &str = "s3cret-Token42";

/// `acme.slow`: a `secret` Binding; `wait` prints a line, then the first
/// half of the secret, waits for the file `gate` names, then prints the
/// rest of the secret and `done`.
fn slow_pack(catalog: &std::path::Path) {
    write_pack(
        catalog,
        "acme.slow",
        r#"hcp: "1"
id: acme.slow
name: Acme slow
version: 1.0.0
description: Prints, waits for a file, prints again.
binding:
  kind: secret
  secret: {name: SLOW_TOKEN, prompt: Slow token}
commands:
  - key: wait
    summary: Print and wait
    effect: read
    args:
      - {name: gate, type: string, required: true}
    adapter:
      kind: process
      program: sh
      argv: ["wait.sh"]
"#,
        "---\nname: acme-slow\ndescription: Slow.\n---\nRun `wait`.\n",
    );
    let script = "echo started\n\
        printf 'half=%s' \"$(printf %s \"$SLOW_TOKEN\" | cut -d- -f1)\"\n\
        while [ ! -e \"$HCP_ARG_GATE\" ]; do sleep 0.02; done\n\
        printf -- '-%s\\n' \"$(printf %s \"$SLOW_TOKEN\" | cut -d- -f2-)\"\n\
        echo done\n";
    std::fs::write(catalog.join("acme.slow/wait.sh"), script).unwrap();
}

/// Starts `acme.slow wait` with `gate` from the run form, in one burst.
fn run_wait(gate: &std::path::Path) -> Vec<Event> {
    // The form opens with what was typed last: Ctrl-U clears it.
    let mut keys = chars("x");
    keys.push(ctrl('u'));
    keys.extend(chars(gate.to_str().unwrap()));
    keys.push(key(KeyCode::Enter));
    keys
}

/// Handles worker reports until `ok` holds for the screen (bounded); every
/// frame on the way is checked never to show the token.
async fn pump_until(tui: &mut Tui, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let screen = tui.screen();
        assert!(
            !screen.contains("s3cret"),
            "a frame shows the token:\n{screen}"
        );
        if ok(&screen) {
            return screen;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: last seen\n{screen}"
        );
        let bound = std::time::Duration::from_millis(200);
        tui.runner.pump(bound).await.unwrap();
    }
}

#[tokio::test]
async fn a_running_command_streams_its_output_live_and_redacted() {
    if !crate::common::require_tool("sh") {
        return;
    }
    let dir = sandbox_with(slow_pack);
    let gates = tempfile::tempdir().unwrap();
    let engine = install_active(&dir, "acme.slow");
    engine
        .connect(&pack("acme.slow"), &mut |_| Ok(TOKEN.to_string()))
        .unwrap();
    let mut tui = Tui::start_with(dir, 120, 40, config()).await;
    tui.select("acme.slow").await;
    tui.press(KeyCode::Tab).await;

    // A first run, to the end.
    let first = gates.path().join("first");
    std::fs::write(&first, "").unwrap();
    burst(&mut tui, run_wait(&first)).await;
    let screen = tui.screen();
    assert!(screen.contains("│half=******** "), "{screen}");
    assert!(!screen.contains("Token42"), "{screen}");
    assert!(screen.contains("done"), "{screen}");

    // A second run: its output shows while it waits for the gate.
    let gate = gates.path().join("second");
    for event in run_wait(&gate) {
        tui.runner.handle_event(&event);
    }
    let screen = pump_until(&mut tui, "the live output", |s| {
        s.contains("running acme.slow wait") && s.contains("started") && s.contains("half=")
    })
    .await;
    assert!(tui.runner.in_flight() > 0, "it still runs:\n{screen}");
    assert!(
        !screen.contains("│done "),
        "the first run's output:\n{screen}"
    );
    assert!(
        !screen.contains("│exit 0"),
        "the first run's output:\n{screen}"
    );
    // The half of the token it printed is held back, never shown.
    assert!(!screen.contains("s3cret"), "{screen}");

    std::fs::write(&gate, "").unwrap();
    let screen = pump_until(&mut tui, "the end of the run", |s| s.contains("│exit 0")).await;
    assert!(screen.contains("│half=******** "), "{screen}");
    assert!(screen.contains("│done "), "{screen}");
    assert!(!screen.contains("running acme.slow"), "{screen}");
}

#[tokio::test]
async fn two_running_commands_are_listed_and_x_cancels_the_one_shown() {
    if !crate::common::require_tool("sh") {
        return;
    }
    let dir = sandbox_with(slow_pack);
    let gates = tempfile::tempdir().unwrap();
    let engine = install_active(&dir, "acme.slow");
    engine
        .connect(&pack("acme.slow"), &mut |_| Ok(TOKEN.to_string()))
        .unwrap();
    let mut tui = Tui::start_with(dir, 120, 40, config()).await;
    tui.select("acme.slow").await;
    tui.press(KeyCode::Tab).await;
    let (one, two) = (gates.path().join("one"), gates.path().join("two"));
    for event in run_wait(&one) {
        tui.runner.handle_event(&event);
    }
    pump_until(&mut tui, "the first run", |s| s.contains("started")).await;
    // A second run while the first waits: not refused as busy.
    for event in run_wait(&two) {
        tui.runner.handle_event(&event);
    }
    let screen = pump_until(&mut tui, "two runs listed", |s| {
        s.contains("2 commands running")
    })
    .await;
    assert!(
        screen.matches("acme.slow wait").count() >= 3,
        "a line per run and the one shown:\n{screen}"
    );
    assert!(screen.contains("▶ acme.slow wait"), "{screen}");
    // ] shows the first; X cancels it, and the second goes on.
    tui.runner.handle_event(&key(KeyCode::Char(']')));
    tui.runner.handle_event(&key(KeyCode::Char('X')));
    let screen = pump_until(&mut tui, "the first cancelled", |s| s.contains("cancelled")).await;
    assert!(
        screen.contains("running acme.slow wait"),
        "the second runs:\n{screen}"
    );
    assert!(!screen.contains("2 commands running"), "{screen}");
    let log = tui.runner.app.log().entries.last().unwrap().clone();
    assert!(log.command.unwrap().contains("gate="), "its own command");
    std::fs::write(&two, "").unwrap();
    let screen = pump_until(&mut tui, "the second to end", |s| s.contains("│exit 0")).await;
    assert!(screen.contains("│done "), "{screen}");
    let _ = one;
}
