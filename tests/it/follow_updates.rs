//! What `outdated` and `upgrade` compare a git pack with (HCP.md §13.6),
//! on Skill repositories built with real git and reached through
//! `file://`: a pack follows what it was installed from (the default
//! branch, a branch, a SemVer tag, a commit), every pack is reported (a
//! Skill deleted, moved, renamed or broken upstream never hides the
//! others), and each repository is asked once per command.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Sandbox};
use crate::sources::{git, lock};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn skill(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n")
}

/// A work tree `work` with `skills/<name>/SKILL.md` for each name,
/// committed on `main`, and its bare clone: (work, bare path, url).
fn skills_repo(sb: &Sandbox, names: &[&str]) -> (PathBuf, PathBuf, String) {
    let work = sb.dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q"]);
    for name in names {
        write_skill(&work, name, name, "first");
    }
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "one"]);
    let bare = sb.dir.path().join("bare.git");
    let (w, b) = (work.to_str().unwrap(), bare.to_str().unwrap());
    git(sb.dir.path(), &["clone", "-q", "--bare", w, b]);
    let url = format!("file://{}", bare.display());
    (work, bare, url)
}

fn write_skill(work: &Path, folder: &str, name: &str, body: &str) {
    let dir = work.join("skills").join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), skill(name, body)).unwrap();
}

/// Commits everything in `work` and pushes `main`, the other branches and
/// the tags to `bare`.
fn publish(work: &Path, bare: &Path, message: &str) {
    git(work, &["add", "-A"]);
    git(work, &["commit", "-qm", message]);
    push(work, bare);
}

fn push(work: &Path, bare: &Path) {
    let bare = bare.to_str().unwrap();
    git(work, &["push", "-q", "--force", bare, "--all"]);
    git(work, &["push", "-q", "--force", bare, "--tags"]);
}

fn installed_skill(sb: &Sandbox, id: &str) -> String {
    std::fs::read_to_string(sb.home().join("packs").join(id).join("SKILL.md")).unwrap()
}

fn find<'a>(doc: &'a Value, key: &str, id: &str) -> Option<&'a Value> {
    doc[key].as_array()?.iter().find(|p| p["pack_id"] == id)
}

#[test]
fn a_skill_installed_from_main_follows_main_never_an_older_tag() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let (work, bare, url) = skills_repo(&sb, &["alpha"]);
    // Tags behind main: v1.0.0 at the first commit, then main moves on.
    git(&work, &["tag", "v1.0.0"]);
    write_skill(&work, "alpha", "alpha", "second, after the tag");
    publish(&work, &bare, "two");
    sb.json(&["install", &format!("git+{url}//skills/alpha")], 0);
    assert!(installed_skill(&sb, "alpha").contains("second"));
    // Nothing changed on main: nothing to report, whatever the tags say.
    assert_eq!(sb.json(&["outdated"], 0)["packs"], serde_json::json!([]));

    write_skill(&work, "alpha", "alpha", "third, on main");
    publish(&work, &bare, "three");
    let doc = sb.json(&["outdated"], 0);
    let pack = find(&doc, "packs", "alpha").expect("alpha is reported");
    assert_eq!(pack["reason"], "content", "{doc}");
    let doc = sb.json(&["upgrade", "--yes"], 0);
    assert_eq!(find(&doc, "results", "alpha").unwrap()["applied"], true);
    assert!(installed_skill(&sb, "alpha").contains("third, on main"));
    let source = &lock(&sb)["packs"]["alpha"]["source"];
    assert!(
        source.get("ref").is_none(),
        "no ref it did not have: {source}"
    );
    let main = git(&work, &["rev-parse", "HEAD"]);
    assert_eq!(source["commit"], main.as_str());
    assert_eq!(sb.json(&["outdated"], 0)["packs"], serde_json::json!([]));
}

#[test]
fn a_tag_follows_higher_tags_a_branch_its_head_a_commit_nothing() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let (work, bare, url) = skills_repo(&sb, &["alpha", "beta", "gamma"]);
    git(&work, &["tag", "v1.0.0"]);
    git(&work, &["branch", "dev"]);
    push(&work, &bare);
    let first = git(&work, &["rev-parse", "HEAD"]);
    sb.json(&["install", &format!("git+{url}//skills/alpha#v1.0.0")], 0);
    sb.json(&["install", &format!("git+{url}//skills/beta#dev")], 0);
    sb.json(&["install", &format!("git+{url}//skills/gamma#{first}")], 0);

    // Tags ahead of main: v1.1.0 (and a pre-release and a tag that is no
    // SemVer above it) change alpha; main changes gamma; dev changes beta.
    write_skill(&work, "alpha", "alpha", "at v1.1.0");
    publish(&work, &bare, "alpha 1.1");
    git(&work, &["tag", "v1.1.0"]);
    write_skill(&work, "alpha", "alpha", "at a pre-release");
    write_skill(&work, "gamma", "gamma", "gamma on main");
    publish(&work, &bare, "pre");
    git(&work, &["tag", "v2.0.0-rc.1"]);
    git(&work, &["tag", "latest"]);
    git(&work, &["checkout", "-q", "dev"]);
    write_skill(&work, "beta", "beta", "beta on dev");
    publish(&work, &bare, "dev");
    git(&work, &["checkout", "-q", "main"]);

    let doc = sb.json(&["outdated"], 0);
    assert_eq!(
        find(&doc, "packs", "alpha").unwrap()["reason"],
        "content",
        "{doc}"
    );
    assert_eq!(
        find(&doc, "packs", "beta").unwrap()["reason"],
        "content",
        "{doc}"
    );
    assert!(
        find(&doc, "packs", "gamma").is_none(),
        "a commit is pinned: {doc}"
    );

    sb.json(&["upgrade", "--yes"], 0);
    assert!(
        installed_skill(&sb, "alpha").contains("at v1.1.0"),
        "no pre-release"
    );
    assert!(installed_skill(&sb, "beta").contains("beta on dev"));
    assert!(installed_skill(&sb, "gamma").contains("first"));
    let packs = &lock(&sb)["packs"];
    assert_eq!(packs["alpha"]["source"]["ref"], "v1.1.0");
    assert_eq!(
        packs["beta"]["source"]["ref"], "dev",
        "a branch stays a branch"
    );
    assert_eq!(packs["gamma"]["source"]["commit"], first.as_str());
}

#[test]
fn a_skill_gone_renamed_or_broken_upstream_never_hides_the_others() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let names = ["deleted", "moved", "named", "broken", "edited"];
    let (work, bare, url) = skills_repo(&sb, &names);
    sb.json(&["install", &format!("git+{url}"), "--all"], 0);
    std::fs::remove_dir_all(work.join("skills/deleted")).unwrap();
    std::fs::rename(work.join("skills/moved"), work.join("moved")).unwrap();
    write_skill(&work, "named", "named-now", "first");
    std::fs::write(work.join("skills/broken/SKILL.md"), "no front matter\n").unwrap();
    write_skill(&work, "edited", "edited", "an upstream edit");
    publish(&work, &bare, "churn");

    let doc = sb.json(&["outdated"], 1);
    assert_eq!(doc["ok"], false, "{doc}");
    let reason = |id: &str| find(&doc, "packs", id).map(|p| p["reason"].clone());
    assert_eq!(reason("deleted").unwrap(), "missing", "{doc}");
    assert_eq!(reason("moved").unwrap(), "missing", "{doc}");
    assert_eq!(reason("broken").unwrap(), "lint_failed", "{doc}");
    assert_eq!(reason("named").unwrap(), "renamed", "{doc}");
    assert_eq!(reason("edited").unwrap(), "content", "{doc}");
    assert_eq!(find(&doc, "packs", "named").unwrap()["latest"], "named-now");
    for id in ["deleted", "moved", "broken", "named"] {
        let hint = find(&doc, "packs", id).unwrap()["hint"]
            .as_str()
            .unwrap_or("");
        assert!(!hint.is_empty(), "{id} has a hint: {doc}");
    }

    let out = sb.hcpx().args(["upgrade", "--dry-run"]).output().unwrap();
    let words = String::from_utf8_lossy(&out.stdout);
    assert!(!words.contains("up to date"), "{words}");
    assert!(
        words.contains("deleted") && words.contains("missing"),
        "{words}"
    );

    let doc = sb.json(&["upgrade", "--yes"], 1);
    assert_eq!(
        find(&doc, "results", "edited").unwrap()["applied"],
        true,
        "{doc}"
    );
    assert!(installed_skill(&sb, "edited").contains("an upstream edit"));
    let message = doc["error"]["message"].as_str().unwrap();
    for id in ["deleted", "moved", "broken", "named"] {
        assert!(message.contains(id), "{id} named: {message}");
    }
    // Each one also has its entry, as `outdated` lists it.
    let upgrade_reason = |id: &str| find(&doc, "packs", id).map(|p| p["reason"].clone());
    for (id, reason) in [
        ("deleted", "missing"),
        ("moved", "missing"),
        ("broken", "lint_failed"),
        ("named", "renamed"),
    ] {
        assert_eq!(upgrade_reason(id), Some(reason.into()), "{id}: {doc}");
        let hint = &find(&doc, "packs", id).unwrap()["hint"];
        assert!(hint.as_str().is_some_and(|h| !h.is_empty()), "{doc}");
    }
    assert!(find(&doc, "packs", "edited").is_none(), "{doc}");
    assert!(
        installed_skill(&sb, "deleted").contains("first"),
        "left as it was"
    );
}

#[test]
fn offline_lists_each_git_pack_as_not_checked() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let (work, bare, url) = skills_repo(&sb, &["alpha"]);
    sb.json(&["install", &format!("git+{url}//skills/alpha")], 0);
    write_skill(&work, "alpha", "alpha", "edited");
    publish(&work, &bare, "two");
    let doc = sb.json(&["outdated", "--offline"], 0);
    assert_eq!(
        find(&doc, "packs", "alpha").unwrap()["reason"],
        "not_checked",
        "{doc}"
    );
    let out = sb.hcpx().args(["outdated", "--offline"]).output().unwrap();
    let words = String::from_utf8_lossy(&out.stdout);
    assert!(!words.contains("up to date"), "{words}");
    assert!(words.contains("not checked"), "{words}");
    let out = sb
        .hcpx()
        .args(["upgrade", "--offline", "--dry-run"])
        .output()
        .unwrap();
    let words = String::from_utf8_lossy(&out.stdout);
    assert!(
        !words.contains("up to date") && words.contains("not checked"),
        "{words}"
    );
    let doc = sb.json(&["upgrade", "--offline", "--dry-run"], 0);
    assert_eq!(
        find(&doc, "packs", "alpha").unwrap()["reason"],
        "not_checked",
        "{doc}"
    );
}

/// The network-facing git runs (`ls-remote`, `fetch`) of `hcpx ARGS`.
fn git_runs(sb: &Sandbox, args: &[&str]) -> (usize, usize) {
    let (path, log) = common::logging_git(sb);
    let _ = std::fs::remove_file(&log);
    let out = sb.hcpx().args(args).env("PATH", path).output().unwrap();
    common::assert_success(&out);
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let network = text
        .lines()
        .filter(|l| l.split(' ').any(|w| w == "ls-remote" || w == "fetch"))
        .count();
    (network, text.lines().count())
}

#[test]
fn fifty_skills_of_one_repository_are_one_ls_remote_and_one_fetch() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let names: Vec<String> = (0..50).map(|i| format!("skill-{i:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (work, bare, url) = skills_repo(&sb, &names);
    // A server that filters, as GitHub does: the folders' files are then a
    // fetch of their own.
    git(&bare, &["config", "uploadpack.allowFilter", "true"]);
    sb.json(&["install", &format!("git+{url}"), "--all"], 0);
    // Up to date: one `ls-remote`, no fetch.
    let (network, all) = git_runs(&sb, &["outdated"]);
    assert_eq!((network, all), (1, 1), "only ls-remote");
    write_skill(&work, "skill-07", "skill-07", "edited");
    publish(&work, &bare, "edit");
    // ls-remote, the fetch of the commit and the fetch of the folders' files.
    let (network, all) = git_runs(&sb, &["outdated"]);
    assert!(network <= 3, "{network} network git runs for 50 Skills");
    assert!(all <= 10, "{all} git runs for 50 Skills");
    // Only the edited folder's files came: the other 49 are the same trees.
    let doc = sb.json(&["outdated"], 0);
    let ids: Vec<&str> = doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pack_id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ids, ["skill-07"], "{doc}");
    sb.json(&["upgrade", "--yes"], 0);
    assert!(installed_skill(&sb, "skill-07").contains("edited"));
}

#[test]
fn packs_following_three_refs_of_one_repository_are_one_fetch() {
    if !common::require_tool("git") {
        return;
    }
    let sb = Sandbox::new();
    let (work, bare, url) = skills_repo(&sb, &["alpha", "beta", "gamma"]);
    git(&bare, &["config", "uploadpack.allowFilter", "true"]);
    git(&work, &["tag", "v1.0.0"]);
    git(&work, &["branch", "dev"]);
    push(&work, &bare);
    sb.json(&["install", &format!("git+{url}//skills/alpha#v1.0.0")], 0);
    sb.json(&["install", &format!("git+{url}//skills/beta#dev")], 0);
    sb.json(&["install", &format!("git+{url}//skills/gamma")], 0);
    // A new tag for alpha, a dev commit for beta, a main commit for gamma.
    write_skill(&work, "alpha", "alpha", "at v1.1.0");
    publish(&work, &bare, "alpha 1.1");
    git(&work, &["tag", "v1.1.0"]);
    write_skill(&work, "gamma", "gamma", "gamma on main");
    publish(&work, &bare, "gamma");
    git(&work, &["checkout", "-q", "dev"]);
    write_skill(&work, "beta", "beta", "beta on dev");
    publish(&work, &bare, "dev");
    git(&work, &["checkout", "-q", "main"]);

    // ls-remote, one fetch naming the three refs, one of the folders' files.
    let (network, _) = git_runs(&sb, &["outdated"]);
    assert!(network <= 3, "{network} network git runs for three refs");
    let doc = sb.json(&["outdated"], 0);
    for id in ["alpha", "beta", "gamma"] {
        let found = find(&doc, "packs", id).unwrap_or(&Value::Null);
        assert_eq!(found["reason"], "content", "{id}: {doc}");
    }
    let (network, _) = git_runs(&sb, &["upgrade", "--yes"]);
    assert!(network <= 3, "{network} network git runs for three refs");
    assert!(installed_skill(&sb, "alpha").contains("at v1.1.0"));
    assert!(installed_skill(&sb, "beta").contains("beta on dev"));
    assert!(installed_skill(&sb, "gamma").contains("gamma on main"));
    let packs = &lock(&sb)["packs"];
    assert_eq!(packs["alpha"]["source"]["ref"], "v1.1.0");
    assert_eq!(packs["beta"]["source"]["ref"], "dev");
    assert_eq!(packs["gamma"]["source"]["ref"], Value::Null);
}
