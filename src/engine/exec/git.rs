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
//! - in the fetch's own repository, `core.fsync=none`,
//!   `maintenance.auto=false` and `gc.auto=0`: a throwaway read once is
//!   not flushed to disk, and no maintenance starts in the background;
//! - the URL given as the remote `origin` in git's environment, never on
//!   its command line (which every user of the machine can read, and a URL
//!   may hold a credential); options before `--`, the ref after it.
//!
//! The fetch is shallow where the ref allows: `git init --bare` in a
//! folder beside the one to write (`<into>.git`), then `git fetch --depth 1
//! -- origin REF` (the remote's `HEAD` when no ref is given); a full commit id
//! is fetched the same way when the server allows it, else by a full fetch
//! of every branch and tag, in which the commit is then looked up, and
//! resolved with `rev-parse`. Nothing is checked out (§14.8): the commit's
//! tree is written by [`gittree`] from `git ls-tree` and `git cat-file`,
//! with the modes of §14.1, so no filter, smudge or `.gitattributes`-driven
//! program runs, and no symbolic link is written.
//!
//! With a SUBDIR the fetch is a partial one (`--filter=blob:none`: commits
//! and trees only), and then only the SUBDIR's blobs are fetched (with
//! several folders, [`fetch_folders`], theirs, in the same fetch); a server
//! that does not support filters sends everything (git says so and goes
//! on), which is the fallback. [`fetch_tree`] stops after the commits and
//! trees, so a caller can choose folders from the tree (and from the few
//! files it fetches to learn names, [`FetchedTree::read`] into memory)
//! before any other file is fetched or written ([`FetchedTree`]). Every git run of a fetch is watched: once
//! the repository and the files written pass [`max_fetch_bytes`]
//! (`HCPX_FETCH_MAX_BYTES`, default 1 GiB) git's process group is killed,
//! both folders are removed and the fetch fails with `source_unavailable`.
//!
//! A failure is `source_unavailable`, naming the source (its password
//! removed) and git's own message (the password blanked out).

use super::gittree;
use super::process::{self, ToolOutput};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::store::remove;
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

/// The default bound on what one fetch may write (§14.8): 1 GiB.
pub const DEFAULT_FETCH_MAX_BYTES: u64 = 1 << 30;

/// The bound on what one fetch may write: `HCPX_FETCH_MAX_BYTES` when it is
/// a number of bytes, else [`DEFAULT_FETCH_MAX_BYTES`].
pub fn max_fetch_bytes() -> u64 {
    std::env::var("HCPX_FETCH_MAX_BYTES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_FETCH_MAX_BYTES)
}

/// Fetches `source` and writes its commit's tree (only the SUBDIR's files
/// when it has one) into the new folder `into`, which must not exist; the
/// repository lives beside it in `<into>.git` (the caller's scratch space
/// removes both). On a failure neither is left.
pub fn fetch(source: &GitSource, into: &Path) -> Result<Fetched> {
    let subdirs: Vec<&str> = source.subdir.as_deref().into_iter().collect();
    fetch_folders(source, &subdirs, into)
}

/// [`fetch`] of the folders `subdirs` of the repository (the source's own
/// SUBDIR is not used): one partial fetch that writes only their files,
/// each at its path in the repository below `into` — several packs of one
/// repository and commit from one fetch (§13.1). No `subdirs`: the whole
/// tree.
pub fn fetch_folders(source: &GitSource, subdirs: &[&str], into: &Path) -> Result<Fetched> {
    let repo = repo_dir(into);
    let run = Fetch {
        source,
        subdirs,
        partial: !subdirs.is_empty(),
        repo: &repo,
        budget: max_fetch_bytes(),
    };
    let result = run.fetch_into(into);
    if result.is_err() {
        let _ = remove::remove_own(into);
        let _ = remove::remove_own(&repo);
    }
    result
}

/// [`fetch_folders`] for a caller that has the folders at the commit
/// `since` already (an update check, §13.6): the commits and trees of
/// `since` are fetched too, in the same fetch (no file), and a folder whose tree is the same
/// at both commits is neither fetched nor written. Returns the fetch and
/// the folders left out as unchanged. Where `since` cannot be fetched (a
/// force-push removed it), every folder is fetched.
pub fn fetch_changed_folders(
    source: &GitSource,
    subdirs: &[&str],
    since: &str,
    into: &Path,
) -> Result<(Fetched, Vec<String>)> {
    let repo = repo_dir(into);
    let run = Fetch {
        source,
        subdirs,
        partial: true,
        repo: &repo,
        budget: max_fetch_bytes(),
    };
    let result = run.init().and_then(|()| {
        let (commit, same) = match run.fetch_with(since) {
            Some(commit) => {
                let same = run.unchanged(&commit, since);
                (commit, same)
            }
            None => (run.fetch_commit()?, Vec::new()),
        };
        let changed: Vec<&str> = subdirs
            .iter()
            .copied()
            .filter(|s| !same.iter().any(|u| u == s))
            .collect();
        let each = Fetch {
            subdirs: &changed,
            ..run
        };
        let entries = if changed.is_empty() {
            Vec::new()
        } else {
            each.list(&commit)?
        };
        let missing = each.missing(&entries)?;
        each.fetch_blobs(&missing)?;
        each.write(&entries, into)?;
        Ok((
            Fetched {
                root: into.to_path_buf(),
                commit,
            },
            same,
        ))
    });
    if result.is_err() {
        let _ = remove::remove_own(into);
        let _ = remove::remove_own(&repo);
    }
    result
}

/// One ref of a repository and the folders to write from it (none: its
/// whole tree), for [`fetch_refs`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefFolders<'a> {
    /// `HEAD`, `refs/heads/B` or `refs/tags/T`.
    pub reference: &'a str,
    pub subdirs: Vec<&'a str>,
}

/// [`fetch_folders`] of several refs of one repository with one `git
/// fetch` naming every ref (§13.6), then, when every ref wants folders
/// only, one fetch of the files they need: ref `n`'s folders are written
/// below `into/<n>`, at their paths in the repository. The commits, in
/// order. On a failure nothing is left.
pub fn fetch_refs(
    source: &GitSource,
    wanted: &[RefFolders<'_>],
    into: &Path,
) -> Result<Vec<Fetched>> {
    let repo = repo_dir(into);
    let run = Fetch {
        source,
        subdirs: &[],
        partial: wanted.iter().all(|w| !w.subdirs.is_empty()),
        repo: &repo,
        budget: max_fetch_bytes(),
    };
    let result = run.init().and_then(|()| run.fetch_refs_into(wanted, into));
    if result.is_err() {
        let _ = remove::remove_own(into);
        let _ = remove::remove_own(&repo);
    }
    result
}

/// `<into>.git`, beside `into`.
fn repo_dir(into: &Path) -> PathBuf {
    let mut name = into.file_name().unwrap_or_default().to_os_string();
    name.push(".git");
    into.with_file_name(name)
}

/// One fetch: its source, its bare repository and its bound.
struct Fetch<'a> {
    source: &'a GitSource,
    /// The folders whose files are written (none: every file).
    subdirs: &'a [&'a str],
    /// Commits and trees first, then only the blobs asked for.
    partial: bool,
    repo: &'a Path,
    budget: u64,
}

impl Fetch<'_> {
    fn fetch_into(&self, into: &Path) -> Result<Fetched> {
        self.init()?;
        let commit = self.fetch_commit()?;
        let entries = self.list(&commit)?;
        if self.partial {
            let missing = self.missing(&entries)?;
            self.fetch_blobs(&missing)?;
        }
        self.write(&entries, into)?;
        Ok(Fetched {
            root: into.to_path_buf(),
            commit,
        })
    }

    /// `git init --bare` of the fetch's repository.
    fn init(&self) -> Result<()> {
        let out = git(
            None,
            &["init", "-q", "--bare", "--template=", "--"],
            &[self.repo.as_os_str()],
        )?;
        if out.exit_code != 0 {
            return Err(unavailable(self.source, "git init failed", &out));
        }
        Ok(())
    }

    /// Writes the files `entries` (their blobs in the repository) below
    /// `into`, within what is left of the bound.
    fn write(&self, entries: &[gittree::Entry], into: &Path) -> Result<()> {
        self.write_counted(entries, into, 0).map(|_| ())
    }

    /// [`Fetch::write`] after `before` bytes were written elsewhere by the
    /// same fetch; the bytes written.
    fn write_counted(&self, entries: &[gittree::Entry], into: &Path, before: u64) -> Result<u64> {
        let batch = self.repo.join("hcpx-batch");
        let out = self.cat_file("--batch", entries, &batch)?;
        if out.exit_code != 0 {
            return Err(unavailable(
                self.source,
                "cannot read the commit's files",
                &out,
            ));
        }
        let left = self
            .budget
            .saturating_sub(tree_bytes(self.repo))
            .saturating_sub(before);
        let written = gittree::write(entries, &batch, into, left).map_err(|err| self.named(err))?;
        let _ = std::fs::remove_file(&batch);
        Ok(written)
    }

    /// The bytes of `entries` (their blobs in the repository), in memory,
    /// within what is left of the bound.
    fn read(&self, entries: &[gittree::Entry]) -> Result<Vec<Vec<u8>>> {
        let batch = self.repo.join("hcpx-batch");
        let out = self.cat_file("--batch", entries, &batch)?;
        if out.exit_code != 0 {
            return Err(unavailable(
                self.source,
                "cannot read the commit's files",
                &out,
            ));
        }
        let left = self.budget.saturating_sub(tree_bytes(self.repo));
        let read = gittree::read(entries, &batch, left).map_err(|err| self.named(err));
        let _ = std::fs::remove_file(&batch);
        read
    }

    /// Fetches REF (partially, with a SUBDIR) and resolves it to a commit.
    fn fetch_commit(&self) -> Result<String> {
        let source = self.source;
        let fail = |what: &str, out: &ToolOutput| unavailable(source, what, out);
        let reference = source.reference.as_deref().unwrap_or("HEAD");
        let mut args = vec!["fetch", "-q", "--no-tags", "--depth", "1"];
        if self.partial {
            args.push("--filter=blob:none");
        }
        args.extend(["--", "origin"]);
        let shallow = self.run(&args, &[reference.as_ref()])?;
        let target = if shallow.exit_code == 0 {
            "FETCH_HEAD".to_string()
        } else if source.reference_is_commit() {
            let mut args = vec!["fetch", "-q", "--no-tags"];
            if self.partial {
                args.push("--filter=blob:none");
            }
            args.extend(["--", "origin"]);
            let refs = [
                "+refs/heads/*:refs/remotes/origin/*",
                "+refs/tags/*:refs/tags/*",
            ];
            let full = self.run(&args, &refs.map(std::ffi::OsStr::new))?;
            if full.exit_code != 0 {
                return Err(fail("cannot fetch", &full));
            }
            reference.to_string()
        } else {
            return Err(fail("cannot fetch", &shallow));
        };
        self.resolve(&target, reference)
    }

    /// The commit `target` (a ref of the repository) names; `reference`
    /// is how the user wrote it, for the error.
    fn resolve(&self, target: &str, reference: &str) -> Result<String> {
        let peeled = format!("{target}^{{commit}}");
        let resolved = self.run(
            &["rev-parse", "-q", "--verify", "--end-of-options"],
            &[peeled.as_ref()],
        )?;
        let commit = String::from_utf8_lossy(&resolved.stdout).trim().to_string();
        if resolved.exit_code != 0 || !is_commit_id(&commit) {
            return Err(unavailable(
                self.source,
                &format!("`{reference}` is not a commit of the repository"),
                &resolved,
            ));
        }
        Ok(commit)
    }

    /// One partial fetch (commits and trees) of the source's ref and of the
    /// commit `since`: the ref's commit, or `None` when the fetch fails
    /// (`since` gone, or not served by id) and the ref is to be fetched
    /// alone.
    fn fetch_with(&self, since: &str) -> Option<String> {
        if !is_commit_id(since) {
            return None;
        }
        let reference = self.source.reference.as_deref().unwrap_or("HEAD");
        let spec = format!("+{reference}:refs/hcpx/new");
        let args = [
            "fetch",
            "-q",
            "--no-tags",
            "--depth",
            "1",
            "--filter=blob:none",
            "--",
            "origin",
        ];
        let out = self.run(&args, &[spec.as_ref(), since.as_ref()]).ok()?;
        if out.exit_code != 0 {
            return None;
        }
        self.resolve("refs/hcpx/new", reference).ok()
    }

    /// The folders among `self.subdirs` whose tree is the same at `commit`
    /// and at `since` (after a commits-and-trees fetch of `since`); none
    /// when `since` cannot be fetched or read.
    fn unchanged(&self, commit: &str, since: &str) -> Vec<String> {
        if since == commit || self.subdirs.iter().any(|s| s.contains('\n')) {
            return Vec::new();
        }
        let names: String = self
            .subdirs
            .iter()
            .map(|s| format!("{commit}:{s}\n{since}:{s}\n"))
            .collect();
        let (list, answer) = (self.repo.join("hcpx-names"), self.repo.join("hcpx-trees"));
        if std::fs::write(&list, names).is_err() {
            return Vec::new();
        }
        let (Ok(stdin), Ok(stdout)) = (std::fs::File::open(&list), std::fs::File::create(&answer))
        else {
            return Vec::new();
        };
        let mut cmd = self.command(
            &["cat-file", "--batch-check=%(objectname) %(objecttype)"],
            &[],
        );
        cmd.env("GIT_NO_LAZY_FETCH", "1")
            .stdin(stdin)
            .stdout(stdout);
        if !self.watched(&mut cmd).is_ok_and(|o| o.exit_code == 0) {
            return Vec::new();
        }
        let text = std::fs::read_to_string(&answer).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        self.subdirs
            .iter()
            .zip(lines.chunks(2))
            .filter(|(_, pair)| matches!(pair, [a, b] if a == b && a.ends_with(" tree")))
            .map(|(s, _)| s.to_string())
            .collect()
    }

    /// [`fetch_refs`] into `into`, once the repository exists.
    fn fetch_refs_into(&self, wanted: &[RefFolders<'_>], into: &Path) -> Result<Vec<Fetched>> {
        let specs: Vec<String> = (0..wanted.len())
            .map(|n| format!("+{}:refs/hcpx/{n}", wanted[n].reference))
            .collect();
        let mut args = vec!["fetch", "-q", "--no-tags", "--depth", "1"];
        if self.partial {
            args.push("--filter=blob:none");
        }
        args.extend(["--", "origin"]);
        let operands: Vec<&std::ffi::OsStr> = specs.iter().map(|s| s.as_ref()).collect();
        let out = self.run(&args, &operands)?;
        if out.exit_code != 0 {
            return Err(unavailable(self.source, "cannot fetch", &out));
        }
        let mut lists = Vec::new();
        for (n, want) in wanted.iter().enumerate() {
            let commit = self.resolve(&format!("refs/hcpx/{n}"), want.reference)?;
            let each = Fetch {
                subdirs: &want.subdirs,
                ..*self
            };
            let entries = each.list(&commit)?;
            lists.push((commit, entries));
        }
        if self.partial {
            let mut all: Vec<gittree::Entry> =
                lists.iter().flat_map(|(_, e)| e.iter().cloned()).collect();
            all.sort_by(|a, b| a.oid.cmp(&b.oid));
            all.dedup_by(|a, b| a.oid == b.oid);
            let missing = self.missing(&all)?;
            self.fetch_blobs(&missing)?;
        }
        let mut written = 0;
        let mut fetched = Vec::new();
        for (n, (commit, entries)) in lists.into_iter().enumerate() {
            let root = into.join(n.to_string());
            written += self.write_counted(&entries, &root, written)?;
            fetched.push(Fetched { root, commit });
        }
        Ok(fetched)
    }

    /// The files of the commit's tree (below SUBDIR), listed by `git
    /// ls-tree` into a file of the repository (so the bound counts it and
    /// no output cap cuts a long listing).
    fn list(&self, commit: &str) -> Result<Vec<gittree::Entry>> {
        let path = self.repo.join("hcpx-tree");
        let file =
            std::fs::File::create(&path).map_err(|e| Error::io("cannot write", &path, &e))?;
        // `commit` is a checked hex id (no `-`): with `--end-of-options`
        // before it, git would take the `--` for a pathspec.
        let args = ["ls-tree", "-r", "-z", "--full-tree", commit, "--"];
        let subdirs: Vec<&std::ffi::OsStr> = self.subdirs.iter().map(|s| s.as_ref()).collect();
        let mut cmd = self.command(&args, &subdirs);
        cmd.env("GIT_LITERAL_PATHSPECS", "1")
            .env("GIT_NO_LAZY_FETCH", "1")
            .stdin(std::process::Stdio::null())
            .stdout(file);
        let out = self.watched(&mut cmd)?;
        if out.exit_code != 0 {
            return Err(unavailable(
                self.source,
                "cannot read the commit's tree",
                &out,
            ));
        }
        let listing = std::fs::read(&path).map_err(|e| Error::io("cannot read", &path, &e))?;
        let mut entries = Vec::new();
        if self.subdirs.is_empty() {
            return gittree::entries(&listing, None).map_err(|err| self.named(err));
        }
        for subdir in self.subdirs {
            let below = gittree::entries(&listing, Some(subdir)).map_err(|err| self.named(err))?;
            entries.extend(below);
        }
        // Nested folders (`a` and `a/b`) list a file once.
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        entries.dedup_by(|a, b| a.path == b.path);
        Ok(entries)
    }

    /// The entries whose blobs the repository lacks: after a partial fetch,
    /// all; none where the server sent everything (it supports no filter),
    /// so such a server is never asked for single objects.
    fn missing(&self, entries: &[gittree::Entry]) -> Result<Vec<gittree::Entry>> {
        let check = self.repo.join("hcpx-check");
        let out = self.cat_file("--batch-check=%(objectname)", entries, &check)?;
        if out.exit_code != 0 {
            return Err(unavailable(
                self.source,
                "cannot read the commit's files",
                &out,
            ));
        }
        let text =
            std::fs::read_to_string(&check).map_err(|e| Error::io("cannot read", &check, &e))?;
        let absent: std::collections::HashSet<&str> = text
            .lines()
            .filter_map(|l| l.strip_suffix(" missing"))
            .collect();
        Ok(entries
            .iter()
            .filter(|e| absent.contains(&e.oid.as_str()))
            .cloned()
            .collect())
    }

    /// After a partial fetch, fetches the blobs of `entries`.
    fn fetch_blobs(&self, entries: &[gittree::Entry]) -> Result<()> {
        for chunk in entries.chunks(500) {
            let oids: Vec<&std::ffi::OsStr> = chunk.iter().map(|e| e.oid.as_ref()).collect();
            let args = [
                "-c",
                "fetch.negotiationAlgorithm=noop",
                "fetch",
                "-q",
                "--no-tags",
                "--no-write-fetch-head",
                "--recurse-submodules=no",
                "--filter=blob:none",
                "--",
                "origin",
            ];
            let out = self.run(&args, &oids)?;
            if out.exit_code != 0 {
                return Err(unavailable(
                    self.source,
                    "cannot fetch the SUBDIR's files",
                    &out,
                ));
            }
        }
        Ok(())
    }

    /// `git cat-file MODE` (`--batch`, `--batch-check=..`) of the entries'
    /// blobs into the file `batch`; a missing blob is never fetched here.
    fn cat_file(&self, mode: &str, entries: &[gittree::Entry], batch: &Path) -> Result<ToolOutput> {
        let list = self.repo.join("hcpx-oids");
        let oids: String = entries.iter().map(|e| format!("{}\n", e.oid)).collect();
        let io = |path: &Path, err: std::io::Error| Error::io("cannot write", path, &err);
        std::fs::write(&list, oids).map_err(|e| io(&list, e))?;
        let stdin = std::fs::File::open(&list).map_err(|e| io(&list, e))?;
        let stdout = std::fs::File::create(batch).map_err(|e| io(batch, e))?;
        let mut cmd = self.command(&["cat-file", mode], &[]);
        cmd.env("GIT_NO_LAZY_FETCH", "1")
            .stdin(stdin)
            .stdout(stdout);
        self.watched(&mut cmd)
    }

    /// Runs `git -C <repo>` with the source's URL as the remote `origin`
    /// (given in git's environment, never on the command line nor in a
    /// file), watched.
    fn run(&self, args: &[&str], operands: &[&std::ffi::OsStr]) -> Result<ToolOutput> {
        let mut cmd = self.command(args, operands);
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped());
        self.watched(&mut cmd)
    }

    fn command(&self, args: &[&str], operands: &[&std::ffi::OsStr]) -> Command {
        let mut remote: Vec<&str> = vec!["-c", "remote.origin.promisor=true"];
        remote.extend(["-c", "extensions.partialClone=origin"]);
        // The repository is a throwaway read once: git neither flushes
        // what it writes there nor starts maintenance in the background.
        remote.extend(["-c", "core.fsync=none", "-c", "maintenance.auto=false"]);
        remote.extend(["-c", "gc.auto=0"]);
        remote.extend(args);
        let mut cmd = command(Some(self.repo), &remote, operands);
        with_origin(&mut cmd, self.source);
        cmd
    }

    /// Runs `cmd`, killing it once the repository passes the bound.
    fn watched(&self, cmd: &mut Command) -> Result<ToolOutput> {
        let over = || tree_bytes(self.repo) > self.budget;
        let (out, stopped) = process::run_tool_watched(cmd, "git", &over).map_err(git_missing)?;
        if stopped || over() {
            return Err(self.named(gittree::too_large(self.budget)));
        }
        Ok(out)
    }

    /// `err` with the source named first.
    fn named(&self, mut err: Error) -> Error {
        err.message = format!("{}: {}", self.source.display(), err.message);
        err
    }
}

/// A partial fetch of a source's commit (§14.8): its commits and trees,
/// then only the files asked for — how `install REPO --skill X` finds the
/// folder of X from the tree and its packs' `SKILL.md` and manifests, and
/// fetches and writes that folder alone. A server that supports no filter
/// sends everything at the first fetch (the fallback), and is then never
/// asked for single files.
#[derive(Debug)]
pub struct FetchedTree {
    source: GitSource,
    repo: PathBuf,
    budget: u64,
    /// The commit REF resolved to.
    pub commit: String,
    /// The commit's regular files (links and submodules left out).
    pub files: Vec<gittree::Entry>,
}

/// Fetches the commits and trees of `source` at its ref (the source's
/// SUBDIR is not used) into `<into>.git`, beside the folder `into` that
/// [`FetchedTree::write`] writes; on a failure nothing is left.
pub fn fetch_tree(source: &GitSource, into: &Path) -> Result<FetchedTree> {
    let repo = repo_dir(into);
    let budget = max_fetch_bytes();
    let run = Fetch {
        source,
        subdirs: &[],
        partial: true,
        repo: &repo,
        budget,
    };
    let listed = run.init().and_then(|()| {
        let commit = run.fetch_commit()?;
        Ok((run.list(&commit)?, commit))
    });
    match listed {
        Ok((files, commit)) => Ok(FetchedTree {
            source: source.clone(),
            repo,
            budget,
            commit,
            files,
        }),
        Err(err) => {
            let _ = remove::remove_own(&repo);
            Err(err)
        }
    }
}

impl FetchedTree {
    fn run(&self) -> Fetch<'_> {
        Fetch {
            source: &self.source,
            subdirs: &[],
            partial: true,
            repo: &self.repo,
            budget: self.budget,
        }
    }

    /// The fetch's repository (`<into>.git`), where a caller may keep
    /// scratch files the bound counts.
    pub fn repo(&self) -> &Path {
        &self.repo
    }

    /// Fetches, in one `git fetch`, the blobs of `files` the repository
    /// lacks (none after a server that sent everything).
    pub fn fetch(&self, files: &[gittree::Entry]) -> Result<()> {
        if files.is_empty() {
            return Ok(());
        }
        let run = self.run();
        let missing = run.missing(files)?;
        run.fetch_blobs(&missing)
    }

    /// The bytes of `files` (fetched already), in their order, read into
    /// memory (nothing is written), within what is left of the bound.
    pub fn read(&self, files: &[gittree::Entry]) -> Result<Vec<Vec<u8>>> {
        self.run().read(files)
    }

    /// Writes `files` (fetched already) below `into`, each at its path in
    /// the repository, within what is left of the bound.
    pub fn write(&self, files: &[gittree::Entry], into: &Path) -> Result<()> {
        self.run().write(files, into)
    }
}

/// The bytes of the regular files below `dir` (links not followed).
fn tree_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => tree_bytes(&entry.path()),
            Ok(t) if t.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// The tag names of a remote repository (`git ls-remote --tags`), peeled
/// tags (`^{}`) folded into their names.
pub fn remote_tags(source: &GitSource) -> Result<Vec<String>> {
    let mut cmd = command(
        None,
        &["ls-remote", "--tags", "--refs", "--", "origin"],
        &[],
    );
    with_origin(&mut cmd, source);
    let out = process::run_tool(&mut cmd, "git").map_err(git_missing)?;
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

/// The refs of a remote repository, from one `git ls-remote` (§13.6): its
/// default branch's commit, and each branch's and tag's (an annotated
/// tag's peeled to its commit).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoteRefs {
    /// The commit of `HEAD` (the default branch), when the remote names one.
    pub head: Option<String>,
    /// Branch name (without `refs/heads/`) → commit.
    pub heads: std::collections::BTreeMap<String, String>,
    /// Tag name (without `refs/tags/`) → commit.
    pub tags: std::collections::BTreeMap<String, String>,
}

/// Every ref of a remote repository in one `git ls-remote`.
pub fn remote_refs(source: &GitSource) -> Result<RemoteRefs> {
    let mut cmd = command(None, &["ls-remote", "--", "origin"], &[]);
    with_origin(&mut cmd, source);
    let out = process::run_tool(&mut cmd, "git").map_err(git_missing)?;
    if out.exit_code != 0 {
        return Err(unavailable(source, "cannot list the refs", &out));
    }
    Ok(parse_refs(&String::from_utf8_lossy(&out.stdout)))
}

/// The lines `<oid>\t<ref>` of `git ls-remote`; a peeled tag (`^{}`) gives
/// the tag its commit.
fn parse_refs(text: &str) -> RemoteRefs {
    let mut refs = RemoteRefs::default();
    let mut peeled = Vec::new();
    for (oid, name) in text.lines().filter_map(|l| l.split_once('\t')) {
        if !is_commit_id(oid) {
            continue;
        }
        if name == "HEAD" {
            refs.head = Some(oid.to_string());
        } else if let Some(branch) = name.strip_prefix("refs/heads/") {
            refs.heads.insert(branch.to_string(), oid.to_string());
        } else if let Some(tag) = name.strip_prefix("refs/tags/") {
            match tag.strip_suffix("^{}") {
                Some(tag) => peeled.push((tag.to_string(), oid.to_string())),
                None => {
                    refs.tags.insert(tag.to_string(), oid.to_string());
                }
            }
        }
    }
    refs.tags.extend(peeled);
    refs
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
    process::run_tool(&mut command(dir, args, operands), "git").map_err(git_missing)
}

/// The command `git [-C dir] <safety options> ARGS OPERANDS`.
fn command(dir: Option<&Path>, args: &[&str], operands: &[&std::ffi::OsStr]) -> Command {
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
    cmd
}

/// Names `source`'s URL as the remote `origin` in git's environment
/// (`GIT_CONFIG_COUNT`, git ≥ 2.31), never on its command line: a URL may
/// hold a credential, and every user of the machine can read a process's
/// command line, while its environment is its owner's alone.
/// [`command`] removed any `GIT_CONFIG_COUNT` the user had set.
fn with_origin(cmd: &mut Command, source: &GitSource) {
    cmd.env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "remote.origin.url")
        .env("GIT_CONFIG_VALUE_0", &source.url);
}

/// `git` not on PATH, said for git sources.
fn git_missing(err: Error) -> Error {
    match err.code {
        ErrorCode::ProgramNotFound => Error::new(
            ErrorCode::SourceUnavailable,
            "git sources need the `git` program, which is not on PATH",
        )
        .hint("install git (or add its folder to PATH)"),
        _ => err,
    }
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

/// How a project's locked commit stands to its `hcp.yaml` entry's REF
/// (HCP.md §15.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockTie {
    /// The REF names the commit (a tag or a commit), or it is reachable
    /// from it (a branch; no REF: the remote's default branch).
    Tied,
    /// The remote has the commit, but the REF neither names it nor reaches
    /// it (or the remote has no such REF).
    Untied,
    /// The remote no longer has the commit (a force-push).
    Gone,
}

/// `git fetch` of commits only (no trees or files): what judging a lock
/// entry's tie to its REF needs (§15.3).
const FETCH_COMMITS: [&str; 6] = [
    "fetch",
    "-q",
    "--no-tags",
    "--filter=tree:0",
    "--",
    "origin",
];

/// The history of a remote (its branches, tags and `HEAD`, commits only:
/// no tree or blob), fetched once into a private repository to judge any
/// number of locked commits of it with [`RemoteHistory::tie`].
pub struct RemoteHistory {
    source: GitSource,
    repo: PathBuf,
}

impl RemoteHistory {
    /// Fetches the history of `source`'s repository into `scratch` (a
    /// private folder the caller removes). Failures are
    /// `source_unavailable`.
    pub fn fetch(source: &GitSource, scratch: &Path) -> Result<RemoteHistory> {
        let repo = scratch.join("history.git");
        let out = git(
            None,
            &["init", "-q", "--bare", "--template=", "--"],
            &[repo.as_os_str()],
        )?;
        if out.exit_code != 0 {
            return Err(unavailable(source, "git init failed", &out));
        }
        let history = RemoteHistory {
            source: source.clone(),
            repo,
        };
        let refs = [
            "+refs/heads/*:refs/remotes/origin/*",
            "+refs/tags/*:refs/tags/*",
            "+HEAD:refs/hcpx/head",
        ];
        let out = history.run(&FETCH_COMMITS, &refs)?;
        if out.exit_code != 0 {
            return Err(unavailable(source, "cannot fetch", &out));
        }
        Ok(history)
    }

    /// Whether `commit` is tied to `reference` (see [`LockTie`]): a full
    /// commit REF is compared as it is; else the locked commit is looked up
    /// (and asked for by id when no ref reaches it: a server may still hand
    /// out a force-pushed commit), and judged with `git merge-base
    /// --is-ancestor` against the branch (no REF: `HEAD`), or compared with
    /// the tag's commit.
    pub fn tie(&self, reference: Option<&str>, commit: &str) -> Result<LockTie> {
        let same = |other: &str| match other.eq_ignore_ascii_case(commit) {
            true => LockTie::Tied,
            false => LockTie::Untied,
        };
        if !self.is_commit(commit)? {
            let _ = self.run(&FETCH_COMMITS, &[commit])?;
            if !self.is_commit(commit)? {
                return Ok(LockTie::Gone);
            }
        }
        if let Some(pinned) = reference.filter(|r| is_commit_id(r)) {
            return Ok(same(pinned));
        }
        let tip = match reference {
            None => "refs/hcpx/head".to_string(),
            Some(reference) => {
                if let Some(tagged) = self.commit_of(&format!("refs/tags/{reference}"))? {
                    return Ok(same(&tagged));
                }
                let branch = format!("refs/remotes/origin/{reference}");
                if !self.is_commit(&branch)? {
                    return Ok(LockTie::Untied);
                }
                branch
            }
        };
        let out = self.run(&["merge-base", "--is-ancestor"], &[commit, &tip])?;
        Ok(match out.exit_code {
            0 => LockTie::Tied,
            _ => LockTie::Untied,
        })
    }

    fn run(&self, args: &[&str], operands: &[&str]) -> Result<ToolOutput> {
        let run = Fetch {
            source: &self.source,
            subdirs: &[],
            partial: false,
            repo: &self.repo,
            budget: max_fetch_bytes(),
        };
        let operands: Vec<&std::ffi::OsStr> = operands.iter().map(|o| o.as_ref()).collect();
        run.run(args, &operands)
    }

    /// Whether `name` (a commit id or a ref) names a commit here.
    fn is_commit(&self, name: &str) -> Result<bool> {
        Ok(self.commit_of(name)?.is_some())
    }

    /// The commit `name` names, if it names one (one `git rev-parse`).
    fn commit_of(&self, name: &str) -> Result<Option<String>> {
        let peeled = format!("{name}^{{commit}}");
        let out = self.run(
            &["rev-parse", "-q", "--verify", "--end-of-options"],
            &[&peeled],
        )?;
        let named = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Ok((out.exit_code == 0).then_some(named))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ls_remote_gives_head_branches_and_peeled_tags() {
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let c = "c".repeat(40);
        let text = format!(
            "{a}\tHEAD\n{a}\trefs/heads/main\n{b}\trefs/tags/v1.0.0\n{c}\trefs/tags/v1.0.0^{{}}\n{b}\trefs/tags/light\nxyz\trefs/heads/bad\n"
        );
        let refs = parse_refs(&text);
        assert_eq!(refs.head.as_deref(), Some(a.as_str()));
        assert_eq!(refs.heads.get("main"), Some(&a));
        assert_eq!(
            refs.tags.get("v1.0.0"),
            Some(&c),
            "an annotated tag is its commit"
        );
        assert_eq!(refs.tags.get("light"), Some(&b));
        assert!(!refs.heads.contains_key("bad"));
    }
}
