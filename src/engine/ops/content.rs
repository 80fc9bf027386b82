//! What one version of a pack holds, read for the capability diff of an
//! upgrade or a sync replacement (HCP.md §13.7–§13.8): its manifest (as lint
//! reads it), its files with modes and hashes and its digest (§13.4), and
//! the text of its `SKILL.md`.
//!
//! Where the spec is silent: a `SKILL.md` that is missing, not a regular
//! file or over lint's limit (§2.3) reads as empty (lint refuses such a
//! pack before anything is installed); bytes that are not UTF-8 are read
//! lossily.

use crate::engine::error::Result;
use crate::engine::lint::files::open_regular;
use crate::engine::lint::{LintOptions, lint_pack};
use crate::engine::pack::manifest::Manifest;
use crate::engine::policy::capdiff::{self, CapabilityChange, PackContent};
use crate::engine::store::digest::{self, Tree};
use std::io::Read;
use std::path::Path;

/// Largest `SKILL.md` read (§2.3: 256 KiB).
const MAX_SKILL_BYTES: u64 = 256 * 1024;

/// One version of a pack, as the diff compares it.
#[derive(Debug, Clone)]
pub(super) struct Content {
    /// `None` when the folder does not lint.
    pub manifest: Option<Manifest>,
    pub tree: Tree,
    pub skill: String,
}

impl Content {
    /// Reads the pack folder `dir`.
    pub fn read(dir: &Path) -> Result<Content> {
        let tree = digest::scan(dir)?;
        let report = lint_pack(dir, LintOptions::default());
        let manifest = report.manifest.filter(|_| report.ok);
        Ok(Content {
            manifest,
            tree,
            skill: read_skill(&dir.join("SKILL.md")),
        })
    }

    /// The `sha256:<hex>` digest of §13.4.
    pub fn digest(&self) -> &str {
        &self.tree.digest
    }

    /// The capability diff of `self` → `new` (an unreadable old manifest
    /// counts as the default one: every reach is new).
    pub fn diff_to(&self, new: &Content, new_manifest: &Manifest) -> Vec<CapabilityChange> {
        let old_manifest = self.manifest.clone().unwrap_or_default();
        capdiff::diff_packs(
            &PackContent {
                manifest: &old_manifest,
                tree: &self.tree,
                skill: &self.skill,
            },
            &PackContent {
                manifest: new_manifest,
                tree: &new.tree,
                skill: &new.skill,
            },
        )
    }
}

fn read_skill(path: &Path) -> String {
    let mut bytes = Vec::new();
    let read = open_regular(path).and_then(|f| f.take(MAX_SKILL_BYTES + 1).read_to_end(&mut bytes));
    if read.is_err() || bytes.len() as u64 > MAX_SKILL_BYTES {
        return String::new();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}
