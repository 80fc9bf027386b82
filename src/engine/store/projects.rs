//! `<user store>/projects.json` (HCP.md §15.2, §15.6): the projects whose
//! `.hcp/` this user's hcpx made, each with the random id written in its
//! `.hcp/store-id`, and the packs approved for each project (id and
//! digest, §15.6 "Approval").
//!
//! ```json
//! {"version": 1, "projects": [{"path": "/home/me/app", "store_id": "9f…",
//!   "approved": {"acme.notes": ["sha256:…"]}}]}
//! ```
//!
//! A project is recorded by its folder's absolute path with links resolved
//! (as [`Project::at`](crate::engine::project::Project::at) gives it). The
//! file is written atomically under the user store's lock, mode 0600; one
//! that does not parse is `store_corrupt`, reported and never replaced
//! (every project's `.hcp/` is then refused until it is repaired).
//!
//! Where the spec is silent: a project moved or renamed is another path,
//! so its `.hcp/` is no longer recorded (remove it; `hcpx sync` rebuilds
//! it); the approvals of a path are kept when its `.hcp/` is rebuilt (a
//! new store id), so a rebuilt store asks again only for what changed.

use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::pack::id::PackId;
use crate::engine::store::{self, PRIVATE_FILE_MODE, Store};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The registry's file name in the user store.
pub const PROJECTS_FILE: &str = "projects.json";

/// The registry's format version.
const VERSION: u32 = 1;

/// What `projects.json` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Projects {
    pub version: u32,
    #[serde(default)]
    pub projects: Vec<ProjectRecord>,
}

impl Default for Projects {
    fn default() -> Self {
        Projects {
            version: VERSION,
            projects: Vec::new(),
        }
    }
}

/// One project this user's hcpx made a store for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectRecord {
    /// The project's folder, absolute, links resolved.
    pub path: String,
    /// The id in its `.hcp/store-id` (`None` once its store was removed
    /// while its approvals are kept).
    pub store_id: Option<String>,
    /// Pack id → the digests approved for this project (§15.6).
    #[serde(default)]
    pub approved: BTreeMap<String, Vec<String>>,
}

/// The key a project is recorded by.
fn key(project_root: &Path) -> String {
    project_root.display().to_string()
}

/// `<user_home>/projects.json`.
pub fn path(user_home: &Path) -> PathBuf {
    user_home.join(PROJECTS_FILE)
}

impl Projects {
    fn record(&self, project_root: &Path) -> Option<&ProjectRecord> {
        let key = key(project_root);
        self.projects.iter().find(|p| p.path == key)
    }

    fn record_mut(&mut self, project_root: &Path) -> &mut ProjectRecord {
        let key = key(project_root);
        let at = match self.projects.iter().position(|p| p.path == key) {
            Some(at) => at,
            None => {
                self.projects.push(ProjectRecord {
                    path: key,
                    store_id: None,
                    approved: BTreeMap::new(),
                });
                self.projects.len() - 1
            }
        };
        &mut self.projects[at]
    }

    /// The store id recorded for the project at `project_root`, if any.
    pub fn store_id(&self, project_root: &Path) -> Option<&str> {
        self.record(project_root)?.store_id.as_deref()
    }

    /// The digests of `id` approved for the project at `project_root`.
    pub fn approved(&self, project_root: &Path, id: &PackId) -> Vec<String> {
        self.record(project_root)
            .and_then(|p| p.approved.get(id.as_str()))
            .cloned()
            .unwrap_or_default()
    }

    /// Records `store_id` as the store of the project at `project_root`.
    pub fn set_store_id(&mut self, project_root: &Path, store_id: &str) {
        self.record_mut(project_root).store_id = Some(store_id.to_string());
    }

    /// Records `packs` (id, digest) as approved for `project_root`.
    pub fn approve(&mut self, project_root: &Path, packs: &[(PackId, String)]) {
        let record = self.record_mut(project_root);
        for (id, digest) in packs {
            let list = record.approved.entry(id.to_string()).or_default();
            if !list.contains(digest) {
                list.push(digest.clone());
                list.sort();
            }
        }
    }
}

/// Reads `<user_home>/projects.json`; a missing file is no project.
pub fn read(user_home: &Path) -> Result<Projects> {
    let file = path(user_home);
    let bytes = match store::read_store_file(&file) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(Projects::default()),
        Err(err) => return Err(Error::io("cannot read", &file, &err)),
    };
    let corrupt = |why: String| {
        Error::new(
            ErrorCode::StoreCorrupt,
            format!("{} is corrupt: {why}", file.display()),
        )
        .path(file.display().to_string())
        .hint(
            Hint::default()
                .say("hcpx never replaces it: repair the JSON by hand, or move it away (every project's .hcp/ then has to be rebuilt: remove it, and ")
                .cmd(Fix::Sync)
                .say(" rebuilds it)"),
        )
    };
    let projects: Projects =
        serde_json::from_slice(&bytes).map_err(|err| corrupt(err.to_string()))?;
    if projects.version != VERSION {
        return Err(corrupt(format!(
            "version {} is not one this hcpx reads ({VERSION})",
            projects.version
        )));
    }
    Ok(projects)
}

/// Changes the registry with `change` under the user store's lock, and
/// writes it when it changed.
pub fn update<R>(user_home: &Path, change: impl FnOnce(&mut Projects) -> R) -> Result<R> {
    let user = Store::open(user_home)?;
    let tx = user.lock()?;
    let before = read(user_home)?;
    let mut projects = before.clone();
    let answer = change(&mut projects);
    if projects != before {
        let mut bytes = serde_json::to_vec_pretty(&projects)
            .map_err(|err| Error::new(ErrorCode::Io, format!("cannot encode: {err}")))?;
        bytes.push(b'\n');
        store::write_atomic(&user.tmp_dir(), &path(user_home), &bytes, PRIVATE_FILE_MODE)?;
    }
    tx.commit()?;
    Ok(answer)
}

/// Records `packs` (id, digest) as approved for the project at
/// `project_root` (§15.6).
pub fn record_approved(
    user_home: &Path,
    project_root: &Path,
    packs: &[(PackId, String)],
) -> Result<()> {
    if packs.is_empty() {
        return Ok(());
    }
    update(user_home, |projects| projects.approve(project_root, packs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> PackId {
        PackId::parse(s).unwrap_or_else(|| panic!("{s}"))
    }

    #[test]
    fn store_ids_and_approvals_are_kept_per_project() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let home = dir.path().join("home");
        let (a, b) = (Path::new("/p/a"), Path::new("/p/b"));
        assert_eq!(read(&home).ok(), Some(Projects::default()));
        update(&home, |p| p.set_store_id(a, "11")).unwrap_or_else(|e| panic!("{e}"));
        record_approved(&home, a, &[(id("acme.x"), "sha256:1".into())])
            .unwrap_or_else(|e| panic!("{e}"));
        record_approved(&home, a, &[(id("acme.x"), "sha256:1".into())])
            .unwrap_or_else(|e| panic!("{e}"));
        let projects = read(&home).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(projects.store_id(a), Some("11"));
        assert_eq!(projects.store_id(b), None);
        assert_eq!(projects.approved(a, &id("acme.x")), vec!["sha256:1"]);
        assert!(projects.approved(b, &id("acme.x")).is_empty());
        let mode = std::fs::metadata(path(&home)).map(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.permissions().mode() & 0o777
        });
        assert_eq!(mode.ok(), Some(0o600));
    }

    #[test]
    fn a_corrupt_registry_is_reported_and_kept() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path(&home), "{not json").unwrap_or_else(|e| panic!("{e}"));
        let err = read(&home).err().map(|e| e.code);
        assert_eq!(err, Some(ErrorCode::StoreCorrupt));
        assert!(update(&home, |p| p.set_store_id(Path::new("/x"), "1")).is_err());
        let kept = std::fs::read_to_string(path(&home)).unwrap_or_default();
        assert_eq!(kept, "{not json");
    }
}
