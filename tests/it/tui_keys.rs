//! The TUI's keys, driven headless: modified keys never fire a plain
//! letter's action, `Enter` and the arrows move between panes, keys that
//! cannot succeed are refused at once, the run form checks and keeps what
//! was typed, `.` reruns, `@` shows the command log, and the status line
//! lets go of a message after a few seconds (HCP.md §11.2, §14.6).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use hcpx::tui::action::Action;
use hcpx::tui::app::NOTICE_TICKS;
use hcpx::tui::dialog::Dialog;
use hcpx::tui::keys::Cmd;
use hcpx::tui::log::Outcome;
use hcpx::tui::pane::Pane;

fn alt(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
}

/// `acme.calc`: `exit` takes a required integer and an enum with a default;
/// it prints them and exits with the code.
fn calc_pack(catalog: &std::path::Path) {
    write_pack(
        catalog,
        "acme.calc",
        r#"hcp: "1"
id: acme.calc
name: Acme calc
version: 1.0.0
description: Exit with a code.
binding: {kind: local}
commands:
  - key: exit
    summary: Exit with a code
    effect: read
    args:
      - {name: code, type: integer, required: true, description: The exit code}
      - {name: mode, type: enum, values: [fast, slow], default: fast}
    adapter: {kind: process, program: sh, argv: ["-c", "echo code={code} mode={mode}; exit {code}"]}
"#,
        "---\nname: acme-calc\ndescription: Calc.\n---\nRun `exit`.\n",
    );
}

async fn ready_calc() -> Tui {
    let dir = sandbox();
    calc_pack(&catalog(&dir));
    install_connected(&dir, "acme.calc");
    Tui::start_at(dir, "acme.calc", 100, 30).await
}

#[tokio::test]
async fn ctrl_and_alt_never_fire_the_plain_letters_action() {
    let dir = sandbox_with(notes_pack);
    install_active(&dir, "acme.notes");
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    // Ctrl-U is not uninstall, Ctrl-A not deactivate, Ctrl-L not lint,
    // Alt-A not activate, Alt-X not exec, Ctrl-X not cancel.
    for event in [
        ctrl('u'),
        ctrl('a'),
        ctrl('l'),
        alt('a'),
        alt('x'),
        ctrl('x'),
        alt('u'),
    ] {
        tui.send(vec![event.clone()]).await;
        assert!(tui.runner.app.dialog().is_none(), "{event:?}");
        assert!(tui.runner.app.busy().is_none(), "{event:?}");
        assert_eq!(tui.runner.in_flight(), 0, "{event:?}");
    }
    assert!(tui.installed("acme.notes"));
    assert_eq!(tui.activated(), ["acme.notes", "hcp-cli"]);
    assert!(tui.runner.app.log().entries.is_empty(), "nothing was done");
    // The plain letter still works.
    tui.keys("a").await;
    assert_eq!(tui.activated(), ["hcp-cli"]);
}

#[tokio::test]
async fn ctrl_d_and_ctrl_u_move_half_a_page_and_ctrl_l_redraws() {
    let dir = sandbox();
    many_packs(&catalog(&dir), 60);
    let mut tui = Tui::start(dir, 100, 30).await;
    let rows = hcpx::tui::layout::browser_rows(&tui.runner.app);
    tui.send(vec![ctrl('d')]).await;
    assert_eq!(tui.runner.app.packs().selected, rows.div_ceil(2));
    tui.send(vec![ctrl('d'), ctrl('u')]).await;
    assert_eq!(tui.runner.app.packs().selected, rows.div_ceil(2));
    let before = tui.screen();
    tui.send(vec![ctrl('l')]).await;
    assert_eq!(tui.screen(), before, "the same screen, drawn again");
    assert!(tui.runner.app.dialog().is_none());
}

#[tokio::test]
async fn enter_opens_a_packs_commands_then_the_run_form_and_arrows_move_panes() {
    let mut tui = ready_calc().await;
    assert_eq!(tui.runner.app.focus(), Pane::Browser);
    tui.press(KeyCode::Enter).await;
    assert_eq!(tui.runner.app.focus(), Pane::Matrix);
    tui.press(KeyCode::Left).await;
    assert_eq!(tui.runner.app.focus(), Pane::Browser);
    tui.press(KeyCode::Right).await;
    assert_eq!(tui.runner.app.focus(), Pane::Matrix);
    tui.press(KeyCode::Right).await;
    assert!(tui.runner.app.focus().is_lower());
    tui.press(KeyCode::Left).await;
    tui.press(KeyCode::Right).await;
    tui.press(KeyCode::Enter).await;
    assert!(
        matches!(tui.runner.app.dialog(), Some(Dialog::ExecForm(_))),
        "{}",
        tui.screen()
    );
}

#[tokio::test]
async fn the_run_form_checks_before_running_and_keeps_what_was_typed() {
    let mut tui = ready_calc().await;
    tui.keys("x").await;
    // Empty required field: the form stays and says so in its words.
    tui.press(KeyCode::Enter).await;
    assert!(matches!(tui.runner.app.dialog(), Some(Dialog::ExecForm(_))));
    assert!(
        tui.screen().contains("code is required"),
        "{}",
        tui.screen()
    );
    assert_eq!(tui.runner.in_flight(), 0);
    // Not a whole number.
    tui.keys("x1").await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert!(
        screen.contains("code takes a whole number (integer), not `x1`"),
        "{screen}"
    );
    assert!(tui.runner.app.output().is_none(), "nothing ran");
    // Fix it; choose the enum's value with → (the default, fast, slow).
    tui.send(vec![key(KeyCode::Backspace), key(KeyCode::Backspace)])
        .await;
    tui.keys("3").await;
    tui.press(KeyCode::Tab).await;
    tui.send(vec![key(KeyCode::Right), key(KeyCode::Right)])
        .await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert!(screen.contains("code=3 mode=slow"), "{screen}");
    assert!(screen.contains("exit 3"), "{screen}");
    // The run failed; the form opens again with what was typed.
    tui.keys("x").await;
    let Some(Dialog::ExecForm(form)) = tui.runner.app.dialog() else {
        panic!("no form: {}", tui.screen());
    };
    assert_eq!(form.values(), ["3", "slow"]);
    tui.press(KeyCode::Esc).await;
}

#[tokio::test]
async fn dot_reruns_the_last_command_and_the_log_lists_every_action() {
    let mut tui = ready_calc().await;
    // Nothing to rerun yet: refused at once.
    tui.keys(".").await;
    assert!(tui.screen().contains("nothing run yet"), "{}", tui.screen());
    tui.keys("x0").await;
    tui.press(KeyCode::Enter).await;
    assert!(tui.screen().contains("code=0 mode="), "{}", tui.screen());
    tui.keys(".").await;
    let execs: Vec<_> = tui
        .runner
        .app
        .log()
        .entries
        .iter()
        .filter(|e| e.outcome == Outcome::Done)
        .map(|e| e.command.clone().unwrap())
        .collect();
    assert_eq!(
        execs,
        [
            "hcpx exec acme.calc exit -- code=0",
            "hcpx exec acme.calc exit -- code=0"
        ]
    );
    // `@` shows the log, with each command line and its result.
    tui.keys("lr@").await;
    assert_eq!(tui.runner.app.focus(), Pane::Log);
    let screen = tui.screen();
    assert!(screen.contains("refused nothing run yet"), "{screen}");
    assert!(
        screen.contains("$ hcpx exec acme.calc exit -- code=0"),
        "{screen}"
    );
    assert!(screen.contains("done lint: 0 errors and"), "{screen}");
    assert!(screen.contains("$ hcpx lint "), "{screen}");
    assert!(screen.contains("done reloaded: 2 packs"), "{screen}");
    assert!(screen.contains("$ hcpx list"), "{screen}");
}

#[tokio::test]
async fn the_status_line_lets_go_of_a_message_the_log_keeps_it() {
    let mut tui = ready_calc().await;
    tui.keys("u").await;
    tui.keys("n").await;
    assert!(tui.screen().contains("uninstall cancelled"));
    for _ in 0..=NOTICE_TICKS {
        tui.runner.dispatch(Action::Tick);
    }
    tui.runner.settle().await.unwrap();
    let screen = tui.screen();
    assert!(!screen.contains("uninstall cancelled"), "{screen}");
    assert!(screen.contains("principal user"), "{screen}");
    let last = tui.runner.app.log().entries.last().unwrap();
    assert_eq!(last.outcome, Outcome::Cancelled);
    assert_eq!(last.command.as_deref(), Some("hcpx uninstall acme.calc"));
}

#[tokio::test]
async fn the_key_bar_greys_what_cannot_run_and_shows_cancel_only_while_running() {
    let dir = sandbox_with(notes_pack);
    let tui = Tui::start_at(dir, "acme.notes", 140, 30).await;
    let app = &tui.runner.app;
    assert!(app.command_info(Cmd::Install).enabled.is_ok());
    let why = app.command_info(Cmd::Uninstall).enabled.unwrap_err();
    assert_eq!(
        why,
        "acme.notes is not installed; there is nothing to uninstall"
    );
    assert!(!app.command_info(Cmd::Cancel).available);
    // On screen: `u uninstall` is drawn greyed, `i install` is not.
    let buffer = tui.runner.terminal.backend().buffer().clone();
    let bar = buffer.area.height - 1;
    let style_of = |word: &str| {
        let line: String = (0..buffer.area.width)
            .map(|x| buffer[(x, bar)].symbol().to_string())
            .collect();
        let at = line
            .find(word)
            .unwrap_or_else(|| panic!("{word} in {line}"));
        let column = line[..at].chars().count() as u16;
        buffer[(column, bar)].fg
    };
    assert_ne!(style_of("uninstall"), style_of("install"));
    let screen = tui.screen();
    let bar_line = screen.lines().nth(bar as usize).unwrap();
    assert!(!bar_line.contains("X cancel"), "{bar_line}");
}

#[tokio::test]
async fn c_on_an_env_pack_names_the_missing_variables_and_how_to_set_them() {
    let dir = sandbox();
    one_command_pack(
        &catalog(&dir),
        "acme.envy",
        ("Envy", "Reads the environment."),
        "{kind: env, env: [HCPX_TEST_NEVER_SET_A, HCPX_TEST_NEVER_SET_B]}",
        "go",
        "true",
    );
    install_active(&dir, "acme.envy");
    let mut tui = Tui::start_at(dir, "acme.envy", 140, 30).await;
    tui.keys("c").await;
    assert!(tui.runner.app.dialog().is_none());
    assert_eq!(tui.runner.in_flight(), 0);
    let said = &tui.runner.app.log().entries.last().unwrap().text;
    assert!(
        said.contains("HCPX_TEST_NEVER_SET_A, HCPX_TEST_NEVER_SET_B"),
        "{said}"
    );
    assert!(said.contains("press e to set them"), "{said}");
    assert!(!tui.connected().contains(&"acme.envy".to_string()));
}

#[tokio::test]
async fn a_catalog_folder_that_does_not_exist_is_a_warning_and_an_empty_tui_says_how_to_add_packs()
{
    use hcpx::engine::ops::Engine;
    use hcpx::tui::{App, Runner, run_headless};
    use ratatui::{Terminal, backend::TestBackend};
    let dir = sandbox();
    let missing = dir.path().join("no-such-catalog");
    let engine = Engine::open(&home(&dir), std::slice::from_ref(&missing), "user").unwrap();
    let terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut runner = Runner::new(engine, App::new(config()), terminal);
    run_headless(&mut runner, []).await.unwrap();
    let screen = screen(runner.terminal.backend());
    assert!(screen.contains("warning: catalog"), "{screen}");
    assert!(screen.contains("is not a folder"), "{screen}");
    assert!(
        screen.contains("hcp-cli"),
        "the store still shows: {screen}"
    );
    assert!(screen.contains("--catalog DIR"), "{screen}");
    assert_eq!(runner.app.log().entries[0].outcome, Outcome::Warning);
}

#[tokio::test]
async fn slash_in_a_text_pane_searches_it_and_n_goes_to_the_next_match() {
    let mut tui = Tui::start(sandbox(), 100, 30).await;
    tui.select("hcp-cli").await;
    // Details: the bootstrap pack's long Skill.
    tui.send(vec![key(KeyCode::Tab), key(KeyCode::Tab)]).await;
    assert_eq!(tui.runner.app.focus(), Pane::Details);
    tui.keys("/uninstall").await;
    assert!(tui.screen().contains("/uninstall▏"), "{}", tui.screen());
    tui.press(KeyCode::Enter).await;
    let first = tui.runner.app.text().details;
    let screen = tui.screen();
    assert!(screen.contains("`uninstall`: match 1 of"), "{screen}");
    tui.keys("n").await;
    assert!(tui.screen().contains("match 2 of"), "{}", tui.screen());
    assert!(tui.runner.app.text().details >= first);
    tui.keys("N").await;
    assert!(tui.screen().contains("match 1 of"), "{}", tui.screen());
    // The pack filter was not touched.
    assert_eq!(tui.runner.app.packs().filter.query, "hcp-cli");
    // No match: said, nothing moves.
    tui.keys("/zzqx").await;
    tui.press(KeyCode::Enter).await;
    assert!(tui.screen().contains("no line matches `zzqx`"));
    // Esc ends the search, then clears the pack filter and goes back to
    // Packs, where `/` filters again.
    tui.press(KeyCode::Esc).await;
    assert!(tui.runner.app.search().query.is_empty());
    assert_eq!(tui.runner.app.focus(), Pane::Details);
    tui.press(KeyCode::Esc).await;
    assert_eq!(tui.runner.app.focus(), Pane::Browser);
    assert_eq!(tui.runner.app.packs().filter.query, "");
    tui.keys("/hcp").await;
    assert_eq!(tui.runner.app.packs().filter.query, "hcp");
}

#[tokio::test]
async fn capital_g_in_a_text_pane_shows_its_last_full_page() {
    let mut tui = Tui::start(sandbox(), 100, 30).await;
    tui.select("hcp-cli").await;
    tui.send(vec![key(KeyCode::Tab), key(KeyCode::Tab)]).await;
    tui.keys("G").await;
    let app = &tui.runner.app;
    let total = hcpx::tui::ui::text_lines(app, Pane::Details);
    let rows = hcpx::tui::layout::text_rows(app);
    assert!(total > rows);
    assert_eq!(app.text().details as usize, total - rows);
    // A full page: the last line is on the pane's last row.
    let screen = tui.screen();
    let strings = hcpx::tui::ui::text_strings(app, Pane::Details);
    let last = strings.iter().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert!(screen.contains(last.trim()), "{screen}");
    // `k` then moves up at once (the offset never runs past the end).
    tui.keys("jjjk").await;
    assert_eq!(tui.runner.app.text().details as usize, total - rows - 1);
}

#[tokio::test]
async fn w_switches_between_wrapping_long_output_lines_and_cutting_them() {
    let dir = sandbox_with(notes_pack);
    install_connected(&dir, "acme.notes");
    let mut tui = Tui::start_at(dir, "acme.notes", 100, 30).await;
    tui.keys("x").await;
    tui.keys(&"y".repeat(150)).await;
    tui.press(KeyCode::Enter).await;
    let rows_with_ys = |screen: &str| {
        screen
            .lines()
            .filter(|l| l.contains("yyyyyyyyyyyyyyyyyyyy"))
            .count()
    };
    // Wrapped: the stdout line and the command line take several rows each.
    let wrapped = rows_with_ys(&tui.screen());
    assert!(wrapped >= 4, "{}", tui.screen());
    tui.keys("w").await;
    let cut = rows_with_ys(&tui.screen());
    assert_eq!(cut, 2, "one row each: {}", tui.screen());
    tui.keys("w").await;
    assert_eq!(rows_with_ys(&tui.screen()), wrapped);
}

#[tokio::test]
async fn the_colon_line_runs_hcpx_subcommands_with_tab_completion() {
    let dir = sandbox_with(notes_pack);
    let mut tui = Tui::start(dir, 100, 30).await;
    // `:ins⇥acme.n⇥` completes to `install acme.notes `.
    tui.keys(":ins").await;
    tui.press(KeyCode::Tab).await;
    tui.keys("acme.n").await;
    tui.press(KeyCode::Tab).await;
    assert_eq!(tui.runner.app.cmdline().input, "install acme.notes ");
    assert!(
        tui.screen().contains(":install acme.notes"),
        "{}",
        tui.screen()
    );
    tui.press(KeyCode::Enter).await;
    assert!(tui.installed("acme.notes"), "{}", tui.screen());
    tui.keys(":activate acme.notes").await;
    tui.press(KeyCode::Enter).await;
    tui.keys(":connect acme.notes").await;
    tui.press(KeyCode::Enter).await;
    assert!(tui.connected().contains(&"acme.notes".to_string()));
    // exec: the verb completes from the pack's commands.
    tui.keys(":exec acme.notes he").await;
    tui.press(KeyCode::Tab).await;
    assert_eq!(tui.runner.app.cmdline().input, "exec acme.notes hello ");
    tui.keys("-- 'who=big world'").await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert!(screen.contains("hello big world"), "{screen}");
    assert!(
        screen.contains("$ hcpx exec acme.notes hello -- 'who=big world'"),
        "{screen}"
    );
    // grant: the engine's grant, in the log with its command.
    tui.keys(":grant agent verb.exec.read").await;
    tui.press(KeyCode::Enter).await;
    let state = std::fs::read_to_string(tui.home().join("state.json")).unwrap();
    assert!(state.contains("agent"), "{state}");
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Done, "{last:?}");
    assert_eq!(
        last.command.as_deref(),
        Some("hcpx grant agent verb.exec.read")
    );
    // A word that is not a subcommand, an unknown pack: refused, said.
    tui.keys(":frob").await;
    tui.press(KeyCode::Enter).await;
    // clap's own words, as `hcpx frob` says them.
    assert!(tui.screen().contains("unrecognized subcommand 'frob'"));
    tui.keys(":activate acme.nope").await;
    tui.press(KeyCode::Enter).await;
    assert!(tui.screen().contains("no pack `acme.nope`"));
    // A hostile id goes to the engine, which refuses it (§3.2); the
    // terminal sees no control character.
    tui.keys(":exec ../../etc\u{1b}[2J x").await;
    tui.press(KeyCode::Enter).await;
    let last = tui.runner.app.log().entries.last().unwrap().clone();
    assert_eq!(last.outcome, Outcome::Failed, "{last:?}");
    assert!(!tui.screen().contains('\u{1b}'));
    tui.press(KeyCode::Left).await;
    // Esc leaves the line without running anything.
    tui.keys(":uninstall acme.notes").await;
    tui.press(KeyCode::Esc).await;
    assert!(tui.installed("acme.notes"));
    assert!(!tui.runner.app.cmdline().editing);
}
