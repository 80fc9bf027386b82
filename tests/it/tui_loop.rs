//! The TUI's app loop driven headless with key events, checked against the
//! store on disk: every key calls the engine function its `hcpx`
//! subcommand calls (HCP.md §11.1, §8.5).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::{Event, KeyCode};
use hcpx::tui::action::Action;
use hcpx::tui::dialog::Dialog;
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Mutex};

const SECRET: &str = "s3cret-Token-42";

/// Log lines written during the tests of this file.
pub(crate) fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: std::sync::OnceLock<Arc<Mutex<Vec<u8>>>> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&logs);
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || SharedWriter(Arc::clone(&sink)))
            .finish();
        let _ = tracing::subscriber::set_global_default(subscriber);
        logs
    })
    .clone()
}

struct SharedWriter(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn keys_install_activate_connect_deactivate_and_uninstall_change_the_store() {
    let logs = captured_logs();
    let dir = sandbox_with(notes_pack);
    vault_pack(&catalog(&dir));
    let mut tui = Tui::start(dir, 100, 30).await;

    // A local-binding pack: install, activate, connect (its probe runs).
    tui.select("acme.notes").await;
    tui.keys("i").await;
    assert!(tui.installed("acme.notes"), "{}", tui.screen());
    tui.keys("a").await;
    assert_eq!(tui.activated(), ["acme.notes", "hcp-cli"]);
    assert!(tui.home().join("skills/acme.notes/SKILL.md").is_file());
    tui.keys("c").await;
    assert_eq!(tui.connected(), ["acme.notes", "hcp-cli"]);
    assert!(tui.screen().contains("$ hcpx connect acme.notes"));

    // A secret-binding pack: the masked input takes the secret.
    tui.select("acme.vault").await;
    tui.keys("ia").await;
    tui.keys("c").await;
    assert!(matches!(tui.runner.app.dialog(), Some(Dialog::Secret(_))));
    tui.keys(SECRET).await;
    assert!(!tui.screen().contains(SECRET), "{}", tui.screen());
    assert!(tui.screen().contains(&"•".repeat(SECRET.len())));
    tui.press(KeyCode::Enter).await;
    let secret = tui.home().join("secrets/acme.vault");
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), SECRET);
    let mode = std::fs::metadata(&secret).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(tui.connected().contains(&"acme.vault".to_string()));
    let screen = tui.screen();
    assert!(!screen.contains(SECRET), "{screen}");
    assert!(
        screen.contains("connected acme.vault (secret binding)"),
        "{screen}"
    );
    // Gone from every pane's state, the command log, and the log file.
    assert!(tui.runner.app.dialog().is_none());
    for entry in &tui.runner.app.log().entries {
        let line = format!("{entry:?}");
        assert!(!line.contains(SECRET), "{line}");
    }
    tui.keys("@").await;
    assert!(!tui.screen().contains(SECRET));
    assert!(
        tui.screen().contains("$ hcpx connect acme.vault"),
        "{}",
        tui.screen()
    );
    tui.press(KeyCode::Left).await;
    let log = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(log.contains("stage=\"connect\""), "{log}");
    assert!(!log.contains(SECRET), "{log}");

    // Deactivate drops activation and connection: it asks first.
    tui.keys("ay").await;
    assert_eq!(tui.activated(), ["acme.notes", "hcp-cli"]);
    assert!(!tui.connected().contains(&"acme.vault".to_string()));

    // Uninstall: `n` keeps it, `y` removes it with its secret.
    tui.keys("un").await;
    assert!(tui.installed("acme.vault"));
    assert!(tui.screen().contains("uninstall cancelled"));
    tui.keys("uy").await;
    assert!(!tui.installed("acme.vault"), "{}", tui.screen());
    assert!(!secret.exists());
    assert!(tui.screen().contains("$ hcpx uninstall acme.vault"));
    // The pack is still in the catalog, so it stays in the browser.
    assert!(tui.screen().contains("○ available"));
}

#[tokio::test]
async fn cancelling_the_secret_input_records_nothing() {
    let dir = sandbox_with(vault_pack);
    let mut tui = Tui::start_at(dir, "acme.vault", 100, 30).await;
    tui.keys("iac").await;
    tui.keys("abc").await;
    tui.press(KeyCode::Esc).await;
    assert!(!tui.home().join("secrets/acme.vault").exists());
    assert!(!tui.connected().contains(&"acme.vault".to_string()));
    let screen = tui.screen();
    assert!(screen.contains("cancelled"), "{screen}");
    assert_eq!(tui.runner.in_flight(), 0);
}

#[tokio::test]
async fn quitting_while_the_secret_input_is_open_cancels_the_connect() {
    let dir = sandbox_with(vault_pack);
    let mut tui = Tui::start_at(dir, "acme.vault", 100, 30).await;
    tui.keys("iac").await;
    tui.keys("abc").await;
    tui.send(vec![ctrl('c')]).await;
    assert!(tui.runner.app.has_quit());
    // The waiting worker gets the cancellation and finishes.
    tui.runner.settle().await.unwrap();
    assert_eq!(tui.runner.in_flight(), 0);
    assert!(!tui.home().join("secrets/acme.vault").exists());
}

#[tokio::test]
async fn marked_packs_are_installed_and_activated_together() {
    let dir = sandbox_with(notes_pack);
    vault_pack(&catalog(&dir));
    mixed_pack(&catalog(&dir));
    let mut tui = Tui::start(dir, 100, 30).await;
    // Sorted by id: acme.mixed, acme.notes, acme.vault, hcp-cli.
    tui.keys(" j ").await;
    assert_eq!(tui.runner.app.packs().marked.len(), 2);
    tui.keys("i").await;
    assert!(tui.installed("acme.mixed") && tui.installed("acme.vault"));
    assert!(!tui.installed("acme.notes"));
    tui.keys("a").await;
    assert_eq!(tui.activated(), ["acme.mixed", "acme.vault", "hcp-cli"]);
    assert!(
        tui.screen()
            .contains("$ hcpx activate acme.mixed acme.vault")
    );
    tui.press(KeyCode::Esc).await;
    assert!(tui.runner.app.packs().marked.is_empty());
}

#[tokio::test]
async fn an_action_that_cannot_succeed_is_refused_at_once_without_a_dialog() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start(dir, 100, 30).await;
    // The bootstrap pack: `u` asks nothing and says why.
    tui.select("hcp-cli").await;
    tui.keys("u").await;
    assert!(tui.runner.app.dialog().is_none());
    let screen = tui.screen();
    assert!(screen.contains("bootstrap_protected"), "{screen}");
    assert!(screen.contains("deactivate it instead"), "{screen}");
    assert!(tui.installed("hcp-cli"));
    // A catalog pack: `u`, `x`, `a` and `c` need it installed; no form,
    // no y/n, nothing runs.
    tui.select("acme.notes").await;
    for key in ["u", "x", "a", "c"] {
        tui.keys(key).await;
        assert!(tui.runner.app.dialog().is_none(), "{key}");
        assert_eq!(tui.runner.in_flight(), 0, "{key}");
        let screen = tui.screen();
        assert!(
            screen.contains("acme.notes is not installed"),
            "{key}: {screen}"
        );
    }
    assert!(!tui.installed("acme.notes"));
    // Each refusal is in the command log.
    let refused = tui
        .runner
        .app
        .log()
        .entries
        .iter()
        .filter(|e| e.outcome == hcpx::tui::log::Outcome::Refused)
        .count();
    assert_eq!(refused, 5);
}

#[tokio::test]
async fn changes_another_process_makes_appear_on_the_next_poll() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    assert!(tui.screen().contains("○ available"));
    // Another hcpx process installs and activates the pack.
    let other = tui.engine();
    other.install("acme.notes", false).unwrap();
    other.activate(&[pack("acme.notes")]);
    // Nothing changes until the tick polls the store (every tenth tick).
    for _ in 0..9 {
        tui.runner.dispatch(Action::Tick);
    }
    tui.runner.settle().await.unwrap();
    assert!(tui.screen().contains("○ available"));
    tui.runner.dispatch(Action::Tick);
    tui.runner.settle().await.unwrap();
    let screen = tui.screen();
    assert!(screen.contains("◐ activated"), "{screen}");
}

#[tokio::test]
async fn a_corrupt_state_is_reported_in_words_and_r_retries() {
    let dir = sandbox();
    let home = home(&dir);
    engine(&dir); // create the store
    std::fs::write(home.join("state.json"), "{not json").unwrap();
    let mut tui = Tui::start(dir, 100, 30).await;
    let screen = tui.screen();
    assert!(screen.contains("cannot read the store"), "{screen}");
    assert!(screen.contains("store_corrupt"), "{screen}");
    std::fs::write(
        home.join("state.json"),
        r#"{"activated": [], "connected": []}"#,
    )
    .unwrap();
    tui.keys("r").await;
    let screen = tui.screen();
    assert!(screen.contains("hcp-cli"), "{screen}");
    assert!(!screen.contains("store_corrupt"), "{screen}");
}

#[tokio::test]
async fn s_cycles_the_sort_by_id_status_and_version() {
    let dir = sandbox();
    many_packs(&catalog(&dir), 3);
    notes_pack(&catalog(&dir));
    let mut tui = Tui::start(dir, 100, 30).await;
    let order = |tui: &Tui| -> Vec<String> {
        let app = &tui.runner.app;
        app.packs()
            .visible
            .iter()
            .map(|&i| app.packs().entries[i].id().to_string())
            .collect()
    };
    assert_eq!(
        order(&tui),
        [
            "acme.notes",
            "bulk.pack-000",
            "bulk.pack-001",
            "bulk.pack-002",
            "hcp-cli"
        ]
    );
    tui.keys("s").await;
    assert!(tui.screen().contains("sort status"));
    assert_eq!(order(&tui)[0], "hcp-cli");
    tui.keys("s").await;
    assert_eq!(
        order(&tui),
        [
            "acme.notes",
            "bulk.pack-002",
            "bulk.pack-001",
            "bulk.pack-000",
            "hcp-cli"
        ]
    );
    tui.keys("s").await;
    assert!(tui.screen().contains("sort id"));
}

#[tokio::test]
async fn mouse_clicks_select_rows_panes_and_tabs() {
    let dir = sandbox();
    many_packs(&catalog(&dir), 5);
    let mut tui = Tui::start(dir, 100, 30).await;
    // Row 0 is the border, row 1 the header: row 4 is the third pack.
    tui.click(5, 4).await;
    assert_eq!(tui.runner.app.selected_row().unwrap().id(), "bulk.pack-002");
    // The Lint tab's title on the lower pane's top border.
    let areas = hcpx::tui::layout::areas(&tui.runner.app).unwrap();
    let (_, x, _) = hcpx::tui::layout::lower_tabs(areas.lower)[1];
    tui.click(x + 1, areas.lower.y).await;
    assert_eq!(tui.runner.app.lower(), hcpx::tui::pane::Pane::Lint);
    assert!(tui.screen().contains("bulk.pack-002 is clean"));
    // A click in the matrix focuses it.
    tui.click(areas.matrix.x + 3, areas.matrix.y + 2).await;
    assert_eq!(tui.runner.app.focus(), hcpx::tui::pane::Pane::Matrix);
}

#[tokio::test]
async fn the_select_loop_draws_handles_workers_and_quits_on_q() {
    let dir = sandbox_with(notes_pack);
    let backend = WatchedBackend::new(100, 30);
    let shown = backend.shown();
    let terminal = ratatui::Terminal::new(backend).unwrap();
    let mut runner = hcpx::tui::Runner::new(engine(&dir), hcpx::tui::App::new(config()), terminal);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<std::io::Result<Event>>();
    let events = Box::pin(futures::stream::poll_fn(move |cx| rx.poll_recv(cx)));
    let keys = async move {
        // No key until the loop, waiting for one, has taken the worker's
        // snapshot and drawn the list.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let frame = shown.lock().unwrap().clone();
            if frame.contains("acme.notes") && !frame.contains("loading…") {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the loop never drew the snapshot; last frame:\n{frame}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        tx.send(Ok(key(KeyCode::Char('j')))).unwrap();
        tx.send(Ok(key(KeyCode::Char('q')))).unwrap();
        tx
    };
    let (result, _tx) = tokio::join!(runner.run(events), keys);
    result.unwrap();
    assert!(runner.app.has_quit());
    assert!(
        runner.app.loaded(),
        "the snapshot arrived while the loop ran"
    );
    assert!(runner.frames >= 2, "frames: {}", runner.frames);
    assert_eq!(runner.app.selected_row().unwrap().id(), "hcp-cli");
    assert!(screen(runner.terminal.backend().inner()).contains("hcp-cli"));
}

#[tokio::test]
async fn uninstalling_a_pack_in_no_catalog_removes_its_row() {
    let dir = sandbox();
    let elsewhere = dir.path().join("elsewhere");
    notes_pack(&elsewhere);
    engine(&dir)
        .install(elsewhere.join("acme.notes").to_str().unwrap(), false)
        .unwrap();
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    tui.keys("uy").await;
    assert!(!tui.installed("acme.notes"));
    assert_eq!(
        tui.runner.app.packs().entries.len(),
        1,
        "only hcp-cli is left"
    );
    assert!(tui.screen().contains("no pack matches `acme.notes`"));
    tui.press(KeyCode::Esc).await;
    assert_eq!(tui.runner.app.selected_row().unwrap().id(), "hcp-cli");
}
