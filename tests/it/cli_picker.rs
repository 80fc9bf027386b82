//! `hcpx install SOURCE` of a collection on a terminal (HCP.md §13.1): the
//! interactive multi-select with a filter, in a real terminal (tmux), and
//! the store lock free while the user chooses.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::collections::{published, skills_repo};
use crate::common::{self, Sandbox};
use crate::tmuxkit::{Session, wait_until};

#[test]
fn the_picker_filters_marks_and_installs_and_holds_no_lock_meanwhile() {
    if !common::require_tools(&["tmux", "git"]) {
        return;
    }
    let sb = Sandbox::new();
    let root = skills_repo(&sb);
    let url = published(&sb, &root);
    let user = sb.dir.path().join("user");
    std::fs::create_dir_all(&user).unwrap();
    // Something to activate from another process while the picker is open.
    let other = sb.simple_pack("acme.other", "1.0.0", "{kind: public}");
    sb.json(&["install", other.to_str().unwrap()], 0);

    let home = sb.home();
    let session = Session::start(
        "picker",
        &[("HCP_HOME", &home), ("HOME", &user)],
        &["install", &format!("git+{url}")],
    );
    session.wait_text("Which packs?");
    let screen = session.wait_text("acme.gamma");
    assert!(screen.contains("acme.beta"), "{screen}");

    // The store is not locked while the user chooses: another writer gets
    // through at once (with the lock held it would wait, then time out).
    let activated = sb
        .hcpx()
        .args(["activate", "acme.other"])
        .env("HCPX_LOCK_TIMEOUT_MS", "2000")
        .output()
        .unwrap();
    assert!(
        activated.status.success(),
        "{}",
        String::from_utf8_lossy(&activated.stderr)
    );

    // Type to filter, space to mark, enter to install.
    session.type_text("gamma");
    session.wait_for("the filter to leave only acme.gamma", |s| {
        s.contains("acme.gamma") && !s.contains("acme.beta")
    });
    session.keys(&["Space"]);
    session.keys(&["Enter"]);
    assert_eq!(session.wait_exit(), 0, "{}", session.screen());
    wait_until("acme.gamma installed", || {
        home.join("packs/acme.gamma").is_dir()
    });
    assert!(!home.join("packs/acme.beta").exists());
    assert!(!home.join("packs/acme.alpha").exists());
}
