//! `hcpx verify [PACK_ID...]` (HCP.md §13.5): recomputes the digest (§13.4)
//! of each installed pack and compares it with the lock file (§13.3).
//!
//! Where the spec is silent:
//! - With no ids, every pack the lock lists and every installed pack (but
//!   the bootstrap pack) is checked. A pack the lock lists that is not
//!   installed has `actual` `""`; an installed pack the lock does not list
//!   has `expected` `""`; both are mismatches.
//! - `changed` (§13.3 keeps no per-file digests): when the recorded source
//!   is a folder (`dir`, `catalog`) that still has the recorded digest, the
//!   installed copy is compared with it file by file; otherwise (a git
//!   source, which verify never fetches, or a folder that changed since)
//!   `changed` is empty. A link or special file in an installed pack (never
//!   put there by install) is a mismatch and is listed in `changed`.

use super::{Engine, not_found};
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::pack::id::PackId;
use crate::engine::store::digest;
use crate::engine::store::lockfile::{LockEntry, LockFile};
use crate::engine::store::parallel::parallel_map;
use serde::Serialize;

/// One pack's result, as `hcpx verify --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyPack {
    pub pack_id: String,
    pub ok: bool,
    pub expected: String,
    pub actual: String,
    pub changed: Vec<String>,
}

/// Every checked pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    pub ok: bool,
    pub packs: Vec<VerifyPack>,
}

impl VerifyReport {
    /// `integrity` naming the packs that do not match, if any.
    pub fn error(&self) -> Option<Error> {
        let bad: Vec<&str> = self
            .packs
            .iter()
            .filter(|p| !p.ok)
            .map(|p| p.pack_id.as_str())
            .collect();
        let first = bad.first()?;
        let mut err = Error::new(
            ErrorCode::Integrity,
            format!(
                "{} from the lock file: {}",
                match bad.len() {
                    1 => "1 installed pack differs".to_string(),
                    n => format!("{n} installed packs differ"),
                },
                bad.join(", ")
            ),
        )
        .hint(self.fix_hint(first));
        if bad.len() == 1 {
            err = err.pack(*first);
        }
        Some(err)
    }

    /// What to do about the packs that differ (`first` among them).
    fn fix_hint(&self, first: &str) -> Hint {
        let hint = Hint::from("reinstall from the recorded source (`")
            .cmd(Fix::Install {
                pack: "SOURCE".into(),
                force: true,
            })
            .say("`), or `")
            .cmd(Fix::Uninstall {
                pack: first.to_string(),
            })
            .say("`");
        if self.packs.iter().any(|p| !p.ok && p.expected.is_empty()) {
            hint.say("; `")
                .cmd(Fix::Doctor { fix: true })
                .say("` records the installed packs hcp.lock does not list")
        } else {
            hint
        }
    }
}

impl Engine {
    /// Verifies the named packs, or every locked and installed pack.
    pub fn verify(&self, pack_ids: &[PackId]) -> Result<VerifyReport> {
        let lock = self.store().read_lockfile()?;
        let ids = if pack_ids.is_empty() {
            let mut ids: Vec<PackId> = self.store().installed_ids()?;
            ids.extend(lock.packs.keys().cloned());
            ids.retain(|id| *id != PackId::bootstrap());
            ids.sort();
            ids.dedup();
            ids
        } else {
            let mut ids = Vec::new();
            for id in pack_ids {
                if !lock.packs.contains_key(id) && !self.store().is_installed(id) {
                    return Err(not_found(id.as_str()));
                }
                ids.push(id.clone());
            }
            ids
        };
        let packs = parallel_map(ids, |id| self.verify_one(&lock, &id));
        let packs = packs.into_iter().collect::<Result<Vec<_>>>()?;
        Ok(VerifyReport {
            ok: packs.iter().all(|p| p.ok),
            packs,
        })
    }

    fn verify_one(&self, lock: &LockFile, id: &PackId) -> Result<VerifyPack> {
        let entry = lock.packs.get(id);
        let expected = entry.map(|e| e.digest.clone()).unwrap_or_default();
        let installed = self.store().is_installed(id);
        let tree = if installed {
            Some(digest::scan(&self.store().pack_dir(id))?)
        } else {
            None
        };
        let actual = tree.as_ref().map(|t| t.digest.clone()).unwrap_or_default();
        let clean = tree.as_ref().is_some_and(|t| t.others.is_empty());
        let ok = !expected.is_empty() && expected == actual && clean;
        let changed = match (&tree, entry, ok) {
            (Some(tree), Some(entry), false) => changed_paths(entry, tree),
            _ => Vec::new(),
        };
        Ok(VerifyPack {
            pack_id: id.to_string(),
            ok,
            expected,
            actual,
            changed,
        })
    }
}

/// The paths that differ from the recorded source folder, when it still
/// holds what was installed; else only links and special files.
fn changed_paths(entry: &LockEntry, tree: &digest::Tree) -> Vec<String> {
    let source = entry
        .source
        .folder_path()
        .and_then(|dir| digest::scan(&dir).ok())
        .filter(|source| source.digest == entry.digest && source.others.is_empty());
    match source {
        Some(source) => digest::changed(&source, tree),
        None => digest::changed(tree, tree),
    }
}
