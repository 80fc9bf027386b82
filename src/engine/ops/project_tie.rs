//! A project's `hcp.lock` tied to its `hcp.yaml` (HCP.md §15.3): the source
//! each `hcp.yaml` entry names ([`entry_sources`]), and whether a lock
//! entry is that entry's ([`Engine::untied_entries`]).
//!
//! A lock entry matches its `hcp.yaml` entry when it has the same source
//! kind, the same url (compared without userinfo: credentials aside) and
//! subdir, and a commit that the entry's `#REF` names (a tag or a full
//! commit) or that is reachable from it (a branch; no REF: the remote's
//! default branch), judged by [`RemoteHistory::tie`] once the locked
//! commit is fetched (each repository's history fetched once per sync,
//! commits only, and only when a git entry's REF is not a full commit). A locked commit the remote no longer has (a force-push) is
//! `source_unavailable` naming the commit and how to re-lock. A folder
//! entry matches a `dir` lock entry of that folder.
//!
//! Where the spec is silent: an entry whose source is a collection (its
//! `id` picks the pack) is locked by the pack's own folder, so the lock's
//! subdir (or folder) may be the entry's or one inside it.
//!
//! A `source` folder inside the user store or any other store (see
//! [`lockfile::store_holding`]) is refused (`usage`), as in `hcp.lock`.

use super::Engine;
use super::sync::Resolve;
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::exec::git::{LockTie, RemoteHistory};
use crate::engine::pack::id::PackId;
use crate::engine::project::{self, Project, file};
use crate::engine::store::lockfile::{self, LockEntry, LockFile, SourceKind};
use crate::engine::store::source::{GitSource, is_commit_id, without_userinfo};
use std::path::Path;

/// The source of each `hcp.yaml` entry: a folder of the project (when it
/// exists, for `OWNER/REPO` words) or a git source. A folder inside a
/// store is `usage`.
pub(super) fn entry_sources(
    project: &Project,
    wanted: &file::ProjectFile,
) -> Result<Vec<(PackId, Resolve)>> {
    let mut sources = Vec::new();
    for entry in &wanted.packs {
        let Some(id) = PackId::parse(&entry.id) else {
            continue;
        };
        let folder = |path: &Path| {
            let text = path.to_str().unwrap_or_default();
            project::resolve_path(project.root(), text)
        };
        let from = match file::source_of(&entry.source).map_err(|e| project.named(e))? {
            file::ProjectSource::Git(git) => Resolve::Git(git),
            file::ProjectSource::Folder(path) => Resolve::Folder(folder(&path)),
            file::ProjectSource::FolderOrGithub(path, git) => {
                match project.root().join(&path).symlink_metadata() {
                    Ok(_) => Resolve::Folder(folder(&path)),
                    Err(_) => Resolve::Git(git),
                }
            }
        };
        if let Resolve::Folder(dir) = &from
            && let Some(store) = lockfile::store_holding(dir)
        {
            return Err(project.named(
                Error::usage(format!(
                    "hcp.yaml: the source of {id} ({}) is inside an hcpx store ({}); a project's packs come from its own folders or git, and nothing was installed",
                    dir.display(),
                    store.display()
                ))
                .pack(id.as_str())
                .path(dir.display().to_string())
                .hint("give the pack a folder of the project or a git source in hcp.yaml"),
            ));
        }
        sources.push((id, from));
    }
    Ok(sources)
}

impl Engine {
    /// The `hcp.yaml` entries whose lock entry is not theirs, each with
    /// what differs (see the module doc). Git entries are judged once
    /// their locked commit is fetched; a commit the remote lost is
    /// `source_unavailable`.
    pub(super) fn untied_entries(
        &self,
        sources: &[(PackId, Resolve)],
        lock: &LockFile,
    ) -> Result<Vec<(PackId, String)>> {
        let mut untied = Vec::new();
        let mut histories = Histories::default();
        for (id, from) in sources {
            let Some(locked) = lock.packs.get(id) else {
                continue;
            };
            if let Some(why) = tie(id, from, locked, &mut histories)? {
                untied.push((id.clone(), why));
            }
        }
        Ok(untied)
    }
}

/// What differs between the lock entry `locked` and the source `from` that
/// `hcp.yaml` names for `id`, if anything.
fn tie(
    id: &PackId,
    from: &Resolve,
    locked: &LockEntry,
    histories: &mut Histories,
) -> Result<Option<String>> {
    let source = &locked.source;
    let git = match (from, source.kind) {
        (Resolve::Folder(dir), SourceKind::Dir | SourceKind::Catalog) => {
            let recorded = source.folder_path().unwrap_or_default();
            return Ok((!recorded.starts_with(dir)).then(|| {
                format!(
                    "hcp.lock records the folder {}, hcp.yaml names {}",
                    recorded.display(),
                    dir.display()
                )
            }));
        }
        (Resolve::Git(git), SourceKind::Git) => git,
        (Resolve::Folder(_), SourceKind::Git) => {
            return Ok(Some(
                "hcp.lock records a git source, hcp.yaml names a folder".into(),
            ));
        }
        (Resolve::Git(_), _) => {
            return Ok(Some(
                "hcp.lock records a folder, hcp.yaml names a git source".into(),
            ));
        }
    };
    let url = source.url.as_deref().unwrap_or_default();
    if without_userinfo(url) != without_userinfo(&git.url) {
        return Ok(Some(format!(
            "hcp.lock records the url {}, hcp.yaml names {}",
            without_userinfo(url),
            without_userinfo(&git.url)
        )));
    }
    if !subdir_within(source.subdir.as_deref(), git.subdir.as_deref()) {
        return Ok(Some(format!(
            "hcp.lock records the subdir {}, hcp.yaml names {}",
            source.subdir.as_deref().unwrap_or("(the root)"),
            git.subdir.as_deref().unwrap_or("(the root)")
        )));
    }
    let commit = source.commit.as_deref().unwrap_or_default();
    let reference = git.reference.as_deref();
    let tie = match reference.filter(|r| is_commit_id(r)) {
        // A pinned commit is the lock's or not; its fetch tells the rest.
        Some(pinned) if !pinned.eq_ignore_ascii_case(commit) => LockTie::Untied,
        Some(_) => LockTie::Tied,
        None => histories
            .of(git)
            .and_then(|h| h.tie(reference, commit))
            .map_err(|e| e.pack(id.as_str()))?,
    };
    match tie {
        LockTie::Tied => Ok(None),
        LockTie::Untied => Ok(Some(format!(
            "hcp.lock records the commit {commit}, which {} does not name or reach",
            git.reference
                .as_deref()
                .map_or_else(|| "the default branch".to_string(), |r| format!("`{r}`"))
        ))),
        LockTie::Gone => Err(gone(id, commit, git)),
    }
}

/// Whether the locked subdir is the entry's, or inside it (a collection).
fn subdir_within(locked: Option<&str>, named: Option<&str>) -> bool {
    match (locked, named) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(l), Some(n)) => l == n || l.strip_prefix(n).is_some_and(|rest| rest.starts_with('/')),
    }
}

/// The locked commit is no longer in the repository (a force-push).
fn gone(id: &PackId, commit: &str, git: &GitSource) -> Error {
    let shown = GitSource {
        reference: None,
        ..git.clone()
    }
    .display();
    Error::new(
        ErrorCode::SourceUnavailable,
        format!(
            "{id}: hcp.lock records the commit {commit}, which {shown} no longer has (was it force-pushed?); nothing was installed"
        ),
    )
    .pack(id.as_str())
    .hint(
        Hint::from("re-lock it: `")
            .cmd(Fix::Upgrade { dry_run: false })
            .say(format!(
                " {id}` where it is installed, or drop its entry from hcp.lock and run `"
            ))
            .cmd(Fix::Sync)
            .say("`"),
    )
}

/// The histories fetched by one sync, one per repository (by url).
#[derive(Default)]
struct Histories {
    fetched: Vec<(String, RemoteHistory, tempfile::TempDir)>,
}

impl Histories {
    fn of(&mut self, git: &GitSource) -> Result<&RemoteHistory> {
        let at = match self.fetched.iter().position(|(url, ..)| *url == git.url) {
            Some(at) => at,
            None => {
                let scratch = super::fetch::private_temp_dir("hcpx-tie-")?;
                let source = GitSource {
                    subdir: None,
                    reference: None,
                    ..git.clone()
                };
                let history = RemoteHistory::fetch(&source, scratch.path())?;
                self.fetched.push((git.url.clone(), history, scratch));
                self.fetched.len() - 1
            }
        };
        Ok(&self.fetched[at].1)
    }
}
