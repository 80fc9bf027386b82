//! `<store>/hcp.lock` (HCP.md §13.3): each installed pack but the bootstrap
//! pack, with its version, the digest of its installed tree (§13.4) and
//! where it came from:
//!
//! ```json
//! {"packs": {"<pack_id>": {"digest": "sha256:<hex>", "source": {"kind":
//!   "dir"|"catalog"|"git", "path": S?, "url": S?, "subdir": S?, "ref": S?,
//!   "commit": S?}, "version": S}}, "version": 1}
//! ```
//!
//! Keys are sorted (the structs declare their fields in order, packs are a
//! sorted map), the file is written atomically under the store lock through
//! the change's [`Transaction`], so a failed change leaves it as it was.
//! Ids read from it are checked (§14.2); a lock that does not parse, or
//! holds a bad id, is `store_corrupt` and never replaced by a change. A
//! missing lock is an empty one.
//!
//! Where the spec is silent: a `git` source's `url`, `subdir` and `ref` are
//! held to the rules of a SOURCE on the command line (§13.1: no `-`-leading
//! URL or ref, no `ext::`/`fd::`, a SUBDIR without `..`, `.` or a leading
//! `/`) and its `commit` must be a full commit id: they reach git and the
//! file system (`sync`, `upgrade`, `outdated`), and a lock file is text
//! anyone may have edited (or sent). One that breaks them makes the lock
//! corrupt, like a bad id.
//!
//! Where the spec is silent: a git URL is recorded without its credentials
//! (the lock is meant to be shared; git's credential helpers supply it).
//! Only `hcpx doctor --fix` gets a store out of a corrupt lock: it keeps the
//! file's bytes as `hcp.lock.corrupt-<UTC time>` (mode 0600: it is the
//! user's to read, and a hand edit may have put anything in it), keeps what
//! of it still reads ([`salvage`], passwords dropped from URLs) and records
//! the installed packs anew.

use super::source::{locked_git_problem, redact_url};
use super::{Store, Transaction};
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::pack::id::PackId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The store a recorded folder lies in, if any: the nearest of the folder
/// and its parents that is named `.hcp` (the default store's name) or
/// holds a store's layout, a `state.json` file beside a `packs/` folder.
/// A lock is meant to travel; a path inside a store (a git catalog's local
/// copy, another machine's `packs/`) names nothing on another machine, and
/// `sync` refuses it (§13.3).
pub fn store_holding(folder: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(folder).ok()?;
    absolute
        .ancestors()
        .find(|dir| {
            dir.file_name().is_some_and(|n| n == ".hcp")
                || (dir.join("state.json").is_file() && dir.join("packs").is_dir())
        })
        .map(Path::to_path_buf)
}

/// The lock file's name in the store.
pub const LOCK_FILE_NAME: &str = "hcp.lock";

/// The lock file's format version.
pub const LOCK_VERSION: u32 = 1;

/// The whole lock file. Fields are declared in key order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockFile {
    #[serde(deserialize_with = "packs_once_each")]
    pub packs: BTreeMap<PackId, LockEntry>,
    pub version: u32,
}

/// The `packs` object, refusing a pack named twice: JSON readers differ on
/// which of two entries wins (serde keeps the last), so a reviewer of a
/// lock file could read one entry and `sync` install the other.
fn packs_once_each<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<BTreeMap<PackId, LockEntry>, D::Error> {
    struct Packs;
    impl<'de> serde::de::Visitor<'de> for Packs {
        type Value = BTreeMap<PackId, LockEntry>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of pack ids")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut packs = BTreeMap::new();
            while let Some((id, entry)) = map.next_entry::<PackId, LockEntry>()? {
                if packs.contains_key(&id) {
                    return Err(serde::de::Error::custom(format_args!(
                        "{id} is listed twice"
                    )));
                }
                packs.insert(id, entry);
            }
            Ok(packs)
        }
    }
    deserializer.deserialize_map(Packs)
}

impl Default for LockFile {
    fn default() -> Self {
        LockFile {
            packs: BTreeMap::new(),
            version: LOCK_VERSION,
        }
    }
}

/// One pack's record. Fields are declared in key order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockEntry {
    /// `sha256:<hex>` of the installed tree (§13.4).
    pub digest: String,
    pub source: LockedSource,
    pub version: String,
}

/// The kind of a recorded source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    Dir,
    Catalog,
    Git,
}

/// Where a pack was installed from. Fields are declared in key order; the
/// absent ones are left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedSource {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub commit: Option<String>,
    pub kind: SourceKind,
    /// The folder (`dir`, `catalog`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub path: Option<String>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none", default)]
    pub reference: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub subdir: Option<String>,
    /// The repository, without credentials (see `redact_url`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub url: Option<String>,
}

impl LockedSource {
    /// A `dir` or `catalog` source at `path` (made absolute).
    pub fn folder(kind: SourceKind, path: &Path) -> LockedSource {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        LockedSource {
            commit: None,
            kind,
            path: Some(path.display().to_string()),
            reference: None,
            subdir: None,
            url: None,
        }
    }

    /// A `git` source, resolved to `commit`.
    pub fn git(
        url: &str,
        subdir: Option<&str>,
        reference: Option<&str>,
        commit: &str,
    ) -> LockedSource {
        LockedSource {
            commit: Some(commit.to_string()),
            kind: SourceKind::Git,
            path: None,
            reference: reference.map(str::to_string),
            subdir: subdir.map(str::to_string),
            url: Some(redact_url(url)),
        }
    }

    /// A source nobody knows (a pack installed before the store kept a
    /// lock, recorded by `doctor --fix`): kind `dir` with no path, which
    /// §13.3 allows. `outdated` and `upgrade` pass it by; `sync` cannot
    /// install from it.
    pub fn unknown() -> LockedSource {
        LockedSource {
            commit: None,
            kind: SourceKind::Dir,
            path: None,
            reference: None,
            subdir: None,
            url: None,
        }
    }

    /// What is wrong with a `git` source's parts, if anything: the rules
    /// of a SOURCE on the command line ([`locked_git_problem`]).
    pub fn problem(&self) -> Option<&'static str> {
        match self.kind {
            SourceKind::Git => locked_git_problem(
                self.url.as_deref(),
                self.subdir.as_deref(),
                self.reference.as_deref(),
                self.commit.as_deref(),
            ),
            SourceKind::Dir | SourceKind::Catalog => None,
        }
    }

    /// The source as a user reads it: the folder, or
    /// `git+URL[//SUBDIR]@COMMIT` (12 digits of the commit).
    pub fn display(&self) -> String {
        match self.kind {
            SourceKind::Dir | SourceKind::Catalog => self
                .path
                .clone()
                .unwrap_or_else(|| "an unknown source".into()),
            SourceKind::Git => {
                let mut text = format!("git+{}", self.url.as_deref().unwrap_or("?"));
                if let Some(subdir) = &self.subdir {
                    text.push_str("//");
                    text.push_str(subdir);
                }
                if let Some(commit) = &self.commit {
                    text.push('@');
                    text.extend(commit.chars().take(12));
                }
                text
            }
        }
    }

    /// The recorded folder, for `dir` and `catalog` sources.
    pub fn folder_path(&self) -> Option<PathBuf> {
        match self.kind {
            SourceKind::Dir | SourceKind::Catalog => self.path.as_ref().map(PathBuf::from),
            SourceKind::Git => None,
        }
    }
}

impl Store {
    /// `<store>/hcp.lock`; a project's store has none of its own: its lock
    /// is `<project>/hcp.lock` (§15.2).
    pub fn lockfile_path(&self) -> PathBuf {
        match self.project() {
            Some(project) => project.join(LOCK_FILE_NAME),
            None => self.root().join(LOCK_FILE_NAME),
        }
    }

    /// Reads the store's lock file (a missing one is empty). A project's
    /// lock records folders relative to the project (§15.2); they are
    /// returned absolute.
    pub fn read_lockfile(&self) -> Result<LockFile> {
        let mut lock = read(&self.lockfile_path())?;
        if let Some(project) = self.project() {
            for entry in lock.packs.values_mut() {
                let source = &mut entry.source;
                if source.kind != SourceKind::Git
                    && let Some(path) = &source.path
                {
                    let absolute = super::relpath::resolve_path(project, path);
                    source.path = Some(absolute.display().to_string());
                }
            }
        }
        Ok(lock)
    }

    /// `lock` as this store writes it: in a project, folders relative to
    /// the project (§15.2).
    pub fn lock_text(&self, lock: &LockFile) -> Result<Vec<u8>> {
        let Some(project) = self.project() else {
            return to_text(lock);
        };
        let mut portable = lock.clone();
        for entry in portable.packs.values_mut() {
            let source = &mut entry.source;
            if source.kind != SourceKind::Git
                && let Some(path) = &source.path
            {
                source.path = Some(super::relpath::portable_path(project, Path::new(path)));
            }
        }
        to_text(&portable)
    }
}

/// Reads a lock file (a missing one is empty); `store_corrupt` when it does
/// not parse, holds a bad pack id or an unknown version.
pub fn read(path: &Path) -> Result<LockFile> {
    let bytes = match super::read_store_file(path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(LockFile::default()),
        Err(err) => return Err(Error::io("cannot read", path, &err)),
    };
    parse(&bytes).map_err(|why| {
        Error::new(
            ErrorCode::StoreCorrupt,
            format!("{} is corrupt: {why}", path.display()),
        )
        .path(path.display().to_string())
        .hint(
            Hint::from("repair it by hand, or run `")
                .cmd(Fix::Doctor { fix: true })
                .say(format!(
                    "`: it keeps {} as {}.corrupt-<time> and records the installed packs in a new one",
                    path.display(),
                    path.display()
                )),
        )
    })
}

/// The entries of a lock file that does not parse as a whole (a bad id, an
/// unknown key or version elsewhere) which still read one by one, under a
/// valid id other than the bootstrap pack's: what `doctor --fix` can keep
/// of a corrupt lock. Nothing when it is not a JSON object with `packs`.
pub fn salvage(bytes: &[u8]) -> BTreeMap<PackId, LockEntry> {
    let Ok(serde_json::Value::Object(mut lock)) = serde_json::from_slice(bytes) else {
        return BTreeMap::new();
    };
    let Some(serde_json::Value::Object(packs)) = lock.remove("packs") else {
        return BTreeMap::new();
    };
    packs
        .into_iter()
        .filter_map(|(id, entry)| {
            let id = PackId::parse(&id).filter(|id| *id != PackId::bootstrap())?;
            let entry: LockEntry = serde_json::from_value(entry).ok()?;
            entry.source.problem().is_none().then_some((id, entry))
        })
        .collect()
}

/// `<path>.corrupt-YYYYMMDDTHHMMSSZ` for the time `secs` after the epoch.
pub fn corrupt_name(path: &Path, secs: u64) -> PathBuf {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    let mut name = path.as_os_str().to_owned();
    name.push(format!(
        ".corrupt-{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    ));
    PathBuf::from(name)
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Parses lock file bytes; the message says what is wrong.
pub fn parse(bytes: &[u8]) -> std::result::Result<LockFile, String> {
    let lock: LockFile = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if lock.version != LOCK_VERSION {
        return Err(format!(
            "version {} is not one this hcpx reads (it reads {LOCK_VERSION})",
            lock.version
        ));
    }
    if lock.packs.contains_key(&PackId::bootstrap()) {
        return Err("it lists the bootstrap pack hcp-cli, which is never locked".into());
    }
    for (id, entry) in &lock.packs {
        if let Some(why) = entry.source.problem() {
            return Err(format!("the source of {id}: {why}"));
        }
    }
    Ok(lock)
}

/// The lock file's text: pretty JSON, keys sorted, a final newline.
pub fn to_text(lock: &LockFile) -> Result<Vec<u8>> {
    let mut text = serde_json::to_vec_pretty(lock)
        .map_err(|err| Error::new(ErrorCode::Io, format!("cannot encode the lock: {err}")))?;
    text.push(b'\n');
    Ok(text)
}

impl Transaction<'_> {
    /// Replaces a corrupt lock file, as steps of this change: its bytes are
    /// kept in a new file [`corrupt_name`] (mode 0600) first, then the lock
    /// is replaced with the entries of it that still read ([`salvage`]) for
    /// packs `keep` names, so no moment lacks either. Returns where the old
    /// bytes went and the ids kept; `None` when the lock reads (or is
    /// missing). Anything but a regular file at `hcp.lock` is not ours to
    /// replace: an `io` error.
    pub fn set_corrupt_lock_aside(
        &mut self,
        keep: impl Fn(&PackId) -> bool,
    ) -> Result<Option<(PathBuf, Vec<PackId>)>> {
        let path = self.store().lockfile_path();
        match read(&path) {
            Err(err) if err.code == ErrorCode::StoreCorrupt => {}
            Err(err) => return Err(err),
            Ok(_) => return Ok(None),
        }
        let io = |err: std::io::Error| Error::io("cannot set aside", &path, &err);
        let meta = std::fs::symlink_metadata(&path).map_err(io)?;
        if !meta.is_file() {
            return Err(io(std::io::Error::other("it is not a regular file")));
        }
        let bytes = std::fs::read(&path).map_err(io)?;
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let base = corrupt_name(&path, secs);
        let aside = (0..100)
            .map(|n| match n {
                0 => base.clone(),
                n => PathBuf::from(format!("{}-{n}", base.display())),
            })
            .find(|p| std::fs::symlink_metadata(p).is_err())
            .ok_or_else(|| io(std::io::ErrorKind::AlreadyExists.into()))?;
        self.replace_file(&aside, &bytes, 0o600)?;
        let mut lock = LockFile::default();
        for (id, mut entry) in salvage(&bytes).into_iter().filter(|(id, _)| keep(id)) {
            // A hand edit may have put a password there.
            entry.source.url = entry.source.url.as_deref().map(redact_url);
            lock.packs.insert(id, entry);
        }
        let kept = lock.packs.keys().cloned().collect();
        super::step("lock.write")?;
        self.replace_file(&path, &self.store().lock_text(&lock)?, 0o644)?;
        Ok(Some((aside, kept)))
    }

    /// Records `entry` for `pack_id` in the lock file (or forgets the pack
    /// with `None`), as a step of this change: undone if the change fails.
    /// The bootstrap pack is never recorded.
    pub fn record_lock(&mut self, pack_id: &PackId, entry: Option<LockEntry>) -> Result<()> {
        self.record_locks(vec![(pack_id.clone(), entry)])
    }

    /// [`Transaction::record_lock`] of several packs at once: the lock file
    /// is written once (not at all when it already says so).
    pub fn record_locks(&mut self, entries: Vec<(PackId, Option<LockEntry>)>) -> Result<()> {
        let path = self.store().lockfile_path();
        let mut lock = self.store().read_lockfile()?;
        let mut changed = false;
        for (pack_id, entry) in entries {
            if pack_id == PackId::bootstrap() || lock.packs.get(&pack_id) == entry.as_ref() {
                continue;
            }
            changed = true;
            match entry {
                Some(entry) => lock.packs.insert(pack_id, entry),
                None => lock.packs.remove(&pack_id),
            };
        }
        if !changed {
            return Ok(());
        }
        let text = self.store().lock_text(&lock)?;
        super::step("lock.write")?;
        self.replace_file(&path, &text, 0o644)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> LockEntry {
        LockEntry {
            digest: format!("sha256:{}", "0".repeat(64)),
            source: LockedSource::git(
                "https://u:tok@h/r.git",
                Some("p"),
                Some("v1"),
                &"a".repeat(40),
            ),
            version: "1.0.0".into(),
        }
    }

    #[test]
    fn keys_are_sorted_and_credentials_are_dropped() {
        let mut lock = LockFile::default();
        for id in ["zeta.b", "acme.a"] {
            if let Some(id) = PackId::parse(id) {
                lock.packs.insert(id, entry());
            }
        }
        let text = String::from_utf8(to_text(&lock).unwrap_or_default()).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        fn sorted(v: &serde_json::Value) -> bool {
            match v {
                serde_json::Value::Object(m) => {
                    let keys: Vec<_> = m.keys().collect();
                    keys.windows(2).all(|w| w[0] < w[1]) && m.values().all(sorted)
                }
                _ => true,
            }
        }
        assert!(sorted(&value), "{text}");
        assert!(!text.contains("tok"), "{text}");
        assert!(text.contains("\"url\": \"https://h/r.git\""), "{text}");
        assert_eq!(parse(text.as_bytes()).ok(), Some(lock));
    }

    #[test]
    fn a_corrupt_lock_is_set_aside_under_a_utc_time() {
        let at = corrupt_name(Path::new("/s/hcp.lock"), 1_764_499_505);
        assert_eq!(at, Path::new("/s/hcp.lock.corrupt-20251130T104505Z"));
        let epoch = corrupt_name(Path::new("hcp.lock"), 0);
        assert_eq!(epoch, Path::new("hcp.lock.corrupt-19700101T000000Z"));
        // 2024-02-29 (a leap day) 23:59:59.
        let leap = corrupt_name(Path::new("l"), 1_709_251_199);
        assert_eq!(leap, Path::new("l.corrupt-20240229T235959Z"));
    }

    #[test]
    fn salvage_keeps_the_entries_that_read() {
        let text = r#"{"packs": {"../etc": {"digest": "x", "version": "1", "source": {"kind": "dir"}},
            "hcp-cli": {"digest": "x", "version": "1", "source": {"kind": "dir"}},
            "acme.bad": {"digest": 1},
            "acme.good": {"digest": "sha256:0", "version": "1.0.0", "source": {"kind": "dir", "path": "/p"}}},
            "version": 7}"#;
        let kept = salvage(text.as_bytes());
        let ids: Vec<&str> = kept.keys().map(PackId::as_str).collect();
        assert_eq!(ids, ["acme.good"]);
        assert!(salvage(b"not json").is_empty());
        assert!(salvage(b"[1]").is_empty());
    }

    #[test]
    fn a_bad_id_or_version_is_refused() {
        let good = r#"{"packs": {}, "version": 1}"#;
        assert!(parse(good.as_bytes()).is_ok());
        for bad in [
            r#"{"packs": {"../etc": {"digest": "x", "version": "1", "source": {"kind": "dir"}}}, "version": 1}"#,
            r#"{"packs": {"hcp-cli": {"digest": "x", "version": "1", "source": {"kind": "dir"}}}, "version": 1}"#,
            r#"{"packs": {}, "version": 2}"#,
            r#"{"packs": {"acme.a": {"digest": "x", "version": "1", "source": {"kind": "dir"}},
                "acme.a": {"digest": "y", "version": "2", "source": {"kind": "dir"}}}, "version": 1}"#,
            r#"{"packs": {"acme.a": {"digest": "x", "version": "1", "source": {"kind": "ftp"}}}, "version": 1}"#,
            "not json",
        ] {
            assert!(parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
