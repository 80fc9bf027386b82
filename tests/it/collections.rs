//! Collections (HCP.md §13.1, §11.6): a repository laid out like the public
//! skill repositories (`skills/*/`, hidden `skills/.curated/*/`,
//! `plugins/*/skills/*/`), installed whole or in part, from a folder and
//! through `git+file://`, with one fetch per source; and the order a SOURCE
//! is read in (a pack id is a catalog's before a folder of that name).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox, simple_manifest, simple_skill};
use crate::sources::git;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// An HCP pack with a Skill, a script and a reference file at `rel`.
fn hcp_pack(root: &Path, rel: &str, id: &str) {
    write(
        root,
        &format!("{rel}/pack.yaml"),
        &simple_manifest(id, "1.0.0", "{kind: public}"),
    );
    write(root, &format!("{rel}/SKILL.md"), &simple_skill(id));
    write(
        root,
        &format!("{rel}/scripts/run.sh"),
        "#!/bin/sh\necho run\n",
    );
    write(root, &format!("{rel}/reference.md"), "# Reference\n");
}

/// The mixed collection: three HCP packs in the public layouts, a Skill
/// pack, a broken Skill, a README, and a link out of the repository to a
/// folder holding a pack (never followed).
pub(crate) fn skills_repo(sb: &Sandbox) -> PathBuf {
    let root = sb.dir.path().join("repo");
    hcp_pack(&root, "skills/alpha", "acme.alpha");
    hcp_pack(&root, "skills/.curated/beta", "acme.beta");
    hcp_pack(&root, "plugins/tools/skills/gamma", "acme.gamma");
    write(
        &root,
        "skills/pure/SKILL.md",
        "---\nname: pure\ndescription: A Skill alone.\n---\nDo the thing.\n",
    );
    write(&root, "skills/broken/SKILL.md", "no frontmatter here\n");
    write(&root, "README.md", "# skills\n");
    let outside = sb.dir.path().join("outside");
    hcp_pack(&outside, "evil", "acme.evil");
    std::os::unix::fs::symlink(&outside, root.join("skills/escape")).unwrap();
    root
}

/// [`skills_repo`] committed and published as a bare repository: its
/// `file://` URL.
pub(crate) fn published(sb: &Sandbox, root: &Path) -> String {
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "skills"]);
    let bare = sb.dir.path().join("bare.git");
    git(
        root,
        &["clone", "-q", "--bare", ".", bare.to_str().unwrap()],
    );
    format!("file://{}", bare.display())
}

fn ids(doc: &Value, key: &str) -> Vec<String> {
    let mut ids: Vec<String> = doc[key]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|p| p["pack_id"].as_str().unwrap_or("").to_string())
        .collect();
    ids.sort();
    ids
}

#[test]
fn list_shows_every_pack_of_the_public_layouts_and_follows_no_link() {
    let sb = Sandbox::new();
    let root = skills_repo(&sb);
    let doc = sb.json(&["install", root.to_str().unwrap(), "--list"], 0);
    assert_eq!(doc["source"], root.to_str().unwrap(), "{doc}");
    let packs = doc["packs"].as_array().unwrap();
    let paths: Vec<&str> = packs.iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "plugins/tools/skills/gamma",
            "skills/.curated/beta",
            "skills/alpha",
            "skills/broken",
            "skills/pure"
        ],
        "{doc}"
    );
    let alpha = &packs[2];
    assert_eq!(alpha["pack_id"], "acme.alpha");
    assert_eq!(alpha["kind"], "pack");
    assert_eq!(alpha["description"], "A pack for tests.");
    assert_eq!(alpha["lint_ok"], true);
    assert_eq!(packs[3]["kind"], "skill");
    assert_eq!(packs[3]["lint_ok"], false);
    assert_eq!(packs[4]["pack_id"], "pure");
    assert_eq!(packs[4]["description"], "A Skill alone.");
    let keys = common::keys(alpha);
    assert_eq!(keys, ["description", "kind", "lint_ok", "pack_id", "path"]);
    // Nothing was installed.
    assert!(!sb.home().join("packs/acme.alpha").exists());

    // A pack source lists itself, at `.`.
    let one = sb.json(
        &[
            "install",
            root.join("skills/alpha").to_str().unwrap(),
            "--list",
        ],
        0,
    );
    assert_eq!(one["packs"][0]["path"], ".", "{one}");
}

#[test]
fn skill_takes_the_named_packs_by_id_or_name() {
    let sb = Sandbox::new();
    let root = skills_repo(&sb);
    let src = root.to_str().unwrap();
    // `acme-beta` is the Skill name of acme.beta.
    let doc = sb.json(
        &[
            "install",
            src,
            "--skill",
            "acme.alpha",
            "--skill",
            "acme-beta",
        ],
        0,
    );
    assert_eq!(doc["ok"], true, "{doc}");
    assert_eq!(ids(&doc, "results"), ["acme.alpha", "acme.beta"]);
    let beta = &doc["results"][1];
    assert_eq!(beta["source"]["kind"], "dir", "{doc}");
    assert_eq!(
        beta["source"]["path"],
        root.join("skills/.curated/beta").to_str().unwrap()
    );
    assert!(sb.home().join("packs/acme.alpha/scripts/run.sh").is_file());
    assert!(sb.home().join("packs/acme.alpha/reference.md").is_file());
    assert!(!sb.home().join("packs/acme.gamma").exists());
}

#[test]
fn skill_refuses_a_path_and_suggests_a_near_id() {
    let sb = Sandbox::new();
    let root = skills_repo(&sb);
    let src = root.to_str().unwrap();
    for bad in ["../x", "skills/alpha", ".."] {
        let doc = sb.json(&["install", src, "--skill", bad], 2);
        assert_eq!(doc["error"]["code"], "usage", "{bad}: {doc}");
    }
    let doc = sb.json(&["install", src, "--skill", "acme.alpah"], 5);
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    let hint = doc["error"]["hint"].as_str().unwrap_or("");
    assert!(hint.contains("acme.alpha"), "{doc}");
    assert!(!sb.home().join("packs").join("acme.alpha").exists());
}

#[test]
fn all_installs_what_lints_and_reports_the_rest() {
    let sb = Sandbox::new();
    let root = skills_repo(&sb);
    let doc = sb.json(&["install", root.to_str().unwrap(), "--all"], 1);
    assert_eq!(doc["ok"], false, "{doc}");
    let results = doc["results"].as_array().unwrap();
    let failed: Vec<&Value> = results.iter().filter(|r| r["ok"] == false).collect();
    assert!(failed.iter().any(|r| r["path"] == "skills/broken"), "{doc}");
    assert!(
        failed.iter().all(|r| r["error"]["code"] == "lint_failed"),
        "{doc}"
    );
    assert_eq!(doc["error"]["code"], "lint_failed");
    for id in ["acme.alpha", "acme.beta", "acme.gamma"] {
        assert!(sb.home().join("packs").join(id).is_dir(), "{id}");
    }
    assert!(!sb.home().join("packs/acme.evil").exists());
}

/// `--all` installs the packs that lint together (one flush, one lock
/// write), but each is still its own change: one that fails while they are
/// put in place is undone alone, and the others are installed.
#[test]
fn all_leaves_the_others_installed_when_one_fails_at_the_end() {
    let sb = Sandbox::new();
    let root = skills_repo(&sb);
    let source = root.to_str().unwrap();
    sb.json(&["install", source, "--all"], 1);
    sb.json(&["activate", "acme.beta"], 0);
    let lock_before = std::fs::read(sb.home().join("hcp.lock")).unwrap();
    // The Skill copy of the activated pack cannot be rewritten.
    let skill = sb.home().join("skills/acme.beta/SKILL.md");
    std::fs::remove_file(&skill).unwrap();
    std::fs::create_dir(&skill).unwrap();
    let doc = sb.json(&["install", source, "--all", "--force"], 1);
    let results = doc["results"].as_array().unwrap();
    let result = |id: &str| {
        results
            .iter()
            .find(|r| r["pack_id"] == id)
            .unwrap_or_else(|| panic!("{id} in {doc}"))
    };
    assert_eq!(result("acme.beta")["ok"], false, "{doc}");
    assert_eq!(result("acme.beta")["error"]["code"], "io", "{doc}");
    for id in ["acme.alpha", "acme.gamma", "pure"] {
        assert_eq!(result(id)["ok"], true, "{doc}");
        assert_eq!(result(id)["action"], "reinstalled", "{doc}");
    }
    assert!(sb.home().join("packs/acme.beta/SKILL.md").is_file());
    // Every pack was reinstalled from the same folder: the lock says the same.
    assert_eq!(
        std::fs::read(sb.home().join("hcp.lock")).unwrap(),
        lock_before
    );
}

/// A failure while the packs of `--all` are put in place, whichever pack
/// it hits, leaves the store as it was.
#[test]
fn all_failing_at_the_swap_installs_nothing() {
    let sb = Sandbox::new();
    let root = skills_repo(&sb);
    let fail = [("HCPX_TEST_FAIL_AT", Some("install.after_swap"))];
    let doc = sb.json_env(&["install", root.to_str().unwrap(), "--all"], &fail, 1);
    let results = doc["results"].as_array().unwrap();
    assert!(results.iter().all(|r| r["ok"] == false), "{doc}");
    for id in ["acme.alpha", "acme.beta", "acme.gamma", "pure"] {
        assert!(!sb.home().join("packs").join(id).exists(), "{id}");
    }
    let lock: Value =
        serde_json::from_slice(&std::fs::read(sb.home().join("hcp.lock")).unwrap_or_default())
            .unwrap_or_default();
    assert!(
        lock["packs"].as_object().is_none_or(|p| p.is_empty()),
        "{lock}"
    );
    assert_eq!(sb.json(&["doctor"], 0)["ok"], true);
}

#[test]
fn several_packs_and_no_flag_off_a_terminal_is_usage_naming_them() {
    let sb = Sandbox::new();
    let root = skills_repo(&sb);
    let doc = sb.json(&["install", root.to_str().unwrap()], 2);
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    let message = doc["error"]["message"].as_str().unwrap();
    for id in ["acme.alpha", "acme.beta", "acme.gamma"] {
        assert!(message.contains(id), "{message}");
    }
    let hint = doc["error"]["hint"].as_str().unwrap();
    assert!(
        hint.contains("--all") && hint.contains("--skill ID"),
        "{hint}"
    );
    // A collection of one pack installs it.
    let one = sb.dir.path().join("one");
    hcp_pack(&one, "skills/only", "acme.only");
    let doc = sb.json(&["install", one.to_str().unwrap()], 0);
    assert_eq!(doc["pack_id"], "acme.only", "{doc}");
}

#[test]
fn an_empty_collection_says_what_it_looked_for() {
    let sb = Sandbox::new();
    let empty = sb.dir.path().join("empty");
    write(&empty, "docs/README.md", "nothing\n");
    let doc = sb.json(&["install", empty.to_str().unwrap()], 5);
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("no folder below it holds pack.yaml, pack.json or SKILL.md"),
        "{message}"
    );
    let cat = sb.json(&["catalog", "add", empty.to_str().unwrap()], 0);
    assert_eq!(cat["catalog"]["packs"], 0);
    let text = sb.hcpx().args(["catalog", "list"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("0 packs: no folder below it holds pack.yaml, pack.json or SKILL.md"),
        "{text}"
    );
}

#[test]
fn a_git_collection_is_fetched_once_and_locked_by_url_subdir_and_commit() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let root = skills_repo(&sb);
    let url = published(&sb, &root);
    let commit = git(&root, &["rev-parse", "HEAD"]);
    let (path, log) = common::logging_git(&sb);
    let source = format!("git+{url}");
    let doc = sb.json_env(
        &[
            "install",
            &source,
            "--skill",
            "acme.alpha",
            "--skill",
            "acme.gamma",
        ],
        &[("PATH", Some(&path))],
        0,
    );
    assert_eq!(ids(&doc, "results"), ["acme.alpha", "acme.gamma"], "{doc}");
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    let fetches = calls
        .lines()
        .filter(|l| l.split_whitespace().any(|w| w == "fetch" || w == "clone"))
        .count();
    assert_eq!(fetches, 1, "one fetch for two packs: {calls}");
    let lock: Value =
        serde_json::from_slice(&std::fs::read(sb.home().join("hcp.lock")).unwrap()).unwrap();
    let gamma = &lock["packs"]["acme.gamma"]["source"];
    assert_eq!(gamma["kind"], "git", "{lock}");
    assert_eq!(gamma["url"], url.as_str());
    assert_eq!(gamma["subdir"], "plugins/tools/skills/gamma");
    assert_eq!(gamma["commit"], commit.as_str());

    // The lock travels: a fresh store syncs the same digests from it.
    let saved = sb.dir.path().join("saved.lock");
    std::fs::copy(sb.home().join("hcp.lock"), &saved).unwrap();
    std::fs::remove_dir_all(sb.home()).unwrap();
    let synced = sb.json(&["sync", saved.to_str().unwrap(), "--frozen"], 0);
    assert_eq!(synced["ok"], true, "{synced}");
    let again: Value =
        serde_json::from_slice(&std::fs::read(sb.home().join("hcp.lock")).unwrap()).unwrap();
    for id in ["acme.alpha", "acme.gamma"] {
        assert_eq!(
            again["packs"][id]["digest"], lock["packs"][id]["digest"],
            "{id}"
        );
    }
}

#[test]
fn a_lock_naming_a_path_inside_a_store_is_refused() {
    let sb = Sandbox::new();
    let other = sb.dir.path().join("other-machine/.hcp");
    hcp_pack(&other, "packs/acme.alpha", "acme.alpha");
    let lock = serde_json::json!({"version": 1, "packs": {"acme.alpha": {
        "digest": "sha256:00", "version": "1.0.0",
        "source": {"kind": "catalog", "path": other.join("packs/acme.alpha")}}}});
    let file = sb.dir.path().join("their.lock");
    std::fs::write(&file, lock.to_string()).unwrap();
    let doc = sb.json(&["sync", file.to_str().unwrap()], 2);
    let message = doc["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("inside an hcpx store"), "{doc}");
    assert!(!sb.home().join("packs/acme.alpha").exists());
}

#[test]
fn ten_thousand_folders_and_a_link_loop_end_quickly() {
    let sb = Sandbox::new();
    let root = sb.dir.path().join("big");
    for i in 0..10_000 {
        std::fs::create_dir_all(root.join(format!("d{}/e{i}", i % 100))).unwrap();
    }
    hcp_pack(&root, "d7/e7/x/y/z/w", "acme.deep"); // 6 deep: found
    hcp_pack(&root, "d8/e8/a/b/c/d/too", "acme.toodeep"); // 7 deep: not
    std::os::unix::fs::symlink(&root, root.join("d1/loop")).unwrap();
    let started = std::time::Instant::now();
    let doc = sb.json(&["install", root.to_str().unwrap(), "--list"], 0);
    assert_eq!(ids(&doc, "packs"), ["acme.deep"], "{doc}");
    // A bound, not a timing assertion: minutes would mean an endless walk.
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

#[test]
fn a_pack_id_is_the_catalogs_before_a_folder_of_that_name() {
    let sb = Sandbox::new();
    let catalog = sb.dir.path().join("catalog");
    hcp_pack(&catalog, "acme.alpha", "acme.alpha");
    // A folder named like the id in the working directory, another pack.
    let decoy = sb.dir.path().join("acme.alpha");
    write(
        &decoy,
        "pack.yaml",
        &simple_manifest("acme.alpha", "6.6.6", "{kind: public}"),
    );
    write(&decoy, "SKILL.md", &simple_skill("acme.alpha"));
    let cat = catalog.to_str().unwrap();
    let doc = sb.json(&["--catalog", cat, "install", "acme.alpha"], 0);
    assert_eq!(doc["version"], "1.0.0", "{doc}");
    assert_eq!(doc["source"]["kind"], "catalog", "{doc}");
    // `./ID` is the folder.
    let doc = sb.json(&["--catalog", cat, "install", "./acme.alpha"], 0);
    assert_eq!(doc["version"], "6.6.6", "{doc}");
}

#[test]
fn a_stale_index_never_picks_a_later_catalogs_pack() {
    let sb = Sandbox::new();
    let (a, b) = (sb.dir.path().join("cat-a"), sb.dir.path().join("cat-b"));
    hcp_pack(&a, "first", "acme.first");
    hcp_pack(&b, "shared", "acme.shared");
    let args = |rest: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "--catalog",
            a.to_str().unwrap(),
            "--catalog",
            b.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec();
        v.extend(rest.iter().map(|s| s.to_string()));
        v
    };
    // Index both catalogs: acme.shared is B's.
    let first = args(&["install", "acme.shared"]);
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    sb.json(&first, 0);
    sb.json(&["uninstall", "acme.shared"], 0);
    // A's pack now declares acme.shared, edited in place: A's folder time
    // does not change, its index still says acme.first.
    let manifest = simple_manifest("acme.shared", "2.0.0", "{kind: public}");
    std::fs::write(a.join("first/pack.yaml"), manifest).unwrap();
    let show = args(&["show", "acme.shared"]);
    let show: Vec<&str> = show.iter().map(String::as_str).collect();
    let shown = sb.json(&show, 0);
    let doc = sb.json(&first, 0);
    assert_eq!(
        doc["version"], "2.0.0",
        "install takes A's, as a fresh scan: {doc}"
    );
    assert_eq!(
        shown["version"], doc["version"],
        "show and install agree: {shown}"
    );
}

/// A sandbox whose git sends `https://github.com/` to folders of its own
/// (`url.<base>.insteadOf` in the user's git config): the GitHub forms
/// people paste, tested without the network.
fn github_here(sb: &Sandbox) -> (PathBuf, PathBuf) {
    let user = sb.dir.path().join("user");
    let hub = sb.dir.path().join("gh");
    std::fs::create_dir_all(hub.join("acme")).unwrap();
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join(".gitconfig"),
        format!(
            "[url \"file://{}/\"]\n\tinsteadOf = https://github.com/\n",
            hub.display()
        ),
    )
    .unwrap();
    let root = skills_repo(sb);
    let bare = published(sb, &root);
    let bare = PathBuf::from(bare.trim_start_matches("file://"));
    std::fs::rename(&bare, hub.join("acme/skills.git")).unwrap();
    (user, hub)
}

#[test]
fn the_github_forms_people_paste_install_and_add_catalogs() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let (user, _hub) = github_here(&sb);
    let run = |args: &[&str], code: i32| {
        let out = sb
            .hcpx()
            .args(args)
            .arg("--json")
            .env("HOME", &user)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {text}");
        serde_json::from_str::<Value>(&text).unwrap()
    };
    // `OWNER/REPO` (no such folder here) is the GitHub repository.
    let listed = run(&["install", "acme/skills", "--list"], 0);
    assert!(
        ids(&listed, "packs").contains(&"pure".to_string()),
        "{listed}"
    );
    // A URL of a folder on GitHub, as the browser shows it.
    let one = run(
        &[
            "install",
            "https://github.com/acme/skills/tree/main/skills/pure",
        ],
        0,
    );
    assert_eq!(one["pack_id"], "pure", "{one}");
    assert_eq!(
        one["source"]["url"], "https://github.com/acme/skills.git",
        "{one}"
    );
    assert_eq!(one["source"]["subdir"], "skills/pure", "{one}");
    // A catalog added as OWNER/REPO is written as the git source it means,
    // and lists the repository's packs.
    let added = run(&["catalog", "add", "acme/skills"], 0);
    assert_eq!(
        added["catalog"]["source"], "git+https://github.com/acme/skills.git",
        "{added}"
    );
    assert_eq!(added["catalog"]["packs"], 5, "{added}");
    let mut listed: Vec<&str> = added["pack_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        ["acme.alpha", "acme.beta", "acme.gamma", "broken", "pure"],
        "{added}"
    );
    let config = std::fs::read_to_string(sb.home().join("config.yaml")).unwrap();
    assert!(
        config.contains("git+https://github.com/acme/skills.git"),
        "{config}"
    );
    // A folder of that name, made later, is a folder again.
    let local = sb.dir.path().join("acme/skills/skills/solo");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(
        local.join("SKILL.md"),
        "---\nname: solo\ndescription: A local Skill.\n---\nHello.\n",
    )
    .unwrap();
    let here = run(&["install", "acme/skills", "--list"], 0);
    assert_eq!(ids(&here, "packs"), ["solo"], "{here}");
}
