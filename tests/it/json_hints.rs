//! Every error object of a `--json` document carries its hint as the words
//! show it, commands rendered as `hcpx` lines with the user's
//! `--catalog`/`--principal`, also inside the per-pack results of a run of
//! several (install, uninstall) and the error that stopped an upgrade or a
//! sync. Found by `tests/differential/run.sh`: these hints came out as the
//! fix's debug name (``` ``List`` ```) or went missing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use serde_json::Value;

/// Every `hint` string anywhere in `doc`.
fn hints(doc: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![doc];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let Some(Value::String(h)) = map.get("hint") {
                    found.push(h.clone());
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}

/// The `hint:` lines `hcpx ARGS` (without `--json`) writes on stderr.
fn text_hints(sb: &Sandbox, args: &[&str]) -> Vec<String> {
    let out = sb.hcpx().args(args).output().unwrap();
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("hint: ").map(str::to_string))
        .collect()
}

fn assert_rendered(doc: &Value, want: &str) {
    let all = hints(doc);
    assert!(!all.is_empty(), "no hint in {doc:#}");
    for h in &all {
        assert!(!h.contains("``"), "unrendered fix in hint {h:?}: {doc:#}");
        assert!(h.contains(want), "hint {h:?} lacks {want:?}: {doc:#}");
    }
}

#[test]
fn install_of_several_renders_each_failures_hint_with_the_catalog() {
    let sb = Sandbox::new();
    let cat = sb.dir.path().join("cat");
    copy_dir(
        &sb.simple_pack("acme.one", "1.0.0", "{kind: public}"),
        &cat.join("acme.one"),
    );
    let cat = cat.to_str().unwrap();
    let args = ["install", "acme.one", "zed.zzzzzz", "--catalog", cat];
    let doc = sb.json(&args, 5);
    let failed = &doc["results"][1];
    assert_eq!(failed["ok"], false, "{doc:#}");
    let line = format!("`hcpx list --catalog {cat}` shows the packs hcpx knows");
    assert_rendered(&doc, &line);
    assert_eq!(failed["error"]["hint"], doc["error"]["hint"], "{doc:#}");
}

#[test]
fn uninstall_of_several_renders_each_failures_hint() {
    let sb = Sandbox::new();
    let doc = sb.json(&["uninstall", "zed.zzzzzz", "zed.yyyyyy"], 5);
    assert_rendered(&doc, "`hcpx list` shows the packs hcpx knows");
    assert_eq!(hints(&doc).len(), 3, "both lines and the error: {doc:#}");
}

#[test]
fn upgrade_of_an_unknown_pack_renders_its_hint() {
    let sb = Sandbox::new();
    let doc = sb.json(&["upgrade", "zed.zzzzzz", "--dry-run", "--offline"], 5);
    assert_rendered(&doc, "`hcpx list` shows the packs hcpx knows");
    let doc = sb.json(&["upgrade", "Bad_Id!", "--offline"], 5);
    assert_rendered(
        &doc,
        "pack ids look like acme.notes; `hcpx list` shows them",
    );
}

#[test]
fn a_refused_sync_carries_the_grant_the_words_name() {
    let sb = Sandbox::new();
    let other = sb.dir.path().join("other");
    let src = sb.simple_pack("acme.one", "1.0.0", "{kind: public}");
    let out = sb
        .hcpx()
        .env("HCP_HOME", &other)
        .args(["install", src.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&out);
    // A grant makes grants enforced: `ops` holds none.
    sb.json(&["grant", "agent", "verb.exec.read"], 0);
    let lock = other.join("hcp.lock");
    let lock = lock.to_str().unwrap();
    let args = ["--principal", "ops", "sync", lock];
    let doc = sb.json(&args, 4);
    assert_eq!(doc["error"]["code"], "grant_missing", "{doc:#}");
    assert_rendered(&doc, "hcpx grant ops pack.install");
    assert_eq!(hints(&doc), text_hints(&sb, &args));
}
