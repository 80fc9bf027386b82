//! The screenshots in `screenshots/` are the TUI's own frames, drawn on a
//! deterministic demo store (the example catalog, a few packs installed, one
//! broken pack) and rendered to SVG. This test fails when a committed
//! screenshot is out of date; regenerate them all with
//!
//! ```sh
//! UPDATE_SCREENSHOTS=1 cargo test --test it screenshots
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{copy_dir, require_tool};
use crate::tuikit::*;
use crossterm::event::KeyCode;
use std::path::PathBuf;

const WIDTH: u16 = 120;
const HEIGHT: u16 = 36;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The demo store: the example catalog, a broken pack, and a few packs
/// installed and activated at different stages.
async fn demo() -> Tui {
    Tui::start(demo_store(), WIDTH, HEIGHT).await
}

/// demo.clock 1.1.0's new command, as `assets/demo/setup.sh` appends it:
/// a timer running a program 1.0.0 did not.
const CLOCK_TIMER: &str = "\n  - key: timer\n    summary: Wait a number of seconds, then return (a kitchen timer)\n    effect: read\n    timeout_ms: 600000\n    args:\n      - name: seconds\n        type: integer\n        required: true\n        description: Seconds to wait (up to 600), e.g. 90\n    adapter:\n      kind: process\n      program: sleep\n      argv: [\"{seconds}\"]\n";

/// The demo store with demo.clock 1.0.0 installed and activated, and 1.1.0
/// (one more command) in the catalog: an upgrade to show.
async fn demo_with_an_upgrade() -> Tui {
    let dir = demo_store();
    let engine = engine(&dir);
    engine.install("demo.clock", false).unwrap();
    assert!(engine.activate(&[pack("demo.clock")]).1.is_none());
    let manifest = catalog(&dir).join("demo.clock/pack.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace("version: 1.0.0", "version: 1.1.0") + CLOCK_TIMER;
    std::fs::write(&manifest, text).unwrap();
    Tui::start(dir, WIDTH, HEIGHT).await
}

/// The demo store's sandbox (see [`demo`]).
fn demo_store() -> tempfile::TempDir {
    let dir = sandbox();
    let catalog = catalog(&dir);
    for entry in std::fs::read_dir(repo().join("assets/packs"))
        .unwrap()
        .flatten()
    {
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &catalog.join(entry.file_name()));
        }
    }
    write_pack(
        &catalog,
        "demo_broken",
        "hcp: \"2\"\nid: demo_broken\nname: Broken example\nversion: 1.0\ndescription: A pack with mistakes, to show the lint pane.\n\
         commands:\n  - key: List\n    summary: List things\n    effect: look\n    adapter: {kind: process, program: ls, argv: [\"{path}\"]}\n",
        "---\nname: demo-broken\n---\n",
    );
    // The example Skill collection, found in the catalog like its packs.
    copy_dir(&repo().join("assets/skills"), &catalog.join("skills"));
    let engine = engine(&dir);
    for id in [
        "release-notes",
        "demo.sysinfo",
        "demo.text",
        "demo.fleet",
        "demo.weather-api",
        "demo.style-guide",
    ] {
        engine.install(id, false).unwrap();
    }
    let (_, err) = engine.activate(&[
        pack("release-notes"),
        pack("demo.sysinfo"),
        pack("demo.text"),
        pack("demo.fleet"),
        pack("demo.style-guide"),
    ]);
    assert!(err.is_none());
    dir
}

/// Moves the Packs cursor down to `id` with `j`, the list unfiltered (as a
/// person browsing would), at most one press per row.
async fn walk_to(tui: &mut Tui, id: &str) {
    for _ in 0..40 {
        if tui
            .runner
            .app
            .selected_row()
            .map(|e| e.id().to_string())
            .as_deref()
            == Some(id)
        {
            return;
        }
        tui.keys("j").await;
    }
    panic!("{id} is not in the pack list:\n{}", tui.screen());
}

fn check(name: &str, tui: &Tui, title: &str) -> Option<String> {
    let svg = crate::svg::render(tui.runner.terminal.backend().buffer(), title);
    let path = repo().join("screenshots").join(format!("{name}.svg"));
    if std::env::var_os("UPDATE_SCREENSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &svg).unwrap();
        return None;
    }
    match std::fs::read_to_string(&path) {
        Ok(committed) if committed == svg => None,
        Ok(_) => Some(format!("{} is out of date", path.display())),
        Err(_) => Some(format!("{} is missing", path.display())),
    }
}

#[tokio::test]
async fn committed_screenshots_match_the_tui() {
    // The exec screenshot shows the output of demo.text's python3 script.
    if !require_tool("python3") {
        return;
    }
    let mut stale = Vec::new();

    // The hero screenshot: demo.sysinfo (installed and activated) selected,
    // its availability matrix filled, as the README's caption says.
    let mut tui = demo().await;
    walk_to(&mut tui, "demo.sysinfo").await;
    stale.extend(check("browser", &tui, "hcpx: the pack browser"));

    tui.select("demo.fleet").await;
    tui.press(KeyCode::Tab).await;
    stale.extend(check("matrix", &tui, "hcpx: the availability matrix"));

    let mut tui = demo().await;
    tui.select("demo_broken").await;
    tui.send(vec![
        key(KeyCode::Tab),
        key(KeyCode::Tab),
        key(KeyCode::Tab),
    ])
    .await;
    stale.extend(check("lint", &tui, "hcpx: the lint-results pane"));

    // A Skill pack: its kind, and the files it brings in Details.
    let mut tui = demo().await;
    tui.select("release-notes").await;
    stale.extend(check(
        "skill",
        &tui,
        "hcpx: a Skill pack and its bundled files",
    ));

    // `:install` of a collection: the picker, filtered.
    let mut tui = demo().await;
    // Relative to the crate root, where tests run: the same on every machine.
    tui.keys(":install assets/skills").await;
    tui.press(KeyCode::Enter).await;
    tui.keys("c").await;
    stale.extend(check(
        "picker",
        &tui,
        "hcpx: choosing Skills from a collection",
    ));

    let mut tui = demo().await;
    tui.keys("?").await;
    stale.extend(check("help", &tui, "hcpx: the help overlay"));

    let mut tui = demo().await;
    tui.select("demo.text").await;
    tui.press(KeyCode::Tab).await;
    tui.keys("jj").await;
    tui.keys("x").await;
    tui.keys("Hello, HCP!").await;
    tui.press(KeyCode::Enter).await;
    stale.extend(check("exec", &tui, "hcpx: a command's output"));

    // `U`: the capability diff before an upgrade, escalations marked ▲.
    let mut tui = demo_with_an_upgrade().await;
    tui.select("demo.clock").await;
    tui.keys("U").await;
    stale.extend(check(
        "upgrade",
        &tui,
        "hcpx: the capability diff of an upgrade",
    ));

    // `H`: the Harnesses view, Claude Code detected (its folder in the
    // sandbox's home) and enabled with `Space`.
    let dir = demo_store();
    std::fs::create_dir_all(user_home(&dir).join(".claude")).unwrap();
    let mut tui = Tui::start(dir, WIDTH, HEIGHT).await;
    tui.keys("Hj ").await;
    tui.clear_status().await;
    stale.extend(check("harnesses", &tui, "hcpx: the Harnesses view"));

    assert!(
        stale.is_empty(),
        "{}\nregenerate with: UPDATE_SCREENSHOTS=1 cargo test --test it screenshots",
        stale.join("\n")
    );
}
