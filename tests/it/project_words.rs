//! What `list`, `install`, `catalog` and `why` say inside a project, on
//! the real binary: a catalog pack is listed once (the catalogs are read
//! by both stores), a pack installed from a folder outside the project
//! gets the warning `add` gives, counts say `1 pack`, and `why` of a pack
//! that is not installed gives the one true reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::project_scope::Machine;
use serde_json::Value;

/// A project, and a catalog folder beside it holding `acme.one`.
fn project_with_catalog() -> (Machine, std::path::PathBuf) {
    let m = Machine::new();
    m.json(&m.proj(), &["init"], 0);
    let catalog = m.dir.path().join("elsewhere/catalog");
    m.pack(&catalog, "one", "acme.one");
    (m, catalog)
}

fn ids(doc: &Value) -> Vec<String> {
    doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pack_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_catalog_pack_is_listed_once_in_a_project() {
    let (m, catalog) = project_with_catalog();
    let proj = m.proj();
    let out = m
        .hcpx(&proj)
        .args(["list", "--catalog", catalog.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("acme.one").count(), 1, "{text}");
    let doc = m.json(&proj, &["list", "--catalog", catalog.to_str().unwrap()], 0);
    let listed = ids(&doc);
    assert_eq!(
        listed.iter().filter(|id| *id == "acme.one").count(),
        1,
        "{doc}"
    );
    let row = doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pack_id"] == "acme.one")
        .unwrap();
    assert_eq!(row["scope"], "project", "{doc}");
    assert_eq!(row["status"], "available", "{doc}");
}

#[test]
fn a_catalog_of_one_pack_says_one_pack() {
    let (m, catalog) = project_with_catalog();
    let out = m
        .hcpx(&m.proj())
        .args(["-g", "catalog", "add", catalog.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(1 pack)"), "{text}");
    let out = m
        .hcpx(&m.proj())
        .args(["-g", "catalog", "list"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(" 1 pack "), "{text}");
    assert!(!text.contains("1 packs"), "{text}");
}

#[test]
fn install_from_a_catalog_outside_the_project_warns_as_add_does() {
    let (m, catalog) = project_with_catalog();
    let proj = m.proj();
    let out = m
        .hcpx(&proj)
        .args([
            "install",
            "acme.one",
            "--catalog",
            catalog.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(m.read("hcp.yaml").contains("../elsewhere/catalog/one"));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("acme.one is recorded as ../elsewhere/catalog/one, outside the project: teammates need the same folder layout"),
        "{stderr}"
    );
    // The document carries it too (what the TUI's `i` shows).
    m.json(&proj, &["uninstall", "acme.one"], 0);
    let doc = m.json(
        &proj,
        &[
            "install",
            "acme.one",
            "--catalog",
            catalog.to_str().unwrap(),
        ],
        0,
    );
    let warnings = doc["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{doc}");
    // `add` says it once, not twice.
    let other = m.pack(&m.dir.path().join("elsewhere"), "two", "acme.two");
    let doc = m.json(&proj, &["add", other.to_str().unwrap()], 0);
    assert_eq!(doc["warnings"].as_array().unwrap().len(), 1, "{doc}");
}

#[test]
fn why_of_a_pack_not_installed_gives_one_reason() {
    let (m, catalog) = project_with_catalog();
    let proj = m.proj();
    let cat = catalog.to_str().unwrap();
    let out = m
        .hcpx(&proj)
        .args(["why", "acme.one", "--catalog", cat])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("not installed"), "{text}");
    assert!(!text.contains("installed but not activated"), "{text}");
    let doc = m.json(&proj, &["why", "acme.one", "--catalog", cat], 0);
    assert_eq!(
        doc["reasons"],
        serde_json::json!(["not_installed"]),
        "{doc}"
    );
    assert_eq!(doc["fixes"].as_array().unwrap().len(), 1, "{doc}");
}
