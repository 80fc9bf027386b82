//! `hcpx catalog add|remove|list|update` (HCP.md §13.2): catalogs are
//! folders or git sources, listed under `catalogs:` in `config.yaml`. A git
//! catalog is read from its local copy `<store>/catalogs/git-<hash>/`
//! (beside it `git-<hash>.json` records the fetched commit); only `add` and
//! `update` fetch.
//!
//! Every change runs under the store lock as one [`Transaction`]: the new
//! local copy is fetched into `.tmp/` and swapped in, `config.yaml` is
//! rewritten keeping its comments ([`config::set_list`]) and checked to
//! read back; a failure at any step leaves both as they were.
//!
//! Where the spec is silent: `add` of a folder records its absolute path
//! and needs the folder to exist (`not_found`); adding a catalog already
//! listed changes nothing (`changed: false`); `remove` takes the source as
//! written or, for a folder, any path to the same folder; `list` also shows
//! `--catalog` folders (kind `dir`); a source is shown without the password
//! of its URL; a git catalog's SUBDIR that is missing or reached through a
//! link is `not_found` at `add` and `update`, as a pack's is at install.

use super::Engine;
use crate::engine::error::{Error, ErrorCode, Fix, Result};
use crate::engine::policy::grants::PACK_INSTALL;
use crate::engine::store::config::{self, CatalogSource};
use crate::engine::store::source::{GitSource, InstallSource, redact_source};
use crate::engine::store::{Transaction, catalog};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One catalog, as `hcpx catalog list --json` prints it (§13.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CatalogInfo {
    pub source: String,
    pub path: String,
    pub kind: CatalogKind,
    pub commit: Option<String>,
    pub packs: usize,
    /// Why a catalog yields no pack ([`catalog::NO_PACK`]); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Whether a catalog is a folder or a git source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CatalogKind {
    Dir,
    Git,
}

/// What `catalog add` or `catalog remove` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CatalogChange {
    pub catalog: CatalogInfo,
    pub changed: bool,
    /// The ids of the packs the added catalog holds (§13.2: `catalog add`
    /// of a skill repository lists its Skill packs); empty for `remove`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pack_ids: Vec<String>,
}

/// `<store>/catalogs/git-<hash>.json`: what was fetched.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct FetchRecord {
    commit: String,
    source: String,
}

impl Engine {
    /// The catalogs of `config.yaml`, then the `--catalog` folders.
    pub fn catalog_list(&self) -> Result<Vec<CatalogInfo>> {
        let config = config::read(&self.store().config_path())?;
        let mut all: Vec<CatalogInfo> = config.catalog_sources.iter().map(info).collect();
        for extra in self.catalogs().iter().skip(config.catalogs.len()) {
            all.push(info(&CatalogSource {
                written: extra.display().to_string(),
                path: extra.clone(),
                git: None,
            }));
        }
        Ok(all)
    }

    /// Adds a catalog to `config.yaml` (fetching a git one first).
    pub fn catalog_add(&self, source: &str) -> Result<CatalogChange> {
        // A credential in the URL is used for this fetch only, and removed
        // before the source is written anywhere (§14.9).
        // What people paste (`OWNER/REPO`, a GitHub URL) is written in
        // config.yaml as the git source it means (§13.1).
        let written = match InstallSource::parse(source) {
            Ok(InstallSource::Git(_))
                if source.starts_with("git+") || source.starts_with("github:") =>
            {
                without_credentials(source)
            }
            Ok(InstallSource::Git(git)) => git.display(),
            Ok(InstallSource::DirOrGithub(path, git)) if path.symlink_metadata().is_err() => {
                git.display()
            }
            // A malformed git source, or a URL without `git+`, is the
            // parser's usage error (its password removed), not a folder to
            // look for.
            Err(err) => return Err(err),
            _ => {
                let dir = Path::new(source);
                if !dir.is_dir() {
                    return Err(Error::new(
                        ErrorCode::NotFound,
                        format!("no such catalog folder: {}", source.escape_default()),
                    )
                    .path(source));
                }
                std::path::absolute(dir)
                    .map_err(|err| Error::io("cannot resolve", dir, &err))?
                    .display()
                    .to_string()
            }
        };
        let mut tx = self.store().lock()?;
        self.require_unscoped(&tx.state, PACK_INSTALL)?;
        let base = self.store().root().to_path_buf();
        let added = config::catalog_source(&base, &written)?;
        let current = config::read(&self.store().config_path())?;
        if let Some(known) = current
            .catalog_sources
            .iter()
            .find(|c| c.written == written || (c.git.is_none() && same_dir(&c.path, &added.path)))
        {
            return Ok(CatalogChange {
                catalog: info(known),
                changed: false,
                pack_ids: Vec::new(),
            });
        }
        if let Some(git) = &added.git {
            let with_credentials = match InstallSource::parse(source)? {
                InstallSource::Git(typed) | InstallSource::DirOrGithub(_, typed) => Some(typed),
                _ => None,
            };
            fetch_into_place(&mut tx, with_credentials.as_ref().unwrap_or(git), git)?;
        }
        let mut items: Vec<String> = current
            .catalog_sources
            .iter()
            .map(|c| c.written.clone())
            .collect();
        items.push(written);
        write_catalogs(&mut tx, &items)?;
        tx.commit()?;
        let pack_ids = catalog::pack_dirs(std::slice::from_ref(&added.path))
            .iter()
            .map(|(_, dir)| {
                // A pack whose id cannot be read is named by its folder.
                crate::engine::lint::declared_id(dir).unwrap_or_else(|| {
                    let name = dir.file_name().unwrap_or_default();
                    name.to_string_lossy().into_owned()
                })
            })
            .collect();
        Ok(CatalogChange {
            catalog: info(&added),
            changed: true,
            pack_ids,
        })
    }

    /// Removes a catalog from `config.yaml` (and a git one's local copy).
    pub fn catalog_remove(&self, source: &str) -> Result<CatalogChange> {
        let mut tx = self.store().lock()?;
        self.require_unscoped(&tx.state, PACK_INSTALL)?;
        let current = config::read(&self.store().config_path())?;
        let wanted = std::path::absolute(source).ok();
        // Given with the credential it was added with, it is found as
        // written (without it).
        let stripped = without_credentials(source);
        let found = current.catalog_sources.iter().position(|c| {
            c.written == source
                || c.written == stripped
                || (c.git.is_none() && wanted.as_ref().is_some_and(|w| same_dir(&c.path, w)))
        });
        let Some(at) = found else {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("no catalog `{}` in config.yaml", redact_source(source)),
            )
            .fix(Fix::CatalogList));
        };
        let removed = current.catalog_sources[at].clone();
        let shown = info(&removed);
        let items: Vec<String> = current
            .catalog_sources
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != at)
            .map(|(_, c)| c.written.clone())
            .collect();
        write_catalogs(&mut tx, &items)?;
        if let Some(git) = &removed.git {
            let root = config::git_catalog_dir(self.store().root(), git);
            tx.move_aside(&root)?;
            tx.move_aside(&record_path(&root))?;
        }
        tx.commit()?;
        Ok(CatalogChange {
            catalog: shown,
            changed: true,
            pack_ids: Vec::new(),
        })
    }

    /// Fetches every git catalog again; all or none are replaced.
    pub fn catalog_update(&self) -> Result<Vec<CatalogInfo>> {
        let mut tx = self.store().lock()?;
        self.require_unscoped(&tx.state, PACK_INSTALL)?;
        let current = config::read(&self.store().config_path())?;
        for source in &current.catalog_sources {
            if let Some(git) = &source.git {
                fetch_into_place(&mut tx, git, git)?;
            }
        }
        tx.commit()?;
        Ok(current.catalog_sources.iter().map(info).collect())
    }
}

/// Whether two paths name the same folder.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A catalog's line of `catalog list`.
fn info(source: &CatalogSource) -> CatalogInfo {
    let (kind, commit) = match &source.git {
        Some(_) => (
            CatalogKind::Git,
            read_record(&source_root(source)).map(|r| r.commit),
        ),
        None => (CatalogKind::Dir, None),
    };
    let packs = catalog::pack_dirs(std::slice::from_ref(&source.path)).len();
    CatalogInfo {
        source: redact_source(&source.written),
        path: source.path.display().to_string(),
        kind,
        commit,
        packs,
        reason: (packs == 0).then(|| catalog::NO_PACK.to_string()),
    }
}

/// The commit a git catalog's local copy (its root) was fetched at.
pub(super) fn fetched_commit(root: &Path) -> Option<String> {
    read_record(root).map(|r| r.commit)
}

/// The local copy's root (without SUBDIR) of a git catalog.
pub(super) fn source_root(source: &CatalogSource) -> PathBuf {
    let mut root = source.path.clone();
    if let Some(subdir) = source.git.as_ref().and_then(|g| g.subdir.as_ref()) {
        for _ in subdir.split('/') {
            root.pop();
        }
    }
    root
}

fn record_path(root: &Path) -> PathBuf {
    root.with_extension("json")
}

fn read_record(root: &Path) -> Option<FetchRecord> {
    serde_json::from_slice(&std::fs::read(record_path(root)).ok()?).ok()
}

/// A source as `config.yaml` keeps it: a `git+` URL without the password
/// (over `http(s)://`, without the whole userinfo).
fn without_credentials(source: &str) -> String {
    if source.starts_with("git+") {
        redact_source(source)
    } else {
        source.to_string()
    }
}

/// Fetches `fetch` (a git catalog, with the credential it was given) into
/// `.tmp/` and swaps it in as the local copy of `git` (as written).
fn fetch_into_place(tx: &mut Transaction<'_>, fetch: &GitSource, git: &GitSource) -> Result<()> {
    let root = config::git_catalog_dir(tx.store().root(), git);
    let checkout = tx.scratch_path("catalog")?;
    // As for a pack: a SUBDIR reached through a link (out of the
    // checkout) is refused, so the catalog read later is the repository's.
    let fetched = super::fetch::fetch_to(fetch, &checkout)?;
    if let Some(parent) = root.parent() {
        tx.create_dir(parent)?;
    }
    tx.exchange(&checkout, &root)?;
    let record = FetchRecord {
        commit: fetched.commit,
        source: git.display(),
    };
    let text = serde_json::to_vec_pretty(&record)
        .map_err(|err| Error::new(ErrorCode::Io, format!("cannot encode: {err}")))?;
    tx.replace_file(&record_path(&root), &text, 0o644)
}

/// Rewrites `catalogs:` in `config.yaml`, and checks the file still reads.
fn write_catalogs(tx: &mut Transaction<'_>, items: &[String]) -> Result<()> {
    let path = tx.store().config_write_path();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Err(Error::io("cannot read", &path, &err)),
    };
    let new = config::set_list(&text, "catalogs", items);
    tx.replace_file(
        &path,
        new.as_bytes(),
        crate::engine::store::PRIVATE_FILE_MODE,
    )?;
    let read = config::read(&path)?;
    let written: Vec<&String> = read.catalog_sources.iter().map(|c| &c.written).collect();
    if written != items.iter().collect::<Vec<_>>() {
        return Err(Error::new(
            ErrorCode::StoreCorrupt,
            format!(
                "{} could not be updated in place; it is left as it was",
                path.display()
            ),
        )
        .path(path.display().to_string())
        .hint("edit its `catalogs:` list by hand"));
    }
    Ok(())
}
