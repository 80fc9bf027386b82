//! Fetching a git source (HCP.md §13.1) with the `git` program.
//!
//! Each git run is a [`std::process::Command`] (never a shell) started
//! through [`process::run_tool`], so it has a process group of its own on
//! the interruption registry and never outlives hcpx (§14.6). Every run has:
//! - `GIT_TERMINAL_PROMPT=0` (and no stdin): a repository that wants a
//!   password fails at once instead of waiting for one;
//! - `-c core.hooksPath=/dev/null` and `git init --template=`: no hook runs;
//! - `-c protocol.ext.allow=never -c protocol.fd.allow=never`: no transport
//!   that runs a program (the parser refuses them too);
//! - the `GIT_DIR`-style variables of the caller's environment removed, so
//!   only the fresh repository is touched;
//! - options before `--` and the URL and ref after it.
//!
//! The fetch is shallow where the ref allows: `git init`, then `git fetch
//! --depth 1 -- URL REF` (the remote's `HEAD` when no ref is given); a full
//! commit id is fetched the same way when the server allows it, else by a
//! full fetch of every branch and tag, in which the commit is then looked
//! up. The fetched commit is checked out (detached) and resolved with
//! `rev-parse`. A failure is `source_unavailable`, naming the source (its
//! password removed) and git's own message (the password blanked out).

use super::process::{self, ToolOutput};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::store::source::{GitSource, is_commit_id, url_credentials};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Variables that would point git at another repository than ours.
const GIT_REPO_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
];

/// A fetched checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The checkout's root (the repository's work tree).
    pub root: PathBuf,
    /// The commit REF resolved to.
    pub commit: String,
}

/// Fetches `source` into the new folder `into` (which must not exist) and
/// checks the resolved commit out there.
pub fn fetch(source: &GitSource, into: &Path) -> Result<Fetched> {
    let fail = |what: &str, out: &ToolOutput| unavailable(source, what, out);
    let out = git(
        None,
        &["init", "-q", "--template=", "--"],
        &[into.as_os_str()],
    )?;
    if out.exit_code != 0 {
        return Err(fail("git init failed", &out));
    }
    let reference = source.reference.as_deref().unwrap_or("HEAD");
    let shallow = git(
        Some(into),
        &["fetch", "-q", "--no-tags", "--depth", "1", "--"],
        &[source.url.as_ref(), reference.as_ref()],
    )?;
    let target = if shallow.exit_code == 0 {
        "FETCH_HEAD".to_string()
    } else if source.reference_is_commit() {
        let full = git(
            Some(into),
            &["fetch", "-q", "--no-tags", "--"],
            &[
                source.url.as_ref(),
                "+refs/heads/*:refs/remotes/origin/*".as_ref(),
                "+refs/tags/*:refs/tags/*".as_ref(),
            ],
        )?;
        if full.exit_code != 0 {
            return Err(fail("cannot fetch", &full));
        }
        reference.to_string()
    } else {
        return Err(fail("cannot fetch", &shallow));
    };
    let peeled = format!("{target}^{{commit}}");
    let resolved = git(
        Some(into),
        &["rev-parse", "-q", "--verify", "--end-of-options"],
        &[peeled.as_ref()],
    )?;
    let commit = String::from_utf8_lossy(&resolved.stdout).trim().to_string();
    if resolved.exit_code != 0 || !is_commit_id(&commit) {
        return Err(fail(
            &format!("`{reference}` is not a commit of the repository"),
            &resolved,
        ));
    }
    let checkout = git(
        Some(into),
        &[
            "-c",
            "advice.detachedHead=false",
            "checkout",
            "-q",
            "--detach",
        ],
        &[commit.as_ref()],
    )?;
    if checkout.exit_code != 0 {
        return Err(fail("cannot check the commit out", &checkout));
    }
    Ok(Fetched {
        root: into.to_path_buf(),
        commit,
    })
}

/// The tag names of a remote repository (`git ls-remote --tags`), peeled
/// tags (`^{}`) folded into their names.
pub fn remote_tags(source: &GitSource) -> Result<Vec<String>> {
    let out = git(
        None,
        &["ls-remote", "--tags", "--refs", "--"],
        &[source.url.as_ref()],
    )?;
    if out.exit_code != 0 {
        return Err(unavailable(source, "cannot list the tags", &out));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .filter_map(|(_, name)| name.strip_prefix("refs/tags/"))
        .map(str::to_string)
        .collect())
}

/// The highest SemVer among tags named `vX.Y.Z` or `X.Y.Z` (§13.6), with
/// its tag name.
pub fn highest_semver_tag(tags: &[String]) -> Option<(semver::Version, String)> {
    tags.iter()
        .filter_map(|tag| {
            let text = tag.strip_prefix('v').unwrap_or(tag);
            semver::Version::parse(text).ok().map(|v| (v, tag.clone()))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
}

/// Whether the `git` program can be found on PATH.
pub fn available() -> bool {
    process::find_on_path("git", std::env::var_os("PATH").as_deref()).is_some()
}

/// Runs `git [-C dir] <safety options> ARGS OPERANDS` (ARGS end with `--`
/// where the subcommand takes it to end its options).
fn git(dir: Option<&Path>, args: &[&str], operands: &[&std::ffi::OsStr]) -> Result<ToolOutput> {
    let mut cmd = Command::new("git");
    if let Some(dir) = dir {
        cmd.arg("-C").arg(dir);
    }
    cmd.args([
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "protocol.ext.allow=never",
        "-c",
        "protocol.fd.allow=never",
        "-c",
        "core.fsmonitor=false",
    ]);
    cmd.args(args).args(operands);
    for var in GIT_REPO_VARS {
        cmd.env_remove(var);
    }
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("GCM_INTERACTIVE", "never")
        .env("LC_ALL", "C");
    process::run_tool(&mut cmd, "git").map_err(|err| match err.code {
        ErrorCode::ProgramNotFound => Error::new(
            ErrorCode::SourceUnavailable,
            "git sources need the `git` program, which is not on PATH",
        )
        .hint("install git (or add its folder to PATH)"),
        _ => err,
    })
}

/// `source_unavailable` naming the source and what git said.
fn unavailable(source: &GitSource, what: &str, out: &ToolOutput) -> Error {
    let mut said = String::from_utf8_lossy(&out.stderr).trim().to_string();
    for credential in url_credentials(&source.url) {
        said = said.replace(credential, "********");
    }
    let said = crate::engine::pack::text::terminal_safe(&said).into_owned();
    let message = if said.is_empty() {
        format!(
            "{}: {what} (git exited {})",
            source.display(),
            out.exit_code
        )
    } else {
        format!("{}: {what}: {said}", source.display())
    };
    Error::new(ErrorCode::SourceUnavailable, message).hint(
        "check the URL and the ref (`git ls-remote URL` lists the refs); a private repository needs git credentials set up",
    )
}
