//! What a sync shows and asks before it installs (HCP.md §13.7, §13.8,
//! §15.6): the capability diff of each pack it installs, and whether the
//! user must consent first.
//!
//! - `sync LOCKFILE` (the user store): a pack that replaces an installed
//!   one gets the diff against it; an escalating one needs consent.
//! - A project's `sync`: a project is input from someone else, so every
//!   pack it installs is diffed against the copy the user approved for
//!   this project — the installed pack in `.hcp/packs/<id>` when its
//!   digest is one the user store's `projects.json` records as approved
//!   for the project's path, else against nothing
//!   ([`capdiff::diff_from_nothing`]: every command, program, host, env
//!   name, secret and executable file is new). A pack whose new digest is
//!   approved already needs no consent; any other whose diff escalates
//!   does. Every pack the sync installs is then recorded as approved.
//! - `add` or `install` of a pack the user names on the command line needs
//!   no approval: in a project it is recorded as approved
//!   ([`Engine::approve_installed`]).
//!
//! Consent is `--yes` ([`SyncOptions::yes`]); with
//! [`SyncOptions::expect`] (the answer to a question that showed the
//! diffs) only the digests shown are consented to. A sync without it is
//! refused with `confirmation_required` and installs nothing; its
//! document's `results` are the diffs, each `applied: false`.

use super::Engine;
use super::content::Content;
use super::install_batch::Staged;
use super::sources::{PackResult, SourceRun};
use super::sync::{SyncDiff, SyncOptions};
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::id::PackId;
use crate::engine::policy::capdiff;
use crate::engine::store::projects;
use std::collections::BTreeMap;

/// The digests of each pack the user approved for the project a sync runs
/// in (§15.6).
#[derive(Debug, Clone, Default)]
pub struct Approved {
    packs: BTreeMap<PackId, Vec<String>>,
}

impl Approved {
    fn of(&self, id: &PackId) -> &[String] {
        self.packs.get(id).map_or(&[], Vec::as_slice)
    }
}

/// One staged pack's diff, and whether installing it needs consent.
pub(super) struct Reviewed {
    pub diff: Option<SyncDiff>,
    pub needs_consent: bool,
}

impl Engine {
    /// What the user approved for this project's packs `ids`.
    pub(super) fn approved_packs<'i>(
        &self,
        ids: impl Iterator<Item = &'i PackId>,
    ) -> Result<Approved> {
        let (Some(home), Some(root)) = (self.user_home(), self.store().project()) else {
            return Ok(Approved::default());
        };
        let all = projects::read(home)?;
        Ok(Approved {
            packs: ids.map(|id| (id.clone(), all.approved(root, id))).collect(),
        })
    }

    /// The diff of the staged `pack` for a sync with `options` (see the
    /// module doc), and whether it needs consent.
    pub(super) fn review_staged(&self, pack: &Staged, options: &SyncOptions) -> Result<Reviewed> {
        let id = &pack.pack_id;
        let to_digest = pack.content.digest().to_string();
        let installed = match self.store().is_installed(id) {
            true => Some(Content::read(&self.store().pack_dir(id))?),
            false => None,
        };
        let (base, approved_now) = match &options.approved {
            None => (installed, false),
            Some(approved) => {
                let approved = approved.of(id);
                let base = installed.filter(|c| approved.iter().any(|d| d == c.digest()));
                (base, approved.contains(&to_digest))
            }
        };
        if base.is_none() && options.approved.is_none() {
            return Ok(Reviewed {
                diff: None,
                needs_consent: false,
            });
        }
        let changes = match &base {
            Some(old) => old.diff_to(&pack.content, &pack.manifest),
            None => Content::diff_from_nothing(&pack.content, &pack.manifest),
        };
        let needs_consent = !approved_now && capdiff::escalates(&changes);
        Ok(Reviewed {
            diff: Some(SyncDiff {
                from: base
                    .as_ref()
                    .and_then(|c| c.manifest.as_ref())
                    .map(|m| m.version.clone()),
                to: pack.manifest.version.clone(),
                from_digest: base.as_ref().map(|c| c.digest().to_string()),
                to_digest,
                changes,
                applied: false,
            }),
            needs_consent,
        })
    }

    /// Records `packs` (id and digest) as approved for this project in the
    /// user store's `projects.json`; nothing outside a project.
    pub(super) fn record_approved(&self, packs: &[(PackId, String)]) -> Result<()> {
        match (self.user_home(), self.store().project()) {
            (Some(home), Some(root)) if !packs.is_empty() => {
                projects::record_approved(home, root, packs)
            }
            _ => Ok(()),
        }
    }

    /// In a project, records each pack `run` installed (as the lock now
    /// records it) as approved: the user named it (§15.6).
    pub(super) fn approve_installed(&self, run: &SourceRun) -> Result<()> {
        let SourceRun::Done(results) = run else {
            return Ok(());
        };
        if self.store().project().is_none() {
            return Ok(());
        }
        let lock = self.store().read_lockfile()?;
        let packs: Vec<(PackId, String)> = results
            .iter()
            .filter_map(|r| match r {
                PackResult::Installed(done) => PackId::parse(&done.outcome.pack_id),
                PackResult::Failed(_) => None,
            })
            .filter_map(|id| {
                let digest = lock.packs.get(&id)?.digest.clone();
                Some((id, digest))
            })
            .collect();
        self.record_approved(&packs)
    }
}

/// Whether the packs `reviewed` (id, review) may be installed: each that
/// needs consent has it (`--yes`, and with `expect` its digest among
/// them), else `confirmation_required` naming them.
pub(super) fn consented(reviewed: &[(PackId, Reviewed)], options: &SyncOptions) -> Result<()> {
    let given = |id: &PackId, diff: Option<&SyncDiff>| {
        options.yes
            && (options.expect.is_empty()
                || options.expect.iter().any(|e| {
                    e.pack_id == id.as_str() && diff.is_some_and(|d| d.to_digest == e.digest)
                }))
    };
    let refused: Vec<&str> = reviewed
        .iter()
        .filter(|(id, r)| r.needs_consent && !given(id, r.diff.as_ref()))
        .map(|(id, _)| id.as_str())
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    let what = match options.approved {
        Some(_) => format!(
            "installing {} in the project grants reach you have not approved here (see `results`); nothing was installed",
            refused.join(", ")
        ),
        None => format!(
            "replacing the installed {} with the lock file's grants more reach (see `results`); nothing was installed",
            refused.join(", ")
        ),
    };
    let mut err = Error::new(ErrorCode::ConfirmationRequired, what)
        .hint("review the changes, then sync again with --yes");
    if let [one] = refused.as_slice() {
        err = err.pack(*one);
    }
    Err(err)
}
