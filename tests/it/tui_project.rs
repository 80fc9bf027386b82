//! The TUI inside a project (HCP.md §15.1, §15.5), headless: the
//! project's packs and the user store's in one browser with their scope, a
//! user pack the project shadows marked, `S` choosing where an install
//! goes, and a key on a user pack acting on the user store (its command
//! shown with `-g`). The project is set up with the real binary (`hcpx
//! init`, `hcpx add`), with `HOME` and `HCP_HOME` in a temp folder; the TUI
//! runs in-process on both stores' engines. Also `hcpx tui` in tmux,
//! started in the project (and `hcpx tui -g` there: the user store alone).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::require_tool;
use crate::project_scope::Machine;
use crate::tmuxkit::Session;
use crate::tuikit::{Tui, colon, config};
use crossterm::event::KeyCode;
use hcpx::engine::harness::HarnessEnv;
use hcpx::engine::ops::{Engine, EngineOptions};
use hcpx::engine::project::Project;
use hcpx::tui::scope::{Scopes, Store};
use hcpx::tui::{App, Runner, run_headless};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::PathBuf;

/// A project `proj` holding `acme.proj` and `acme.both`, a user store
/// holding `acme.user` (installed, not activated) and `acme.both`
/// (activated: shadowed by the project's), and a catalog of `acme.cat`
/// and `acme.cat2` that neither store holds.
fn project_machine() -> Machine {
    let m = Machine::new();
    let src = m.dir.path().join("src");
    let catalog = m.dir.path().join("catalog");
    for (name, id) in [("p", "acme.proj"), ("b", "acme.both"), ("u", "acme.user")] {
        m.pack(&src, name, id);
    }
    m.pack(&catalog, "cat", "acme.cat");
    m.pack(&catalog, "cat2", "acme.cat2");
    m.json(&m.proj(), &["init"], 0);
    let path = |name: &str| src.join(name).display().to_string();
    m.json(&m.proj(), &["add", &path("p"), &path("b")], 0);
    m.json(&m.proj(), &["-g", "add", &path("b")], 0);
    m.json(&m.proj(), &["-g", "install", &path("u")], 0);
    m
}

fn paths(tui: &Tui) -> (PathBuf, PathBuf) {
    let root = tui.dir.path();
    (root.join("proj"), root.join("userstore"))
}

/// The engines `hcpx tui` opens in the project: the project's store, and
/// the user store's beside it; harness targets under the temp home.
fn engines(root: &std::path::Path) -> (Engine, Engine) {
    let catalogs = [root.join("catalog")];
    let user_store = root.join("userstore");
    let project = Project::at(&root.join("proj")).unwrap();
    let mut main = Engine::open_project(
        &project,
        &user_store,
        &catalogs,
        "user",
        EngineOptions::default(),
    )
    .unwrap();
    let mut user = Engine::open(&user_store, &catalogs, "user").unwrap();
    for engine in [&mut main, &mut user] {
        engine.set_harness_env(HarnessEnv {
            home: root.join("home"),
            ..Default::default()
        });
    }
    (main, user)
}

/// The TUI started in the project at 120×30, the first load done.
async fn start(m: Machine) -> Tui {
    let (main, user) = engines(m.dir.path());
    let terminal = Terminal::new(TestBackend::new(120, 30)).unwrap();
    let runner = Runner::new(main, App::new(config()), terminal).with_user_store(user);
    let mut tui = Tui { dir: m.dir, runner };
    run_headless(&mut tui.runner, []).await.unwrap();
    tui
}

/// Each row's id and scope tag, by id (filtered out or not).
fn tags(tui: &Tui) -> Vec<(String, &'static str)> {
    let packs = tui.runner.app.packs();
    packs
        .entries
        .iter()
        .map(|r| (r.id().to_string(), Scopes::tag(r)))
        .collect()
}

fn activated(store: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(store.join("state.json")).unwrap();
    let state: serde_json::Value = serde_json::from_str(&text).unwrap();
    state["activated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

fn last_command(tui: &Tui) -> String {
    let log = tui.runner.app.log();
    log.entries
        .iter()
        .rev()
        .find_map(|e| e.command.clone())
        .unwrap_or_default()
}

#[tokio::test]
async fn both_stores_show_each_pack_with_its_scope_and_the_shadowed_one_marked() {
    let tui = start(project_machine()).await;
    let ours = |id: &str, tag: &'static str| (id.to_string(), tag);
    assert_eq!(
        tags(&tui),
        vec![
            ours("acme.both", "project"),
            ours("acme.both", "shadowed"),
            ours("acme.cat", "-"),
            ours("acme.cat2", "-"),
            ours("acme.proj", "project"),
            ours("acme.user", "user"),
            ours("hcp-cli", "user"),
        ],
        "{}",
        tui.screen()
    );
    let screen = tui.screen();
    assert!(
        screen.contains("project proj (installs: project)"),
        "{screen}"
    );
    assert!(screen.contains("SCOPE"), "{screen}");
    insta::assert_snapshot!("project_view", screen);
}

#[tokio::test]
async fn s_sends_an_install_to_the_user_store_and_back_to_the_project() {
    let mut tui = start(project_machine()).await;
    let (proj, user_store) = paths(&tui);
    tui.select("acme.cat").await;
    tui.keys("i").await;
    assert!(
        proj.join(".hcp/packs/acme.cat").is_dir(),
        "{}",
        tui.screen()
    );
    assert!(!user_store.join("packs/acme.cat").exists());
    assert_eq!(
        last_command(&tui),
        "hcpx install acme.cat --catalog ./catalog"
    );
    tui.select("acme.cat2").await;
    tui.keys("S").await;
    assert_eq!(tui.runner.app.scopes().adds_to(), Store::User);
    assert!(
        tui.screen().contains("project proj (installs: user)"),
        "{}",
        tui.screen()
    );
    let screen = tui.screen();
    assert!(
        screen.contains("press i, or run hcpx -g install acme.cat2 --catalog ./catalog"),
        "{screen}"
    );
    tui.keys("i").await;
    assert!(
        user_store.join("packs/acme.cat2").is_dir(),
        "{}",
        tui.screen()
    );
    assert!(!proj.join(".hcp/packs/acme.cat2").exists());
    assert_eq!(
        last_command(&tui),
        "hcpx -g install acme.cat2 --catalog ./catalog"
    );
    // Each row says where it went.
    let tagged = tags(&tui);
    assert!(
        tagged.contains(&("acme.cat".into(), "project")),
        "{tagged:?}"
    );
    assert!(tagged.contains(&("acme.cat2".into(), "user")), "{tagged:?}");
    tui.keys("S").await;
    assert_eq!(tui.runner.app.scopes().adds_to(), Store::Project);
}

#[tokio::test]
async fn a_catalog_of_the_user_store_s_config_shows_and_installs_into_the_project() {
    let m = project_machine();
    let ucat = m.dir.path().join("ucat");
    m.pack(&ucat, "u", "acme.ucat");
    m.json(
        &m.proj(),
        &["-g", "catalog", "add", ucat.to_str().unwrap()],
        0,
    );
    let mut tui = start(m).await;
    let (proj, _) = paths(&tui);
    // Read again (`r`): the user's catalogs stay.
    tui.keys("r").await;
    tui.select("acme.ucat").await;
    tui.keys("i").await;
    assert!(
        proj.join(".hcp/packs/acme.ucat").is_dir(),
        "{}",
        tui.screen()
    );
}

#[tokio::test]
async fn a_key_on_a_user_pack_acts_on_the_user_store() {
    let mut tui = start(project_machine()).await;
    let (proj, user_store) = paths(&tui);
    tui.select("acme.user").await;
    // Availability's fix names the user store.
    let screen = tui.screen();
    assert!(
        screen.contains("press a, or run hcpx -g activate acme.user"),
        "{screen}"
    );
    tui.keys("a").await;
    assert!(
        activated(&user_store).contains(&"acme.user".to_string()),
        "{}",
        tui.screen()
    );
    assert!(!activated(&proj.join(".hcp")).contains(&"acme.user".to_string()));
    assert_eq!(last_command(&tui), "hcpx -g activate acme.user");
    let row = tui.runner.app.selected_row().unwrap();
    assert!(row.activated && row.held == Some(Store::User));
    // Its command runs on the user store's engine (the project's has no
    // such pack).
    tui.keys("x").await;
    tui.press(KeyCode::Enter).await;
    let screen = tui.screen();
    assert!(screen.contains("hello world"), "{screen}");
    assert!(
        last_command(&tui).starts_with("hcpx -g exec acme.user hello"),
        "{}",
        last_command(&tui)
    );
}

#[tokio::test]
async fn the_shadowed_row_is_the_user_copy_and_its_keys_act_there() {
    let mut tui = start(project_machine()).await;
    let (proj, user_store) = paths(&tui);
    tui.select("acme.both").await;
    tui.press(KeyCode::Down).await;
    let row = tui.runner.app.selected_row().unwrap();
    assert!(row.shadowed && row.id() == "acme.both", "{}", tui.screen());
    assert!(
        tui.screen()
            .contains("installed in the user store (shadowed"),
        "{}",
        tui.screen()
    );
    // Both copies are activated; `a` deactivates the user's alone.
    tui.keys("a").await;
    assert!(
        !activated(&user_store).contains(&"acme.both".to_string()),
        "{}",
        tui.screen()
    );
    assert!(activated(&proj.join(".hcp")).contains(&"acme.both".to_string()));
    assert_eq!(last_command(&tui), "hcpx -g deactivate acme.both");
    // The selection stayed on the shadowed row, read again.
    let row = tui.runner.app.selected_row().unwrap();
    assert!(row.shadowed && !row.activated, "{}", tui.screen());
    // The project's row: its key acts on the project, without -g.
    tui.press(KeyCode::Up).await;
    tui.keys("a").await;
    assert!(!activated(&proj.join(".hcp")).contains(&"acme.both".to_string()));
    assert_eq!(last_command(&tui), "hcpx deactivate acme.both");
}

#[tokio::test]
async fn a_colon_line_acts_as_hcpx_would_in_the_project() {
    let mut tui = start(project_machine()).await;
    let (proj, user_store) = paths(&tui);
    // The shadowed row selected: a typed id still means the project's
    // pack, as on the CLI.
    tui.select("acme.both").await;
    tui.press(KeyCode::Down).await;
    colon(&mut tui, "deactivate acme.both").await;
    assert!(!activated(&proj.join(".hcp")).contains(&"acme.both".to_string()));
    assert!(activated(&user_store).contains(&"acme.both".to_string()));
    assert_eq!(last_command(&tui), "hcpx deactivate acme.both");
    // `-g`: the user store's.
    colon(&mut tui, "-g deactivate acme.both").await;
    assert!(!activated(&user_store).contains(&"acme.both".to_string()));
    assert_eq!(last_command(&tui), "hcpx -g deactivate acme.both");
    // A report with -g reads the user store.
    colon(&mut tui, "-g list").await;
    assert_eq!(last_command(&tui), "hcpx -g list");
    let report = tui.runner.app.report().map(|r| r.text.clone());
    let report = report.unwrap_or_default();
    assert!(report.contains("acme.user"), "{report}");
    assert!(!report.contains("acme.proj"), "{report}");
    // Uninstall asks, naming the store that holds the pack.
    colon(&mut tui, "uninstall acme.user").await;
    let screen = tui.screen();
    assert!(
        screen.contains("Uninstall acme.user from the user store?"),
        "{screen}"
    );
    tui.keys("y").await;
    assert!(
        !user_store.join("packs/acme.user").exists(),
        "{}",
        tui.screen()
    );
    assert_eq!(last_command(&tui), "hcpx -g uninstall acme.user");
}

/// The command layer's changes on the line run on the store the CLI picks:
/// `remove` on the store holding the pack (asked first, naming it), `add`
/// on the project, `catalog add` on the user store's catalogs.
#[tokio::test]
async fn a_lines_request_runs_on_the_store_the_cli_picks() {
    let mut tui = start(project_machine()).await;
    let (proj, user_store) = paths(&tui);
    colon(&mut tui, "remove acme.user").await;
    let screen = tui.screen();
    assert!(screen.contains("Remove acme.user?"), "{screen}");
    assert!(screen.contains("the user store"), "{screen}");
    tui.keys("y").await;
    assert!(
        !user_store.join("packs/acme.user").exists(),
        "{}",
        tui.screen()
    );
    assert_eq!(last_command(&tui), "hcpx -g remove acme.user");

    colon(&mut tui, "remove acme.proj").await;
    tui.keys("y").await;
    assert!(
        !proj.join(".hcp/packs/acme.proj").exists(),
        "{}",
        tui.screen()
    );
    let yaml = std::fs::read_to_string(proj.join("hcp.yaml")).unwrap();
    assert!(!yaml.contains("acme.proj"), "{yaml}");
    assert_eq!(last_command(&tui), "hcpx remove acme.proj");

    let cat = tui.dir.path().join("catalog/cat").display().to_string();
    colon(&mut tui, &format!("add {cat}")).await;
    assert!(
        proj.join(".hcp/packs/acme.cat").is_dir(),
        "{}",
        tui.screen()
    );
    let yaml = std::fs::read_to_string(proj.join("hcp.yaml")).unwrap();
    assert!(yaml.contains("acme.cat"), "{yaml}");

    let more = tui.dir.path().join("more");
    std::fs::create_dir_all(&more).unwrap();
    colon(&mut tui, &format!("catalog add {}", more.display())).await;
    let config = std::fs::read_to_string(user_store.join("config.yaml")).unwrap();
    assert!(config.contains("more"), "{config}");
    assert!(
        last_command(&tui).starts_with("hcpx -g catalog add"),
        "{}",
        last_command(&tui)
    );
}

/// The Output pane's report: each store's command line and words (`J`:
/// documents), one after the other.
fn report_sections(tui: &Tui, json: bool) -> Vec<(String, String)> {
    let Some(report) = tui.runner.app.report() else {
        return Vec::new();
    };
    std::iter::once(report)
        .chain(&report.also)
        .map(|r| (r.command.clone(), r.shown_as(json).to_string()))
        .collect()
}

/// Marked packs of both stores: `a` acts on each in its own store, as
/// `hcpx activate A B` does in the project (`command::both`), each store's
/// request said under its own command line.
#[tokio::test]
async fn marked_packs_of_both_stores_each_act_in_their_own_store() {
    let mut tui = start(project_machine()).await;
    let (proj, user_store) = paths(&tui);
    let has = |store: &std::path::Path, id: &str| activated(store).contains(&id.to_string());
    // acme.proj (deactivated first), then acme.user below it.
    colon(&mut tui, "deactivate acme.proj").await;
    assert!(!has(&proj.join(".hcp"), "acme.proj"), "{}", tui.screen());
    tui.keys("gjjjj").await;
    tui.keys("  ").await;
    tui.keys("a").await;
    assert!(has(&proj.join(".hcp"), "acme.proj"), "{}", tui.screen());
    assert!(has(&user_store, "acme.user"), "{}", tui.screen());
    assert!(!has(&proj.join(".hcp"), "acme.user"));
    assert!(!has(&user_store, "acme.proj"));
    let sections = report_sections(&tui, false);
    let commands: Vec<&str> = sections.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        commands,
        ["hcpx activate acme.proj", "hcpx -g activate acme.user"],
        "{}",
        tui.screen()
    );
    assert!(sections[0].1.contains("acme.proj"), "{sections:?}");
    assert!(sections[1].1.contains("acme.user"), "{sections:?}");
    // `J`: each store's document, of its own pack.
    let docs = report_sections(&tui, true);
    let ids: Vec<String> = docs
        .iter()
        .map(|(_, doc)| {
            let doc: serde_json::Value = serde_json::from_str(doc).unwrap();
            assert_eq!(doc["ok"], true, "{doc}");
            doc["results"][0]["pack_id"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(ids, ["acme.proj", "acme.user"], "{docs:?}");
    // The log says each under its own command; the screen shows both.
    let log: Vec<String> = tui
        .runner
        .app
        .log()
        .entries
        .iter()
        .filter_map(|e| e.command.clone())
        .collect();
    assert!(
        log.ends_with(&[
            "hcpx activate acme.proj".to_string(),
            "hcpx -g activate acme.user".to_string()
        ]),
        "{log:?}"
    );
    let screen = tui.screen();
    assert!(
        screen.contains("$ hcpx activate acme.proj")
            && screen.contains("$ hcpx -g activate acme.user"),
        "{screen}"
    );

    // Both rows of one id: the project's and the shadowed user copy, each
    // deactivated in its store.
    tui.press(KeyCode::Esc).await;
    tui.keys("g  a").await;
    assert!(!has(&proj.join(".hcp"), "acme.both"), "{}", tui.screen());
    assert!(!has(&user_store, "acme.both"), "{}", tui.screen());
    let commands: Vec<String> = report_sections(&tui, false)
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    assert_eq!(
        commands,
        ["hcpx deactivate acme.both", "hcpx -g deactivate acme.both"]
    );
}

/// `u` on marked packs of both stores asks once, naming both stores, and
/// uninstalls each from the store holding it.
#[tokio::test]
async fn uninstalling_marked_packs_of_both_stores_names_both() {
    let mut tui = start(project_machine()).await;
    let (proj, user_store) = paths(&tui);
    tui.keys("gjjjj").await;
    tui.keys("  ").await;
    tui.keys("u").await;
    let screen = tui.screen();
    assert!(
        screen.contains("Uninstall acme.proj from the project's store and acme.user from the user"),
        "{screen}"
    );
    tui.keys("y").await;
    assert!(
        !proj.join(".hcp/packs/acme.proj").exists(),
        "{}",
        tui.screen()
    );
    assert!(
        !user_store.join("packs/acme.user").exists(),
        "{}",
        tui.screen()
    );
    let commands: Vec<String> = report_sections(&tui, false)
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    assert_eq!(
        commands,
        ["hcpx uninstall acme.proj", "hcpx -g uninstall acme.user"]
    );
    assert!(tui.runner.app.packs().marked.is_empty());
}

#[tokio::test]
async fn outside_a_project_there_is_no_scope_and_s_says_why() {
    let dir = crate::tuikit::sandbox_with(crate::tuikit::notes_pack);
    let mut tui = Tui::start(dir, 120, 30).await;
    assert!(!tui.screen().contains("SCOPE"), "{}", tui.screen());
    tui.keys("S").await;
    let screen = tui.screen();
    assert!(
        screen.contains("outside a project every key acts on the user store"),
        "{screen}"
    );
    assert_eq!(tui.runner.app.scopes().adds_to(), Store::User);
}

#[test]
fn real_tui_started_in_a_project_names_it_in_the_title() {
    if !require_tool("tmux") {
        return;
    }
    let m = project_machine();
    let (home, user_store) = (m.home(), m.user_store());
    let s = Session::start_in(
        "project",
        &[("HOME", &home), ("HCP_HOME", &user_store)],
        &["tui"],
        &m.proj(),
    );
    let screen = s.wait_for("the project's packs", |s| {
        s.contains("acme.proj") && s.contains("shadowed")
    });
    assert!(
        screen.contains("project proj (installs: project)"),
        "{screen}"
    );
    // The window title names the project's folder.
    let root = m.proj().canonicalize().unwrap();
    assert_eq!(s.title(), format!("hcpx — project {}", root.display()));
    s.quit();
    // `-g`: the user store alone, as outside a project.
    let s = Session::start_in(
        "global",
        &[("HOME", &home), ("HCP_HOME", &user_store)],
        &["tui", "-g"],
        &m.proj(),
    );
    let screen = s.wait_for("the user store's packs", |s| s.contains("acme.user"));
    assert!(!screen.contains("acme.proj"), "{screen}");
    assert!(s.title().starts_with("hcpx — user store "), "{}", s.title());
    assert!(
        !screen.contains("SCOPE") && !screen.contains("project proj"),
        "{screen}"
    );
    s.quit();
}

/// §15.5: inside the project, `:list` and `:verify` read both stores as
/// the CLI does (each store's words under its name, `J` the merged
/// document).
#[tokio::test]
async fn colon_reports_and_changes_read_and_act_on_both_stores() {
    let mut tui = start(project_machine()).await;
    colon(&mut tui, "list").await;
    let report = tui
        .runner
        .app
        .report()
        .map(|r| r.text.clone())
        .unwrap_or_default();
    assert!(report.contains("user store:"), "{report}");
    assert!(
        report.contains("acme.proj") && report.contains("acme.user"),
        "{report}"
    );
    let doc = tui
        .runner
        .app
        .report()
        .and_then(|r| r.json.clone())
        .unwrap_or_default();
    let doc: serde_json::Value = serde_json::from_str(&doc).unwrap();
    let shadowed = doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["pack_id"] == "acme.both" && p["scope"] == "user" && p["shadowed"] == true);
    assert!(shadowed, "{doc}");

    // verify: each store's packs, with their scope.
    colon(&mut tui, "verify").await;
    let doc = tui
        .runner
        .app
        .report()
        .and_then(|r| r.json.clone())
        .unwrap_or_default();
    let doc: serde_json::Value = serde_json::from_str(&doc).unwrap();
    let scopes: Vec<&str> = doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["scope"].as_str())
        .collect();
    assert!(
        scopes.contains(&"project") && scopes.contains(&"user"),
        "{doc}"
    );
}

/// §15.5: inside the project, the Harnesses view lists the project's
/// targets and the user store's, as `hcpx harness status` does there
/// (`command::both::reads_both`), each row saying its store; `Space` on a
/// user store's target acts there (`hcpx -g harness enable TARGET`).
#[tokio::test]
async fn the_harnesses_view_shows_both_stores_targets_and_toggles_in_the_rows_store() {
    let mut tui = start(project_machine()).await;
    tui.keys("H").await;
    let rows = tui.runner.app.harnesses().rows.clone();
    let stores: Vec<Store> = rows.iter().map(|r| r.store).collect();
    assert!(
        stores.contains(&Store::Project) && stores.contains(&Store::User),
        "{}",
        tui.screen()
    );
    let screen = tui.screen();
    assert!(screen.contains("SCOPE"), "{screen}");
    // The user store's claude-code target (disabled there, enabled in the
    // project): `Space` enables it in the user store alone.
    let at = |rows: &[hcpx::tui::targets::HarnessRow], store: Store| {
        rows.iter()
            .position(|r| r.store == store && r.name.as_str() == "claude-code")
            .unwrap()
    };
    let user_claude = at(&rows, Store::User);
    let project_was = rows[at(&rows, Store::Project)].enabled;
    assert!(!rows[user_claude].enabled, "{}", tui.screen());
    for _ in 0..user_claude {
        tui.keys("j").await;
    }
    let screen = tui.screen();
    assert!(
        screen.contains("hcpx -g harness enable claude-code"),
        "{screen}"
    );
    tui.keys(" ").await;
    assert_eq!(last_command(&tui), "hcpx -g harness enable claude-code");
    let rows = tui.runner.app.harnesses().rows.clone();
    assert!(rows[at(&rows, Store::User)].enabled, "{}", tui.screen());
    assert_eq!(rows[at(&rows, Store::Project)].enabled, project_was);
}

/// A project whose `hcp.yaml` names a pack not installed on this machine:
/// `:sync` (asked first, as every sync) is refused for want of approval,
/// and the TUI shows the same diff the CLI prints (§15.6): `n` installs
/// nothing, `y` installs exactly what was shown and records it approved.
#[tokio::test]
async fn a_first_sync_shows_what_the_packs_can_do_before_y_approves() {
    let m = Machine::new();
    let proj = m.proj();
    m.json(&proj, &["init"], 0);
    m.pack(&proj.join("tools"), "n", "acme.new");
    std::fs::write(
        proj.join("hcp.yaml"),
        "hcp: \"1\"\npacks:\n  - id: acme.new\n    source: ./tools/n\nharnesses: []\n",
    )
    .unwrap();
    let mut tui = start(m).await;
    let (proj, user_store) = paths(&tui);
    colon(&mut tui, "sync").await;
    tui.keys("y").await;
    let screen = tui.screen();
    assert!(
        matches!(
            tui.runner.app.dialog(),
            Some(hcpx::tui::dialog::Dialog::ConfirmSync { .. })
        ),
        "{screen}"
    );
    assert!(
        screen.contains("acme.new 1.0.0: new in this project"),
        "{screen}"
    );
    assert!(screen.contains("▲ new command touch (write)"), "{screen}");
    assert!(!proj.join(".hcp/packs/acme.new").exists());
    tui.keys("n").await;
    assert!(
        !proj.join(".hcp/packs/acme.new").exists(),
        "{}",
        tui.screen()
    );
    colon(&mut tui, "sync").await;
    tui.keys("y").await;
    tui.keys("y").await;
    assert!(
        proj.join(".hcp/packs/acme.new").is_dir(),
        "{}",
        tui.screen()
    );
    let recorded = std::fs::read_to_string(user_store.join("projects.json")).unwrap();
    assert!(recorded.contains("acme.new"), "{recorded}");
    assert!(last_command(&tui).starts_with("hcpx sync --yes --expect acme.new=sha256:"));
}
