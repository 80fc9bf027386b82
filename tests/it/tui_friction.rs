//! The TUI's daily-use friction, each tried as a new user would (issue 33,
//! section 3): the keys after a `:` line act where the focus marker is;
//! at 80×24 a cut fix line ends in `…` and hidden matrix columns are
//! counted; `a` on a connected pack asks first; a fix names only keys
//! that work; Output follows a run's tail and wraps at words; a Skill
//! pack shows what is true for it; the cursor goes to a pack just
//! installed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, require_tools};
use crate::tmuxkit::Session;
use crate::tuikit::*;
use crossterm::event::KeyCode;
use hcpx::tui::dialog::Dialog;
use hcpx::tui::pane::Pane;
use std::path::Path;

fn selected(tui: &Tui) -> String {
    tui.runner
        .app
        .selected_row()
        .map(|r| r.id().to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn after_a_colon_line_j_moves_the_packs_row_the_focus_marker_shows() {
    let dir = sandbox_with(notes_pack);
    vault_pack(&catalog(&dir));
    engine(&dir).install("acme.notes", false).unwrap();
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    // The filter `select` typed goes; the row stays.
    tui.press(KeyCode::Esc).await;
    assert_eq!(selected(&tui), "acme.notes");
    assert_eq!(tui.runner.app.focus(), Pane::Browser);

    colon(&mut tui, "doctor").await;
    // The answer shows, the keys stay in Packs, the tab says so.
    assert_eq!(tui.runner.app.focus(), Pane::Browser, "{}", tui.screen());
    let screen = tui.screen();
    assert!(screen.contains("$ hcpx doctor"), "{screen}");
    assert!(screen.contains("▶ Packs"), "{screen}");
    assert!(screen.contains("new output"), "{screen}");
    // `j` moves the row that `i`, `a`, `U` act on, not Output's scroll.
    tui.keys("j").await;
    assert_eq!(selected(&tui), "acme.vault", "{}", tui.screen());

    // From Availability too.
    tui.press(KeyCode::Tab).await;
    colon(&mut tui, "show acme.vault").await;
    assert_eq!(tui.runner.app.focus(), Pane::Matrix, "{}", tui.screen());

    // Keys on a lower pane go with the pane shown there.
    tui.press(KeyCode::Tab).await;
    assert_eq!(tui.runner.app.focus(), Pane::Details);
    colon(&mut tui, "doctor").await;
    assert_eq!(tui.runner.app.focus(), Pane::Output, "{}", tui.screen());
}

/// The Availability pane's rows of `screen` (the upper right pane, inside
/// its frame).
fn availability(screen: &str) -> Vec<String> {
    let first = screen.lines().next().unwrap_or_default();
    let at = first.chars().skip(1).position(|c| c == '┌').unwrap() + 1;
    screen
        .lines()
        .skip(1)
        .map(|l| l.chars().skip(at).collect::<String>())
        .take_while(|l| !l.starts_with('└'))
        .map(|l| l.trim_matches(|c| c == '│' || c == ' ').to_string())
        .collect()
}

#[tokio::test]
async fn at_80x24_a_cut_fix_line_ends_in_an_ellipsis_and_hidden_columns_are_counted() {
    let dir = sandbox_with(mixed_pack);
    let mut tui = Tui::start_at(dir, "acme.mixed", 80, 24).await;
    let screen = tui.screen();
    let rows = availability(&screen);
    // The install fix does not fit under four commands: what is shown of
    // it says it goes on.
    let last = rows.iter().rev().find(|l| !l.is_empty()).unwrap();
    assert!(last.ends_with('…'), "{last:?}\n{screen}");
    assert!(
        !rows
            .iter()
            .any(|l| l.ends_with("hcpx install acme.mixed") || l.ends_with("--catalog")),
        "{screen}"
    );
    // The summary column has no room: the header counts it.
    let header = rows.iter().find(|l| l.contains("COMMAND")).unwrap();
    assert!(
        header.ends_with("+1→") || header.ends_with("+1 →"),
        "{header:?}\n{screen}"
    );
    // A wider terminal shows it, and no mark.
    tui.resize(160, 40).await;
    let screen = tui.screen();
    assert!(screen.contains("SUMMARY"), "{screen}");
    assert!(!screen.contains("+1"), "{screen}");
    tui.keys("q").await;
}

#[tokio::test]
async fn a_on_a_connected_pack_asks_first_and_any_key_but_y_keeps_it() {
    let dir = sandbox_with(notes_pack);
    install_connected(&dir, "acme.notes");
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    assert!(tui.connected().contains(&"acme.notes".to_string()));

    tui.keys("a").await;
    assert!(
        matches!(
            tui.runner.app.dialog(),
            Some(Dialog::ConfirmDeactivate { .. })
        ),
        "{}",
        tui.screen()
    );
    let screen = tui.screen();
    assert!(screen.contains("Deactivate acme.notes?"), "{screen}");
    assert!(screen.contains("drops the connection"), "{screen}");
    // Any other key keeps it: still activated and connected.
    tui.keys("j").await;
    assert!(tui.runner.app.dialog().is_none());
    assert!(tui.activated().contains(&"acme.notes".to_string()));
    assert!(tui.connected().contains(&"acme.notes".to_string()));
    assert_eq!(last_entry(&tui).outcome, hcpx::tui::log::Outcome::Cancelled);
    assert_eq!(
        last_entry(&tui).command.as_deref(),
        Some("hcpx deactivate acme.notes")
    );
    // `:deactivate` asks too; `y` goes on.
    colon(&mut tui, "deactivate acme.notes").await;
    assert!(tui.runner.app.dialog().is_some(), "{}", tui.screen());
    tui.keys("y").await;
    assert!(!tui.activated().contains(&"acme.notes".to_string()));
    assert!(!tui.connected().contains(&"acme.notes".to_string()));
}

#[tokio::test]
async fn a_fix_offers_no_key_that_is_greyed_for_the_principal() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 34).await;
    assert!(tui.screen().contains("press i, or run"), "{}", tui.screen());
    // `agent` (default grants: read commands only) may not install.
    tui.keys("P").await;
    tui.keys("agent").await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert!(screen.contains("principal agent"), "{screen}");
    assert!(!screen.contains("press i"), "{screen}");
    assert!(
        screen.contains("ask a holder of `pack.install` to run hcpx install acme.notes"),
        "{screen}"
    );
}

#[test]
fn why_of_a_pack_not_installed_never_says_it_is_installed() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.why", "1.0.0", "{kind: public}");
    let catalog = src.parent().unwrap().to_str().unwrap().to_string();
    let out = sb
        .hcpx()
        .args(["why", "acme.why", "--catalog", &catalog])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not installed"), "{text}");
    assert!(!text.contains("is installed but"), "{text}");
    assert!(
        !text.contains("not activated"),
        "one reason, not two: {text}"
    );
}

/// A catalog with `acme.tail`, whose `spill` prints 80 numbered lines and
/// a long line of words, then waits (a run still going).
fn tail_catalog(dir: &Path) -> std::path::PathBuf {
    let pack = dir.join("catalog/acme.tail");
    std::fs::create_dir_all(&pack).unwrap();
    let words = WORDS.join(" ");
    let script = format!(
        "i=0; while [ $i -lt 80 ]; do i=$((i+1)); echo line-$i; done; echo '{words}'; sleep 600"
    );
    std::fs::write(
        pack.join("pack.yaml"),
        format!(
            "hcp: \"1\"\nid: acme.tail\nname: Tail\nversion: 1.0.0\ndescription: Spills.\n\
             commands:\n  - key: spill\n    summary: Print a lot\n    effect: read\n\
             \x20   timeout_ms: 600000\n\
             \x20   adapter: {{kind: process, program: sh, argv: [\"-c\", {script:?}]}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        pack.join("SKILL.md"),
        "---\nname: acme-tail\ndescription: Spills.\n---\nRun `spill`.\n",
    )
    .unwrap();
    dir.join("catalog")
}

const WORDS: [&str; 16] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
    "kilo", "lima", "mike", "november", "oscar", "papa",
];

#[test]
fn output_follows_the_tail_of_a_run_until_scrolled_up_and_wraps_at_words() {
    if !require_tools(&["tmux", "sh"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let catalog = tail_catalog(dir.path());
    let home = dir.path().join("home");
    let s = Session::start_sized(
        "tail",
        &[("HCP_HOME", &home)],
        &["tui", "--catalog", catalog.to_str().unwrap()],
        100,
        30,
    );
    s.wait_for("the pack list", |s| s.contains("acme.tail"));
    s.select("acme.tail");
    s.install_activate("acme.tail", "1.0.0");
    s.wait_text("● executable");
    s.keys(&["x"]);
    // The tail shows while it runs: the last line, every word whole.
    let screen = s.wait_for("the run's tail", |screen| {
        screen.contains("running acme.tail") && screen.contains("papa")
    });
    assert!(screen.contains("line-80"), "{screen}");
    for word in WORDS {
        assert!(screen.contains(word), "`{word}` cut:\n{screen}");
    }
    // Scrolled up, it stays where the user put it.
    s.keys(&["Right", "Right", "PPage", "PPage"]);
    s.wait_for("the scroll up", |screen| !screen.contains("papa"));
    s.keys(&["G"]);
    s.wait_for("the tail again", |screen| screen.contains("papa"));
    s.keys(&["X"]);
    s.wait_text("cancelled");
    s.quit();
}

#[tokio::test]
async fn a_skill_pack_shows_no_connection_and_no_failure() {
    let dir = sandbox();
    let skill = catalog(&dir).join("plain-skill");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: plain-skill\ndescription: A plain Agent Skill.\n---\n# Use it\n",
    )
    .unwrap();
    install_active(&dir, "plain-skill");
    let tui = Tui::start_at(dir, "plain-skill", 120, 34).await;
    let screen = tui.screen();
    assert!(!screen.contains("connected"), "{screen}");
    assert!(!screen.contains("✗ plain-skill"), "{screen}");
    assert!(screen.contains("◐ activated"), "{screen}");
    assert!(
        screen.contains("plain-skill is a Skill pack: harnesses read its SKILL.md"),
        "{screen}"
    );
}

#[tokio::test]
async fn the_cursor_goes_to_a_pack_just_installed_from_a_folder() {
    let dir = sandbox_with(notes_pack);
    let elsewhere = dir.path().join("elsewhere");
    one_command_pack(
        &elsewhere,
        "acme.new",
        ("New", "A pack in no catalog."),
        "{kind: public}",
        "hello",
        "true",
    );
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 34).await;
    let path = elsewhere.join("acme.new");
    colon(&mut tui, &format!("install {}", path.display())).await;
    assert!(tui.installed("acme.new"), "{}", tui.screen());
    assert_eq!(selected(&tui), "acme.new", "{}", tui.screen());
}

#[test]
fn a_catalog_of_one_pack_says_one_pack() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.one", "1.0.0", "{kind: public}");
    let catalog = src.parent().unwrap().to_str().unwrap().to_string();
    let out = sb
        .hcpx()
        .args(["catalog", "add", &catalog])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(1 pack)"), "{text}");
    let out = sb.hcpx().args(["catalog", "list"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  1 pack  "), "{text}");
    assert!(!text.contains("1 packs"), "{text}");
}

#[tokio::test]
async fn tab_completes_a_grants_capability_and_an_installs_folder() {
    let dir = sandbox_with(notes_pack);
    let folder = dir.path().join("elsewhere/skills-here");
    std::fs::create_dir_all(&folder).unwrap();
    let mut tui = Tui::start(dir, 120, 34).await;
    tui.keys(":grant agent verb.exec.w").await;
    tui.press(KeyCode::Tab).await;
    let screen = tui.screen();
    assert!(screen.contains(":grant agent verb.exec.write"), "{screen}");
    tui.press(KeyCode::Esc).await;

    let parent = folder.parent().unwrap().display().to_string();
    tui.keys(&format!(":install {parent}/sk")).await;
    tui.press(KeyCode::Tab).await;
    let screen = tui.screen();
    assert!(
        screen.contains(&format!(":install {parent}/skills-here/")),
        "{screen}"
    );
}
