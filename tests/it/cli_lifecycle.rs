//! End-to-end tests of the lifecycle subcommands on the real binary against a
//! temporary store: install, activate, deactivate, uninstall, list,
//! availability, why, grant, revoke, doctor (HCP.md §9–§11).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, keys, names};
use serde_json::json;

#[test]
fn first_use_creates_the_store_with_the_bootstrap_pack() {
    let sb = Sandbox::new();
    let list = sb.json(&["list"], 0);
    assert_eq!(list["ok"], true);
    assert_eq!(list["packs"][0]["pack_id"], "hcp-cli");
    assert_eq!(list["packs"][0]["status"], "executable");
    for entry in [
        "packs",
        "skills",
        "secrets",
        "state.json",
        "config.yaml",
        ".tmp",
        ".lock",
    ] {
        assert!(sb.home().join(entry).exists(), "{entry} missing");
    }
    assert_eq!(sb.state()["activated"], json!(["hcp-cli"]));
    assert_eq!(sb.state()["connected"], json!(["hcp-cli"]));
    assert!(sb.home().join("skills/hcp-cli/SKILL.md").is_file());
}

#[test]
fn install_then_reinstall_is_a_no_op_and_force_replaces() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.hello", "1.0.0", "{kind: public}");
    let src = src.to_str().unwrap();
    let first = sb.json(&["install", src], 0);
    assert_eq!(first["action"], "installed");
    assert_eq!(first["pack_id"], "acme.hello");
    assert_eq!(first["version"], "1.0.0");
    assert!(sb.home().join("packs/acme.hello/pack.yaml").is_file());
    assert_eq!(sb.json(&["install", src], 0)["action"], "unchanged");
    assert_eq!(
        sb.json(&["install", src, "--force"], 0)["action"],
        "reinstalled"
    );
    // Nothing is left behind in .tmp/.
    assert!(names(&sb.home().join(".tmp")).is_empty());
}

#[test]
fn a_pack_that_fails_lint_is_not_installed_and_the_store_is_unchanged() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    let before = names(&sb.home().join("packs"));
    let state_before = std::fs::read(sb.home().join("state.json")).unwrap();
    let bad = sb.pack(
        "bad",
        &[
            (
                "pack.yaml",
                "hcp: \"1\"\nid: Bad_Id\nname: x\nversion: one\ndescription: d\n",
            ),
            ("SKILL.md", "---\nname: bad\ndescription: d\n---\nbody\n"),
        ],
    );
    let out = sb.json(&["install", bad.to_str().unwrap()], 1);
    assert_eq!(out["ok"], false);
    assert_eq!(out["error"]["code"], "lint_failed");
    let rules: Vec<&str> = out["error"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"manifest.id-format"), "{rules:?}");
    assert!(rules.contains(&"manifest.version"), "{rules:?}");
    assert_eq!(names(&sb.home().join("packs")), before);
    assert_eq!(
        std::fs::read(sb.home().join("state.json")).unwrap(),
        state_before
    );
}

#[test]
fn upgrade_keeps_activation_recopies_the_skill_and_drops_connected_when_the_binding_changes() {
    let sb = Sandbox::new();
    let v1 = sb.simple_pack("acme.up", "1.0.0", "{kind: local}");
    sb.json(&["install", v1.to_str().unwrap()], 0);
    sb.json(&["activate", "acme.up"], 0);
    sb.json(&["connect", "acme.up"], 0);
    assert!(
        sb.state()["connected"]
            .as_array()
            .unwrap()
            .contains(&json!("acme.up"))
    );

    let v2 = sb.pack(
        "up2",
        &[
            (
                "pack.yaml",
                &common::simple_manifest("acme.up", "2.0.0", "{kind: env, env: [UP_TOKEN]}"),
            ),
            (
                "SKILL.md",
                &(common::simple_skill("acme.up") + "\nVersion two.\n"),
            ),
        ],
    );
    let out = sb.json(&["install", v2.to_str().unwrap(), "--yes"], 0);
    assert_eq!(out["action"], "upgraded");
    assert_eq!(out["previous_version"], "1.0.0");
    assert_eq!(out["activated"], true);
    assert_eq!(out["disconnected"], true);
    let state = sb.state();
    assert!(
        state["activated"]
            .as_array()
            .unwrap()
            .contains(&json!("acme.up"))
    );
    assert!(
        !state["connected"]
            .as_array()
            .unwrap()
            .contains(&json!("acme.up"))
    );
    let copy = std::fs::read_to_string(sb.home().join("skills/acme.up/SKILL.md")).unwrap();
    assert!(copy.contains("Version two."));
}

#[test]
fn install_by_catalog_id() {
    let sb = Sandbox::new();
    let catalog = sb.dir.path().join("catalog");
    let src = sb.simple_pack("acme.cat", "0.3.0", "{kind: public}");
    std::fs::create_dir_all(&catalog).unwrap();
    std::fs::rename(&src, catalog.join("cat")).unwrap();
    let cat = catalog.to_str().unwrap();
    let list = sb.json(&["list", "--catalog", cat], 0);
    let row = list["packs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pack_id"] == "acme.cat")
        .cloned()
        .unwrap();
    assert_eq!(row["status"], "available");
    assert_eq!(row["installed"], false);
    let out = sb.json(&["install", "acme.cat", "--catalog", cat], 0);
    assert_eq!(out["action"], "installed");
    let missing = sb.json(&["install", "acme.nope", "--catalog", cat], 5);
    assert_eq!(missing["error"]["code"], "not_found");
    assert_eq!(missing["error"]["pack_id"], "acme.nope");
}

#[test]
fn catalogs_from_config_yaml() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    let src = sb.simple_pack("acme.conf", "1.0.0", "{kind: public}");
    let catalog = src.parent().unwrap();
    std::fs::write(
        sb.home().join("config.yaml"),
        format!("catalogs:\n  - {}\n", catalog.display()),
    )
    .unwrap();
    let out = sb.json(&["install", "acme.conf"], 0);
    assert_eq!(out["pack_id"], "acme.conf");
}

#[test]
fn activate_copies_the_skill_byte_for_byte_and_deactivate_removes_it() {
    let sb = Sandbox::new();
    let skill =
        "---\nname: acme-skill\ndescription: d\n---\nUse `hello` and `touch`.\r\nÜnïcode ✓\n";
    let src = sb.pack(
        "skill",
        &[
            (
                "pack.yaml",
                &common::simple_manifest("acme.skill", "1.0.0", "{kind: public}"),
            ),
            ("SKILL.md", skill),
        ],
    );
    sb.json(&["install", src.to_str().unwrap()], 0);
    let out = sb.json(&["activate", "acme.skill"], 0);
    assert_eq!(
        out["results"],
        json!([{"pack_id": "acme.skill", "changed": true, "harnesses": []}])
    );
    let copy = std::fs::read(sb.home().join("skills/acme.skill/SKILL.md")).unwrap();
    assert_eq!(copy, skill.as_bytes());
    assert_eq!(
        sb.json(&["activate", "acme.skill"], 0)["results"][0]["changed"],
        false
    );
    sb.json(&["deactivate", "acme.skill"], 0);
    assert!(!sb.home().join("skills/acme.skill").exists());
    assert!(
        !sb.state()["activated"]
            .as_array()
            .unwrap()
            .contains(&json!("acme.skill"))
    );
}

#[test]
fn activate_several_and_the_errors_of_unknown_packs() {
    let sb = Sandbox::new();
    for id in ["acme.a", "acme.b"] {
        let src = sb.simple_pack(id, "1.0.0", "{kind: public}");
        sb.json(&["install", src.to_str().unwrap()], 0);
    }
    let out = sb.json(&["activate", "acme.a", "acme.b"], 0);
    assert_eq!(out["results"].as_array().unwrap().len(), 2);
    let out = sb.json(&["activate", "acme.zzz"], 5);
    assert_eq!(out["error"]["code"], "not_found");

    let catalog = sb.dir.path().join("src");
    let cat = sb.simple_pack("acme.c", "1.0.0", "{kind: public}");
    assert!(cat.starts_with(&catalog));
    let out = sb.json(
        &["activate", "acme.c", "--catalog", catalog.to_str().unwrap()],
        3,
    );
    assert_eq!(out["error"]["code"], "not_installed");
    assert_eq!(out["error"]["pack_id"], "acme.c");
}

#[test]
fn deactivate_drops_connected() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.loc", "1.0.0", "{kind: local}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    sb.json(&["activate", "acme.loc"], 0);
    sb.json(&["connect", "acme.loc"], 0);
    // Connected first, so the check below can fail.
    assert!(
        sb.state()["connected"]
            .as_array()
            .unwrap()
            .contains(&json!("acme.loc"))
    );
    sb.json(&["deactivate", "acme.loc"], 0);
    let state = sb.state();
    assert!(
        !state["connected"]
            .as_array()
            .unwrap()
            .contains(&json!("acme.loc"))
    );
}

#[test]
fn uninstall_removes_everything_and_refuses_the_bootstrap_pack() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.gone", "1.0.0", "{kind: public}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    sb.json(&["activate", "acme.gone"], 0);
    // All there first, so the checks below can fail.
    assert!(sb.home().join("packs/acme.gone/pack.yaml").is_file());
    assert!(sb.home().join("skills/acme.gone/SKILL.md").is_file());
    let out = sb.json(&["uninstall", "acme.gone"], 0);
    assert_eq!(out["pack_id"], "acme.gone");
    assert!(!sb.home().join("packs/acme.gone").exists());
    assert!(!sb.home().join("skills/acme.gone").exists());
    assert!(
        !sb.state()["activated"]
            .as_array()
            .unwrap()
            .contains(&json!("acme.gone"))
    );
    assert_eq!(
        sb.json(&["uninstall", "acme.gone"], 5)["error"]["code"],
        "not_found"
    );

    let out = sb.json(&["uninstall", "hcp-cli"], 3);
    assert_eq!(out["error"]["code"], "bootstrap_protected");
    assert!(sb.home().join("packs/hcp-cli/pack.yaml").is_file());
}

#[test]
fn availability_has_the_shape_of_section_11_3() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.av", "1.2.0", "{kind: local}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    let out = sb.json(&["availability", "acme.av"], 0);
    assert_eq!(keys(&out), ["ok", "packs", "principal", "scope"]);
    assert_eq!(out["principal"], "user");
    let pack = &out["packs"][0];
    assert_eq!(
        keys(pack),
        [
            "activated",
            "commands",
            "connected",
            "grants_from",
            "installed",
            "kind",
            "pack_id",
            "sense",
            "status",
            "version"
        ]
    );
    assert_eq!(pack["kind"], "pack");
    assert_eq!(pack["status"], "installed");
    assert_eq!(pack["sense"], json!({"active": false, "harnesses": []}));
    assert_eq!(
        pack["commands"][0],
        json!({"verb_key": "hello", "effect": "read", "executable": false,
               "reasons": ["not_activated", "not_connected"]})
    );

    sb.json(&["activate", "acme.av"], 0);
    let pack = &sb.json(&["availability", "acme.av"], 0)["packs"][0];
    assert_eq!(pack["status"], "activated");
    assert_eq!(pack["sense"]["active"], true);
    assert_eq!(pack["commands"][0]["reasons"], json!(["not_connected"]));

    sb.json(&["connect", "acme.av"], 0);
    let pack = &sb.json(&["availability", "acme.av"], 0)["packs"][0];
    assert_eq!(pack["status"], "executable");
    assert_eq!(pack["commands"][0]["executable"], true);

    assert_eq!(
        sb.json(&["availability", "acme.none"], 5)["error"]["code"],
        "not_found"
    );
}

#[test]
fn grants_restrict_principals_and_name_the_missing_grant() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.g", "1.0.0", "{kind: public}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    sb.json(&["activate", "acme.g"], 0);
    let out = sb.json(&["grant", "agent", "verb.exec.read"], 0);
    assert_eq!(out["changed"], true);
    assert_eq!(out["enforced_now"], true);
    assert_eq!(sb.state()["grants"]["agent"], json!(["verb.exec.read"]));

    let avail = sb.json(&["availability", "acme.g", "--principal", "agent"], 0);
    assert_eq!(avail["principal"], "agent");
    let cmds = &avail["packs"][0]["commands"];
    assert_eq!(cmds[0]["executable"], true);
    assert_eq!(cmds[1]["reasons"], json!(["grant_missing:verb.exec.write"]));

    // HCP_PRINCIPAL is the fallback for --principal.
    let out = sb
        .hcpx()
        .env("HCP_PRINCIPAL", "agent")
        .args(["uninstall", "acme.g", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "grant_missing");
    assert_eq!(doc["error"]["grant"], "pack.install");
    assert_eq!(doc["error"]["pack_id"], "acme.g");

    sb.json(&["grant", "agent", "verb.exec.write:acme.g"], 0);
    let avail = sb.json(&["availability", "acme.g", "--principal", "agent"], 0);
    assert_eq!(avail["packs"][0]["commands"][1]["executable"], true);
    assert_eq!(
        sb.json(&["revoke", "agent", "verb.exec.write:acme.g"], 0)["changed"],
        true
    );
    assert_eq!(
        sb.json(&["grant", "agent", "verb.exec.delete"], 2)["error"]["code"],
        "usage"
    );
    // The default principal kept everything.
    assert_eq!(
        sb.json(&["availability", "acme.g"], 0)["packs"][0]["status"],
        "executable"
    );
}

#[test]
fn why_names_the_first_unmet_condition_and_the_fix() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.why", "1.0.0", "{kind: env, env: [WHY_TOKEN]}");
    let catalog = src.parent().unwrap().to_str().unwrap().to_string();
    let out = sb.json(&["why", "acme.why", "hello", "--catalog", &catalog], 0);
    assert_eq!(out["reason"], "not_installed");
    assert_eq!(
        out["fix"].as_str(),
        Some(format!("hcpx install acme.why --catalog {catalog}").as_str())
    );
    sb.json(&["install", "acme.why", "--catalog", &catalog], 0);
    let out = sb.json(&["why", "acme.why", "hello"], 0);
    assert_eq!(out["reason"], "not_activated");
    assert_eq!(out["fix"], "hcpx activate acme.why");
    sb.json(&["activate", "acme.why"], 0);
    let out = sb.json(&["why", "acme.why", "hello"], 0);
    assert_eq!(out["reason"], "not_connected");
    assert!(out["explanation"].as_str().unwrap().contains("WHY_TOKEN"));
    assert_eq!(out["fix"], "hcpx connect acme.why");
    let text = sb
        .hcpx()
        .args(["why", "acme.why", "hello"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("fix: hcpx connect acme.why"), "{text}");
}

#[test]
fn a_corrupt_state_file_is_reported_and_never_replaced() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    std::fs::write(sb.home().join("state.json"), "{\"activated\": [oops").unwrap();
    let out = sb.json(&["list"], 1);
    assert_eq!(out["error"]["code"], "store_corrupt");
    assert!(
        out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("state.json")
    );
    let src = sb.simple_pack("acme.c", "1.0.0", "{kind: public}");
    sb.json(&["install", src.to_str().unwrap()], 1);
    assert_eq!(
        std::fs::read_to_string(sb.home().join("state.json")).unwrap(),
        "{\"activated\": [oops"
    );
}

#[test]
fn doctor_reports_missing_programs_and_loose_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let manifest = common::simple_manifest("acme.doc", "1.0.0", "{kind: public}")
        .replace("program: echo", "program: hcpx-test-missing-program");
    let src = sb.pack(
        "doc",
        &[
            ("pack.yaml", &manifest),
            ("SKILL.md", &common::simple_skill("acme.doc")),
        ],
    );
    sb.json(&["install", src.to_str().unwrap()], 0);
    std::fs::set_permissions(
        sb.home().join("secrets"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let out = sb.json(&["doctor"], 1);
    assert_eq!(out["ok"], false);
    let problems: Vec<&serde_json::Value> = out["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .collect();
    assert!(problems.iter().any(|c| {
        c["message"]
            .as_str()
            .unwrap()
            .contains("hcpx-test-missing-program")
    }));
    assert!(
        problems
            .iter()
            .any(|c| c["fix"].as_str().unwrap().starts_with("chmod 700"))
    );
}

#[test]
fn usage_errors_exit_2_also_as_json() {
    let sb = Sandbox::new();
    sb.hcpx().args(["activate"]).assert().code(2);
    let out = sb.json(&["install", "--bogus"], 2);
    assert_eq!(out["ok"], false);
    assert_eq!(out["error"]["code"], "usage");
}

#[test]
fn the_installed_bootstrap_pack_lints_clean_but_a_copy_that_differs_does_not() {
    let sb = Sandbox::new();
    sb.json(&["list"], 0);
    let dir = sb.home().join("packs/hcp-cli");
    let out = sb.json(&["lint", dir.to_str().unwrap()], 0);
    assert_eq!(out["diagnostics"], json!([]));
    let copy = sb.dir.path().join("fake-cli");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["pack.yaml", "SKILL.md"] {
        std::fs::copy(dir.join(f), copy.join(f)).unwrap();
    }
    std::fs::write(
        copy.join("SKILL.md"),
        "---\nname: x\ndescription: y\n---\nchanged\n",
    )
    .unwrap();
    let out = sb.json(&["lint", copy.to_str().unwrap()], 1);
    let rules: Vec<&str> = out["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"manifest.id-reserved"));
    assert!(rules.contains(&"command.adapter-builtin"));
}

#[test]
fn why_of_an_unknown_verb_is_not_found() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.w", "1.0.0", "{kind: public}");
    sb.json(&["install", src.to_str().unwrap()], 0);
    let out = sb.json(&["why", "acme.w", "nope"], 5);
    assert_eq!(out["error"]["code"], "not_found");
    assert_eq!(out["error"]["verb_key"], "nope");
    assert!(
        out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("hello, touch")
    );
    assert_eq!(
        sb.json(&["why", "acme.zz"], 5)["error"]["code"],
        "not_found"
    );
}
