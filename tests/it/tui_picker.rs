//! The TUI's collection picker (HCP.md §13.1) and the Details pane's
//! bundled `files` (§2.6), driven headless on a real store: the picker
//! opened over a folder collection, filtered, two packs marked and
//! installed from their folders; snapshots at 80×24 and 60×15.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::KeyCode;
use hcpx::tui::action::Action;
use hcpx::tui::dialog::Dialog;
use hcpx::tui::dialog::picker::{ItemKind, PickerItem};
use hcpx::tui::log::Outcome;
use hcpx::tui::pane::Pane;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A pack with no command, in `root/dir`.
fn plain_pack(root: &Path, dir: &str, id: &str, description: &str) {
    let manifest = format!(
        "hcp: \"1\"\nid: {id}\nname: {id}\nversion: 1.0.0\ndescription: {description}\nbinding: {{kind: public}}\nsense_only: true\n"
    );
    let name = id.replace('.', "-");
    let skill = format!("---\nname: {name}\ndescription: {description}\n---\n# {id}\n\nUse it.\n");
    write_pack(root, dir, &manifest, &skill);
}

/// An entry of a listing: a Skill pack when its id has no `.` (as the
/// public skill repositories name them), else a pack with a manifest.
fn item(id: &str, path: &str, description: &str, lint_ok: bool) -> PickerItem {
    PickerItem {
        id: id.into(),
        kind: if id.contains('.') {
            ItemKind::Pack
        } else {
            ItemKind::Skill
        },
        path: path.into(),
        description: description.into(),
        lint_ok,
    }
}

/// The listing of the collection [`collection`] writes.
fn listing() -> Vec<PickerItem> {
    vec![
        item("pdf", "skills/pdf", "Fill and read PDF forms", true),
        item("docx", "skills/docx", "Write Word documents", true),
        item("acme.pptx", "skills/pptx", "Slides from an outline", true),
        item(
            "acme.broken",
            "plugins/x/skills/broken",
            "A pack that does not lint",
            false,
        ),
        item(
            "sheets",
            "skills/.curated/sheets",
            "Spreadsheets: formulas, charts and pivot tables, with a description long enough to be cut",
            true,
        ),
    ]
}

/// A folder collection holding the packs of [`listing`] that lint.
fn collection(dir: &tempfile::TempDir) -> String {
    let root = dir.path().join("skills-repo");
    plain_pack(&root, "skills/pdf", "pdf", "Fill and read PDF forms");
    plain_pack(&root, "skills/docx", "docx", "Write Word documents");
    plain_pack(&root, "skills/pptx", "acme.pptx", "Slides from an outline");
    plain_pack(&root, "skills/.curated/sheets", "sheets", "Spreadsheets");
    root.display().to_string()
}

async fn open(tui: &mut Tui, source: &str) {
    tui.runner.app.open_picker(source.into(), listing());
    tui.send(Vec::new()).await;
}

fn last_log(tui: &Tui) -> (Outcome, String, Option<String>) {
    let e = tui.runner.app.log().entries.last().expect("a log entry");
    (e.outcome, e.text.clone(), e.command.clone())
}

#[tokio::test]
async fn picker_filters_marks_two_and_installs_them_from_their_folders() {
    let dir = sandbox();
    let source = collection(&dir);
    let mut tui = Tui::start(dir, 100, 30).await;
    open(&mut tui, &source).await;
    assert!(matches!(tui.runner.app.dialog(), Some(Dialog::Picker(_))));
    assert!(
        tui.screen().contains("5 of 5 shown, 0 marked"),
        "{}",
        tui.screen()
    );

    // `p` keeps pdf and acme.pptx; Space marks one and moves on.
    tui.keys("p").await;
    let screen = tui.screen();
    assert!(screen.contains("filter: p"), "{screen}");
    assert!(screen.contains("2 of 5 shown"), "{screen}");
    assert!(!screen.contains("docx"), "{screen}");
    tui.keys("  ").await;
    assert!(tui.screen().contains("2 marked"), "{}", tui.screen());
    tui.press(KeyCode::Enter).await;

    assert!(tui.runner.app.dialog().is_none(), "{}", tui.screen());
    assert!(tui.installed("pdf") && tui.installed("acme.pptx"));
    assert!(!tui.installed("docx") && !tui.installed("sheets"));
    let (outcome, text, command) = last_log(&tui);
    assert_eq!(outcome, Outcome::Done, "{text}");
    assert!(text.contains("installed pdf 1.0.0"), "{text}");
    assert!(text.contains("installed acme.pptx 1.0.0"), "{text}");
    let command = command.unwrap();
    assert!(
        command.ends_with("skills-repo --skill pdf --skill acme.pptx"),
        "{command}"
    );
    // The lock records each pack by its own folder in the collection.
    let lock = std::fs::read_to_string(tui.home().join("hcp.lock")).unwrap();
    assert!(lock.contains("skills/pdf"), "{lock}");
    // The new packs are rows of the browser.
    tui.select("acme.pptx").await;
}

#[tokio::test]
async fn enter_with_none_marked_installs_the_highlighted_and_the_action_can_come_from_outside() {
    let dir = sandbox();
    let source = collection(&dir);
    let mut tui = Tui::start(dir, 100, 30).await;
    open(&mut tui, &source).await;
    tui.send(vec![ctrl('n')]).await;
    tui.press(KeyCode::Enter).await;
    assert!(tui.installed("docx"));
    assert!(!tui.installed("pdf"));

    // What the picker's Enter sends, as the lead's wiring may send it.
    tui.runner.dispatch(Action::InstallChosen {
        source: source.clone(),
        ids: vec!["sheets".into()],
    });
    tui.send(Vec::new()).await;
    assert!(tui.installed("sheets"), "{}", tui.screen());
    // An id the listing does not hold is refused, nothing installed.
    tui.runner.dispatch(Action::InstallChosen {
        source,
        ids: vec!["acme.other".into()],
    });
    let (outcome, text, _) = last_log(&tui);
    assert_eq!(outcome, Outcome::Refused);
    assert!(text.contains("acme.other is not in the listing"), "{text}");
}

#[tokio::test]
async fn a_pack_that_does_not_lint_is_greyed_and_space_says_why_and_esc_cancels() {
    let dir = sandbox();
    let source = collection(&dir);
    let mut tui = Tui::start(dir, 100, 30).await;
    open(&mut tui, &source).await;
    tui.keys("broken").await;
    tui.keys(" ").await;
    let (outcome, text, _) = last_log(&tui);
    assert_eq!(outcome, Outcome::Refused);
    assert!(text.contains("acme.broken does not lint"), "{text}");
    assert!(tui.screen().contains("0 marked"), "{}", tui.screen());
    assert!(tui.screen().contains("✗ lint"), "{}", tui.screen());
    tui.send(vec![ctrl('a')]).await;
    assert!(tui.screen().contains("0 marked"), "{}", tui.screen());

    tui.press(KeyCode::Esc).await;
    assert!(tui.runner.app.dialog().is_none());
    let (outcome, text, _) = last_log(&tui);
    assert_eq!(outcome, Outcome::Cancelled);
    assert!(text.contains("cancelled"), "{text}");
    assert!(!tui.home().join("packs/pdf").exists());
}

#[tokio::test]
async fn question_mark_shows_the_pickers_keys_and_the_key_bar_has_them() {
    let dir = sandbox();
    let source = collection(&dir);
    let mut tui = Tui::start(dir, 100, 30).await;
    open(&mut tui, &source).await;
    let bar = tui.screen().lines().last().unwrap_or_default().to_string();
    for word in ["filter", "mark", "all", "install", "cancel"] {
        assert!(bar.contains(word), "{bar}");
    }
    tui.keys("?").await;
    assert!(tui.screen().contains("any key goes back to the list"));
    tui.keys("x").await;
    // That key only closed the keys page: the filter is still empty.
    assert!(tui.screen().contains("5 of 5 shown"), "{}", tui.screen());
}

#[tokio::test]
async fn pack_text_and_a_sources_password_never_reach_the_screen_or_the_log() {
    let dir = sandbox();
    let mut tui = Tui::start(dir, 100, 30).await;
    let hostile = vec![item(
        "evil.pack",
        "skills/e\u{1b}[2Jvil",
        "desc \u{1b}]0;title\u{7} \u{202e}backwards",
        true,
    )];
    let source = "git+https://ann:hunter2@example.invalid/skills.git";
    tui.runner.app.open_picker(source.into(), hostile);
    tui.send(Vec::new()).await;
    let screen = tui.screen();
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{202e}'),
        "{screen}"
    );
    assert!(
        !screen.contains("hunter2") && !screen.contains("ann"),
        "{screen}"
    );
    assert!(screen.contains("example.invalid"), "{screen}");
    tui.press(KeyCode::Esc).await;
    let (_, text, _) = last_log(&tui);
    assert!(!text.contains("hunter2"), "{text}");
}

#[tokio::test]
async fn picker_snapshots_at_80x24_and_60x15_and_a_large_window() {
    let dir = sandbox();
    let source = "./skills-repo";
    let mut tui = Tui::start(dir, 80, 24).await;
    tui.runner.app.open_picker(source.into(), listing());
    tui.send(Vec::new()).await;
    tui.keys(" ").await;
    insta::assert_snapshot!("picker_80x24", tui.screen());
    tui.resize(60, 15).await;
    insta::assert_snapshot!("picker_60x15", tui.screen());
    tui.keys("s").await;
    assert!(
        tui.screen().contains("1 of 5 shown, 1 marked"),
        "{}",
        tui.screen()
    );
    tui.resize(120, 40).await;
    let screen = tui.screen();
    assert!(screen.contains("Spreadsheets: formulas"), "{screen}");
    assert!(screen.contains("skills/.curated/sheets"), "{screen}");
}

#[tokio::test]
async fn details_lists_a_packs_bundled_files_with_size_and_x() {
    let dir = sandbox();
    plain_pack(
        &catalog(&dir),
        "acme.tools",
        "acme.tools",
        "Tools with scripts",
    );
    let root = catalog(&dir).join("acme.tools");
    std::fs::create_dir_all(root.join("scripts")).unwrap();
    std::fs::write(root.join("scripts/run.sh"), "#!/bin/sh\necho run\n").unwrap();
    std::fs::set_permissions(
        root.join("scripts/run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::write(root.join("reference.md"), "# Reference\n").unwrap();
    plain_pack(&catalog(&dir), "acme.bare", "acme.bare", "Nothing else");
    let mut tui = Tui::start_at(dir, "acme.tools", 100, 40).await;
    let screen = tui.screen();
    assert!(screen.contains("files"), "{screen}");
    let run = screen
        .lines()
        .find(|l| l.contains("scripts/run.sh"))
        .unwrap();
    assert!(run.contains("19 B x"), "{run}");
    let reference = screen.lines().find(|l| l.contains("reference.md")).unwrap();
    assert!(
        reference.contains("12 B") && !reference.contains(" x"),
        "{reference}"
    );
    assert!(!screen.contains("pack.yaml"), "{screen}");
    insta::assert_snapshot!("details_files", screen);

    // Installed, the installed copy is read: the same files.
    tui.keys("i").await;
    assert!(tui.installed("acme.tools"));
    let details = hcpx::tui::ui::text_strings(&tui.runner.app, Pane::Details);
    assert!(
        details.iter().any(|l| l.contains("scripts/run.sh")),
        "{details:?}"
    );

    // A pack with no other file shows no `files` heading.
    tui.select("acme.bare").await;
    let details = hcpx::tui::ui::text_strings(&tui.runner.app, Pane::Details);
    assert!(
        details.iter().any(|l| l.contains("Nothing else")),
        "{details:?}"
    );
    assert!(!details.iter().any(|l| l == "files"), "{details:?}");
}

#[tokio::test]
async fn colon_install_of_a_collection_opens_the_picker_over_the_engines_listing() {
    let dir = sandbox();
    let source = collection(&dir);
    plain_pack(dir.path(), "one-pack", "acme.single", "One pack alone");
    let single = dir.path().join("one-pack");
    let mut tui = Tui::start(dir, 100, 30).await;

    // A folder that is one pack installs at once, no picker.
    tui.keys(&format!(":install {}", single.display())).await;
    tui.press(KeyCode::Enter).await;
    assert!(tui.installed("acme.single"), "{}", tui.screen());
    assert!(tui.runner.app.dialog().is_none(), "{}", tui.screen());

    // A collection of several: the picker, with what the engine found
    // (the hidden .curated folder too), nothing installed yet.
    tui.keys(&format!(":install {source}")).await;
    tui.press(KeyCode::Enter).await;
    assert!(
        matches!(tui.runner.app.dialog(), Some(Dialog::Picker(_))),
        "{}",
        tui.screen()
    );
    let screen = tui.screen();
    assert!(screen.contains("4 of 4 shown"), "{screen}");
    assert!(screen.contains("sheets"), "{screen}");
    assert!(!tui.installed("pdf"));
    tui.keys("sheets").await;
    tui.press(KeyCode::Enter).await;
    assert!(tui.installed("sheets"), "{}", tui.screen());
    assert!(!tui.installed("pdf") && !tui.installed("docx"));
}
