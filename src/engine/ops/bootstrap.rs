//! The bootstrap pack `hcp-cli` (11-lifecycle.md §11.4; HCP.md §11.4): built
//! into the binary, written to the store, activated and connected on first
//! use, and rewritten when a newer hcpx ships different files (keeping its
//! state).

use super::activate::copy_skill;
use super::install::place;
use crate::engine::error::Result;
use crate::engine::lint::files::open_regular;
use crate::engine::pack::id::PackId;
use crate::engine::store::{Store, create_dir};
use std::fs;
use std::path::Path;

/// The bootstrap pack's files, as shipped in `assets/bootstrap/hcp-cli/`.
pub const FILES: &[(&str, &str)] = &[
    (
        "pack.yaml",
        include_str!("../../../assets/bootstrap/hcp-cli/pack.yaml"),
    ),
    (
        "SKILL.md",
        include_str!("../../../assets/bootstrap/hcp-cli/SKILL.md"),
    ),
];

fn up_to_date(store: &Store) -> bool {
    is_bootstrap_copy(&store.pack_dir(&PackId::bootstrap()))
}

/// Whether `dir` holds exactly this binary's bootstrap pack (so lint may
/// allow its reserved id and builtin adapters there). Only regular files of
/// the right size are opened, and no more than that size is read: a FIFO or
/// a huge file named `pack.yaml` answers `false` at once (HCP.md §2.3).
pub fn is_bootstrap_copy(dir: &Path) -> bool {
    FILES
        .iter()
        .all(|(name, text)| same_bytes(&dir.join(name), text.as_bytes()))
}

fn same_bytes(path: &Path, expected: &[u8]) -> bool {
    use std::io::Read;
    let size_matches =
        fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() == expected.len() as u64);
    if !size_matches {
        return false;
    }
    let mut bytes = Vec::with_capacity(expected.len());
    open_regular(path)
        .and_then(|f| f.take(expected.len() as u64 + 1).read_to_end(&mut bytes))
        .is_ok_and(|_| bytes == expected)
}

/// Installs, activates and connects `hcp-cli` on first use; refreshes its
/// files when they differ from this binary's.
pub fn ensure(store: &Store) -> Result<()> {
    if up_to_date(store) {
        return Ok(());
    }
    let mut tx = store.lock()?;
    if up_to_date(store) {
        return Ok(());
    }
    let id = PackId::bootstrap();
    let first_use = !store.is_installed(&id);
    let staged = tx.scratch_path("pack")?;
    create_dir(&staged)?;
    for (name, text) in FILES {
        tx.write_file(&staged.join(name), text.as_bytes(), 0o644)?;
    }
    place(&mut tx, &staged, &id)?;
    if first_use {
        tx.state.activate(&id);
        tx.state.connect(&id);
    }
    if tx.state.is_activated(&id) {
        copy_skill(&mut tx, &id)?;
    }
    tx.commit()
}
