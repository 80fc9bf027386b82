//! Marks on the browser's rows (HCP.md §12.8, §13.5, §13.6): `!` for an
//! installed copy that fails verify, `≠` for a Skill edited or someone
//! else's in a harness target, `↑` after `o` for a newer version in the
//! recorded source; each explained in Details with its command.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use hcpx::engine::harness::TargetName;
use hcpx::tui::log::Outcome;

/// The mark column of `id`'s row on the screen.
fn mark_of(screen: &str, id: &str) -> Option<char> {
    // A row of the Packs pane (left of the `││` between the panes).
    let line = screen.lines().find(|l| {
        l.starts_with('│')
            && l.split("││")
                .next()
                .is_some_and(|p| p.contains(&format!(" {id} ")))
    })?;
    let cells: Vec<char> = line.chars().collect();
    // `│`, the selection marker, a space, the mark and a space (no mark
    // column at all: the id starts there).
    (cells.get(4) == Some(&' '))
        .then(|| cells[3])
        .filter(|c| *c != ' ')
}

#[tokio::test]
async fn a_tampered_installed_copy_is_marked_and_explained() {
    let dir = sandbox_with(notes_pack);
    engine(&dir).install("acme.notes", false).unwrap();
    std::fs::write(home(&dir).join("packs/acme.notes/extra.txt"), "planted\n").unwrap();
    let tui = Tui::start_at(dir, "acme.notes", 120, 36).await;
    let screen = tui.screen();
    assert_eq!(mark_of(&screen, "acme.notes"), Some('!'), "{screen}");
    assert!(screen.contains("hcpx verify acme.notes"), "{screen}");
    insta::assert_snapshot!("marks_integrity", screen);
}

#[tokio::test]
async fn an_edited_skill_in_a_harness_target_is_marked() {
    let dir = sandbox_with(notes_pack);
    let engine = install_active(&dir, "acme.notes");
    engine.harness_enable(&[TargetName::Agents]).unwrap();
    let skills = user_home(&dir).join(".agents/skills");
    let edited = std::fs::read_dir(&skills)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("SKILL.md"))
        .find(|p| std::fs::read_to_string(p).unwrap().contains("Keep notes"))
        .unwrap();
    std::fs::write(&edited, "my own notes skill\n").unwrap();
    let tui = Tui::start_at(dir, "acme.notes", 120, 36).await;
    let screen = tui.screen();
    assert_eq!(mark_of(&screen, "acme.notes"), Some('≠'), "{screen}");
    assert_eq!(mark_of(&screen, "hcp-cli"), None, "{screen}");
    assert!(screen.contains("harness status acme.notes"), "{screen}");
}

#[tokio::test]
async fn a_newer_catalog_version_is_marked_and_o_lists_the_updates() {
    let dir = sandbox_with(notes_pack);
    // The catalog moves on to 1.3.0.
    notes_with_a_newer_version(&dir);
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 36).await;
    // A catalog is read without the network: marked after the load.
    assert_eq!(
        mark_of(&tui.screen(), "acme.notes"),
        Some('↑'),
        "{}",
        tui.screen()
    );
    assert!(
        tui.screen().contains("version 1.3.0 is out"),
        "{}",
        tui.screen()
    );
    tui.keys("o").await;
    let screen = tui.screen();
    assert_eq!(mark_of(&screen, "acme.notes"), Some('↑'), "{screen}");
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Done, "{last:?}");
    assert_eq!(last.command.as_deref(), Some("hcpx outdated"));
    assert!(last.text.contains("acme.notes 1.2.0 → 1.3.0"), "{last:?}");
}
