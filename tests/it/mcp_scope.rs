//! `hcpx mcp` and where its tools come from, driven by rmcp's client:
//! inside a project it serves the project's packs and the user store's,
//! a project pack shadowing a user pack of the same id (HCP.md §15.5,
//! §16.2); a program that appears on `PATH` makes its command a tool
//! without any change to the store (§16.4).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, install_and_activate, simple_manifest, simple_skill};
use crate::mcp_server::{Client, Watcher, call, runtime, text};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `hcpx mcp ARGS` in `cwd` on the sandbox's user store, `PATH` as given.
async fn connect_in(
    sb: &Sandbox,
    cwd: &Path,
    args: &[&str],
    path: Option<&str>,
) -> (Client, Watcher) {
    let mut cmd = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("hcpx"));
    cmd.env("HCP_HOME", sb.home())
        .env("HOME", sb.dir.path().join("user-home"))
        .env_remove("HCP_PRINCIPAL")
        .current_dir(cwd)
        .arg("mcp")
        .args(args);
    if let Some(path) = path {
        cmd.env("PATH", path);
    }
    let watcher = Watcher::default();
    let client = watcher
        .clone()
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    (client, watcher)
}

/// A pack `id` whose `hello` prints `word`.
fn saying(sb: &Sandbox, id: &str, version: &str, word: &str) -> PathBuf {
    let manifest = simple_manifest(id, version, "{kind: public}")
        .replace(r#"["hello", "{who}"]"#, &format!(r#"["{word}"]"#));
    sb.pack(
        &format!("{id}-{word}"),
        &[("pack.yaml", &manifest), ("SKILL.md", &simple_skill(id))],
    )
}

/// `hcpx --json ARGS` in `cwd`, which must succeed.
fn hcpx_in(sb: &Sandbox, cwd: &Path, args: &[&str]) {
    let out = sb
        .hcpx()
        .env("HOME", sb.dir.path().join("user-home"))
        .current_dir(cwd)
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    crate::common::assert_success(&out);
}

fn meta_scope(tools: &[rmcp::model::Tool], name: &str) -> Vec<Value> {
    tools
        .iter()
        .filter(|t| t.name == name)
        .map(|t| serde_json::to_value(t).unwrap()["_meta"]["hcp/scope"].clone())
        .collect()
}

#[test]
fn inside_a_project_both_stores_are_served_and_a_project_pack_shadows_a_user_pack() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.dir.path().join("user-home")).unwrap();
    install_and_activate(
        &sb,
        &saying(&sb, "acme.user", "1.0.0", "from-user-pack"),
        "acme.user",
    );
    install_and_activate(
        &sb,
        &saying(&sb, "acme.shared", "1.0.0", "from-user"),
        "acme.shared",
    );
    let proj = sb.dir.path().join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    hcpx_in(&sb, &proj, &["init"]);
    let shared = saying(&sb, "acme.shared", "2.0.0", "from-project");
    hcpx_in(&sb, &proj, &["add", shared.to_str().unwrap()]);

    runtime().block_on(async {
        let (client, _) = connect_in(&sb, &proj, &[], None).await;
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(
            meta_scope(&tools, "acme_shared__hello"),
            vec![json!("project")]
        );
        assert_eq!(meta_scope(&tools, "acme_user__hello"), vec![json!("user")]);
        let r = call(&client, "acme_shared__hello", json!({})).await;
        assert_eq!(text(&r), "from-project\n");
        let r = call(&client, "acme_user__hello", json!({})).await;
        assert_eq!(
            (r.is_error, text(&r)),
            (Some(false), "from-user-pack\n".into())
        );
        // One Skill of the shared name: the project's.
        let resources = client.list_all_resources().await.unwrap();
        let shared: Vec<_> = resources
            .iter()
            .filter(|r| r.uri == "hcp://skills/acme-shared/SKILL.md")
            .collect();
        assert_eq!(shared.len(), 1, "{resources:?}");
        assert!(
            resources
                .iter()
                .any(|r| r.uri == "hcp://skills/acme-user/SKILL.md")
        );
        client.cancel().await.unwrap();

        // -g: the user store alone.
        let (client, _) = connect_in(&sb, &proj, &["-g"], None).await;
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(
            meta_scope(&tools, "acme_shared__hello"),
            vec![json!("user")]
        );
        let r = call(&client, "acme_shared__hello", json!({})).await;
        assert_eq!(text(&r), "from-user\n");
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_program_appearing_on_path_becomes_a_tool_without_a_store_change() {
    let sb = Sandbox::new();
    let manifest = simple_manifest("acme.late", "1.0.0", "{kind: public}")
        .replace("program: echo", "program: hcpx-test-late-tool");
    let src = sb.pack(
        "late",
        &[
            ("pack.yaml", &manifest),
            ("SKILL.md", &simple_skill("acme.late")),
        ],
    );
    install_and_activate(&sb, &src, "acme.late");
    let bin = sb.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );

    runtime().block_on(async {
        let (client, watcher) = connect_in(&sb, sb.dir.path(), &[], Some(&path)).await;
        let tools = client.list_all_tools().await.unwrap();
        assert!(
            !tools.iter().any(|t| t.name == "acme_late__hello"),
            "not on PATH yet"
        );
        let notified = watcher.changed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        // Written aside and moved in whole, as a package manager does.
        let aside = sb.dir.path().join("hcpx-test-late-tool");
        std::fs::write(&aside, "#!/bin/sh\necho late \"$@\"\n").unwrap();
        crate::common::make_executable(&aside);
        std::fs::rename(&aside, bin.join("hcpx-test-late-tool")).unwrap();
        tokio::time::timeout(Duration::from_secs(10), notified)
            .await
            .expect("tools/list_changed after the program appeared");
        let tools = client.list_all_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "acme_late__hello"));
        let r = call(&client, "acme_late__hello", json!({"who": "x"})).await;
        assert_eq!(text(&r), "late hello x\n");
        client.cancel().await.unwrap();
    });
}
