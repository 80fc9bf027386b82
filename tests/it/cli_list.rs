//! `hcpx list` as a table a person reads: broken catalog packs shown as
//! `unavailable`, columns aligned whatever the characters, long text cut
//! with `…`; and a `--catalog` folder that is not there is a warning.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, copy_dir, simple_manifest, simple_skill};
use unicode_width::UnicodeWidthStr;

/// A catalog with a good pack, one that fails lint (wide id and version,
/// emoji and replacement characters), and one with a long description.
fn catalog(sb: &Sandbox) -> String {
    let cat = sb.dir.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    copy_dir(
        &sb.simple_pack("demo.clock", "1.0.0", "{kind: public}"),
        &cat.join("clock"),
    );
    let broken = sb.pack(
        "broken",
        &[(
            "pack.yaml",
            "hcp: \"1\"\nid: 日本.パック\nname: Broken\nversion: \"１.０\"\ndescription: \"🎉 party \u{fffd} pack\"\n",
        )],
    );
    copy_dir(&broken, &cat.join("broken"));
    let long = simple_manifest("demo.long", "1.0.0", "{kind: public}").replace(
        "description: A pack for tests.",
        &format!("description: \"{}\"", "全角".repeat(40)),
    );
    let long = sb.pack(
        "long",
        &[
            ("pack.yaml", &long),
            ("SKILL.md", &simple_skill("demo.long")),
        ],
    );
    copy_dir(&long, &cat.join("long"));
    cat.display().to_string()
}

#[test]
fn a_catalog_pack_that_fails_lint_is_unavailable() {
    let sb = Sandbox::new();
    let cat = sb.dir.path().join("catalog");
    let bad = sb.pack(
        "bad",
        &[(
            "pack.yaml",
            "hcp: \"1\"\nid: acme.bad\nname: Bad\nversion: nope\ndescription: d\n",
        )],
    );
    copy_dir(&bad, &cat.join("bad"));
    let cat = cat.display().to_string();
    let list = sb.json(&["list", "--catalog", &cat], 0);
    let row = list["packs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pack_id"] == "acme.bad")
        .unwrap()
        .clone();
    assert_eq!(row["status"], "unavailable");
    let avail = sb.json(&["availability", "acme.bad", "--catalog", &cat], 0);
    assert_eq!(avail["packs"][0]["status"], "unavailable");
    assert!(
        avail["packs"][0]["problems"][0]
            .as_str()
            .unwrap()
            .contains("manifest.version")
    );
    let why = sb.json(&["why", "acme.bad", "--catalog", &cat], 0);
    let fix = why["fix"].as_str().unwrap();
    assert!(fix.starts_with("hcpx lint "), "{why}");
    assert!(!fix.contains("hcpx install"), "{why}");
    let text = sb
        .hcpx()
        .args(["list", "--catalog", &cat])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&text.stdout);
    let line = stdout.lines().find(|l| l.starts_with("acme.bad")).unwrap();
    assert!(line.contains("unavailable"), "{stdout}");
}

#[test]
fn columns_line_up_with_wide_characters_and_long_text_is_cut() {
    let sb = Sandbox::new();
    let cat = catalog(&sb);
    let out = sb
        .hcpx()
        .args(["list", "--catalog", &cat])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() >= 4, "{stdout}");
    // The STATUS column starts at the same terminal column on every row.
    let status_column = |line: &str| {
        let at = ["STATUS", "available", "unavailable", "executable"]
            .iter()
            .filter_map(|w| line.find(&format!("  {w}")))
            .min()
            .unwrap_or_else(|| panic!("no status in {line:?}"));
        UnicodeWidthStr::width(&line[..at])
    };
    let first = status_column(lines[0]);
    for line in &lines {
        assert_eq!(status_column(line), first, "misaligned:\n{stdout}");
    }
    assert!(stdout.contains("日本.パック"), "{stdout}");
    assert!(stdout.contains("🎉 party \u{fffd} pack"), "{stdout}");
    let long = lines.iter().find(|l| l.starts_with("demo.long")).unwrap();
    assert!(long.ends_with('…'), "{long}");
    assert!(UnicodeWidthStr::width(*long) < 120, "{long}");
    // JSON keeps the whole description.
    let doc = sb.json(&["list", "--catalog", &cat], 0);
    let row = doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pack_id"] == "demo.long")
        .unwrap()
        .clone();
    assert_eq!(row["description"].as_str().unwrap().chars().count(), 80);
}

#[test]
fn a_missing_catalog_folder_is_a_warning_in_every_subcommand() {
    let sb = Sandbox::new();
    let missing = sb.dir.path().join("no-such-catalog");
    let missing = missing.to_str().unwrap();
    let file = sb.dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let file = file.to_str().unwrap();
    for args in [
        vec!["list", "--catalog", missing],
        vec!["--catalog", missing, "list"],
        vec!["availability", "--catalog", missing],
        vec!["show", "hcp-cli", "--catalog", missing],
        vec!["why", "hcp-cli", "--catalog", missing],
        vec!["doctor", "--catalog", missing],
        vec!["list", "--json", "--catalog", missing],
    ] {
        let out = sb.hcpx().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("warning: catalog {missing} does not exist")),
            "{args:?}: {stderr}"
        );
    }
    let out = sb
        .hcpx()
        .args(["list", "--catalog", file])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is not a folder"), "{stderr}");
    // With --json, stdout is still one document.
    let doc = sb.json(&["list", "--catalog", missing], 0);
    assert_eq!(doc["ok"], true);
}
