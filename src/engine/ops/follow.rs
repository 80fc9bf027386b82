//! What each locked pack's source holds now, for `outdated` and `upgrade`
//! (HCP.md §13.6): every pack gets a [`Finding`] — up to date, an update
//! (with the [`Candidate`] to install), or a problem that is reported
//! beside the others (`missing`, `lint_failed`, `renamed`, `not_checked`)
//! and never hides them.
//!
//! A git pack follows what it was installed from ([`Follow`]): no REF or a
//! branch, that branch's head; a tag `vX.Y.Z`/`X.Y.Z`, the highest SemVer
//! tag above it (a pre-release only when installed at one; other tags are
//! ignored); a full commit, nothing. It never moves from a branch to a tag
//! or back, and the lock keeps the ref it had (a new tag for a tag).
//!
//! Each repository is asked once per command: one `git ls-remote` gives
//! every branch and tag; a pack whose followed commit is the locked one is
//! up to date without a fetch; the others are fetched together in one
//! partial fetch naming every ref they follow (`git::fetch_refs`), then
//! one fetch of their folders' files, into a private temporary folder
//! outside the store shared by their candidates (when that fetch fails,
//! each ref is fetched alone, so one ref's failure hides no other's). The
//! packs of one ref and one locked commit are compared by tree first
//! (`git::fetch_changed_folders`): a folder whose tree did not change since
//! that commit is up to date without any of its files fetched.
//!
//! Where the spec is silent:
//! - A ref that is neither a branch nor a tag of the remote any more (and
//!   not SemVer) is `missing`, its hint naming the ref.
//! - A tag that is not SemVer is followed by nothing (like a commit).
//! - A repository that cannot be reached (or a fetch that fails) makes its
//!   packs `not_checked`, git's words in the hint, and `outdated` exit 1.
//! - A folder source (`dir`, `catalog`) whose folder is gone is `missing`.

use super::Engine;
use super::content::{Content, private_copy};
use super::upgrade::UpdateReason;
use crate::engine::exec::git::{self, RemoteRefs};
use crate::engine::lint::{LintOptions, lint_pack};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::Manifest;
use crate::engine::store::lockfile::{LockEntry, LockedSource, SourceKind};
use crate::engine::store::source::{GitSource, is_commit_id};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How many repositories or folders are looked at at once.
pub const PARALLEL_FETCHES: usize = 4;

/// A fetched or copied newer pack, ready to install.
pub(super) struct Candidate {
    pub pack_id: PackId,
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub recorded: LockedSource,
    /// What `dir` held when the diff was computed (its digest among it).
    pub content: Content,
    /// The digest (§13.4) of `dir` when the diff was computed.
    pub digest: String,
    /// Keeps the fetched checkout or private copy until it is installed.
    pub _keep: Option<Arc<tempfile::TempDir>>,
}

/// Why a pack was not compared: said beside the updates.
#[derive(Debug, Clone)]
pub(super) struct Problem {
    pub reason: UpdateReason,
    /// The newest version (a renamed Skill: its new name), when known.
    pub latest: String,
    pub latest_digest: String,
    pub hint: String,
    /// Its source could not be reached (an error, online).
    pub unreachable: bool,
}

impl Problem {
    fn new(reason: UpdateReason, hint: String) -> Problem {
        Problem {
            reason,
            latest: String::new(),
            latest_digest: String::new(),
            hint,
            unreachable: false,
        }
    }
}

/// Locked packs, with their entries.
type Packs = Vec<(PackId, LockEntry)>;

/// What a pack's source holds now.
pub(super) enum Found {
    UpToDate,
    Update(UpdateReason, Box<Candidate>),
    Problem(Problem),
}

/// One locked pack and what was found for it.
pub(super) struct Finding {
    pub id: PackId,
    pub entry: LockEntry,
    pub found: Found,
}

/// What a git pack follows (§13.6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Follow {
    /// A branch's head (`None`: the default branch).
    Branch(Option<String>),
    /// The highest SemVer tag above this one.
    Tags(semver::Version),
    /// Nothing: a full commit, or a tag that is not SemVer.
    Pinned,
    /// The ref is no longer on the remote.
    Gone(String),
}

/// Where a followed pack is now: the ref to fetch, the ref to record and
/// the commit the remote gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Target {
    pub fetch: String,
    pub record: Option<String>,
    pub commit: String,
}

/// The SemVer of a tag name `vX.Y.Z` or `X.Y.Z`.
fn tag_version(tag: &str) -> Option<semver::Version> {
    semver::Version::parse(tag.strip_prefix('v').unwrap_or(tag)).ok()
}

/// What a pack installed at `reference` follows, given the remote's refs.
pub(super) fn follow_of(reference: Option<&str>, refs: &RemoteRefs) -> Follow {
    let Some(reference) = reference else {
        return Follow::Branch(None);
    };
    if is_commit_id(reference) {
        return Follow::Pinned;
    }
    let tag = reference.strip_prefix("refs/tags/").unwrap_or(reference);
    let branch = reference.strip_prefix("refs/heads/").unwrap_or(reference);
    let is_tag = refs.tags.contains_key(tag) && !reference.starts_with("refs/heads/");
    if is_tag || (!refs.heads.contains_key(branch) && tag_version(tag).is_some()) {
        return tag_version(tag).map_or(Follow::Pinned, Follow::Tags);
    }
    if refs.heads.contains_key(branch) {
        return Follow::Branch(Some(branch.to_string()));
    }
    Follow::Gone(reference.to_string())
}

/// Where `follow` leads now (`None`: nowhere newer; a tag-follower with no
/// higher tag, or a pinned pack). `reference` is the recorded ref, kept
/// as written for a branch.
pub(super) fn target_of(
    follow: &Follow,
    reference: Option<&str>,
    refs: &RemoteRefs,
) -> Option<Target> {
    match follow {
        Follow::Branch(None) => Some(Target {
            fetch: "HEAD".into(),
            record: None,
            commit: refs.head.clone()?,
        }),
        Follow::Branch(Some(branch)) => Some(Target {
            fetch: format!("refs/heads/{branch}"),
            record: reference.map(str::to_string),
            commit: refs.heads.get(branch)?.clone(),
        }),
        Follow::Tags(installed) => {
            let pre = !installed.pre.is_empty();
            let (_, tag, commit) = refs
                .tags
                .iter()
                .filter_map(|(tag, commit)| Some((tag_version(tag)?, tag, commit)))
                .filter(|(v, _, _)| v > installed && (pre || v.pre.is_empty()))
                .max_by(|a, b| a.0.cmp(&b.0))?;
            Some(Target {
                fetch: format!("refs/tags/{tag}"),
                record: Some(tag.clone()),
                commit: commit.clone(),
            })
        }
        Follow::Pinned | Follow::Gone(_) => None,
    }
}

impl Engine {
    /// What the source of each of `entries` holds now: folder sources and
    /// repositories looked at [`PARALLEL_FETCHES`] at a time, each
    /// repository once; `offline`, git packs are `not_checked`. Sorted by
    /// pack id.
    pub(super) fn check_sources(
        &self,
        entries: Vec<(PackId, LockEntry)>,
        offline: bool,
        to_install: bool,
    ) -> Vec<Finding> {
        let (git, folders): (Vec<_>, Vec<_>) = entries
            .into_iter()
            .partition(|(_, e)| e.source.kind == SourceKind::Git);
        let mut findings: Vec<Finding> =
            super::upgrade::bounded_map(folders, PARALLEL_FETCHES, |(id, entry)| {
                let found = self.check_folder(&id, &entry, to_install);
                Finding { id, entry, found }
            });
        if offline {
            findings.extend(git.into_iter().map(|(id, entry)| {
                let hint = format!(
                    "offline: {} was not asked for updates; run without --offline to check it",
                    shown(&entry)
                );
                let found = Found::Problem(Problem::new(UpdateReason::NotChecked, hint));
                Finding { id, entry, found }
            }));
        } else {
            let mut repos: BTreeMap<String, Vec<(PackId, LockEntry)>> = BTreeMap::new();
            for (id, entry) in git {
                let url = entry.source.url.clone().unwrap_or_default();
                repos.entry(url).or_default().push((id, entry));
            }
            let checked = super::upgrade::bounded_map(
                repos.into_iter().collect(),
                PARALLEL_FETCHES,
                |(url, packs)| check_repository(&url, packs, to_install),
            );
            findings.extend(checked.into_iter().flatten());
        }
        findings.sort_by(|a, b| a.id.cmp(&b.id));
        findings
    }

    /// A `dir` or `catalog` pack: its folder (gone: `missing`), judged.
    fn check_folder(&self, id: &PackId, entry: &LockEntry, to_install: bool) -> Found {
        let Some((dir, kind)) = self.newest_folder(id, entry) else {
            // No folder recorded (a pack adopted from before the lock):
            // its source is unknown, so there is nothing to compare.
            if entry.source.path.is_none() {
                return Found::UpToDate;
            }
            let hint = format!(
                "its folder {} is gone (renamed, moved or deleted): install it again from where it is now, or uninstall it",
                entry.source.path.as_deref().unwrap_or_default()
            );
            return Found::Problem(Problem::new(UpdateReason::Missing, hint));
        };
        let recorded = LockedSource::folder(kind, &dir);
        if !to_install {
            return judge(id, entry, &dir, recorded, None);
        }
        match private_copy(&dir) {
            Ok((tmp, copy)) => judge(id, entry, &copy, recorded, Some(Arc::new(tmp))),
            Err(err) => Found::Problem(Problem {
                unreachable: true,
                ..Problem::new(UpdateReason::NotChecked, err.message)
            }),
        }
    }
}

/// The source as a user would write it, for hints.
fn shown(entry: &LockEntry) -> String {
    GitSource {
        url: entry.source.url.clone().unwrap_or_default(),
        subdir: entry.source.subdir.clone(),
        reference: entry.source.reference.clone(),
    }
    .display()
}

/// Every git pack of the repository `url`: one `ls-remote`, then one fetch
/// per followed ref whose commit is not the locked one.
fn check_repository(url: &str, packs: Vec<(PackId, LockEntry)>, to_install: bool) -> Vec<Finding> {
    let repo = GitSource {
        url: url.to_string(),
        subdir: None,
        reference: None,
    };
    let refs = match git::remote_refs(&repo) {
        Ok(refs) => refs,
        Err(err) => return unreachable_all(packs, &err.message),
    };
    let mut findings = Vec::new();
    let mut groups: BTreeMap<String, (Option<String>, Packs)> = BTreeMap::new();
    for (id, entry) in packs {
        let reference = entry.source.reference.as_deref();
        let follow = follow_of(reference, &refs);
        if let Follow::Gone(name) = &follow {
            let hint = format!(
                "the ref `{name}` is no longer on the remote {}: install it again from a branch or tag it has",
                repo.display()
            );
            let found = Found::Problem(Problem::new(UpdateReason::Missing, hint));
            findings.push(Finding { id, entry, found });
            continue;
        }
        match target_of(&follow, reference, &refs) {
            Some(t) if entry.source.commit.as_deref() != Some(t.commit.as_str()) => {
                let group = groups
                    .entry(t.fetch)
                    .or_insert_with(|| (t.record, Vec::new()));
                group.1.push((id, entry));
            }
            _ => findings.push(Finding {
                id,
                entry,
                found: Found::UpToDate,
            }),
        }
    }
    findings.extend(fetch_groups(&repo, groups, to_install));
    findings
}

/// The packs of one repository to fetch, by the ref they follow now: the
/// ref to record, and the packs.
type Groups = BTreeMap<String, (Option<String>, Packs)>;

/// Every group of one repository from one fetch naming every ref
/// (`git::fetch_refs`); when that fails (a ref gone since the
/// `ls-remote`), each ref is fetched alone, so one ref's failure leaves
/// the others' packs checked.
fn fetch_groups(repo: &GitSource, groups: Groups, to_install: bool) -> Vec<Finding> {
    if groups.len() < 2 {
        return groups
            .into_iter()
            .flat_map(|(fetch, (record, packs))| {
                fetch_group(repo, &fetch, record.as_deref(), packs, to_install)
            })
            .collect();
    }
    let wanted: Vec<git::RefFolders<'_>> = groups
        .iter()
        .map(|(fetch, (_, packs))| git::RefFolders {
            reference: fetch,
            subdirs: folders_of(packs),
        })
        .collect();
    let fetched = super::fetch::private_temp_dir("hcpx-upgrade-").and_then(|tmp| {
        let got = git::fetch_refs(repo, &wanted, &tmp.path().join("checkout"))?;
        Ok((Arc::new(tmp), got))
    });
    let Ok((tmp, got)) = fetched else {
        return groups
            .into_iter()
            .flat_map(|(fetch, (record, packs))| {
                fetch_group(repo, &fetch, record.as_deref(), packs, to_install)
            })
            .collect();
    };
    groups
        .into_iter()
        .zip(got)
        .flat_map(|((fetch, (record, packs)), got)| {
            let source = GitSource {
                reference: Some(fetch),
                ..repo.clone()
            };
            let fetched = (Arc::clone(&tmp), got);
            judge_group(&source, record.as_deref(), packs, fetched, to_install)
        })
        .collect()
}

/// The folders to fetch for `packs` of one ref: each one's SUBDIR, or none
/// (the whole tree) when one of them is the repository's root.
fn folders_of(packs: &[(PackId, LockEntry)]) -> Vec<&str> {
    if packs.iter().any(|(_, e)| e.source.subdir.is_none()) {
        return Vec::new();
    }
    let mut subdirs: Vec<&str> = packs
        .iter()
        .filter_map(|(_, e)| e.source.subdir.as_deref())
        .collect();
    subdirs.sort_unstable();
    subdirs.dedup();
    subdirs
}

/// Each pack `not_checked`, `message` (git's words) its hint.
fn unreachable_all(packs: Vec<(PackId, LockEntry)>, message: &str) -> Vec<Finding> {
    packs
        .into_iter()
        .map(|(id, entry)| Finding {
            id,
            entry,
            found: Found::Problem(Problem {
                unreachable: true,
                ..Problem::new(UpdateReason::NotChecked, message.to_string())
            }),
        })
        .collect()
}

/// The packs of one repository that follow the ref `fetch`: one fetch of
/// all their folders, then each judged.
fn fetch_group(
    repo: &GitSource,
    fetch: &str,
    record: Option<&str>,
    packs: Vec<(PackId, LockEntry)>,
    to_install: bool,
) -> Vec<Finding> {
    let source = GitSource {
        reference: Some(fetch.to_string()),
        ..repo.clone()
    };
    let subdirs = folders_of(&packs);
    // The packs' folders at their one locked commit: an unchanged folder
    // is up to date without fetching its files.
    let mut locked = packs.iter().map(|(_, e)| e.source.commit.as_deref());
    let first = locked.next().flatten();
    let since = first.filter(|c| locked.all(|o| o == Some(*c)) && !subdirs.is_empty());
    let fetched = super::fetch::private_temp_dir("hcpx-upgrade-").and_then(|tmp| {
        let into = tmp.path().join("checkout");
        let (got, same) = match since {
            Some(since) => git::fetch_changed_folders(&source, &subdirs, since, &into)?,
            None => (git::fetch_folders(&source, &subdirs, &into)?, Vec::new()),
        };
        Ok((Arc::new(tmp), got, same))
    });
    let (tmp, got, same) = match fetched {
        Ok(fetched) => fetched,
        Err(err) => return unreachable_all(packs, &err.message),
    };
    let (same, changed): (Packs, Packs) = packs.into_iter().partition(|(_, e)| {
        e.source
            .subdir
            .as_deref()
            .is_some_and(|s| same.iter().any(|u| u == s))
    });
    let mut findings: Vec<Finding> = same
        .into_iter()
        .map(|(id, entry)| Finding {
            id,
            entry,
            found: Found::UpToDate,
        })
        .collect();
    findings.extend(judge_group(
        &source,
        record,
        changed,
        (tmp, got),
        to_install,
    ));
    findings
}

/// The packs of one ref, fetched into `got` (kept by `tmp`), each judged.
fn judge_group(
    source: &GitSource,
    record: Option<&str>,
    packs: Vec<(PackId, LockEntry)>,
    (tmp, got): (Arc<tempfile::TempDir>, git::Fetched),
    to_install: bool,
) -> Vec<Finding> {
    let repo = GitSource {
        reference: None,
        ..source.clone()
    };
    // The checkout lives until every pack is judged (`tmp`), and on in
    // each candidate to install.
    let keep = to_install.then(|| Arc::clone(&tmp));
    packs
        .into_iter()
        .map(|(id, entry)| {
            let subdir = entry.source.subdir.as_deref();
            let recorded = LockedSource::git(&repo.url, subdir, record, &got.commit);
            let found = match super::fetch::subdir_of(&got.root, subdir, source) {
                Ok(dir) => judge(&id, &entry, &dir, recorded, keep.clone()),
                Err(_) => Found::Problem(Problem::new(
                    UpdateReason::Missing,
                    format!(
                        "{} has no folder `{}` at commit {} (renamed, moved or deleted upstream): install it again from where it is now (`install {} --list` lists its packs), or uninstall it",
                        repo.display(),
                        subdir.unwrap_or("."),
                        got.commit,
                        repo.display()
                    ),
                )),
            };
            Finding { id, entry, found }
        })
        .collect()
}

/// The pack at `dir` against its lock entry: `lint_failed`, `renamed`, a
/// newer version, new content, or up to date (a lower version is never
/// offered).
fn judge(
    id: &PackId,
    entry: &LockEntry,
    dir: &Path,
    recorded: LockedSource,
    keep: Option<Arc<tempfile::TempDir>>,
) -> Found {
    let content = match Content::read(dir) {
        Ok(content) => content,
        Err(err) => return Found::Problem(Problem::new(UpdateReason::LintFailed, err.message)),
    };
    let digest = content.digest().to_string();
    let Some(manifest) = content.manifest.clone() else {
        return Found::Problem(Problem {
            latest_digest: digest,
            ..Problem::new(UpdateReason::LintFailed, lint_hint(id, dir))
        });
    };
    if manifest.id != id.as_str() {
        let hint = format!(
            "the pack at its source is now named `{}`: install it by that name, then uninstall {id}",
            manifest.id
        );
        return Found::Problem(Problem {
            latest: manifest.id.clone(),
            latest_digest: digest,
            ..Problem::new(UpdateReason::Renamed, hint)
        });
    }
    let version = manifest.version.clone();
    let reason = if super::upgrade::is_newer(&version, &entry.version) {
        UpdateReason::Version
    } else if super::upgrade::same_version(&version, &entry.version) && digest != entry.digest {
        UpdateReason::Content
    } else {
        return Found::UpToDate;
    };
    Found::Update(
        reason,
        Box::new(Candidate {
            pack_id: id.clone(),
            dir: dir.to_path_buf(),
            manifest,
            recorded,
            content,
            digest,
            _keep: keep,
        }),
    )
}

/// The findings that keep the pack at the source from linting, a few.
fn lint_hint(id: &PackId, dir: &Path) -> String {
    const SHOWN: usize = 3;
    let report = lint_pack(dir, LintOptions::default());
    let errors: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::engine::lint::diagnostic::Severity::Error)
        .map(|d| format!("{} [{}] {}", d.file, d.rule, d.message))
        .collect();
    let mut listed: Vec<String> = errors.iter().take(SHOWN).cloned().collect();
    if errors.len() > SHOWN {
        listed.push(format!("and {} more", errors.len() - SHOWN));
    }
    format!(
        "the new version at its source does not lint, so {id} stays as it is: {}",
        listed.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs() -> RemoteRefs {
        let c = |n: char| n.to_string().repeat(40);
        RemoteRefs {
            head: Some(c('a')),
            heads: [("main".into(), c('a')), ("dev".into(), c('d'))].into(),
            tags: [
                ("v1.0.0".into(), c('1')),
                ("v1.2.0".into(), c('2')),
                ("2.0.0-rc.1".into(), c('3')),
                ("latest".into(), c('4')),
            ]
            .into(),
        }
    }

    #[test]
    fn a_pack_follows_what_it_was_installed_from() {
        let r = refs();
        assert_eq!(follow_of(None, &r), Follow::Branch(None));
        assert_eq!(
            follow_of(Some("dev"), &r),
            Follow::Branch(Some("dev".into()))
        );
        assert_eq!(follow_of(Some("latest"), &r), Follow::Pinned);
        assert_eq!(follow_of(Some(&"f".repeat(40)), &r), Follow::Pinned);
        assert_eq!(follow_of(Some("gone"), &r), Follow::Gone("gone".into()));
        let head = target_of(&Follow::Branch(None), None, &r).map(|t| t.commit);
        assert_eq!(head, Some("a".repeat(40)));
        let tags = follow_of(Some("v1.0.0"), &r);
        let t = target_of(&tags, Some("v1.0.0"), &r);
        assert_eq!(
            t.and_then(|t| t.record),
            Some("v1.2.0".into()),
            "no pre-release"
        );
        let pre = follow_of(Some("v1.2.0-beta"), &r);
        let t = target_of(&pre, Some("v1.2.0-beta"), &r);
        assert_eq!(t.and_then(|t| t.record), Some("2.0.0-rc.1".into()));
        let top = follow_of(Some("v1.2.0"), &r);
        assert_eq!(target_of(&top, Some("v1.2.0"), &r), None, "never older");
    }
}
