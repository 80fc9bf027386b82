//! The `:` line's changes through the command layer (issue 18): a line the
//! TUI's keys do not do (`install --all`, `upgrade --dry-run`, `catalog
//! add`, `harness enable --detected`, `remove`, a project's `sync`) runs as
//! the CLI's request in the worker; the Output pane shows the CLI's words,
//! `J` its document, and the browser reads the store again after a change.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crate::tuikit::{colon as run, last_entry as last, shown_report as report};
use hcpx::tui::dialog::Dialog;
use hcpx::tui::log::Outcome;
use std::path::Path;

/// A collection of two bare Skill folders (a `SKILL.md` each, no
/// manifest), as the public skill repositories hold them.
fn two_skills(root: &Path) -> String {
    for (name, description) in [
        ("pdf", "Fill and read PDF forms."),
        ("docx", "Write Word documents."),
    ] {
        let dir = root.join("skills").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nUse it.\n"),
        )
        .unwrap();
    }
    root.display().to_string()
}

#[tokio::test]
async fn install_all_of_a_collection_installs_both_skills() {
    let dir = sandbox();
    let source = two_skills(&dir.path().join("skills-repo"));
    let mut tui = Tui::start(dir, 120, 36).await;
    run(&mut tui, &format!("install {source} --list")).await;
    assert_eq!(last(&tui).outcome, Outcome::Done, "{:?}", last(&tui));
    assert!(report(&tui).contains("pdf"), "{}", report(&tui));
    assert!(!tui.installed("pdf"));

    run(&mut tui, &format!("install {source} --all")).await;
    let entry = last(&tui);
    assert_eq!(entry.outcome, Outcome::Done, "{entry:?}");
    assert_eq!(
        entry.command.as_deref(),
        Some(format!("hcpx install {source} --all").as_str())
    );
    assert!(
        tui.installed("pdf") && tui.installed("docx"),
        "{}",
        tui.screen()
    );
    // The CLI's words; `J` its document.
    assert!(report(&tui).contains("docx"), "{}", report(&tui));
    assert!(
        !report(&tui).trim_start().starts_with('{'),
        "{}",
        report(&tui)
    );
    tui.keys("J").await;
    assert!(report(&tui).contains("\"results\""), "{}", report(&tui));
    // The browser read the store again: the new packs are rows.
    tui.select("docx").await;
}

#[tokio::test]
async fn upgrade_dry_run_shows_the_diff_and_changes_nothing() {
    let dir = sandbox();
    notes_pack(&catalog(&dir));
    notes_with_a_newer_version(&dir);
    let mut tui = Tui::start(dir, 120, 36).await;
    run(&mut tui, "upgrade --dry-run").await;
    let entry = last(&tui);
    assert_eq!(entry.command.as_deref(), Some("hcpx upgrade --dry-run"));
    assert!(tui.runner.app.dialog().is_none(), "{}", tui.screen());
    let words = report(&tui);
    assert!(words.contains("1.3.0"), "{words}");
    assert!(!words.trim_start().starts_with('{'), "{words}");
    let lock = std::fs::read_to_string(tui.home().join("hcp.lock")).unwrap();
    assert!(lock.contains("1.2.0") && !lock.contains("1.3.0"), "{lock}");
}

#[tokio::test]
async fn catalog_add_says_the_clis_words_and_its_packs_appear() {
    let dir = sandbox();
    let more = dir.path().join("more");
    one_command_pack(
        &more,
        "acme.more",
        ("Acme more", "More."),
        "{kind: public}",
        "go",
        "echo",
    );
    let mut tui = Tui::start(dir, 120, 36).await;
    let source = more.display().to_string();
    run(&mut tui, &format!("catalog add {source}")).await;
    let entry = last(&tui);
    assert_eq!(entry.outcome, Outcome::Done, "{entry:?}");
    assert_eq!(
        entry.command.as_deref(),
        Some(format!("hcpx catalog add {source}").as_str())
    );
    let words = report(&tui);
    assert!(!words.trim_start().starts_with('{'), "{words}");
    assert!(words.contains("more"), "{words}");
    tui.keys("J").await;
    assert!(report(&tui).contains("\"ok\": true"), "{}", report(&tui));
    // No `r`: the catalog's pack is a row already.
    tui.select("acme.more").await;

    run(&mut tui, &format!("catalog remove {source}")).await;
    assert_eq!(last(&tui).outcome, Outcome::Done, "{:?}", last(&tui));
    assert!(
        !report(&tui).trim_start().starts_with('{'),
        "{}",
        report(&tui)
    );
}

#[tokio::test]
async fn harness_enable_detected_enables_the_harnesses_found() {
    let dir = sandbox_with(notes_pack);
    std::fs::create_dir_all(user_home(&dir).join(".claude")).unwrap();
    let mut tui = Tui::start(dir, 120, 36).await;
    run(&mut tui, "harness enable --detected").await;
    let entry = last(&tui);
    assert_eq!(entry.outcome, Outcome::Done, "{entry:?}");
    assert_eq!(
        entry.command.as_deref(),
        Some("hcpx harness enable --detected")
    );
    let config = std::fs::read_to_string(tui.home().join("config.yaml")).unwrap();
    assert!(config.contains("claude-code"), "{config}");
    assert!(!config.contains("cursor"), "{config}");
    assert!(report(&tui).contains("claude-code"), "{}", report(&tui));
}

#[tokio::test]
async fn remove_asks_first_and_a_projects_sync_needs_a_project() {
    let dir = sandbox_with(notes_pack);
    install_active(&dir, "acme.notes");
    let mut tui = Tui::start(dir, 120, 36).await;
    run(&mut tui, "remove acme.notes").await;
    assert!(
        matches!(tui.runner.app.dialog(), Some(Dialog::ConfirmQuery { .. })),
        "{}",
        tui.screen()
    );
    assert!(
        tui.screen().contains("Remove acme.notes?"),
        "{}",
        tui.screen()
    );
    tui.keys("n").await;
    assert_eq!(last(&tui).outcome, Outcome::Cancelled);
    assert!(tui.installed("acme.notes"));
    run(&mut tui, "remove acme.notes").await;
    tui.keys("y").await;
    assert_eq!(last(&tui).outcome, Outcome::Done, "{:?}", last(&tui));
    assert!(!tui.installed("acme.notes"));

    // Outside a project, `sync` without a LOCKFILE is the CLI's usage
    // error, asked first like any sync.
    run(&mut tui, "sync").await;
    tui.keys("y").await;
    let entry = last(&tui);
    assert_eq!(entry.outcome, Outcome::Failed, "{entry:?}");
    assert!(entry.text.contains("sync needs a LOCKFILE"), "{entry:?}");
}

#[tokio::test]
async fn only_what_starts_another_program_is_refused_and_says_what_to_run() {
    let mut tui = Tui::start(sandbox(), 120, 36).await;
    for line in ["mcp", "tui", "completions bash"] {
        run(&mut tui, line).await;
        let entry = last(&tui);
        assert_eq!(entry.outcome, Outcome::Refused, "{entry:?}");
        assert!(entry.text.contains("run it in a shell"), "{entry:?}");
    }
}

#[tokio::test]
async fn init_makes_a_folder_a_project() {
    let dir = sandbox();
    let project = dir.path().join("newproj");
    let mut tui = Tui::start(dir, 120, 36).await;
    run(&mut tui, &format!("init {}", project.display())).await;
    let entry = last(&tui);
    assert_eq!(entry.outcome, Outcome::Done, "{entry:?}");
    assert!(project.join("hcp.yaml").is_file(), "{}", tui.screen());
    assert!(
        !report(&tui).trim_start().starts_with('{'),
        "{}",
        report(&tui)
    );
    // Again: the CLI's refusal, said.
    run(&mut tui, &format!("init {}", project.display())).await;
    assert_eq!(last(&tui).outcome, Outcome::Failed, "{:?}", last(&tui));
    assert!(
        last(&tui).text.contains("exists already"),
        "{:?}",
        last(&tui)
    );
}
