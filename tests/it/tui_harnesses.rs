//! The Harnesses view (`H`, HCP.md §12.4–§12.8), driven headless: it lists
//! every target with its folder, detection, enabled flag and Skill counts;
//! `Space` enables a target (config.yaml, the Skill placed in the fake home
//! folder) and disables it again, each said as the `hcpx harness` command.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::KeyCode;
use hcpx::tui::dialog::Dialog;
use hcpx::tui::log::Outcome;

/// `acme.notes` installed and activated; `~/.claude` exists in the fake
/// home, so Claude Code is detected.
async fn notes_activated() -> Tui {
    let dir = sandbox_with(notes_pack);
    std::fs::create_dir_all(user_home(&dir).join(".claude")).unwrap();
    install_active(&dir, "acme.notes");
    Tui::start_at(dir, "acme.notes", 110, 30).await
}

/// Moves the view's selection to `target`.
async fn select_target(tui: &mut Tui, target: &str) {
    tui.keys("g").await;
    for _ in 0..16 {
        let at = tui
            .runner
            .app
            .harnesses()
            .selected_row()
            .map(|r| r.name.as_str());
        if at == Some(target) {
            return;
        }
        tui.keys("j").await;
    }
    panic!("no target {target}:\n{}", tui.screen());
}

fn config_yaml(tui: &Tui) -> String {
    std::fs::read_to_string(tui.home().join("config.yaml")).unwrap_or_default()
}

fn placed_skill(tui: &Tui) -> Option<std::path::PathBuf> {
    let skills = user_home(&tui.dir).join(".claude/skills");
    std::fs::read_dir(&skills)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("SKILL.md"))
        .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("Keep notes")))
}

#[tokio::test]
async fn h_lists_every_target_with_detection_and_folder() {
    let mut tui = notes_activated().await;
    tui.keys("H").await;
    assert!(matches!(tui.runner.app.dialog(), Some(Dialog::Harnesses)));
    let screen = tui.screen();
    for target in ["agents", "claude-code", "codex", "cursor", "windsurf"] {
        assert!(screen.contains(target), "{target}:\n{screen}");
    }
    assert!(screen.contains("~/.claude/skills"), "{screen}");
    let claude = tui
        .runner
        .app
        .harnesses()
        .rows
        .iter()
        .find(|r| r.name.as_str() == "claude-code")
        .unwrap();
    assert!(claude.detected && !claude.enabled);
    let cursor = tui
        .runner
        .app
        .harnesses()
        .rows
        .iter()
        .find(|r| r.name.as_str() == "cursor")
        .unwrap();
    assert!(!cursor.detected);
    insta::assert_snapshot!("harnesses_view", screen);
    tui.press(KeyCode::Esc).await;
    assert!(tui.runner.app.dialog().is_none());
}

#[tokio::test]
async fn space_enables_a_target_places_the_skill_and_disables_it_again() {
    let mut tui = notes_activated().await;
    tui.keys("H").await;
    select_target(&mut tui, "claude-code").await;
    tui.keys(" ").await;
    assert!(
        config_yaml(&tui).contains("claude-code"),
        "{}",
        config_yaml(&tui)
    );
    let skill = placed_skill(&tui).expect("the Skill is placed in ~/.claude/skills");
    assert!(
        std::fs::read_to_string(&skill)
            .unwrap()
            .contains("Keep notes")
    );
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Done, "{last:?}");
    assert_eq!(
        last.command.as_deref(),
        Some("hcpx harness enable claude-code")
    );
    let row = tui.runner.app.harnesses().selected_row().unwrap().clone();
    // acme.notes and the bootstrap pack hcp-cli.
    assert!(row.enabled && row.placed == 2, "{row:?}");
    let screen = tui.screen();
    assert!(
        screen.contains("hcpx harness disable claude-code"),
        "{screen}"
    );

    tui.keys(" ").await;
    assert!(
        !config_yaml(&tui).contains("claude-code"),
        "{}",
        config_yaml(&tui)
    );
    assert!(placed_skill(&tui).is_none());
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(
        last.command.as_deref(),
        Some("hcpx harness disable claude-code")
    );
}

#[tokio::test]
async fn a_copy_someone_else_put_there_counts_as_a_conflict_and_stays() {
    let mut tui = notes_activated().await;
    // A folder of the same name, not hcpx's (no marker).
    let theirs = user_home(&tui.dir).join(".claude/skills");
    tui.engine()
        .harness_enable(&[hcpx::engine::harness::TargetName::ClaudeCode])
        .unwrap();
    let ours = placed_skill(&tui).expect("placed");
    let folder = ours.parent().unwrap().to_path_buf();
    tui.engine()
        .harness_disable(&[hcpx::engine::harness::TargetName::ClaudeCode])
        .unwrap();
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), "mine\n").unwrap();
    tui.keys("H").await;
    select_target(&mut tui, "claude-code").await;
    tui.keys(" ").await;
    let row = tui.runner.app.harnesses().selected_row().unwrap().clone();
    // hcp-cli's Skill is placed; acme.notes's folder is someone else's.
    assert!(
        row.enabled && row.conflicts == 1 && row.placed == 1,
        "{row:?}"
    );
    assert_eq!(
        std::fs::read_to_string(folder.join("SKILL.md")).unwrap(),
        "mine\n"
    );
    assert!(theirs.is_dir());
    // Said in `hcpx harness enable`'s words: the Skill left alone is a
    // conflict of the target's.
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert!(last.text.starts_with("enabled claude-code; "), "{last:?}");
    assert!(last.text.contains(" (1 of 2 placed); "), "{last:?}");
    assert!(
        last.text.contains("conflict acme.notes (acme-notes)"),
        "{last:?}"
    );
    let report = tui.runner.app.report().expect("the toggle's answer");
    assert!(
        report
            .text
            .contains("  conflict  acme.notes (acme-notes)\n")
    );
    // And the warning the CLI writes on stderr, after the words, as a
    // terminal shows both.
    assert!(
        report
            .text
            .contains("of acme.notes is taken by a folder hcpx did not place; left alone"),
        "{}",
        report.text
    );
}

#[tokio::test]
async fn space_while_busy_is_refused_at_once() {
    let mut tui = notes_activated().await;
    tui.keys("H").await;
    // A lint started and not yet run: the app is busy with it.
    let jobs = tui
        .runner
        .app
        .update(hcpx::tui::action::Action::Key(hcpx::tui::keys::Cmd::Lint));
    assert_eq!(jobs.len(), 1);
    assert_eq!(tui.runner.app.busy(), Some("linting acme.notes"));
    tui.keys(" ").await;
    assert_eq!(tui.runner.in_flight(), 0);
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Refused);
    assert!(!config_yaml(&tui).contains("claude-code"));
}

#[tokio::test]
async fn details_show_the_skill_state_in_each_enabled_target_with_its_fix() {
    let dir = sandbox_with(notes_pack);
    std::fs::create_dir_all(user_home(&dir).join(".claude")).unwrap();
    install_active(&dir, "acme.notes");
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 40).await;
    let screen = tui.screen();
    assert!(
        screen.contains("harnesses: no target enabled (H enables one)"),
        "{screen}"
    );

    tui.keys("H").await;
    select_target(&mut tui, "claude-code").await;
    tui.keys(" ").await;
    tui.press(KeyCode::Esc).await;
    // The toggle's answer came to the Output pane (the keys stayed in
    // the browser): Details is two panes further, then back to the
    // browser.
    tui.press(KeyCode::Tab).await;
    tui.press(KeyCode::Tab).await;
    tui.press(KeyCode::BackTab).await;
    tui.press(KeyCode::BackTab).await;
    let screen = tui.screen();
    assert!(
        screen.contains("claude-code acme-notes: placed"),
        "{screen}"
    );

    // Someone edits the placed copy: modified, and the fix says --force.
    let skill = placed_skill(&tui).unwrap();
    std::fs::write(&skill, "edited by hand\n").unwrap();
    tui.keys("r").await;
    let screen = tui.screen();
    assert!(
        screen.contains("claude-code acme-notes: modified"),
        "{screen}"
    );
    assert!(screen.contains("hcpx harness sync --force"), "{screen}");
    insta::assert_snapshot!("details_harness_modified", screen);
}

#[tokio::test]
async fn the_colon_line_enables_and_disables_a_target_with_completion() {
    let mut tui = notes_activated().await;
    tui.keys(":harness en").await;
    tui.press(KeyCode::Tab).await;
    tui.keys("claude-c").await;
    tui.press(KeyCode::Tab).await;
    assert_eq!(
        tui.runner.app.cmdline().input,
        "harness enable claude-code "
    );
    tui.press(KeyCode::Enter).await;
    assert!(
        config_yaml(&tui).contains("claude-code"),
        "{}",
        config_yaml(&tui)
    );
    assert!(placed_skill(&tui).is_some());
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(
        last.command.as_deref(),
        Some("hcpx harness enable claude-code")
    );
    tui.keys(":harness disable claude-code").await;
    tui.press(KeyCode::Enter).await;
    assert!(placed_skill(&tui).is_none());
    // An unknown target is refused at once, naming the known ones.
    tui.keys(":harness enable claude").await;
    tui.press(KeyCode::Enter).await;
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Refused, "{last:?}");
    assert!(last.text.contains("claude-code"), "{last:?}");
}

/// The `mcp:` line of the selected detected harness (§16.7): read from the
/// harness's own MCP configuration, never written.
#[tokio::test]
async fn the_mcp_line_says_whether_a_harness_starts_hcpx_mcp() {
    let dir = sandbox_with(notes_pack);
    let home = user_home(&dir);
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    let claude_json = r#"{"mcpServers":{"hcpx":{"type":"stdio","command":"hcpx","args":["mcp","--principal","agent"]}}}"#;
    std::fs::write(home.join(".claude.json"), claude_json).unwrap();
    std::fs::create_dir_all(home.join(".cursor")).unwrap();
    std::fs::write(home.join(".cursor/mcp.json"), "{\"mcpServers\": ").unwrap();
    install_active(&dir, "acme.notes");
    let mut tui = Tui::start_at(dir, "acme.notes", 110, 30).await;
    tui.keys("H").await;

    select_target(&mut tui, "claude-code").await;
    let screen = tui.screen();
    assert!(
        screen.contains("mcp: hcpx mcp configured in ~/.claude.json"),
        "{screen}"
    );
    select_target(&mut tui, "codex").await;
    let screen = tui.screen();
    assert!(
        screen.contains("mcp: not configured in ~/.codex/config.toml"),
        "{screen}"
    );
    assert!(
        screen.contains("hcpx mcp --print-config codex prints the entry"),
        "{screen}"
    );
    select_target(&mut tui, "cursor").await;
    let screen = tui.screen();
    assert!(screen.contains("mcp: unreadable"), "{screen}");
    // Not detected, or no MCP file hcpx reads: no line.
    select_target(&mut tui, "windsurf").await;
    assert!(!tui.screen().contains("mcp: "), "{}", tui.screen());
    // Read-only: the files are as they were.
    let home = user_home(&tui.dir);
    assert_eq!(
        std::fs::read_to_string(home.join(".claude.json")).unwrap(),
        claude_json
    );
    assert!(!home.join(".codex/config.toml").exists());
}
