//! STUB until the lead's `projects.json` module lands (HCP.md §15.2,
//! §15.6): the user store's record of each project's approved packs. Only
//! the API the approval uses: [`read`], [`Projects::approved`] and
//! [`record_approved`]. Replaced on merge.

use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::id::PackId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `projects.json`: per project path, per pack id, the approved digests.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Projects {
    #[serde(default)]
    approved: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

fn file(user_home: &Path) -> PathBuf {
    user_home.join("projects.json")
}

fn key(project_root: &Path) -> String {
    std::fs::canonicalize(project_root)
        .unwrap_or_else(|_| project_root.to_path_buf())
        .display()
        .to_string()
}

/// Reads `projects.json` (a missing one is empty).
pub fn read(user_home: &Path) -> Result<Projects> {
    let path = file(user_home);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|err| {
            Error::new(
                ErrorCode::StoreCorrupt,
                format!("{} is corrupt: {err}", path.display()),
            )
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Projects::default()),
        Err(err) => Err(Error::io("cannot read", &path, &err)),
    }
}

impl Projects {
    /// The digests of `id` approved for the project at `project_root`.
    pub fn approved(&self, project_root: &Path, id: &PackId) -> Vec<String> {
        self.approved
            .get(&key(project_root))
            .and_then(|packs| packs.get(id.as_str()))
            .cloned()
            .unwrap_or_default()
    }
}

/// Records `packs` (id, digest) as approved for the project.
pub fn record_approved(
    user_home: &Path,
    project_root: &Path,
    packs: &[(PackId, String)],
) -> Result<()> {
    if packs.is_empty() {
        return Ok(());
    }
    let mut all = read(user_home)?;
    let project = all.approved.entry(key(project_root)).or_default();
    for (id, digest) in packs {
        let digests = project.entry(id.to_string()).or_default();
        if !digests.contains(digest) {
            digests.push(digest.clone());
        }
    }
    let bytes = serde_json::to_vec_pretty(&all)
        .map_err(|err| Error::new(ErrorCode::Io, format!("cannot encode: {err}")))?;
    std::fs::create_dir_all(user_home).map_err(|e| Error::io("cannot create", user_home, &e))?;
    super::write_atomic(user_home, &file(user_home), &bytes, 0o600)
}
