//! Guarded grants (HCP.md §9.4), store files that fail clearly (§11.5–§11.6,
//! §10.1) and the store lock (§11.5), on the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, wait_exit};
use serde_json::{Value, json};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The checks of a doctor document that failed.
fn problems(doc: &Value) -> Vec<Value> {
    doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["ok"] == false)
        .cloned()
        .collect()
}

/// A store where `agent` holds `verb.exec.read` and `user` holds `*`, as
/// written down by the first grant (§9.4).
fn enforced() -> Sandbox {
    let sb = Sandbox::new();
    let out = sb.json(&["grant", "agent", "verb.exec.read"], 0);
    assert_eq!(out["enforced_now"], true);
    assert_eq!(
        sb.state()["grants"],
        json!({"*": ["verb.exec.read"], "agent": ["verb.exec.read"], "user": ["*"]})
    );
    sb
}

#[test]
fn an_agent_cannot_grant_itself_everything() {
    let sb = enforced();
    let before = sb.state();
    for grant in ["*", "verb.exec.write", "pack.install:acme.x"] {
        let out = sb.json(&["grant", "agent", grant, "--principal", "agent"], 4);
        assert_eq!(out["error"]["code"], "grant_missing", "{out}");
        assert_eq!(out["error"]["grant"], "*", "{out}");
    }
    // HCP_PRINCIPAL names the principal as well as --principal.
    let out = sb.json_env(
        &["grant", "agent", "*"],
        &[("HCP_PRINCIPAL", Some("agent"))],
        4,
    );
    assert_eq!(out["error"]["grant"], "*");
    assert_eq!(sb.state(), before);
}

#[test]
fn an_agent_cannot_revoke_the_user() {
    let sb = enforced();
    let before = sb.state();
    let out = sb.json(&["revoke", "user", "*", "--principal", "agent"], 4);
    assert_eq!(out["error"]["code"], "grant_missing");
    assert_eq!(out["error"]["grant"], "*");
    let out = sb.json(
        &["revoke", "agent", "verb.exec.read", "--principal", "agent"],
        4,
    );
    assert_eq!(out["error"]["grant"], "*");
    assert_eq!(sb.state(), before);
}

#[test]
fn a_scoped_star_does_not_let_one_change_grants() {
    let sb = enforced();
    sb.json(&["grant", "bot", "*:acme.x"], 0);
    let out = sb.json(&["grant", "bot", "*", "--principal", "bot"], 4);
    assert_eq!(out["error"]["grant"], "*");
}

#[test]
fn the_user_holding_star_can_grant_and_revoke() {
    let sb = enforced();
    sb.json(&["grant", "agent", "verb.exec.write"], 0);
    assert_eq!(
        sb.state()["grants"]["agent"],
        json!(["verb.exec.read", "verb.exec.write"])
    );
    assert_eq!(
        sb.json(&["revoke", "agent", "verb.exec.read"], 0)["changed"],
        true
    );
    // A principal given `*` may then change grants too.
    sb.json(&["grant", "ops", "*"], 0);
    sb.json(&["grant", "agent", "pack.install", "--principal", "ops"], 0);
    sb.json(&["revoke", "user", "*", "--principal", "ops"], 0);
    // Listed with nothing, else `"*"` would give it the reads again.
    assert_eq!(sb.state()["grants"]["user"], json!([]));
    // ... and the last `*` stays: nobody could change grants without it.
    let out = sb.json(&["revoke", "ops", "*", "--principal", "ops"], 2);
    assert_eq!(out["error"]["code"], "usage");
    assert_eq!(sb.state()["grants"]["ops"], json!(["*"]));
}

#[test]
fn a_first_grant_for_user_keeps_user_able_to_change_grants() {
    let sb = Sandbox::new();
    sb.json(&["grant", "user", "verb.exec.read"], 0);
    sb.json(&["grant", "agent", "verb.exec.read"], 0);
}

#[test]
fn unknown_capabilities_are_usage_errors() {
    let sb = Sandbox::new();
    for grant in ["verb.exec.delete", "pack.*", "verb.exec.read:Not An Id", ""] {
        let out = sb.json(&["grant", "agent", grant], 2);
        assert_eq!(out["error"]["code"], "usage", "{grant}: {out}");
    }
    // Also once grants are enforced, and before the grant is checked.
    let sb = enforced();
    let out = sb.json(&["grant", "agent", "verb.exec.delete"], 2);
    assert_eq!(out["error"]["grant"], "verb.exec.delete");
    assert!(
        out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("verb.exec.delete")
    );
}

#[test]
fn doctor_reports_an_unknown_capability_written_by_hand() {
    let sb = enforced();
    let src = sb.simple_pack("acme.g", "1.0.0", "{kind: public}");
    crate::common::install_and_activate(&sb, &src, "acme.g");
    let mut state = sb.state();
    state["grants"]["bot"] = json!(["verb.exec.delete", "verb.exec.read:Bad Id"]);
    std::fs::write(
        sb.home().join("state.json"),
        serde_json::to_string(&state).unwrap(),
    )
    .unwrap();

    let doc = sb.json(&["doctor"], 1);
    let found = problems(&doc);
    for text in ["verb.exec.delete", "Bad Id"] {
        assert!(
            found.iter().any(|c| c["check"] == "store.grants"
                && c["message"].as_str().unwrap().contains(text)
                && c["fix"].as_str().unwrap().contains("from `bot`")),
            "{text}: {doc}"
        );
    }
    // Such entries give nothing ...
    let avail = sb.json(&["availability", "acme.g", "--principal", "bot"], 0);
    assert_eq!(
        avail["packs"][0]["commands"][0]["reasons"],
        json!(["grant_missing:verb.exec.read"])
    );
    // ... survive other changes of the state ...
    sb.json(&["grant", "agent", "verb.exec.write"], 0);
    assert_eq!(
        sb.state()["grants"]["bot"],
        json!(["verb.exec.delete", "verb.exec.read:Bad Id"])
    );
    // ... and revoke removes them.
    sb.json(&["revoke", "bot", "verb.exec.delete"], 0);
    sb.json(&["revoke", "bot", "verb.exec.read:Bad Id"], 0);
    assert_eq!(sb.state()["grants"]["bot"], json!([]));
    assert!(problems(&sb.json(&["doctor"], 0)).is_empty());
}

#[test]
fn a_config_that_is_not_a_mapping_is_corrupt_and_doctor_says_so() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    let config = sb.home().join("config.yaml");
    for text in [&b"- /some/catalog\n"[..], b"catalogs: /one/folder\n"] {
        std::fs::write(&config, text).unwrap();
        let out = sb.json(&["list"], 1);
        assert_eq!(out["error"]["code"], "store_corrupt", "{out}");
        assert_eq!(out["error"]["path"], config.to_str().unwrap());

        let doc = sb.json(&["doctor"], 1);
        let found = problems(&doc);
        assert_eq!(found.len(), 1, "{doc}");
        assert_eq!(found[0]["check"], "store.config");
        assert!(
            found[0]["message"]
                .as_str()
                .unwrap()
                .contains("config.yaml:1")
        );
        let fix = found[0]["fix"].as_str().unwrap();
        assert!(fix.contains(config.to_str().unwrap()), "{fix}");
    }
}

#[test]
fn a_config_that_is_not_utf8_is_corrupt() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    let config = sb.home().join("config.yaml");
    std::fs::write(&config, b"catalogs:\n  - \xff\xfe\n").unwrap();
    let out = sb.json(&["install", "acme.x"], 1);
    assert_eq!(out["error"]["code"], "store_corrupt", "{out}");
    assert!(
        out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("config.yaml:2")
    );
    let doc = sb.json(&["doctor"], 1);
    assert_eq!(problems(&doc)[0]["check"], "store.config");
    // hcpx never rewrites it.
    assert_eq!(
        std::fs::read(&config).unwrap(),
        b"catalogs:\n  - \xff\xfe\n"
    );
}

#[test]
fn doctor_checks_free_space() {
    let sb = Sandbox::new();
    let doc = sb.json(&["doctor"], 0);
    let space = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "store.space")
        .cloned();
    assert_eq!(space.map(|c| c["ok"].clone()), Some(json!(true)), "{doc}");
}

#[test]
fn doctor_reports_a_store_it_cannot_write() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    // `.tmp/` replaced by a folder nobody can create files in, not even root.
    let tmp = sb.home().join(".tmp");
    std::fs::remove_dir(&tmp).unwrap();
    std::os::unix::fs::symlink("/proc", &tmp).unwrap();
    let doc = sb.json(&["doctor"], 1);
    let found = problems(&doc);
    assert_eq!(found.len(), 1, "{doc}");
    assert_eq!(found[0]["check"], "store.writable");
    assert!(found[0]["message"].as_str().unwrap().contains(".tmp"));
}

#[test]
fn doctor_reports_a_store_folder_it_cannot_write() {
    use std::os::unix::fs::PermissionsExt;
    if rustix::process::geteuid().is_root() {
        // Modes do not stop root; the test above covers it.
        return;
    }
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    // `.tmp/` stays writable; the folder renames land in is not.
    let home = sb.home();
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o555)).unwrap();
    let doc = sb.json(&["doctor"], 1);
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).unwrap();
    let found = problems(&doc);
    assert_eq!(found.len(), 1, "{doc}");
    assert_eq!(found[0]["check"], "store.writable");
}

/// Holds `<store>/.lock` as another hcpx would.
fn hold_lock(sb: &Sandbox) -> File {
    sb.json(&["list"], 0);
    let lock = File::options()
        .write(true)
        .create(true)
        .truncate(false)
        .open(sb.home().join(".lock"))
        .unwrap();
    lock.lock().unwrap();
    lock
}

/// `hcpx --json ARGS` started with `env`, stdout and stderr piped.
fn spawn(sb: &Sandbox, args: &[&str], env: &[(&str, &str)]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hcpx"));
    cmd.env("HCP_HOME", sb.home())
        .env_remove("HCP_PRINCIPAL")
        .env("NO_COLOR", "1")
        .arg("--json")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.spawn().unwrap()
}

#[test]
fn a_writer_says_it_waits_for_the_lock_then_gives_up() {
    let sb = Sandbox::new();
    let _held = hold_lock(&sb);
    let out = sb
        .hcpx()
        .env("HCPX_LOCK_TIMEOUT_MS", "200")
        .args(["--json", "grant", "agent", "verb.exec.read"])
        .output()
        .unwrap();
    let lock = sb.home().join(".lock");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "hcpx: waiting for the store lock {} (held by another hcpx)",
            lock.display()
        )),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "timeout", "{doc}");
    assert_eq!(doc["error"]["path"], lock.to_str().unwrap());
    assert!(
        doc["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("HCPX_LOCK_TIMEOUT_MS")
    );
    assert_eq!(sb.state().get("grants"), None);
}

#[test]
fn a_bad_lock_timeout_is_a_usage_error() {
    let sb = Sandbox::new();
    let out = sb.json_env(&["list"], &[("HCPX_LOCK_TIMEOUT_MS", Some("soon"))], 2);
    assert_eq!(out["error"]["code"], "usage");
}

#[test]
fn a_waiting_writer_proceeds_once_the_lock_is_released() {
    let sb = Sandbox::new();
    let held = hold_lock(&sb);
    let mut child = spawn(
        &sb,
        &["grant", "agent", "verb.exec.read"],
        &[("HCPX_LOCK_TIMEOUT_MS", "60000")],
    );
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("no waiting message within 10 s");
    assert!(line.contains("waiting for the store lock"), "{line}");
    // It has not written while it waits.
    assert_eq!(sb.state().get("grants"), None);
    drop(held);
    let status = wait_exit(&mut child);
    assert_eq!(status.code(), Some(0));
    assert_eq!(sb.state()["grants"]["agent"], json!(["verb.exec.read"]));
}
