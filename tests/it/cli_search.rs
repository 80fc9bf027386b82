//! `hcpx search WORD...` on the real binary: the packs of the catalogs,
//! Skill packs of a collection inside one included, matched by id, name
//! or description (case aside); `--json`; a clear line when nothing
//! matches or there is no catalog.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, simple_manifest, simple_skill};

/// A catalog folder holding the pack `acme.clock` and a collection of two
/// Skills (`pdf-tools`, `weather-notes`).
fn catalog(sb: &Sandbox) -> std::path::PathBuf {
    let root = sb.dir.path().join("catalog");
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "clock/pack.yaml",
        &simple_manifest("acme.clock", "1.0.0", "{kind: public}"),
    );
    write("clock/SKILL.md", &simple_skill("acme.clock"));
    for (name, about) in [
        ("pdf-tools", "Fill PDF forms and merge documents"),
        ("weather-notes", "Keep notes on the WEATHER"),
    ] {
        write(
            &format!("skills/{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: {about}\n---\n# {name}\n"),
        );
    }
    root
}

fn ids(doc: &serde_json::Value) -> Vec<String> {
    doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pack_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn search_finds_catalog_and_collection_packs_by_every_word() {
    let sb = Sandbox::new();
    let cat = catalog(&sb);
    let cat = cat.to_str().unwrap();
    let doc = sb.json(&["search", "weather", "--catalog", cat], 0);
    assert_eq!(ids(&doc), ["weather-notes"], "{doc}");
    assert_eq!(doc["query"], "weather");
    let hit = &doc["packs"][0];
    assert_eq!(hit["kind"], "skill", "{doc}");
    assert_eq!(hit["installed"], false, "{doc}");
    assert!(
        hit["path"]
            .as_str()
            .unwrap()
            .ends_with("skills/weather-notes")
    );
    // Every word must match, in any field, case aside.
    let doc = sb.json(&["search", "PDF", "merge", "--catalog", cat], 0);
    assert_eq!(ids(&doc), ["pdf-tools"], "{doc}");
    let doc = sb.json(&["search", "pdf", "clock", "--catalog", cat], 0);
    assert!(ids(&doc).is_empty(), "{doc}");
    // Installed is said.
    sb.json(&["install", "acme.clock", "--catalog", cat], 0);
    let doc = sb.json(&["search", "acme", "--catalog", cat], 0);
    assert_eq!(ids(&doc), ["acme.clock"], "{doc}");
    assert_eq!(doc["packs"][0]["installed"], true, "{doc}");
    let out = sb
        .hcpx()
        .args(["search", "merge", "--catalog", cat])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("pdf-tools") && text.contains("skill"),
        "{text}"
    );
    assert!(text.contains("1 pack matching `merge`"), "{text}");
}

#[test]
fn search_says_when_nothing_matches() {
    let sb = Sandbox::new();
    let cat = catalog(&sb);
    let out = sb
        .hcpx()
        .args(["search", "kubernetes", "--catalog", cat.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("no pack in the catalog matches `kubernetes`"),
        "{text}"
    );
    let out = sb.hcpx().args(["search", "clock"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("no catalogs to search"), "{text}");
    let doc = sb.json(&["search", "clock"], 0);
    assert!(ids(&doc).is_empty(), "{doc}");
    sb.hcpx().arg("search").assert().code(2);
}
