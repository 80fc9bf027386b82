//! `U` (HCP.md §13.7): a dry run computes the capability diff, the dialog
//! shows it with escalations highlighted, `y` upgrades as
//! `hcpx upgrade ID --yes`, `n` keeps the installed version.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::tuikit::*;
use hcpx::tui::dialog::Dialog;
use hcpx::tui::log::Outcome;

/// `acme.notes` 1.2.0 installed from the catalog; the catalog then has
/// 1.3.0 with a new `write` command running `rm`: an escalation.
async fn notes_with_an_escalating_update() -> Tui {
    let dir = notes_with_an_update(sandbox());
    Tui::start_at(dir, "acme.notes", 110, 32).await
}

#[tokio::test]
async fn u_shows_the_capability_diff_and_y_upgrades() {
    let mut tui = notes_with_an_escalating_update().await;
    tui.keys("U").await;
    assert!(
        matches!(tui.runner.app.dialog(), Some(Dialog::ConfirmUpgrade { .. })),
        "{}",
        tui.screen()
    );
    let screen = tui.screen();
    assert!(screen.contains("acme.notes 1.2.0 → 1.3.0"), "{screen}");
    assert!(screen.contains("▲ new command wipe (write)"), "{screen}");
    assert!(screen.contains("▲ runs the program rm"), "{screen}");
    assert_eq!(
        common::installed_version(&tui.home(), "acme.notes"),
        "1.2.0",
        "the dry run changes nothing"
    );
    insta::assert_snapshot!("upgrade_confirm_escalation", screen);

    tui.keys("y").await;
    assert!(tui.runner.app.dialog().is_none());
    assert_eq!(
        common::installed_version(&tui.home(), "acme.notes"),
        "1.3.0"
    );
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Done, "{last:?}");
    assert_eq!(
        last.command.as_deref(),
        Some("hcpx upgrade acme.notes --yes")
    );
    // `hcpx upgrade acme.notes --yes`'s words, their lines joined.
    assert_eq!(
        last.text,
        "upgraded acme.notes 1.2.0 -> 1.3.0; + command_added effect=write verb_key=wipe; \
         + program_added program=rm",
        "{last:?}"
    );
}

#[tokio::test]
async fn n_keeps_the_installed_version() {
    let mut tui = notes_with_an_escalating_update().await;
    tui.keys("U").await;
    tui.keys("n").await;
    assert!(tui.runner.app.dialog().is_none());
    assert_eq!(
        common::installed_version(&tui.home(), "acme.notes"),
        "1.2.0"
    );
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Cancelled, "{last:?}");
}

#[tokio::test]
async fn a_diff_that_changes_after_it_was_shown_is_shown_again() {
    let mut tui = notes_with_an_escalating_update().await;
    tui.keys("U").await;
    // The catalog moves on to 1.4.0 while the dialog is open.
    let manifest = tui.catalog().join("acme.notes/pack.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("version: 1.3.0", "version: 1.4.0")).unwrap();
    tui.keys("y").await;
    assert_eq!(
        common::installed_version(&tui.home(), "acme.notes"),
        "1.2.0"
    );
    assert!(
        matches!(tui.runner.app.dialog(), Some(Dialog::ConfirmUpgrade { .. })),
        "{}",
        tui.screen()
    );
    assert!(tui.screen().contains("1.2.0 → 1.4.0"), "{}", tui.screen());
}

#[tokio::test]
async fn u_on_a_pack_that_is_not_installed_is_refused_at_once() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 110, 32).await;
    tui.keys("U").await;
    assert_eq!(tui.runner.in_flight(), 0);
    assert!(tui.runner.app.dialog().is_none());
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Refused, "{last:?}");
}

/// `U` on a pack that has nothing to upgrade says so in the words of
/// `hcpx upgrade ID --dry-run`, under that command, with no dialog.
#[tokio::test]
async fn u_on_an_up_to_date_pack_says_the_clis_words() {
    let dir = sandbox_with(notes_pack);
    engine(&dir).install("acme.notes", false).unwrap();
    let mut tui = Tui::start_at(dir, "acme.notes", 110, 32).await;
    tui.keys("U").await;
    assert!(tui.runner.app.dialog().is_none(), "{}", tui.screen());
    let report = tui.runner.app.report().expect("the dry run's answer");
    assert_eq!(report.text, "every pack is up to date\n", "{report:?}");
    assert!(
        report.command.ends_with("upgrade acme.notes --dry-run"),
        "{report:?}"
    );
}

/// The catalog's acme.notes edited at the same version 1.2.0: one more
/// Skill line and a new executable `scripts/x.sh`. `o` marks it `↑` as new
/// content; `U` shows the content diff, the new executable file as an
/// escalation (▲), and `y` installs it.
#[tokio::test]
async fn a_content_update_is_marked_and_its_file_changes_shown() {
    let dir = sandbox_with(notes_pack);
    engine(&dir).install("acme.notes", false).unwrap();
    let pack = catalog(&dir).join("acme.notes");
    let skill = std::fs::read_to_string(pack.join("SKILL.md")).unwrap();
    std::fs::write(pack.join("SKILL.md"), skill + "One more line.\n").unwrap();
    std::fs::create_dir_all(pack.join("scripts")).unwrap();
    std::fs::write(pack.join("scripts/x.sh"), "#!/bin/sh\necho x\n").unwrap();
    common::make_executable(&pack.join("scripts/x.sh"));
    let mut tui = Tui::start_at(dir, "acme.notes", 110, 32).await;
    tui.keys("o").await;
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert!(
        last.text.contains("acme.notes 1.2.0 new content"),
        "{last:?}"
    );
    assert!(
        tui.screen().contains("new content (1.2.0) is out"),
        "{}",
        tui.screen()
    );

    tui.keys("U").await;
    let screen = tui.screen();
    assert!(screen.contains("acme.notes 1.2.0: new content"), "{screen}");
    assert!(screen.contains("Skill changed: +1 −0 lines"), "{screen}");
    assert!(
        screen.contains("▲ new file scripts/x.sh (executable)"),
        "{screen}"
    );
    tui.keys("y").await;
    assert!(tui.runner.app.dialog().is_none());
    assert!(tui.home().join("packs/acme.notes/scripts/x.sh").exists());
}
