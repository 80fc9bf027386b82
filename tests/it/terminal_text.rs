//! Terminal text from sources (HCP.md §14.5): a folder name holding a
//! newline, a tab or ESC is one row of `install --list`, of a folder or a
//! git collection alike, never raw (the JSON keeps it as data); a Skill
//! holding ESC fails lint (`skill.control-char`), so it is neither
//! installed nor, once edited into the store, served by `hcpx mcp`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox};
use crate::sources::git;
use std::path::{Path, PathBuf};

/// The three hostile folder names and the Skill each holds.
const FOLDERS: &[(&str, &str)] = &[
    ("a\nb", "first-skill"),
    ("c\td", "second-skill"),
    ("e\u{1b}[2Jf", "third-skill"),
];

fn skill(name: &str) -> String {
    format!("---\nname: {name}\ndescription: A Skill in a hostile folder.\n---\nDo the thing.\n")
}

/// A collection of three Skill packs, one in each hostile folder.
fn hostile_collection(sb: &Sandbox) -> PathBuf {
    let root = sb.dir.path().join("collection");
    for (folder, name) in FOLDERS {
        let dir = root.join("skills").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), skill(name)).unwrap();
    }
    root
}

/// `hcpx install SOURCE --list` in words: one line per pack (after the
/// `SOURCE holds 3 packs:` line and the column heads), none raw; and the
/// JSON listing keeps each path as it is.
fn assert_one_row_per_pack(sb: &Sandbox, source: &str) {
    let out = sb
        .hcpx()
        .args(["install", source, "--list"])
        .output()
        .unwrap();
    common::assert_success(&out);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2 + FOLDERS.len(), "{stdout:?}");
    assert!(lines[0].ends_with("holds 3 packs:"), "{stdout:?}");
    for (folder, name) in FOLDERS {
        let rows: Vec<&&str> = lines.iter().filter(|l| l.contains(name)).collect();
        assert_eq!(rows.len(), 1, "{name}: {stdout:?}");
        let shown = folder
            .replace(['\n', '\t'], " ")
            .replace('\u{1b}', "\u{fffd}");
        assert!(rows[0].contains(&format!("skills/{shown}")), "{stdout:?}");
    }
    assert!(
        !stdout.contains(['\t', '\u{1b}', '\r']),
        "a raw tab or ESC: {stdout:?}"
    );
    let doc = sb.json(&["install", source, "--list"], 0);
    let mut paths: Vec<&str> = doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    paths.sort();
    let mut expected: Vec<String> = FOLDERS.iter().map(|(f, _)| format!("skills/{f}")).collect();
    expected.sort();
    assert_eq!(paths, expected, "{doc}");
}

#[test]
fn a_folder_collections_hostile_names_are_one_row_each() {
    let sb = Sandbox::new();
    let root = hostile_collection(&sb);
    assert_one_row_per_pack(&sb, root.to_str().unwrap());
}

#[test]
fn a_git_collections_hostile_names_are_one_row_each() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let root = hostile_collection(&sb);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "hostile names"]);
    assert_one_row_per_pack(&sb, &format!("git+file://{}", root.display()));
}

/// `list` and `catalog list` of a catalog in a folder whose name holds a
/// newline: the path is one cell.
#[test]
fn list_and_catalog_list_keep_a_path_on_its_row() {
    let sb = Sandbox::new();
    let catalog = sb.dir.path().join("cat\nalog");
    let dir = catalog.join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), skill("notes")).unwrap();
    let cat = catalog.to_str().unwrap();
    let out = sb.hcpx().args(["catalog", "add", cat]).output().unwrap();
    common::assert_success(&out);
    let out = sb.hcpx().args(["catalog", "list"]).output().unwrap();
    common::assert_success(&out);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = stdout.lines().filter(|l| l.contains("alog")).collect();
    assert_eq!(rows.len(), 1, "{stdout:?}");
    assert!(rows[0].contains("cat alog"), "{stdout:?}");
    assert!(!stdout.lines().any(|l| l.starts_with("alog")), "{stdout:?}");
}

/// A Skill pack (a folder with only `SKILL.md`) whose body clears the
/// screen fails lint and is not installed.
#[test]
fn a_skill_pack_with_esc_is_refused_at_install() {
    let sb = Sandbox::new();
    let dir = sb.dir.path().join("packs/screen-clear");
    std::fs::create_dir_all(&dir).unwrap();
    let text = "---\nname: screen-clear\ndescription: Clears your screen.\n---\nRead this: \u{1b}[2J\u{1b}]0;pwned\u{7}\n";
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    let doc = sb.json(&["install", dir.to_str().unwrap()], 1);
    assert_eq!(doc["error"]["code"], "lint_failed", "{doc}");
    let lint = sb.json(&["lint", dir.to_str().unwrap()], 1);
    let rules: Vec<&str> = lint["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["skill.control-char"], "{lint}");
    assert_eq!(lint["diagnostics"][0]["line"], 5, "{lint}");
    assert_eq!(lint["diagnostics"][0]["column"], 12, "{lint}");
    let list = sb.json(&["list"], 0);
    assert!(!list.to_string().contains("screen-clear"), "{list}");
    assert!(!sb.home().join("packs/screen-clear").exists());
}

fn resource_uris(sb: &Sandbox) -> Vec<String> {
    use crate::mcp_server::{connect, runtime};
    runtime().block_on(async {
        let (client, _) = connect(sb, &[]).await;
        let uris = client
            .list_all_resources()
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.uri.to_string())
            .collect();
        client.cancel().await.unwrap();
        uris
    })
}

/// A clean Skill pack installed and activated is served; ESC edited into
/// its installed `SKILL.md` makes it fail lint, and `hcpx mcp` lists (so
/// serves) it no more.
#[test]
fn mcp_serves_no_skill_that_holds_esc() {
    let sb = Sandbox::new();
    let src = sb.pack("notes", &[("SKILL.md", &skill("notes"))]);
    common::install_and_activate(&sb, &src, "notes");
    let uri = "hcp://skills/notes/SKILL.md".to_string();
    assert!(resource_uris(&sb).contains(&uri));
    let installed = installed_skill(&sb.home(), "notes");
    let hostile = format!("{}\u{1b}]0;pwned\u{7}\n", skill("notes"));
    std::fs::write(&installed, hostile).unwrap();
    let uris = resource_uris(&sb);
    assert!(!uris.contains(&uri), "{uris:?}");
}

/// Where the store keeps a pack's `SKILL.md`.
fn installed_skill(home: &Path, id: &str) -> PathBuf {
    let path = home.join("packs").join(id).join("SKILL.md");
    assert!(path.is_file(), "{}", path.display());
    path
}
