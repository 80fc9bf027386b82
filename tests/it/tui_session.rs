//! The TUI's session settings and fresh views, driven headless: `P` and
//! `:principal` switch the principal (HCP.md §9.1) and the matrix, fixes
//! and keys follow it; `e` sets an `env` Binding's variable from a masked
//! input (§8.3) so `c` connects without a relaunch, the value never shown
//! or logged; the matrix names every unmet condition (§11.3); `/` finds
//! packs by name, description, commands and Skill; `:catalog add` and
//! `:install PATH` show at once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::tuikit::*;
use crossterm::event::KeyCode;
use hcpx::tui::dialog::Dialog;

const TOKEN: &str = "env-V4lue-9137";

/// `ops` holds `*`; `agent` may read and connect, not write.
fn grant_agent_read(dir: &tempfile::TempDir) {
    let engine = engine(dir);
    grant(&engine, "ops", "*").unwrap();
    let ops = hcpx::engine::Engine::open(&home(dir), &[], "ops").unwrap();
    grant(&ops, "agent", "verb.exec.read").unwrap();
    grant(&ops, "agent", "pack.connect").unwrap();
}

#[tokio::test]
async fn p_switches_the_principal_and_the_matrix_greys_write_without_offering_the_grant_as_a_key() {
    let dir = sandbox_with(notes_pack);
    install_connected(&dir, "acme.notes");
    grant_agent_read(&dir);
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 34).await;
    // `user`, who set the grants up, holds `*`.
    assert!(tui.screen().contains("principal user"), "{}", tui.screen());

    tui.keys("P").await;
    assert!(matches!(tui.runner.app.dialog(), Some(Dialog::Ask(_))));
    tui.keys("agent").await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert!(
        screen.contains("Availability acme.notes · principal agent"),
        "{screen}"
    );
    assert_eq!(tui.runner.app.principal(), "agent");

    // `hello` (read) runs; `add` (write) is greyed, and its fix says who
    // can grant it instead of a key or a command agent would be refused.
    tui.press(KeyCode::Tab).await;
    tui.keys("j").await;
    let screen = tui.screen();
    assert!(
        screen.contains("✗ grant: principal `agent` does not hold `verb.exec.write`"),
        "{screen}"
    );
    assert!(
        screen.contains("ask a holder of `*` to run hcpx grant agent"),
        "{screen}"
    );
    tui.keys("x").await;
    assert!(
        tui.runner.app.dialog().is_none(),
        "x opened a form: {}",
        tui.screen()
    );
    let said = &tui.runner.app.log().entries.last().unwrap().text;
    assert!(said.contains("cannot run acme.notes add"), "{said}");
    assert!(said.contains("ask a holder of `*`"), "{said}");
    assert!(!said.contains("press"), "{said}");
    // Installing needs `pack.install`, which agent lacks: `u` says so.
    tui.keys("u").await;
    assert!(tui.runner.app.dialog().is_none());
    let said = &tui.runner.app.log().entries.last().unwrap().text;
    assert!(said.contains("does not hold `pack.install`"), "{said}");

    // `:principal ops` (who holds `*`): `add` is executable now.
    tui.keys(":principal ops").await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert!(screen.contains("principal ops"), "{screen}");
    assert!(
        screen.contains("acme.notes add is executable for `ops`"),
        "{screen}"
    );

    // A name outside the §9.1 grammar is refused; the principal stays.
    tui.keys("P").await;
    tui.keys("bad name").await;
    tui.press(KeyCode::Enter).await;
    assert_eq!(tui.runner.app.principal(), "ops");
    let said = &tui.runner.app.log().entries.last().unwrap().text;
    assert!(said.contains("is not a principal name"), "{said}");
}

#[tokio::test]
async fn the_status_line_says_where_the_principals_grants_come_from_and_p_says_what_it_may_do() {
    let dir = sandbox_with(notes_pack);
    install_connected(&dir, "acme.notes");
    let mut tui = Tui::start_at(dir, "acme.notes", 120, 34).await;
    // No grants in the store: the defaults (HCP.md §9.3).
    let screen = tui.screen();
    assert!(
        screen.contains("principal user (default grants)"),
        "{screen}"
    );

    tui.keys("P").await;
    tui.keys("agent").await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert!(
        screen.contains("agent: read commands only (default grants)"),
        "{screen}"
    );
    // `add` (write) is greyed for agent under the defaults.
    tui.press(KeyCode::Tab).await;
    tui.keys("j").await;
    let screen = tui.screen();
    assert!(
        screen.contains("✗ grant: principal `agent` does not hold `verb.exec.write`"),
        "{screen}"
    );
}

/// `acme.envy`: an `env` Binding on one variable; `show` prints it.
/// `acme.copycat` declares the same variable.
fn env_pack(catalog: &std::path::Path) {
    one_command_pack(
        catalog,
        "acme.copycat",
        ("Copycat", "Wants the same variable."),
        "{kind: env, env: [HCPX_TEST_SESSION_ENV_TOKEN]}",
        "grab",
        "true",
    );
    write_pack(
        catalog,
        "acme.envy",
        r#"hcp: "1"
id: acme.envy
name: Envy
version: 1.0.0
description: Reads a token from the environment.
binding: {kind: env, env: [HCPX_TEST_SESSION_ENV_TOKEN]}
commands:
  - key: show
    summary: Print the token
    effect: read
    adapter: {kind: process, program: printenv, argv: ["HCPX_TEST_SESSION_ENV_TOKEN"]}
"#,
        "---\nname: acme-envy\ndescription: Env.\n---\nRun `show`.\n",
    );
}

#[tokio::test]
async fn e_sets_an_env_variable_masked_and_c_then_x_use_it_without_showing_or_logging_it() {
    let logs = crate::tui_loop::captured_logs();
    let dir = sandbox_with(env_pack);
    install_active(&dir, "acme.envy");
    install_active(&dir, "acme.copycat");
    let mut tui = Tui::start_at(dir, "acme.envy", 120, 34).await;
    let info = tui.runner.app.command_info(hcpx::tui::keys::Cmd::SetEnv);
    assert!(info.available && info.enabled.is_ok(), "{info:?}");
    // The matrix offers `e` for the variable, not a `c` that would fail.
    let screen = tui.screen();
    assert!(
        screen.contains("press e to set HCPX_TEST_SESSION_ENV_TOKEN"),
        "{screen}"
    );
    tui.keys("c").await;
    let said = &tui.runner.app.log().entries.last().unwrap().text;
    assert!(said.contains("press e to set it"), "{said}");
    assert!(!tui.connected().contains(&"acme.envy".to_string()));

    tui.keys("e").await;
    tui.keys(TOKEN).await;
    let screen = tui.screen();
    assert!(
        screen.contains("Set HCPX_TEST_SESSION_ENV_TOKEN"),
        "{screen}"
    );
    assert!(screen.contains(&"•".repeat(TOKEN.len())), "{screen}");
    assert!(!screen.contains(TOKEN), "{screen}");
    let debug = format!("{:?}", tui.runner.app.dialog());
    assert!(!debug.contains(TOKEN), "{debug}");
    tui.press(KeyCode::Enter).await;
    let debug = format!("{:?}", tui.runner.app.session());
    assert!(
        debug.contains("HCPX_TEST_SESSION_ENV_TOKEN") && !debug.contains(TOKEN),
        "{debug}"
    );

    tui.keys("c").await;
    assert!(
        tui.connected().contains(&"acme.envy".to_string()),
        "{}",
        tui.screen()
    );
    // The command gets the value; its output is redacted (§14.3).
    tui.press(KeyCode::Tab).await;
    tui.keys("x").await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert!(
        screen.contains("acme.envy show: exit 0") || screen.contains("exit 0"),
        "{screen}"
    );
    assert!(!screen.contains(TOKEN), "{screen}");
    let output = format!("{:?}", tui.runner.app.output().map(|o| &o.result));
    assert!(!output.contains(TOKEN), "{output}");
    for entry in &tui.runner.app.log().entries {
        assert!(!entry.text.contains(TOKEN), "{}", entry.text);
        assert!(!entry.command.as_deref().unwrap_or("").contains(TOKEN));
    }
    let logged = String::from_utf8_lossy(&logs.lock().unwrap()).to_string();
    assert!(!logged.contains(TOKEN), "the value reached the log");
    // Another pack declaring the same variable does not get the value.
    tui.select("acme.copycat").await;
    tui.keys("c").await;
    assert!(!tui.connected().contains(&"acme.copycat".to_string()));
    let said = &tui.runner.app.log().entries.last().unwrap().text;
    assert!(said.contains("press e to set it"), "{said}");
    // Nothing of it is stored.
    let state = std::fs::read_to_string(tui.home().join("state.json")).unwrap();
    assert!(!state.contains(TOKEN));
    assert!(!tui.home().join("secrets/acme.envy").exists());
}

#[tokio::test]
async fn the_matrix_names_every_unmet_condition_of_a_command_with_each_fix() {
    let dir = sandbox();
    write_pack(
        &catalog(&dir),
        "acme.twice",
        r#"hcp: "1"
id: acme.twice
name: Twice
version: 1.0.0
description: A write that needs a program this machine lacks.
commands:
  - key: put
    summary: Put
    effect: write
    adapter: {kind: process, program: hcpx-test-no-such-program}
"#,
        "---\nname: acme-twice\ndescription: Twice.\n---\nRun `put`.\n",
    );
    // Before install: installing is said, and the adapter too.
    let tui = Tui::start_at(sandbox_copy(&dir), "acme.twice", 120, 34).await;
    let screen = tui.screen();
    assert!(screen.contains("not installed"), "{screen}");
    assert!(screen.contains("✗ adapter:"), "{screen}");
    drop(tui);

    install_active(&dir, "acme.twice");
    let engine = engine(&dir);
    grant(&engine, "ops", "*").unwrap();
    let ops = hcpx::engine::Engine::open(&home(&dir), &[], "ops").unwrap();
    grant(&ops, "user", "verb.exec.read").unwrap();
    revoke(&ops, "user", "*").unwrap();
    let mut tui = Tui::start_at(dir, "acme.twice", 120, 34).await;
    let screen = tui.screen();
    assert!(screen.contains("✗ grant:"), "{screen}");
    assert!(screen.contains("✗ adapter:"), "{screen}");
    tui.press(KeyCode::Tab).await;
    tui.keys("x").await;
    let said = &tui.runner.app.log().entries.last().unwrap().text;
    assert!(
        said.contains("verb.exec.write") && said.contains("hcpx-test-no-such-program"),
        "{said}"
    );
}

/// A second sandbox with the same catalog, for a look before a change.
fn sandbox_copy(dir: &tempfile::TempDir) -> tempfile::TempDir {
    let copy = sandbox();
    for entry in std::fs::read_dir(catalog(dir)).unwrap() {
        let entry = entry.unwrap();
        let to = catalog(&copy).join(entry.file_name());
        std::fs::create_dir_all(&to).unwrap();
        for file in std::fs::read_dir(entry.path()).unwrap() {
            let file = file.unwrap();
            std::fs::copy(file.path(), to.join(file.file_name())).unwrap();
        }
    }
    copy
}

#[tokio::test]
async fn slash_finds_a_pack_by_a_word_only_in_its_skill_and_ranks_the_id_first() {
    let dir = sandbox();
    let cat = catalog(&dir);
    one_command_pack(
        &cat,
        "acme.time",
        ("Time", "Tells the hour."),
        "{kind: public}",
        "now",
        "true",
    );
    one_command_pack(
        &cat,
        "acme.clock",
        ("Clock", "Shows the time of day."),
        "{kind: public}",
        "show",
        "true",
    );
    write_pack(
        &cat,
        "acme.watch",
        "hcp: \"1\"\nid: acme.watch\nname: Watch\nversion: 1.0.0\ndescription: A wrist thing.\ncommands:\n  - key: tick\n    summary: Tick\n    effect: read\n    adapter: {kind: process, program: \"true\"}\n",
        "---\nname: acme-watch\ndescription: Watch.\n---\nUse it like a chronograph.\n",
    );
    let mut tui = Tui::start(dir, 120, 30).await;
    tui.keys("/chronograph").await;
    let screen = tui.screen();
    assert_eq!(
        tui.runner
            .app
            .selected_row()
            .map(|r| r.id().to_string())
            .as_deref(),
        Some("acme.watch"),
        "{screen}"
    );
    assert!(screen.contains("in skill"), "{screen}");
    assert!(!screen.contains("acme.time"), "{screen}");

    tui.press(KeyCode::Esc).await;
    tui.keys("/time").await;
    let visible: Vec<String> = tui
        .runner
        .app
        .packs()
        .visible
        .iter()
        .map(|&i| tui.runner.app.packs().entries[i].id().to_string())
        .collect();
    assert_eq!(
        visible.first().map(String::as_str),
        Some("acme.time"),
        "{visible:?}"
    );
    assert!(visible.contains(&"acme.clock".to_string()), "{visible:?}");
    assert!(tui.screen().contains("in descrip"), "{}", tui.screen());
}

#[tokio::test]
async fn catalog_add_and_install_path_show_at_once_and_r_reads_a_catalog_another_process_added() {
    let dir = sandbox_with(notes_pack);
    let extra = dir.path().join("extra");
    one_command_pack(
        &extra,
        "acme.extra",
        ("Extra", "From another catalog."),
        "{kind: public}",
        "go",
        "true",
    );
    let other = dir.path().join("other");
    one_command_pack(
        &other,
        "acme.other",
        ("Other", "Added elsewhere."),
        "{kind: public}",
        "go",
        "true",
    );
    let loose = dir.path().join("loose");
    one_command_pack(
        &loose,
        "acme.loose",
        ("Loose", "A folder, no catalog."),
        "{kind: public}",
        "go",
        "true",
    );
    let mut tui = Tui::start(dir, 120, 30).await;
    assert!(!tui.screen().contains("acme.extra"));

    tui.keys(&format!(":catalog add {}", extra.display())).await;
    tui.press(KeyCode::Enter).await;
    assert!(tui.screen().contains("acme.extra"), "{}", tui.screen());

    // `:install PATH`: the new pack's row is there, installed, without `r`.
    tui.keys(&format!(":install {}", loose.join("acme.loose").display()))
        .await;
    tui.press(KeyCode::Enter).await;
    let row = tui
        .runner
        .app
        .packs()
        .entries
        .iter()
        .find(|r| r.id() == "acme.loose")
        .cloned();
    assert!(
        row.as_ref().is_some_and(|r| r.installed),
        "{}",
        tui.screen()
    );

    // Another process adds a catalog: `r` shows it.
    tui.engine().catalog_add(other.to_str().unwrap()).unwrap();
    tui.keys("r").await;
    assert!(tui.screen().contains("acme.other"), "{}", tui.screen());
}

#[test]
fn real_tui_in_tmux_switches_the_principal_with_p_and_greys_what_it_may_not_run() {
    if !crate::common::require_tool("tmux") {
        return;
    }
    let dir = sandbox_with(notes_pack);
    install_connected(&dir, "acme.notes");
    grant_agent_read(&dir);
    let (home, cat) = (home(&dir), catalog(&dir));
    let s = crate::tmuxkit::Session::start(
        "principal",
        &[("HCP_HOME", &home)],
        &["tui", "--catalog", cat.to_str().unwrap()],
    );
    s.wait_loaded();
    s.select("acme.notes");
    s.wait_text("principal user");
    s.keys(&["P"]);
    s.wait_text("Act as which principal?");
    s.type_text("agent");
    s.keys(&["Enter"]);
    s.settle();
    s.wait_text("Availability acme.notes · principal agent");
    s.keys(&["Tab", "j"]);
    s.settle();
    s.wait_text("✗ grant: principal `agent` does not hold");
    s.wait_text("ask a holder of `*` to run hcpx grant agent");
    s.press(&["x"]);
    s.wait_text("cannot run acme.notes add");
    s.quit();
}
