//! Git sources for install, upgrade and sync (HCP.md §13.1): the fetch runs
//! under the store lock into the change's scratch folder in `<store>/.tmp/`
//! (every lock holder may clear `.tmp/`, so nothing there lives past its
//! change), then the SUBDIR is found in the checkout. `sync` fetches the
//! repositories it needs before it takes the lock, each once per commit
//! with every folder it takes from it ([`fetch_folders_to`]), into private
//! folders outside the store, and finds each SUBDIR there ([`subdir_of`]).
//!
//! A SUBDIR that is missing, not a folder, or reached through a symbolic
//! link (a link in the repository pointing out of the checkout) is
//! `not_found`, as is one with `..`, `.` or empty parts (the parsers of a
//! SOURCE and of a lock file refuse them already).

use super::InstallOptions;
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::exec::git;
use crate::engine::lint::diagnostic::Rule;
use crate::engine::store::Transaction;
use crate::engine::store::source::GitSource;
use std::path::{Path, PathBuf};

/// A fetched pack folder and the commit it was fetched at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedPack {
    pub dir: PathBuf,
    pub commit: String,
}

/// Fetches `source` into the scratch folder of `tx` and finds its SUBDIR.
pub(super) fn fetch_locked(
    tx: &mut Transaction<'_>,
    source: &GitSource,
    options: &InstallOptions,
) -> Result<FetchedPack> {
    if let Some(on_fetch) = &options.on_fetch {
        on_fetch(&source.display());
    }
    let checkout = tx.scratch_path("fetch")?;
    fetch_to(source, &checkout)
}

/// A folder of this user's alone (0700, removed when dropped) in the
/// system's temporary folder, named `PREFIX…`: for a fetch or a copy made
/// without the store lock, which a lock holder could clear from `.tmp/`.
pub(super) fn private_temp_dir(prefix: &str) -> Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(|err| {
            Error::io(
                "cannot create a temporary folder in",
                &std::env::temp_dir(),
                &err,
            )
        })
}

/// Fetches `source` into the new folder `checkout` and finds its SUBDIR.
pub(super) fn fetch_to(source: &GitSource, checkout: &Path) -> Result<FetchedPack> {
    let fetched = git::fetch(source, checkout)?;
    let Some(subdir) = &source.subdir else {
        return Ok(FetchedPack {
            dir: fetched.root,
            commit: fetched.commit,
        });
    };
    let dir = fetched.root.join(subdir);
    let mut walked = fetched.root.clone();
    for part in subdir.split('/') {
        walked.push(part);
        // `..` or `.` would leave the checkout (the parser refuses them;
        // this holds whoever built the source).
        let inside = !(part.is_empty() || part == "." || part == "..");
        let is_dir = inside && std::fs::symlink_metadata(&walked).is_ok_and(|m| m.is_dir());
        if !is_dir {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!(
                    "{} has no folder `{subdir}` at commit {}",
                    source.display(),
                    fetched.commit
                ),
            )
            .hint("check the SUBDIR after `//`: it is the pack's folder in the repository"));
        }
    }
    Ok(FetchedPack {
        dir,
        commit: fetched.commit,
    })
}

/// Fetches the folders `subdirs` of `source`'s repository at its ref into
/// the new folder `checkout` in one fetch (none: the whole tree); each
/// folder is then at its path below the returned root (see [`subdir_of`]).
pub(super) fn fetch_folders_to(
    source: &GitSource,
    subdirs: &[&str],
    checkout: &Path,
) -> Result<git::Fetched> {
    git::fetch_folders(source, subdirs, checkout)
}

/// The folder `subdir` of a checkout at `root` (`not_found` when it is not
/// a folder there, every step checked: no link is followed out of it, and
/// no `..`, `.` or empty part leaves it).
pub(super) fn subdir_of(root: &Path, subdir: Option<&str>, source: &GitSource) -> Result<PathBuf> {
    let Some(subdir) = subdir else {
        return Ok(root.to_path_buf());
    };
    let mut walked = root.to_path_buf();
    for part in subdir.split('/') {
        walked.push(part);
        let inside = !(part.is_empty() || part == "." || part == "..");
        if !inside || !std::fs::symlink_metadata(&walked).is_ok_and(|m| m.is_dir()) {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("{} has no folder `{subdir}`", source.display()),
            )
            .hint("check the SUBDIR after `//`: it is the pack's folder in the repository"));
        }
    }
    Ok(walked)
}

/// An error about the fetched checkout (lint) names the source the user
/// gave instead of the scratch folder, which is gone once the change ends.
pub(super) fn name_source(mut err: Error, dir: &Path, source: &GitSource) -> Error {
    let scratch = dir.display().to_string();
    let shown = source.display();
    err.message = err.message.replace(&scratch, &shown);
    if err.context.path.as_deref() == Some(scratch.as_str()) {
        err.context.path = Some(shown.clone());
    }
    if err.code == ErrorCode::LintFailed {
        err.context.hint = Some(fetched_lint_hint(&err, source).into());
    }
    err
}

/// What to do about a fetched pack that fails lint: hcpx has the checkout
/// already, so the hint names the problem rather than asking the user to
/// fetch it — a folder that is no pack, or the findings to fix.
fn fetched_lint_hint(err: &Error, source: &GitSource) -> String {
    let folder = match source.subdir.as_deref() {
        Some(subdir) => format!("the folder `{subdir}` of the repository"),
        None => "the repository's root".to_string(),
    };
    let findings = err.context.diagnostics.as_deref().unwrap_or_default();
    if findings.iter().any(|d| d.rule == Rule::PackManifestMissing) {
        return format!(
            "{folder} holds no pack.yaml, pack.json or SKILL.md: name the pack's folder after `//`"
        );
    }
    const SHOWN: usize = 3;
    let mut listed: Vec<String> = findings
        .iter()
        .take(SHOWN)
        .map(|d| format!("{} [{}] {}", d.file, d.rule, d.message))
        .collect();
    if findings.len() > SHOWN {
        listed.push(format!("and {} more", findings.len() - SHOWN));
    }
    format!(
        "the pack in {folder} must be fixed where it is published: {}",
        listed.join("; ")
    )
}
