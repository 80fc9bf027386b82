//! Every pane and overlay of the TUI drawn on ratatui's `TestBackend` at a
//! fixed size and compared with `insta` snapshots (`tests/it/snapshots/`).
//! Stores live in temp folders, but no path, timing or duration reaches a
//! snapshot: catalogs are shown as `./catalog` and timings are off.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::KeyCode;
use hcpx::tui::dialog::Dialog;
use hcpx::tui::theme::Theme;
use ratatui::style::{Color, Modifier};

#[tokio::test]
async fn empty_store_shows_only_the_bootstrap_pack() {
    let tui = Tui::start(sandbox(), 100, 30).await;
    insta::assert_snapshot!("empty_store", tui.screen());
}

#[tokio::test]
async fn first_frame_says_loading_before_the_snapshot_arrives() {
    let dir = sandbox();
    many_packs(&catalog(&dir), 3);
    let terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 20)).unwrap();
    let mut runner = hcpx::tui::Runner::new(engine(&dir), hcpx::tui::App::new(config()), terminal);
    runner.start();
    runner.draw().unwrap();
    let first = screen(runner.terminal.backend());
    assert!(first.contains("loading…"), "{first}");
    runner.settle().await.unwrap();
    assert!(!screen(runner.terminal.backend()).contains("loading…"));
}

#[tokio::test]
async fn long_list_scrolls_to_keep_the_selection_visible() {
    let dir = sandbox();
    many_packs(&catalog(&dir), 60);
    let mut tui = Tui::start(dir, 100, 24).await;
    tui.keys("jjjjjjjjjjjjjjjjjjjjjjjjj").await;
    insta::assert_snapshot!("long_list_scrolled", tui.screen());
    tui.keys("G").await;
    let bottom = tui.screen();
    assert!(bottom.contains("▶ hcp-cli"), "{bottom}");
    assert!(!bottom.contains("bulk.pack-000"), "{bottom}");
    tui.keys("g").await;
    assert!(tui.screen().contains("▶ bulk.pack-000"));
}

#[tokio::test]
async fn lint_pane_lists_every_finding_of_a_broken_pack() {
    let dir = sandbox_with(broken_pack);
    let mut tui = Tui::start_at(dir, "acme.broken", 110, 34).await;
    // Tab to the lint pane: Browser → Availability → Details → Lint.
    tui.send(vec![
        key(KeyCode::Tab),
        key(KeyCode::Tab),
        key(KeyCode::Tab),
    ])
    .await;
    insta::assert_snapshot!("lint_errors", tui.screen());
}

#[tokio::test]
async fn lint_pane_says_a_clean_pack_is_clean() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    tui.keys("l").await;
    let screen = tui.screen();
    assert!(
        screen.contains("✓ acme.notes is clean: no errors, no warnings"),
        "{screen}"
    );
}

#[tokio::test]
async fn matrix_shows_each_unmet_condition_with_its_reason_in_words() {
    let dir = sandbox_with(mixed_pack);
    let engine = engine(&dir);
    engine.install("acme.mixed", false).unwrap();
    let (_, err) = engine.activate(&[pack("acme.mixed")]);
    assert!(err.is_none());
    // `user` may read but not write. Once grants exist only a holder of `*`
    // may change them (HCP.md §9.4): `ops` gets `*` and narrows `user`.
    grant(&engine, "ops", "*").unwrap();
    let ops = hcpx::engine::Engine::open(&home(&dir), &[], "ops").unwrap();
    grant(&ops, "user", "verb.exec.read").unwrap();
    grant(&ops, "user", "pack.install").unwrap();
    revoke(&ops, "user", "*").unwrap();
    let mut tui = Tui::start_at(dir, "acme.mixed", 110, 34).await;
    tui.press(KeyCode::Tab).await;
    insta::assert_snapshot!("matrix_ok_row", tui.screen());
    tui.keys("j").await;
    insta::assert_snapshot!("matrix_program_not_found", tui.screen());
    tui.keys("jj").await;
    insta::assert_snapshot!("matrix_grant_missing", tui.screen());
}

#[tokio::test]
async fn matrix_of_a_catalog_pack_says_to_install_it() {
    let dir = sandbox_with(notes_pack);
    let tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    insta::assert_snapshot!("matrix_not_installed", tui.screen());
}

#[tokio::test]
async fn details_pane_renders_the_skill_and_the_last_command() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    tui.keys("i").await;
    // Install shows the lint results of the installed copy; Details is
    // two panes further. The status line says `hcpx install`'s words,
    // which name the catalog's folder: it lets go of them before the
    // snapshot.
    let screen = tui.screen();
    assert!(
        screen.contains(" installed acme.notes 1.2.0 from "),
        "{screen}"
    );
    assert!(screen.contains("acme.notes is clean"), "{screen}");
    let last = tui.runner.app.log().entries.last().unwrap();
    assert_eq!(
        last.command.as_deref(),
        Some("hcpx install acme.notes --catalog ./catalog")
    );
    tui.clear_status().await;
    tui.send(vec![key(KeyCode::Tab), key(KeyCode::Tab)]).await;
    insta::assert_snapshot!("details_after_install", tui.screen());
}

#[tokio::test]
async fn exec_form_then_output_pane() {
    let dir = sandbox_with(notes_pack);
    install_connected(&dir, "acme.notes");
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    tui.keys("x").await;
    insta::assert_snapshot!("exec_form", tui.screen());
    tui.keys("tests").await;
    tui.press(KeyCode::Enter).await;
    insta::assert_snapshot!("exec_output", tui.screen());
}

#[tokio::test]
async fn x_on_a_command_that_cannot_run_says_why_at_once() {
    let dir = sandbox_with(notes_pack);
    engine(&dir).install("acme.notes", false).unwrap();
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    tui.keys("x").await;
    // No form: availability already knows it cannot run.
    assert!(tui.runner.app.dialog().is_none());
    insta::assert_snapshot!("exec_refused", tui.screen());
}

#[tokio::test]
async fn masked_secret_input_shows_bullets_only() {
    let dir = sandbox_with(vault_pack);
    install_active(&dir, "acme.vault");
    let mut tui = Tui::start_at(dir, "acme.vault", 100, 30).await;
    tui.keys("c").await;
    tui.keys("hunter2").await;
    let screen = tui.screen();
    assert!(!screen.contains("hunter2"), "{screen}");
    insta::assert_snapshot!("secret_input", screen);
    tui.press(KeyCode::Esc).await;
}

#[tokio::test]
async fn uninstall_asks_for_confirmation() {
    let dir = sandbox_with(notes_pack);
    engine(&dir).install("acme.notes", false).unwrap();
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    tui.keys("u").await;
    insta::assert_snapshot!("uninstall_confirm", tui.screen());
}

#[tokio::test]
async fn help_overlay_lists_the_keys() {
    let mut tui = Tui::start(sandbox(), 100, 34).await;
    tui.keys("?").await;
    insta::assert_snapshot!("help", tui.screen());
    tui.keys("x").await;
    assert!(!tui.screen().contains("any key closes"));
}

#[tokio::test]
async fn error_dialog_shows_code_message_and_hint() {
    let dir = sandbox();
    failing_probe_pack(&catalog(&dir));
    install_active(&dir, "acme.probe");
    let mut tui = Tui::start_at(dir, "acme.probe", 100, 30).await;
    // The engine's refusal: the probe fails (§8.5 step 5).
    tui.keys("c").await;
    assert!(matches!(tui.runner.app.dialog(), Some(Dialog::Error(_))));
    insta::assert_snapshot!("error_dialog", tui.screen());
}

#[tokio::test]
async fn narrow_terminal_shows_a_clear_message() {
    let mut tui = Tui::start(sandbox(), 50, 12).await;
    insta::assert_snapshot!("too_small", tui.screen());
    tui.resize(100, 30).await;
    assert!(tui.screen().contains("hcp-cli"));
    tui.resize(59, 30).await;
    assert!(tui.screen().contains("Terminal too small: 59×30"));
}

#[tokio::test]
async fn every_size_from_tiny_to_large_draws_without_panicking() {
    let dir = sandbox();
    many_packs(&catalog(&dir), 5);
    mixed_pack(&catalog(&dir));
    let mut tui = Tui::start(dir, 80, 24).await;
    for (w, h) in [
        (1, 1),
        (10, 3),
        (59, 14),
        (60, 15),
        (61, 16),
        (200, 60),
        (60, 50),
    ] {
        tui.resize(w, h).await;
        tui.keys("jG").await;
    }
    assert!(tui.screen().contains("Packs"));
}

#[tokio::test]
async fn filter_ranks_fuzzy_matches_and_highlights_the_matched_characters() {
    let dir = sandbox_with(notes_pack);
    vault_pack(&catalog(&dir));
    mixed_pack(&catalog(&dir));
    let mut tui = Tui::start(dir, 100, 24).await;
    tui.keys("/vlt").await;
    insta::assert_snapshot!("filter_typing", tui.screen());
    // The matched characters of `acme.vault` are highlighted.
    let screen = tui.screen();
    let row = screen
        .lines()
        .position(|l| l.contains("▶ acme.vault"))
        .unwrap() as u16;
    let col = screen
        .lines()
        .nth(row as usize)
        .unwrap()
        .find("▶ acme.vault")
        .unwrap()
        + "▶ ".len();
    let col = screen.lines().nth(row as usize).unwrap()[..col]
        .chars()
        .count() as u16;
    let buffer = tui.runner.terminal.backend().buffer();
    let styled: String = (0..10)
        .filter(|i| {
            buffer[(col + i, row)]
                .modifier
                .contains(Modifier::UNDERLINED)
        })
        .map(|i| buffer[(col + i, row)].symbol().to_string())
        .collect();
    assert_eq!(
        styled,
        "vlt",
        "row {row} col {col}: {:?}",
        (0..12)
            .map(|i| (
                buffer[(col + i, row)].symbol().to_string(),
                buffer[(col + i, row)].modifier
            ))
            .collect::<Vec<_>>()
    );
    tui.press(KeyCode::Enter).await;
    assert!(tui.screen().contains("acme.vault"));
    assert!(!tui.screen().contains("acme.notes"));
    tui.keys("/").await;
    tui.press(KeyCode::Esc).await;
    assert!(tui.screen().contains("acme.notes"));
}

#[tokio::test]
async fn no_color_draws_no_colour_at_all() {
    let dir = sandbox_with(mixed_pack);
    broken_pack(&catalog(&dir));
    let mut config = config();
    config.theme = Theme::NO_COLOR;
    let mut tui = Tui::start_with(dir, 100, 30, config).await;
    tui.keys("/mixed").await;
    tui.keys("?").await;
    let buffer = tui.runner.terminal.backend().buffer();
    for cell in buffer.content() {
        assert_eq!(cell.fg, Color::Reset, "{:?}", cell);
        assert_eq!(cell.bg, Color::Reset, "{:?}", cell);
    }
    // Selection still shows, as reversed text.
    assert!(
        buffer
            .content()
            .iter()
            .any(|c| c.modifier.contains(Modifier::REVERSED))
    );
}

#[tokio::test]
async fn with_colour_statuses_are_coloured() {
    let mut tui = Tui::start(sandbox(), 100, 30).await;
    tui.keys("j").await;
    let buffer = tui.runner.terminal.backend().buffer();
    assert!(buffer.content().iter().any(|c| c.fg != Color::Reset));
}

#[tokio::test]
async fn run_form_says_what_is_wrong_next_to_the_field() {
    let dir = sandbox_with(notes_pack);
    install_connected(&dir, "acme.notes");
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    // `add` takes a required `text`.
    tui.press(KeyCode::Enter).await;
    tui.keys("jx").await;
    tui.press(KeyCode::Enter).await;
    insta::assert_snapshot!("exec_form_error", tui.screen());
}

#[tokio::test]
async fn run_form_scrolls_to_the_focused_field_in_a_small_window() {
    let dir = sandbox();
    let args: String = (0..9)
        .map(|i| {
            format!("      - {{name: field{i}, type: string, description: Field number {i}}}\n")
        })
        .collect();
    write_pack(
        &catalog(&dir),
        "acme.many",
        &format!(
            "hcp: \"1\"\nid: acme.many\nname: Many\nversion: 1.0.0\ndescription: Many args.\ncommands:\n  - key: go\n    summary: Go\n    effect: read\n    args:\n{args}    adapter: {{kind: process, program: \"true\"}}\n"
        ),
        "---\nname: acme-many\ndescription: Many.\n---\nRun `go`.\n",
    );
    install_active(&dir, "acme.many");
    let mut tui = Tui::start_at(dir, "acme.many", 70, 16).await;
    tui.keys("x").await;
    for _ in 0..8 {
        tui.press(KeyCode::Tab).await;
    }
    tui.keys("last").await;
    let screen = tui.screen();
    assert!(screen.contains("field8 last"), "{screen}");
    insta::assert_snapshot!("exec_form_scrolled", screen);
}

#[tokio::test]
async fn log_pane_lists_each_action_with_its_command() {
    let dir = sandbox_with(notes_pack);
    // Installed beforehand: `hcpx install`'s words name the catalog's
    // folder, a temp path (`details_pane_renders_the_skill_and_the_last_command`
    // has the install's line).
    engine(&dir).install("acme.notes", false).unwrap();
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    tui.keys("x").await; // refused: not activated
    tui.keys("aa").await; // activated, then deactivated
    tui.keys("un").await;
    tui.keys("@").await;
    insta::assert_snapshot!("log_pane", tui.screen());
}

/// The Availability pane marks `✓ mcp` on exactly the commands `hcpx mcp`
/// lists as tools for the current principal (HCP.md §16.2): the executable
/// one, not those refused (adapter, grant).
#[tokio::test]
async fn matrix_marks_the_commands_an_mcp_client_sees() {
    let dir = sandbox_with(mixed_pack);
    let engine = engine(&dir);
    engine.install("acme.mixed", false).unwrap();
    let (_, err) = engine.activate(&[pack("acme.mixed")]);
    assert!(err.is_none());
    grant(&engine, "ops", "*").unwrap();
    let ops = hcpx::engine::Engine::open(&home(&dir), &[], "ops").unwrap();
    grant(&ops, "user", "verb.exec.read").unwrap();
    revoke(&ops, "user", "*").unwrap();
    let mut tui = Tui::start_at(dir, "acme.mixed", 110, 34).await;
    tui.press(KeyCode::Tab).await;
    let screen = tui.screen();
    // A row of the Availability pane: `▶`/` `, the command, its effect.
    let row = |verb: &str| {
        screen
            .lines()
            .filter_map(|l| l.split("││").nth(1))
            .find(|pane| {
                let rest: String = pane.chars().skip(2).collect();
                rest.starts_with(&format!("{verb} "))
            })
            .unwrap_or_else(|| panic!("no row {verb}:\n{screen}"))
            .to_string()
    };
    assert!(row("ok").contains("✓ mcp"), "{screen}");
    for refused in ["missing", "remote", "write"] {
        assert!(!row(refused).contains("mcp"), "{refused}:\n{screen}");
    }
    assert!(
        screen.contains("mcp --principal user` lists it as a tool"),
        "{screen}"
    );
    tui.keys("jjj").await;
    assert!(
        !tui.screen().contains("lists it as a tool"),
        "{}",
        tui.screen()
    );
}
