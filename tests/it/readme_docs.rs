//! The README cannot rot: every `sh` block in it runs, as a newcomer
//! would type it, on a throwaway machine (its own `HOME`, store, and a
//! GitHub that is a folder of fixture repositories); the first command
//! opens the TUI on the example catalog; every link in the README and in
//! `docs/` reaches a file and a heading that exist.
//!
//! A block may be preceded by HTML comments GitHub does not show:
//! `<!-- readme-test: before: CMD -->` runs `CMD` first in the same shell
//! (what the reader already has: a repository, a clone),
//! `<!-- readme-test: file: PATH -->` writes the next block (of any
//! language) to `PATH`, and `<!-- readme-test: skip: WHY -->` leaves a
//! block out, saying why (the test fails on a skip with no reason).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{copy_dir, require_tools};
use crate::tmuxkit::Session;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One fenced block of a Markdown file, with the directives above it.
#[derive(Debug)]
struct Block {
    lang: String,
    body: String,
    line: usize,
    before: Vec<String>,
    file: Option<String>,
    skip: Option<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let (mut before, mut file, mut skip) = (Vec::new(), None, None);
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        if let Some(d) = line
            .strip_prefix("<!-- readme-test: ")
            .and_then(|d| d.strip_suffix(" -->"))
        {
            if let Some(cmd) = d.strip_prefix("before: ") {
                before.push(cmd.to_string());
            } else if let Some(path) = d.strip_prefix("file: ") {
                file = Some(path.to_string());
            } else if let Some(why) = d.strip_prefix("skip: ") {
                skip = Some(why.to_string());
            } else {
                panic!("README.md:{}: unknown directive {d:?}", n + 1);
            }
            continue;
        }
        let Some(lang) = line.strip_prefix("```") else {
            continue;
        };
        let mut body = String::new();
        for (_, inner) in lines.by_ref() {
            if inner.starts_with("```") {
                break;
            }
            body.push_str(inner);
            body.push('\n');
        }
        out.push(Block {
            lang: lang.trim().to_string(),
            body,
            line: n + 1,
            before: std::mem::take(&mut before),
            file: file.take(),
            skip: skip.take(),
        });
    }
    out
}

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

fn git(cwd: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(cwd)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", cwd)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A bare repository `gh/anthropics/skills.git` of our own Skills, in the
/// layout of the public one, for `anthropics/skills` to fetch.
fn github(root: &Path) {
    let work = root.join("gh-work");
    for (name, text) in [
        (
            "pdf",
            "Read and fill PDF forms, extract text, tables and fields.",
        ),
        ("docx", "Write and edit Word documents."),
    ] {
        let dir = work.join("skills").join(name);
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {text}\n---\n# {name}\n\nUse the scripts.\n"),
        )
        .unwrap();
        std::fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho ok\n").unwrap();
    }
    git(&work, &["init", "-q", "-b", "main"]);
    git(&work, &["add", "."]);
    git(
        &work,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "skills",
        ],
    );
    let hub = root.join("gh/anthropics");
    std::fs::create_dir_all(&hub).unwrap();
    git(
        root,
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap(),
            hub.join("skills.git").to_str().unwrap(),
        ],
    );
}

/// A newcomer's machine: `HOME` with a git identity and a GitHub that is
/// `root/gh`, `hcpx` on `PATH`, the repository's `assets/` in the working
/// folder, `TMPDIR` inside `root`.
fn machine(root: &Path) -> Vec<(String, String)> {
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        format!(
            "[user]\n\tname = New Comer\n\temail = new@example.com\n\
             [init]\n\tdefaultBranch = main\n\
             [url \"file://{}/\"]\n\tinsteadOf = https://github.com/\n",
            root.join("gh").display()
        ),
    )
    .unwrap();
    github(root);
    let work = root.join("work");
    copy_dir(&repo().join("assets"), &work.join("assets"));
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hcpx"), bin.join("hcpx")).unwrap();
    std::fs::create_dir_all(root.join("tmp")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    [
        ("HOME", home.display().to_string()),
        ("HCP_HOME", home.join(".hcp").display().to_string()),
        ("TMPDIR", root.join("tmp").display().to_string()),
        ("PATH", path),
        ("NO_COLOR", "1".into()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

#[test]
fn every_sh_block_of_the_readme_runs_as_written() {
    if !require_tools(&["git", "bash"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let env = machine(dir.path());
    let work = dir.path().join("work");
    let mut ran = 0;
    for block in blocks(&readme()) {
        if let Some(path) = &block.file {
            let target = work.join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, &block.body).unwrap();
            continue;
        }
        if block.lang != "sh" {
            continue;
        }
        if let Some(why) = &block.skip {
            assert!(why.len() > 10, "README.md:{}: say why", block.line);
            continue;
        }
        let script = format!(
            "set -euo pipefail\n{}\n{}",
            block.before.join("\n"),
            block.body
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(&work)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README.md:{}: the block failed ({:?})\n{}\nstdout:\n{}\nstderr:\n{}",
            block.line,
            out.status,
            block.body,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(
        ran >= 8,
        "only {ran} blocks ran: did the README change shape?"
    );
}

/// The README's first block: the command that runs hcpx, and the one that
/// runs the tests (which `.ci/run` runs, word for word).
fn first_two_commands() -> (String, String) {
    let first = blocks(&readme()).into_iter().next().unwrap();
    assert_eq!(first.lang, "sh");
    let mut lines = first
        .body
        .lines()
        .map(|l| l.split(" #").next().unwrap().trim().to_string());
    (lines.next().unwrap(), lines.next().unwrap())
}

#[test]
fn the_first_command_opens_the_example_catalog_in_a_throwaway_store() {
    let (run, test) = first_two_commands();
    let args = run
        .strip_prefix("HCP_HOME=$(mktemp -d) cargo run -- ")
        .unwrap_or_else(|| panic!("the first command names a throwaway store: {run}"));
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    assert!(
        ci.lines()
            .any(|l| l.trim() == test || l.trim().starts_with(&format!("{test} 2>&1 |"))),
        ".ci/run runs the README's test command {test:?}"
    );
    if !require_tools(&["tmux"]) {
        return;
    }
    let store = tempfile::tempdir().unwrap();
    let args: Vec<&str> = args.split(' ').collect();
    let session = Session::start_in("readme-first", &[("HCP_HOME", store.path())], &args, repo());
    session.wait_text("demo.sysinfo");
    session.wait_text("demo.weather-api");
    session.quit();
    assert_eq!(session.wait_exit(), 0);
}

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_`
/// dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut fence = false;
    let (mut seen, mut bases): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
        }
        if fence || !line.starts_with('#') {
            continue;
        }
        let base = slug(line.trim_start_matches('#'));
        let n = bases.iter().filter(|b| **b == base).count();
        seen.push(if n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        bases.push(base);
    }
    seen
}

fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md")];
    for entry in std::fs::read_dir(repo().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.push(repo().join("assets/packs/README.md"));
    files
}

#[test]
fn every_link_in_the_readme_and_docs_reaches_a_file_and_heading() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut fence = false;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with("```") {
                fence = !fence;
            }
            if fence {
                continue;
            }
            for cap in link.captures_iter(line) {
                let target = &cap[1];
                if target.starts_with("http://") || target.starts_with("https://") {
                    continue;
                }
                let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
                let dest = if path.is_empty() {
                    file.clone()
                } else {
                    file.parent().unwrap().join(path)
                };
                let at = format!("{}:{}: {target}", file.display(), n + 1);
                if !dest.exists() {
                    broken.push(format!("{at} (no such file)"));
                } else if !anchor.is_empty()
                    && !anchors(&std::fs::read_to_string(&dest).unwrap_or_default())
                        .iter()
                        .any(|a| a == anchor)
                {
                    broken.push(format!("{at} (no such heading)"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_ten_minute_read_and_says_nothing_of_the_spec_files() {
    let text = readme();
    let lines = text.lines().count();
    assert!((250..=400).contains(&lines), "README.md has {lines} lines");
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains("../shared") && !text.contains("HCP.md"),
            "{} points at the spec's own files",
            file.display()
        );
    }
}
