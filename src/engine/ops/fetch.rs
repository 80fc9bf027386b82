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
//!
//! `install REPO --skill X` of a git collection with no SUBDIR
//! ([`fetch_chosen`]) fetches the commits and trees, finds the pack
//! folders in the tree, fetches only their manifests and `SKILL.md` (with
//! the files of the folders named like a word, in the same fetch) and reads
//! their names from git's output in memory, as lint reads them
//! ([`crate::engine::lint::declared_id_of`]), and then only the chosen
//! folders' files when they were not fetched already (§14.8): the other
//! folders are never fetched (where the server filters) nor written, and
//! no name file is written anywhere.

use super::InstallOptions;
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::exec::git;
use crate::engine::exec::gittree::Entry;
use crate::engine::lint::diagnostic::Rule;
use crate::engine::lint::{MANIFEST_JSON, MANIFEST_YAML};
use crate::engine::store::Transaction;
use crate::engine::store::collection::{self, ROOT, SKILL_FILE};
use crate::engine::store::remove;
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

/// [`fetch_chosen`] into the scratch folder of `tx`.
pub(super) fn fetch_chosen_locked(
    tx: &mut Transaction<'_>,
    source: &GitSource,
    options: &InstallOptions,
    words: &[String],
    pick: &Pick<'_>,
) -> Result<FetchedPack> {
    if let Some(on_fetch) = &options.on_fetch {
        on_fetch(&source.display());
    }
    let checkout = tx.scratch_path("fetch")?;
    fetch_chosen(source, &checkout, words, pick)
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

/// A pack folder of a collection known by the files it is named by (its
/// manifests and `SKILL.md`), read from git into memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct NamedFolder {
    /// Its path in the repository ([`ROOT`]: the repository's root).
    pub path: String,
    /// Its name files found, by name, with their bytes.
    pub files: Vec<(String, Vec<u8>)>,
}

impl NamedFolder {
    /// The bytes of its root file `name`, when the tree has it.
    pub fn file(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }
}

/// What picks the folders to take from a collection: told the pack folders
/// of the repository (found in the tree, in order) with the bytes of their
/// manifests and `SKILL.md`, answers the paths of the chosen ones (a
/// selection's refusals are its errors).
pub(super) type Pick<'a> = dyn Fn(&[NamedFolder]) -> Result<Vec<String>> + 'a;

/// `install REPO --skill X` of a git collection (§13.1) with no checkout
/// of the rest (§14.8): the commits and trees are fetched, the pack
/// folders found in the tree ([`collection::search_files`]), their
/// manifests and `SKILL.md` fetched (with the files of the folders named
/// like a word in `words`, which are most likely the chosen ones, in the
/// same fetch) and read into memory for `pick` (never written), then only
/// the chosen folders' files are fetched (none when they were the likely
/// ones) and written into the new folder `checkout`, at their paths in the
/// repository. On a failure nothing is left.
pub(super) fn fetch_chosen(
    source: &GitSource,
    checkout: &Path,
    words: &[String],
    pick: &Pick<'_>,
) -> Result<FetchedPack> {
    let tree = git::fetch_tree(source, checkout)?;
    let written = write_chosen(&tree, checkout, words, pick);
    if written.is_err() {
        let _ = remove::remove_own(checkout);
    }
    let _ = remove::remove_own(tree.repo());
    written?;
    Ok(FetchedPack {
        dir: checkout.to_path_buf(),
        commit: tree.commit,
    })
}

/// [`fetch_chosen`] once the tree is fetched.
fn write_chosen(
    tree: &git::FetchedTree,
    checkout: &Path,
    words: &[String],
    pick: &Pick<'_>,
) -> Result<()> {
    let packs = collection::search_files(tree.files.iter().map(|f| f.path.as_str()));
    let is_pack: std::collections::HashSet<&str> = packs.iter().map(String::as_str).collect();
    let names: Vec<Entry> = tree
        .files
        .iter()
        .filter(|f| {
            let (folder, name) = f.path.rsplit_once('/').unwrap_or((ROOT, &f.path));
            NAME_FILES.contains(&name) && is_pack.contains(folder)
        })
        .cloned()
        .collect();
    let below = |folders: &[&str]| -> Vec<Entry> {
        tree.files
            .iter()
            .filter(|f| folders.iter().any(|d| in_folder(&f.path, d)))
            .cloned()
            .collect()
    };
    let likely: Vec<&str> = packs
        .iter()
        .map(String::as_str)
        .filter(|p| {
            words
                .iter()
                .any(|w| p.rsplit('/').next() == Some(w.as_str()))
        })
        .collect();
    let mut first = names.clone();
    first.extend(below(&likely));
    tree.fetch(&first)?;
    let chosen = pick(&named_folders(&packs, &names, tree.read(&names)?))?;
    let chosen: Vec<&str> = chosen.iter().map(String::as_str).collect();
    let files = below(&chosen);
    if !chosen.iter().all(|c| likely.contains(c)) {
        tree.fetch(&files)?;
    }
    tree.write(&files, checkout)
}

/// The folders `packs` with the name files `names` read as `bytes`.
fn named_folders(packs: &[String], names: &[Entry], bytes: Vec<Vec<u8>>) -> Vec<NamedFolder> {
    let mut folders: Vec<NamedFolder> = packs
        .iter()
        .map(|path| NamedFolder {
            path: path.clone(),
            files: Vec::new(),
        })
        .collect();
    for (entry, bytes) in names.iter().zip(bytes) {
        let (folder, name) = entry.path.rsplit_once('/').unwrap_or((ROOT, &entry.path));
        if let Some(f) = folders.iter_mut().find(|f| f.path == folder) {
            f.files.push((name.to_string(), bytes));
        }
    }
    folders
}

/// The files a pack folder is known by: its manifests and its `SKILL.md`.
const NAME_FILES: [&str; 3] = [MANIFEST_YAML, MANIFEST_JSON, SKILL_FILE];

/// Whether the repository path `path` is inside the collection folder
/// `folder` ([`ROOT`]: the whole repository).
fn in_folder(path: &str, folder: &str) -> bool {
    folder == ROOT
        || path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
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
