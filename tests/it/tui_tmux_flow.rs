//! The real binary in tmux under a fast typist and a running command: a
//! burst sent in one `send-keys` loses no key, and a running command's
//! output shows while it runs, under a clock that ticks. Waits are on the
//! TUI's debug log or the screen, with a deadline; nothing sleeps long.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::require_tools;
use crate::tmuxkit::Session;
use std::path::Path;

/// Writes `catalog/ID` with `process` commands `(key, argv)` run by `sh`.
fn pack(catalog: &Path, id: &str, commands: &[(&str, &str)]) {
    let dir = catalog.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    let mut yaml = format!(
        "hcp: \"1\"\nid: {id}\nname: {id}\nversion: 1.0.0\ndescription: A test pack.\ncommands:\n"
    );
    for (key, script) in commands {
        yaml.push_str(&format!(
            "  - key: {key}\n    summary: Run {key}\n    effect: read\n    timeout_ms: 600000\n    adapter: {{kind: process, program: sh, argv: [\"-c\", {script:?}]}}\n"
        ));
    }
    std::fs::write(dir.join("pack.yaml"), yaml).unwrap();
    let name = id.replace('.', "-");
    let skill = format!("---\nname: {name}\ndescription: Test.\n---\nRun it.\n");
    std::fs::write(dir.join("SKILL.md"), skill).unwrap();
}

fn start(name: &str, dir: &Path) -> Session {
    let home = dir.join("home");
    let log = dir.join("tui.log");
    let catalog = dir.join("catalog");
    let s = Session::start(
        name,
        &[("HCP_HOME", &home), ("HCPX_LOG", &log)],
        &["tui", "--catalog", catalog.to_str().unwrap()],
    );
    s.wait_loaded();
    s
}

#[test]
fn a_burst_in_one_send_keys_loses_no_key() {
    if !require_tools(&["tmux"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    pack(&catalog, "acme.a", &[("one", "true"), ("two", "true")]);
    pack(&catalog, "acme.b", &[("three", "true"), ("four", "true")]);
    let s = start("burst", dir.path());
    s.wait_for("the pack list", |s| s.contains("acme.b"));
    for round in 0..20 {
        // acme.a → acme.b, its commands, the second one: in one burst.
        s.keys(&["j", "Tab", "j"]);
        s.settle_for(&format!("round {round}: j Tab j"));
        // The frame follows the log within a frame's time; a lost key
        // would leave it elsewhere for good.
        s.wait_for(
            &format!("round {round}: four selected in acme.b"),
            |screen| screen.contains("▶ Availability acme.b") && screen.contains("▶ four"),
        );
        s.keys(&["BTab", "k"]);
        s.settle_for(&format!("round {round}: S-Tab k"));
        s.wait_text("Availability acme.a");
    }
    s.quit();
}

#[test]
fn a_running_command_shows_its_output_and_a_ticking_clock() {
    if !require_tools(&["tmux"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    let gate = dir.path().join("gate");
    let script = format!(
        "echo started-live; while [ ! -e '{}' ]; do sleep 0.05; done; echo finished-live",
        gate.display()
    );
    pack(&catalog, "acme.live", &[("go", &script)]);
    let s = start("live", dir.path());
    s.select("acme.live");
    s.install_activate("acme.live", "1.0.0");
    s.wait_text("● executable");
    s.keys(&["x"]);
    let first = s.wait_for("the live output", |s| {
        s.contains("started-live") && s.contains("running acme.live go — ")
    });
    assert!(!first.contains("finished-live"), "{first}");
    // The clock ticks: the elapsed time shown changes while it runs.
    let shown = |screen: &str| {
        screen
            .lines()
            .find_map(|l| l.split("running acme.live go — ").nth(1))
            .map(|rest| rest.split(" s").next().unwrap_or("").to_string())
    };
    let at = shown(&first);
    s.wait_for("the clock to tick", |screen| {
        shown(screen).is_some_and(|now| Some(&now) != at.as_ref())
    });
    std::fs::write(&gate, "").unwrap();
    let done = s.wait_text("exit 0");
    assert!(done.contains("finished-live"), "{done}");
    assert!(!done.contains("running acme.live"), "{done}");
    s.quit();
}
