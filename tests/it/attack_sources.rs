//! Sources attacked (HCP.md §13.1–§13.2, §14.3): a password in a git URL
//! never reaches what hcpx prints, whatever else is wrong with the source.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Sandbox;

#[test]
fn a_malformed_git_catalog_is_a_usage_error_that_hides_the_password() {
    let sb = Sandbox::new();
    for source in [
        "git+https://me:s3cret@127.0.0.1:9/r.git#-x",
        "git+https://me:s3cret@127.0.0.1:9/r.git//../p",
        "git+https://me:s3cret@127.0.0.1:9/r.git#a b",
    ] {
        let out = sb
            .hcpx()
            .args(["catalog", "add", source, "--json"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{source}: {stdout}");
        assert!(stdout.contains("\"usage\""), "{source}: {stdout}");
        assert!(!stdout.contains("s3cret"), "{source}: {stdout}");
        assert!(stdout.contains("https://127.0.0.1"), "{source}: {stdout}");
        let out = sb.hcpx().args(["catalog", "add", source]).output().unwrap();
        let all = [out.stdout, out.stderr].concat();
        let text = String::from_utf8_lossy(&all);
        assert!(!text.contains("s3cret"), "{source}: {text}");
    }
    assert!(
        !sb.home().join("config.yaml").exists() || {
            let text = std::fs::read_to_string(sb.home().join("config.yaml")).unwrap();
            !text.contains("s3cret")
        }
    );
}

#[test]
fn a_url_without_git_plus_is_a_usage_error_that_hides_the_password() {
    let sb = Sandbox::new();
    let url = "https://me:s3cret@127.0.0.1:9/r.git";
    for args in [vec!["install", url], vec!["catalog", "add", url]] {
        let out = sb.hcpx().args(&args).arg("--json").output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stdout}");
        assert!(!stdout.contains("s3cret"), "{args:?}: {stdout}");
        assert!(stdout.contains("git+https://127.0.0.1:9/r.git"), "{stdout}");
    }
}

#[test]
fn a_git_catalog_whose_subdir_is_a_link_out_of_the_repository_is_refused() {
    let Some((sb, repo)) = crate::sources::git_repo() else {
        return;
    };
    // A folder of this machine holding a pack, and a commit whose
    // `packs-here` is a link to it.
    let outside = sb.dir.path().join("mine");
    std::fs::create_dir_all(&outside).unwrap();
    crate::common::copy_dir(
        &sb.simple_pack("acme.private", "1.0.0", "{kind: public}"),
        &outside.join("private"),
    );
    std::os::unix::fs::symlink(&outside, repo.work.join("packs-here")).unwrap();
    let git = crate::sources::git;
    git(&repo.work, &["add", "packs-here"]);
    git(&repo.work, &["commit", "-qm", "link"]);
    let bare = repo.url.trim_start_matches("file://");
    git(&repo.work, &["push", "-q", bare, "HEAD:main"]);

    let source = format!("git+{}//packs-here#main", repo.url);
    let doc = sb.json(&["catalog", "add", &source], 5);
    assert_eq!(doc["error"]["code"], "not_found", "{doc}");
    let list = sb.json(&["list"], 0);
    assert!(!list.to_string().contains("acme.private"), "{list}");
    // The repository's own folder is fine.
    let source = format!("git+{}//packs#main", repo.url);
    sb.json(&["catalog", "add", &source], 0);
}
