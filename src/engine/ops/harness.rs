//! `hcpx harness list | status | enable | disable | sync` (HCP.md §12.5–§12.8)
//! on one store: which targets are enabled lives in `config.yaml`; changes
//! happen under the store lock.

use super::Engine;
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::harness::plan::SkillState;
use crate::engine::harness::{
    self, HarnessEnv, HarnessLine, Owner, TargetInfo, TargetName, TargetStatus, plan::Wanted,
};
use crate::engine::pack::id::PackId;
use crate::engine::policy::availability::PackAvailability;
use crate::engine::policy::grants::PACK_INSTALL;
use crate::engine::store::state::State;
use crate::engine::store::{Transaction, config};
use std::path::PathBuf;

/// What `enable` or `disable` changed, and where every enabled target
/// stands afterwards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessChange {
    /// The targets whose enabled flag changed.
    pub changed: Vec<TargetName>,
    pub targets: Vec<TargetStatus>,
}

impl Engine {
    /// The environment the target table is read from: the one given by
    /// [`Engine::set_harness_env`], else the process's.
    pub fn harness_env(&self) -> Result<HarnessEnv> {
        let env = match &self.harness_env {
            Some(env) => env.clone(),
            None => HarnessEnv::from_process().ok_or_else(|| {
                Error::usage(
                    "no home folder is known: set HOME so hcpx can find the harnesses' folders",
                )
            })?,
        };
        // A project's targets are its own folders (§15.4).
        Ok(match self.store().project() {
            Some(project) => env.for_project(project),
            None => env,
        })
    }

    /// The enabled targets, from `config.yaml`; in a project, from
    /// `hcp.yaml`'s `harnesses` (§15.4), each name as the project target
    /// it stands for.
    pub fn enabled_harnesses(&self) -> Result<Vec<TargetName>> {
        if let Some(project) = self.project() {
            let names = project.read_file()?.harnesses.unwrap_or_default();
            let parsed = names
                .iter()
                .map(|name| {
                    TargetName::parse(name)
                        .map(TargetName::in_project)
                        .ok_or_else(|| {
                            project
                                .named(Error::usage(format!(
                                    "hcp.yaml: unknown harness target `{name}` in `harnesses`"
                                )))
                                .hint(format!("known targets: {}", harness::names_list()))
                        })
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(dedup(&parsed));
        }
        let path = self.store().config_path();
        harness::parse_enabled(&config::read(&path)?.harnesses, &path)
    }

    /// `names` as the targets of this store: in a project, each as the
    /// project target it stands for (§15.4).
    fn own_targets(&self, names: &[TargetName]) -> Vec<TargetName> {
        match self.store().project() {
            Some(_) => dedup(&names.iter().map(|n| n.in_project()).collect::<Vec<_>>()),
            None => dedup(names),
        }
    }

    /// Every target: folder, detected, enabled.
    pub fn harness_list(&self) -> Result<Vec<TargetInfo>> {
        Ok(harness::targets(
            &self.harness_env()?,
            &self.enabled_harnesses()?,
        ))
    }

    /// The Skills the activated packs want placed, per `state`.
    fn wanted_skills(&self, state: &State) -> Vec<Wanted> {
        harness::wanted(self.store(), &state.activated)
    }

    /// The state of each activated pack's Skill in each enabled target; with
    /// `pack`, only that pack's lines.
    pub fn harness_status(&self, pack: Option<&PackId>) -> Result<Vec<TargetStatus>> {
        if let Some(id) = pack {
            self.pack_view(id)?;
        }
        let enabled = self.enabled_harnesses()?;
        if enabled.is_empty() {
            // Nothing to read: no activated pack's Skill is looked at.
            return Ok(Vec::new());
        }
        let state = self.store().read_state()?;
        let mut targets = harness::status(
            self.store(),
            &self.harness_env()?,
            &enabled,
            &self.wanted_skills(&state),
        )?;
        if let Some(id) = pack {
            for target in &mut targets {
                target.skills.retain(|s| s.pack_id == id.as_str());
            }
        }
        Ok(targets)
    }

    /// The error a project's `sync` and `add` end with when an enabled
    /// target is reached through a link nothing goes through (§15.4): `io`
    /// naming each link, after the rest was done. `None` when there is none.
    pub fn harness_link_error(&self) -> Option<Error> {
        self.store().project()?;
        let enabled = self.enabled_harnesses().ok()?;
        let linked = harness::links::linked(&self.harness_env().ok()?, &enabled);
        let (_, first) = linked.first()?;
        let named: Vec<String> = linked
            .iter()
            .map(|(name, link)| format!("{name} ({})", link.display()))
            .collect();
        Some(
            Error::new(
                ErrorCode::Io,
                format!(
                    "nothing placed in the project target {}: reached through a symbolic link, which hcpx never writes or removes through",
                    named.join(", ")
                ),
            )
            .path(first.display().to_string())
            .hint("make the folder a real folder of the project, or a link to another enabled target folder of it (.claude/skills -> ../.agents/skills)"),
        )
    }

    /// Brings every enabled target in step (§12.8 `harness sync`).
    pub fn harness_sync(&self, force: bool) -> Result<Vec<TargetStatus>> {
        let mut tx = self.store().lock()?;
        self.require_unscoped(&tx.state, PACK_INSTALL)?;
        let enabled = self.enabled_harnesses()?;
        let wanted = self.wanted_skills(&tx.state);
        let env = self.harness_env()?;
        let targets = harness::sync(&mut tx, &env, &enabled, &[], &wanted, force)?;
        tx.commit()?;
        Ok(targets)
    }

    /// Keeps every enabled target in step with `tx`'s state, as part of that
    /// change (activate, deactivate, install, uninstall: §12.6), and returns
    /// the lines of `pack`. With no target enabled, touches nothing.
    pub(super) fn harness_step(
        &self,
        tx: &mut Transaction<'_>,
        pack: &PackId,
    ) -> Result<Vec<HarnessLine>> {
        let enabled = self.enabled_harnesses()?;
        if enabled.is_empty() {
            return Ok(Vec::new());
        }
        let env = self.harness_env()?;
        let wanted = self.wanted_skills(&tx.state);
        let targets = harness::sync(tx, &env, &enabled, &[], &wanted, false)?;
        Ok(harness::lines_for(&targets, pack))
    }

    /// Brings every enabled target in step with `tx`'s state, as part of
    /// that change (a project's `sync`, §15.3). With no target enabled,
    /// touches nothing.
    pub(super) fn harness_in_step(&self, tx: &mut Transaction<'_>) -> Result<()> {
        let enabled = self.enabled_harnesses()?;
        if enabled.is_empty() {
            return Ok(());
        }
        let env = self.harness_env()?;
        let wanted = self.wanted_skills(&tx.state);
        harness::sync(tx, &env, &enabled, &[], &wanted, false)?;
        Ok(())
    }

    /// [`Engine::harness_step`] for several packs at once: the targets are
    /// brought in step once; returns each pack's lines, in order.
    pub(super) fn harness_steps(
        &self,
        tx: &mut Transaction<'_>,
        packs: &[PackId],
    ) -> Result<Vec<Vec<HarnessLine>>> {
        let enabled = self.enabled_harnesses()?;
        if enabled.is_empty() || packs.is_empty() {
            return Ok(vec![Vec::new(); packs.len()]);
        }
        let env = self.harness_env()?;
        let wanted = self.wanted_skills(&tx.state);
        let targets = harness::sync(tx, &env, &enabled, &[], &wanted, false)?;
        Ok(packs
            .iter()
            .map(|pack| harness::lines_for(&targets, pack))
            .collect())
    }

    /// Fills `sense.harnesses` (§12.8): the enabled targets where each
    /// pack's Skill is `placed`.
    pub(super) fn add_placed_harnesses(&self, packs: &mut [PackAvailability]) -> Result<()> {
        let targets = self.harness_status(None)?;
        if targets.is_empty() {
            return Ok(());
        }
        let at: std::collections::HashMap<String, usize> = packs
            .iter()
            .enumerate()
            .map(|(i, p)| (p.pack_id.clone(), i))
            .collect();
        for target in &targets {
            let placed = target
                .skills
                .iter()
                .filter(|s| s.state == SkillState::Placed);
            for i in placed.filter_map(|s| at.get(&s.pack_id)) {
                packs[*i].sense.harnesses.push(target.name);
            }
        }
        Ok(())
    }

    /// The staging folders a crash left in the targets' folders (§14.10).
    pub(super) fn harness_leftovers(&self) -> Result<Vec<(TargetName, PathBuf)>> {
        Ok(harness::leftovers(
            &self.harness_env()?,
            &Owner::of(self.store()),
        ))
    }

    /// `doctor --fix`: removes the staging folders a crash left in the
    /// targets, then brings every enabled target in step with `tx`'s state;
    /// returns what it repaired, in words.
    pub(super) fn harness_repair(&self, tx: &mut Transaction<'_>) -> Result<Vec<String>> {
        let mut removed = Vec::new();
        for (target, path) in self.harness_leftovers()? {
            harness::place::remove_leftover(&path)?;
            removed.push(format!(
                "{target}: removed {}, left by an interrupted change",
                path.display()
            ));
        }
        let enabled = self.enabled_harnesses()?;
        if enabled.is_empty() {
            return Ok(removed);
        }
        let env = self.harness_env()?;
        let wanted = self.wanted_skills(&tx.state);
        let before = harness::status(tx.store(), &env, &enabled, &wanted)?;
        harness::sync(tx, &env, &enabled, &[], &wanted, false)?;
        let repaired = before.iter().flat_map(|t| {
            t.skills
                .iter()
                .filter(|s| {
                    matches!(
                        s.state,
                        SkillState::Missing | SkillState::Outdated | SkillState::Stale
                    )
                })
                .map(move |s| {
                    format!(
                        "{}: {} of {} was {}",
                        t.name,
                        s.skill,
                        s.pack_id,
                        s.state.as_str()
                    )
                })
        });
        removed.extend(repaired);
        Ok(removed)
    }

    /// Enables targets and places the activated packs' Skills there, in one
    /// change: when a target cannot be written, nothing is placed anywhere
    /// and `config.yaml` is left as it was.
    pub fn harness_enable(&self, names: &[TargetName]) -> Result<HarnessChange> {
        let mut tx = self.store().lock()?;
        self.require_unscoped(&tx.state, PACK_INSTALL)?;
        let env = self.harness_env()?;
        let before = self.enabled_harnesses()?;
        let added: Vec<TargetName> = self
            .own_targets(names)
            .into_iter()
            .filter(|n| !before.contains(n))
            .collect();
        let after: Vec<TargetName> = env
            .names()
            .iter()
            .copied()
            .filter(|n| before.contains(n) || added.contains(n))
            .collect();
        let wanted = self.wanted_skills(&tx.state);
        harness::sync(&mut tx, &env, &added, &[], &wanted, false)?;
        self.write_enabled(&mut tx, &after)?;
        let targets = harness::status(tx.store(), &env, &after, &wanted)?;
        tx.commit()?;
        Ok(HarnessChange {
            changed: added,
            targets,
        })
    }

    /// Disables targets after removing the copies hcpx placed there
    /// (edited copies are left to the user, without the marker).
    pub fn harness_disable(&self, names: &[TargetName]) -> Result<HarnessChange> {
        let mut tx = self.store().lock()?;
        self.require_unscoped(&tx.state, PACK_INSTALL)?;
        let env = self.harness_env()?;
        let before = self.enabled_harnesses()?;
        let removed: Vec<TargetName> = self
            .own_targets(names)
            .into_iter()
            .filter(|n| before.contains(n))
            .collect();
        let after: Vec<TargetName> = before
            .iter()
            .copied()
            .filter(|n| !removed.contains(n))
            .collect();
        harness::sync(&mut tx, &env, &[], &removed, &[], false)?;
        self.write_enabled(&mut tx, &after)?;
        let wanted = self.wanted_skills(&tx.state);
        let targets = harness::status(tx.store(), &env, &after, &wanted)?;
        tx.commit()?;
        Ok(HarnessChange {
            changed: removed,
            targets,
        })
    }

    /// The targets detected on this machine (`enable --detected`).
    pub fn detected_harnesses(&self) -> Result<Vec<TargetName>> {
        Ok(self
            .harness_list()?
            .into_iter()
            .filter(|t| t.detected)
            .map(|t| t.name)
            .collect())
    }

    /// Rewrites `harnesses:` in `config.yaml`, atomically, keeping the rest.
    fn write_enabled(&self, tx: &mut Transaction<'_>, names: &[TargetName]) -> Result<()> {
        let names: Vec<String> = names.iter().map(|n| n.as_str().to_string()).collect();
        if let Some(project) = self.project() {
            // In a project, `hcp.yaml`'s `harnesses` (§15.4).
            let text = project.read_text()?;
            let text = crate::engine::project::file::with_harnesses(&text, &names)
                .map_err(|err| project.named(err))?;
            return tx.replace_file(&project.file_path(), text.as_bytes(), 0o644);
        }
        let path = self.store().config_write_path();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => return Err(Error::io("cannot read", &path, &err)),
        };
        let text = config::set_list(&text, "harnesses", &names);
        tx.replace_file(
            &path,
            text.as_bytes(),
            crate::engine::store::PRIVATE_FILE_MODE,
        )
    }
}

fn dedup(names: &[TargetName]) -> Vec<TargetName> {
    let mut out: Vec<TargetName> = Vec::new();
    for name in names {
        if !out.contains(name) {
            out.push(*name);
        }
    }
    out
}
