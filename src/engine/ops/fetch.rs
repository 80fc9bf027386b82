//! Git sources for install, upgrade and sync (HCP.md §13.1): the fetch runs
//! under the store lock into the change's scratch folder in `<store>/.tmp/`
//! (every lock holder may clear `.tmp/`, so nothing there lives past its
//! change), then the SUBDIR is found in the checkout.
//!
//! A SUBDIR that is missing, not a folder, or reached through a symbolic
//! link (a link in the repository pointing out of the checkout) is
//! `not_found`, as is one with `..`, `.` or empty parts (the parsers of a
//! SOURCE and of a lock file refuse them already).

use super::InstallOptions;
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::exec::git;
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
        err.context.hint = Some(format!(
            "fetch the repository and run `hcpx lint` on the pack folder{} for every finding",
            source
                .subdir
                .as_deref()
                .map(|s| format!(" `{s}`"))
                .unwrap_or_default()
        ));
    }
    err
}
