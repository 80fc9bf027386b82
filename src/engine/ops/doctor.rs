//! `doctor`: checks the store (layout, permissions, state, config, lock),
//! the catalogs, and the programs installed packs need on PATH, and says
//! what to fix. [`run`] reads only; [`fix`] (`doctor --fix`) repairs, under
//! the store lock, what a change killed half way left behind (HCP.md §14.7):
//! see [`consistency`].
//!
//! The lock file (§13.3, §13.5), on the user's say-so only (`--fix`, never
//! plain `doctor` nor another command): a corrupt `hcp.lock` is moved aside
//! to `hcp.lock.corrupt-<UTC time>`, and its entries that still read, for
//! installed packs, are kept as they were (so `verify` still tells a copy
//! changed since). Then each installed pack the lock does not list (a store
//! from before the lock, or a lock set aside) is recorded with the digest
//! and version of its installed copy, and the source that is known: the
//! catalog pack of that id when it holds that very tree, else none (kind
//! `dir` without a path). A pack holding a link or special file is not
//! recorded (it fails verify whatever the lock says).

use super::activate::copy_skill;
use crate::engine::error::{Fix, Hint, Result};
use crate::engine::exec::process::find_on_path;
use crate::engine::harness::plan::{SkillState, Taken};
use crate::engine::lint::{LintOptions, lint_pack};
use crate::engine::ops::Engine;
use crate::engine::pack::grammar;
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::Adapter;
use crate::engine::policy::grants;
use crate::engine::store::lint_cache::LintCache;
use crate::engine::store::lockfile::{self, LockEntry, LockedSource, SourceKind};
use crate::engine::store::snapshot::lint_installed;
use crate::engine::store::state::State;
use crate::engine::store::{Store, Transaction, config};
use crate::engine::store::{catalog_index, digest};
use serde::Serialize;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// One finding of `doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// What was checked, e.g. `store.permissions` or `pack:acme.git`.
    pub check: String,
    pub ok: bool,
    pub message: String,
    /// What to do about it: words, and the commands in them as data (a
    /// front-end renders them, [`DoctorReport::render`]).
    pub fix: Option<Hint>,
}

/// Everything `doctor` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DoctorReport {
    pub store: String,
    pub checks: Vec<Check>,
}

impl DoctorReport {
    pub fn ok(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }

    /// The report with the commands its fixes name rendered by `line` (the
    /// front-end's command line, with the user's flags).
    pub fn render(&mut self, line: &dyn Fn(&Fix) -> String) {
        for fix in self.checks.iter_mut().filter_map(|c| c.fix.as_mut()) {
            *fix = fix.rendered(line);
        }
    }
}

/// `hcpx doctor --fix`, as the start of a hint.
fn doctor_fix() -> Hint {
    Hint::from(Fix::Doctor { fix: true })
}

fn pass(check: &str, message: impl Into<String>) -> Check {
    Check {
        check: check.into(),
        ok: true,
        message: message.into(),
        fix: None,
    }
}

fn fail(check: &str, message: impl Into<String>, fix: impl Into<Hint>) -> Check {
    Check {
        check: check.into(),
        ok: false,
        message: message.into(),
        fix: Some(fix.into()),
    }
}

/// Whether the store takes a write: a file in `.tmp/` written and flushed to
/// disk (creating an empty file succeeds on a full disk), and a file created
/// in the store's folder, where renames land.
fn writable(store: &Store) -> Check {
    let probe = |dir: &Path| -> std::io::Result<()> {
        let mut file = tempfile::tempfile_in(dir)?;
        file.write_all(&[0; 4096])?;
        file.sync_all()
    };
    let root = store.root();
    for dir in [store.tmp_dir(), root.to_path_buf()] {
        if let Err(err) = probe(&dir) {
            return fail(
                "store.writable",
                format!("cannot write in {}: {err}", dir.display()),
                format!(
                    "make {} a folder this user can write (free space if the disk is full), or set HCP_HOME",
                    dir.display()
                ),
            );
        }
    }
    pass("store.writable", format!("{} is writable", root.display()))
}

/// Whether the file system holding the store has room left (see
/// [`space_problem`]).
fn free_space(root: &Path) -> Check {
    let stat = match rustix::fs::statvfs(root) {
        Ok(stat) => stat,
        Err(err) => {
            return fail(
                "store.space",
                format!("cannot tell the free space of {}: {err}", root.display()),
                "check that the store's folder exists and can be read",
            );
        }
    };
    let space = Space {
        available: stat.f_bavail.saturating_mul(stat.f_frsize),
        total: stat.f_blocks.saturating_mul(stat.f_frsize),
        inodes_available: stat.f_favail,
        inodes_total: stat.f_files,
    };
    match space_problem(&space) {
        None => pass(
            "store.space",
            format!("{} MiB free for the store", space.available / MIB),
        ),
        Some(problem) => fail(
            "store.space",
            format!("{problem} on the file system holding {}", root.display()),
            "free some space there, or set HCP_HOME to a store on another disk",
        ),
    }
}

const MIB: u64 = 1024 * 1024;

/// What `statvfs` says about a file system, in bytes and inodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Space {
    available: u64,
    total: u64,
    inodes_available: u64,
    inodes_total: u64,
}

/// Too little room: less free space than 1% of the file system's size,
/// counted as at least 1 MiB and at most 1 GiB; or fewer than 16 free inodes
/// (on file systems that count them).
fn space_problem(space: &Space) -> Option<String> {
    let needed = (space.total / 100).clamp(MIB, 1024 * MIB);
    if space.available < needed {
        return Some(format!(
            "only {} KiB free (hcpx wants at least {} MiB)",
            space.available / 1024,
            needed.div_ceil(MIB)
        ));
    }
    if space.inodes_total > 0 && space.inodes_available < 16 {
        return Some(format!(
            "only {} free inodes (files) left",
            space.inodes_available
        ));
    }
    None
}

/// The grants of `state.json` (§9.4): entries that are no grant (an unknown
/// capability, a bad scope) give nothing and are reported; so is a `grants`
/// in which nobody holds the unscoped `*`, since nobody can change it then.
/// The key `"*"` (what every principal not listed holds) is no principal
/// and reads fine. Without `grants`, the defaults hold (§9.3), or in a
/// project (`project`) what the user store gives.
fn grant_checks(state: &State, project: bool) -> Vec<Check> {
    let Some(grants) = &state.grants else {
        let words = match project {
            true => "no grants of its own: each principal holds what the user store gives it",
            false => {
                "no grants: the defaults hold (`user` holds `*`, every other principal `verb.exec.read`)"
            }
        };
        return vec![pass("store.grants", words)];
    };
    let mut checks: Vec<Check> = grants::invalid_entries(grants)
        .into_iter()
        .map(|(principal, text, why)| {
            let (principal, text) = (principal.escape_default(), text.escape_default());
            fail(
                "store.grants",
                format!("state.json grants `{principal}` `{text}`, which is no grant: {why}"),
                // Not a command line: the text comes from the file, and a
                // shell would run what a quote in it let out.
                format!("remove `{text}` from `{principal}` in state.json's grants (or revoke it, as a principal holding `*`), then grant what was meant"),
            )
        })
        .collect();
    if !grants::has_admin(grants) {
        checks.push(fail(
            "store.grants",
            "no principal holds `*`, so nobody can change grants",
            "edit state.json: add \"*\" to one principal's grants, or remove `grants` to return to the defaults (`user` holds `*`)",
        ));
    }
    if checks.is_empty() {
        checks.push(pass("store.grants", "every grant is known"));
    }
    checks
}

/// Runs every check.
pub fn run(engine: &Engine) -> DoctorReport {
    let store = engine.store();
    let mut checks = Vec::new();

    let root = store.root();
    checks.push(writable(store));
    checks.push(free_space(root));

    checks.extend(secrets_checks(store));

    let state = store.read_state();
    checks.push(match &state {
        Ok(_) => pass("store.state", "state.json parses"),
        Err(err) => fail(
            "store.state",
            format!("{} ({})", err.message, err.code.as_str()),
            "repair state.json by hand, or move it away to start from an empty state",
        ),
    });
    if let Ok(state) = &state {
        checks.extend(grant_checks(state, store.project().is_some()));
    }
    checks.push(match config::read(&store.config_path()) {
        Ok(_) => pass("store.config", "config.yaml parses"),
        Err(err) => fail(
            "store.config",
            err.message,
            format!(
                "edit {} by hand (hcpx never rewrites it), or move it away to use no catalogs from it",
                store.config_path().display()
            ),
        ),
    });

    checks.push(lock_check(store));

    for catalog in engine.catalogs() {
        if !catalog.is_dir() {
            checks.push(fail(
                "catalog",
                format!("catalog {} is not a folder", catalog.display()),
                "fix the path in config.yaml or --catalog",
            ));
        }
    }

    let path_var = std::env::var_os("PATH");
    let installed = store.installed_ids().unwrap_or_default();
    if let Ok(state) = &state {
        let lock_free = checks.iter().any(|c| c.check == "store.lock" && c.ok);
        checks.extend(
            consistency(store, state, lock_free)
                .into_iter()
                .map(|f| f.check),
        );
    }
    checks.extend(harness_checks(engine));
    if checks.iter().any(|c| c.check == "store.lock" && c.ok) {
        checks.extend(harness_leftover_checks(engine));
    }
    for id in &installed {
        checks.push(pack_check(store, id, path_var.as_deref()));
    }
    checks.extend(verify_checks(engine));
    checks.extend(project_checks(engine));
    DoctorReport {
        store: root.display().to_string(),
        checks,
    }
}

/// `project.file` (HCP.md §15.3): in a project, every pack `hcp.lock`
/// records is named in `hcp.yaml` (a change killed half way leaves one
/// that is not; `doctor --fix` lists it).
fn project_checks(engine: &Engine) -> Vec<Check> {
    let Some(project) = engine.project() else {
        return Vec::new();
    };
    let lock = match engine.store().read_lockfile() {
        Ok(lock) => lock,
        Err(_) => return Vec::new(),
    };
    match crate::engine::project::keep::unlisted(&project, &lock) {
        Ok(ids) if ids.is_empty() => vec![pass(
            "project.file",
            "hcp.yaml names every pack hcp.lock records",
        )],
        Ok(ids) => ids
            .into_iter()
            .map(|id| {
                fail(
                    "project.file",
                    format!("hcp.lock records {id}, which hcp.yaml does not name (a change was interrupted)"),
                    "run doctor --fix to list it in hcp.yaml, or remove the pack",
                )
            })
            .collect(),
        Err(err) => vec![fail(
            "project.file",
            err.message,
            "repair hcp.yaml by hand: hcpx never rewrites a malformed one",
        )],
    }
}

/// `store.secrets`: `secrets/` and each secret are private (§8.4).
fn secrets_checks(store: &Store) -> Vec<Check> {
    let mut checks = Vec::new();
    let mode = |path: &std::path::Path| fs::metadata(path).map(|m| m.permissions().mode() & 0o777);
    let secrets = store.secrets_dir();
    checks.push(match mode(&secrets) {
        Ok(m) if m & 0o077 == 0 => pass("store.secrets", "secrets/ is private (0700)"),
        Ok(m) => fail(
            "store.secrets",
            format!("secrets/ has mode {m:o}; others can list it"),
            format!("chmod 700 {}", secrets.display()),
        ),
        Err(err) => fail(
            "store.secrets",
            format!("cannot read secrets/: {err}"),
            "re-run hcpx to recreate it",
        ),
    });
    if let Ok(entries) = fs::read_dir(&secrets) {
        for entry in entries.flatten() {
            let path = entry.path();
            if let Ok(m) = mode(&path)
                && m & 0o077 != 0
            {
                checks.push(fail(
                    "store.secrets",
                    format!("{} has mode {m:o}; others can read it", path.display()),
                    format!("chmod 600 {}", path.display()),
                ));
            }
        }
    }
    checks
}

/// `store.lock`: no other process holds the store lock now.
fn lock_check(store: &Store) -> Check {
    match fs::OpenOptions::new().write(true).open(store.lock_path()) {
        Ok(file) => match file.try_lock() {
            Ok(()) => pass("store.lock", "the store lock is free"),
            Err(_) => fail(
                "store.lock",
                "another hcpx process holds the store lock",
                "wait for it to finish; if none runs, check `fuser` on the .lock file",
            ),
        },
        Err(err) => fail(
            "store.lock",
            format!("cannot open {}: {err}", store.lock_path().display()),
            format!("make {} writable", store.lock_path().display()),
        ),
    }
}

/// `pack:ID`: the installed copy passes lint and the programs it needs
/// are on `path_var`.
fn pack_check(store: &Store, id: &PackId, path_var: Option<&std::ffi::OsStr>) -> Check {
    let check = format!("pack:{id}");
    let report = lint_installed(store, id);
    let Some(manifest) = report.manifest.as_ref().filter(|_| report.ok) else {
        return fail(
            &check,
            format!("the installed copy of {id} fails lint"),
            Hint::from(Fix::Lint {
                path: report.path.clone(),
            })
            .say(", then reinstall it with --force"),
        );
    };
    let mut missing: Vec<&str> = manifest
        .requires
        .bins
        .iter()
        .map(String::as_str)
        .chain(manifest.commands.iter().filter_map(|c| match &c.adapter {
            Adapter::Process { program, .. } if !program.starts_with("./") => {
                Some(program.as_str())
            }
            _ => None,
        }))
        .filter(|p| find_on_path(p, path_var).is_none())
        .collect();
    missing.sort_unstable();
    missing.dedup();
    if missing.is_empty() {
        pass(&check, format!("{id} {} is intact", manifest.version))
    } else {
        fail(
            &check,
            format!(
                "{id} needs programs that are not on PATH: {}",
                missing.join(", ")
            ),
            format!("install {} (or add its folder to PATH)", missing.join(", ")),
        )
    }
}

/// The staging folders a crash left in a harness target (§14.10), looked
/// at only while no change runs (a running one stages there).
fn harness_leftover_checks(engine: &Engine) -> Vec<Check> {
    engine
        .harness_leftovers()
        .unwrap_or_default()
        .into_iter()
        .map(|(target, path)| {
            fail(
                &format!("harness:{target}"),
                format!(
                    "{} is a staging folder left by an interrupted change",
                    path.display().to_string().escape_debug()
                ),
                doctor_fix().say(" (removes it)"),
            )
        })
        .collect()
}

/// Every Skill in an enabled harness target that is not `placed` (§12.8),
/// with the command that fixes it; one passing check when all are.
fn harness_checks(engine: &Engine) -> Vec<Check> {
    if config::read(&engine.store().config_path()).is_err() {
        // `store.config` says what is wrong with the file.
        return Vec::new();
    }
    let targets = match engine.harness_status(None) {
        Ok(targets) => targets,
        Err(err) => {
            return vec![fail(
                "harness",
                format!("cannot read the harness targets: {}", err.message),
                Hint::from("see `").cmd(Fix::HarnessStatus).say("`"),
            )];
        }
    };
    if targets.is_empty() {
        return Vec::new();
    }
    let mut checks = Vec::new();
    let mut placed = 0;
    for target in &targets {
        for skill in &target.skills {
            let path = target.path.join(&skill.skill);
            let shown = path.display().to_string().escape_debug().to_string();
            let (what, fix) = match skill.state {
                SkillState::Placed => {
                    placed += 1;
                    continue;
                }
                SkillState::Missing => ("is missing".into(), doctor_or_sync()),
                SkillState::Outdated => (
                    "is from another version of the Skill".into(),
                    doctor_or_sync(),
                ),
                SkillState::Stale => (
                    "belongs to a pack that is not activated".into(),
                    doctor_or_sync(),
                ),
                SkillState::Modified => (
                    "was edited by someone".into(),
                    Hint::from("keep your edit, or replace it: ")
                        .cmd(Fix::HarnessSync { force: true }),
                ),
                SkillState::Conflict => (
                    conflict_reason(skill.taken.as_ref()),
                    format!(
                        "rename or remove {shown}, or deactivate one of the packs sharing the name"
                    )
                    .into(),
                ),
            };
            checks.push(fail(
                &format!("harness:{}", target.name),
                format!("{shown} ({} of {}) {what}", skill.skill, skill.pack_id),
                fix,
            ));
        }
    }
    if checks.is_empty() {
        checks.push(pass(
            "harness",
            format!(
                "{placed} Skill copies placed in {} harness target(s)",
                targets.len()
            ),
        ));
    }
    checks
}

/// `doctor --fix (or harness sync)`: what brings a Skill copy in step.
fn doctor_or_sync() -> Hint {
    doctor_fix()
        .say(" (or ")
        .cmd(Fix::HarnessSync { force: false })
        .say(")")
}

/// Why a Skill is in `conflict` in a target, in words (§12.7, §14.10).
fn conflict_reason(taken: Option<&Taken>) -> std::borrow::Cow<'static, str> {
    match taken {
        Some(Taken::Pack(holder)) => {
            format!("is held by the Skill of the same name of {holder}").into()
        }
        Some(Taken::Store(store)) => format!("was placed by another store ({store})").into(),
        Some(Taken::Reserved) => {
            "has a name only the bootstrap pack may use (hcp-cli, hcp-*)".into()
        }
        Some(Taken::Foreign) | None => "is taken by a folder hcpx did not place".into(),
    }
}

/// `verify` (§13.5) as doctor checks: the lock file parses, and each
/// installed pack matches it.
fn verify_checks(engine: &Engine) -> Vec<Check> {
    let report = match engine.verify(&[]) {
        Ok(report) => report,
        Err(err) => {
            return vec![fail(
                "store.lockfile",
                format!("{} ({})", err.message, err.code.as_str()),
                err.context
                    .hint
                    .unwrap_or_else(|| "repair hcp.lock by hand".into()),
            )];
        }
    };
    let mut checks = vec![pass("store.lockfile", "hcp.lock parses")];
    for pack in report.packs.iter().filter(|p| !p.ok) {
        let id = &pack.pack_id;
        let (message, fix) = match (pack.expected.is_empty(), pack.actual.is_empty()) {
            (true, _) => (
                format!("{id} is installed but not recorded in hcp.lock"),
                doctor_fix()
                    .say(" records it as installed now (its source unknown unless a catalog holds that very copy), or reinstall it from its source: ")
                    .cmd(reinstall())
                    .say(" (or ")
                    .cmd(Fix::Uninstall { pack: id.clone() })
                    .say(")"),
            ),
            // Named (and repaired) by `consistency`.
            (_, true) => continue,
            _ => (
                format!(
                    "{id} differs from hcp.lock (expected {}, found {}){}",
                    pack.expected,
                    pack.actual,
                    if pack.changed.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", pack.changed.join(", "))
                    }
                ),
                Hint::from("reinstall it from its source with --force, or ")
                    .cmd(Fix::Uninstall { pack: id.clone() })
                    .say("; `")
                    .cmd(Fix::Verify {
                        pack: Some(id.clone()),
                    })
                    .say("` shows it"),
            ),
        };
        checks.push(fail(&format!("verify:{id}"), message, fix));
    }
    checks
}

/// `install SOURCE --force`: a pack installed again from where it came.
fn reinstall() -> Fix {
    Fix::Install {
        pack: "SOURCE".into(),
        force: true,
    }
}

/// A repair `doctor --fix` can make (§14.7).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Repair {
    /// Drop the pack from `activated` and `connected` (state only).
    Deactivate(PackId),
    /// Drop the pack from `connected` (state only).
    Disconnect(PackId),
    /// Copy the installed `SKILL.md` to `skills/<id>/`.
    CopySkill(PackId),
    /// Remove `skills/<id>/`.
    RemoveSkill(PackId),
    /// Remove `secrets/<id>`.
    RemoveSecret(PackId),
    /// Drop the lock file entry of a pack that is not installed (§13.3).
    Unlock(PackId),
}

/// One inconsistency and, when `--fix` can repair it, how.
struct Finding {
    check: Check,
    repair: Option<Repair>,
}

fn finding(check: &str, message: String, fix: Hint, repair: Option<Repair>) -> Finding {
    Finding {
        check: fail(check, message, fix),
        repair,
    }
}

/// Each pack `hcp.lock` lists that is not installed: what an uninstall
/// killed before its last step leaves, repaired by dropping the entry. In
/// a project, whose `hcp.lock` is committed (a fresh clone, a sync killed
/// half way), `sync` installs it; it is never dropped from `hcp.lock` and
/// `hcp.yaml` (§15.2).
fn missing_installs(store: &Store) -> Vec<Finding> {
    let mut found = Vec::new();
    let locked = store.read_lockfile().map(|l| l.packs).unwrap_or_default();
    for id in locked.keys().filter(|id| !store.is_installed(id)) {
        if store.project().is_some() {
            // A project's hcp.lock is committed: a pack it lists that is not
            // installed (a fresh clone, a sync killed half way) is installed
            // by `sync`, never dropped from the lock and hcp.yaml (§15.2).
            found.push(finding(
                &format!("verify:{id}"),
                format!("hcp.lock lists {id}, which is not installed"),
                Hint::from(Fix::Sync).say(" installs it"),
                None,
            ));
            continue;
        }
        found.push(finding(
            &format!("verify:{id}"),
            format!("hcp.lock lists {id}, which is not installed"),
            doctor_fix()
                .say(" drops the entry (or ")
                .cmd(Fix::Install {
                    pack: "SOURCE".into(),
                    force: false,
                })
                .say(format!(" for {id})")),
            Some(Repair::Unlock(id.clone())),
        ));
    }
    found
}

/// The store's consistency (§14.7): what a change killed half way can leave —
/// an activated pack that is not installed or lacks its Skill copy (or has
/// an outdated one), a connected pack that is not activated, a Skill copy of
/// a pack that is not activated, a secret of a pack that is not installed,
/// entries of `packs/` that are not packs, and leftovers in `.tmp/` (only
/// looked at when no other process holds the lock, since a running change
/// uses `.tmp/`). One passing check when all agree.
fn consistency(store: &Store, state: &State, lock_free: bool) -> Vec<Finding> {
    let mut found = state_findings(store, state);
    found.extend(missing_installs(store));
    let activated = |id: &PackId| state.is_activated(id);
    let installed = |id: &PackId| store.is_installed(id);
    found.extend(strays(
        &store.skills_dir(),
        (
            "store.skills",
            "skills",
            "a Skill copy of a pack that is not activated",
        ),
        &activated,
        Repair::RemoveSkill,
    ));
    found.extend(strays(
        &store.secrets_dir(),
        (
            "store.secrets",
            "secrets",
            "the secret of a pack that is not installed",
        ),
        &installed,
        Repair::RemoveSecret,
    ));
    for (name, path) in entries(&store.packs_dir()) {
        let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if !is_dir || !grammar::is_pack_id(&name) {
            found.push(finding(
                "store.packs",
                format!("packs/{} is not a pack hcpx installed", name.escape_debug()),
                format!("move {} out of packs/", shown(&path)).into(),
                None,
            ));
        }
    }
    // A `.tmp` that is not a real folder (a link) is the writable check's
    // problem; its contents are not ours to count or remove.
    let tmp_is_ours = fs::symlink_metadata(store.tmp_dir()).is_ok_and(|m| m.is_dir());
    let leftovers = if tmp_is_ours {
        entries(&store.tmp_dir()).len()
    } else {
        0
    };
    if lock_free && leftovers > 0 {
        found.push(Finding {
            check: fail(
                "store.tmp",
                format!(
                    ".tmp/ holds {} of an interrupted change",
                    crate::engine::lint::counted(leftovers, "leftover")
                ),
                doctor_fix().say(" (removes them)"),
            ),
            // Taking the lock removes them.
            repair: None,
        });
    }
    if found.is_empty() {
        found.push(Finding {
            check: pass(
                "store.consistency",
                "the state, the installed packs, the Skill copies and the secrets agree",
            ),
            repair: None,
        });
    }
    found
}

/// What the state says that the store does not back: activated packs that
/// are not installed or lack their (current) Skill copy, connected packs
/// that are not activated. Ids from `state.json` build no path unless valid.
fn state_findings(store: &Store, state: &State) -> Vec<Finding> {
    let mut found = Vec::new();
    for id in &state.activated {
        let check = format!("pack:{}", id.escape_debug());
        let shown_id = id.escape_debug();
        if !grammar::is_pack_id(id) || !store.is_installed(id) {
            found.push(finding(
                &check,
                format!("{shown_id} is activated but not installed"),
                Fix::Deactivate {
                    pack: shown_id.to_string(),
                }
                .into(),
                Some(Repair::Deactivate(id.clone())),
            ));
            continue;
        }
        let installed = fs::read(store.pack_dir(id).join("SKILL.md")).ok();
        let problem = match fs::read(store.skill_path(id)) {
            Err(_) => "its Skill copy is missing",
            Ok(copy) if installed.is_some_and(|b| b != copy) => {
                "its Skill copy differs from the installed SKILL.md"
            }
            Ok(_) => continue,
        };
        found.push(finding(
            &check,
            format!("{id} is activated but {problem}"),
            Fix::Activate {
                pack: id.to_string(),
            }
            .into(),
            Some(Repair::CopySkill(id.clone())),
        ));
    }
    for id in state.connected.iter().filter(|id| !state.is_activated(id)) {
        let shown_id = id.escape_debug();
        found.push(finding(
            &format!("pack:{shown_id}"),
            format!("{shown_id} is connected but not activated"),
            Fix::Deactivate {
                pack: shown_id.to_string(),
            }
            .into(),
            Some(Repair::Disconnect(id.clone())),
        ));
    }
    found
}

/// Entries of `dir` (`skills/`, `secrets/`) that belong to no pack `wanted`
/// keeps. Those named by a valid pack id are ours to remove; any other name
/// is left to the user.
fn strays(
    dir: &Path,
    (check, folder, what): (&str, &str, &str),
    wanted: &dyn Fn(&PackId) -> bool,
    repair: fn(PackId) -> Repair,
) -> Vec<Finding> {
    let mut found = Vec::new();
    for (name, path) in entries(dir) {
        let id = PackId::parse(&name);
        if id.as_ref().is_some_and(wanted) {
            continue;
        }
        let (fix, repair) = if let Some(id) = id {
            let fix = doctor_fix().say(format!(" (removes {})", path.display()));
            (fix, Some(repair(id)))
        } else {
            (
                format!("move {} out of {folder}/", shown(&path)).into(),
                None,
            )
        };
        let message = format!("{folder}/{} is {what}", name.escape_debug());
        found.push(finding(check, message, fix, repair));
    }
    found
}

/// A path as shown in a message: names from the file system are escaped
/// (§14.5).
fn shown(path: &Path) -> String {
    path.display().to_string().escape_debug().to_string()
}

/// The names in a folder (as UTF-8, lossy) with their paths, sorted.
fn entries(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut all: Vec<(String, PathBuf)> = fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
                .collect()
        })
        .unwrap_or_default();
    all.sort();
    all
}

/// What `doctor --fix` did: the checks as they stand afterwards, and each
/// problem it repaired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FixReport {
    #[serde(flatten)]
    pub report: DoctorReport,
    pub fixed: Vec<Fixed>,
}

/// One repaired problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fixed {
    pub check: String,
    /// The problem, as `doctor` named it.
    pub message: String,
}

/// The lint cache's files no read will use again ([`LintCache::sweep`]),
/// said as what `--fix` did when there were any.
fn sweep_cache(store: &Store) -> Option<Fixed> {
    let swept = LintCache::open(store).sweep(&|id| store.is_installed(id));
    (swept > 0).then(|| Fixed {
        check: "store.cache".into(),
        message: format!(
            ".cache/lint/ held {} of packs no longer installed or of writes that never ended",
            crate::engine::lint::counted(swept, "file")
        ),
    })
}

/// `doctor --fix`: under the store lock (which also removes `.tmp/`
/// leftovers), repairs every inconsistency [`consistency`] can repair, as
/// one change (undone as a whole if the state cannot be written), then runs
/// every check again.
pub fn fix(engine: &Engine) -> Result<FixReport> {
    let store = engine.store();
    // Leftovers count only while no change runs (a running one uses .tmp/).
    let lock_free = fs::OpenOptions::new()
        .write(true)
        .open(store.lock_path())
        .is_ok_and(|file| file.try_lock().is_ok());
    let leftovers = if lock_free {
        entries(&store.tmp_dir()).len()
    } else {
        0
    };
    let mut fixed = Vec::new();
    let mut tx = store.lock()?;
    if leftovers > 0 && entries(&store.tmp_dir()).is_empty() {
        fixed.push(Fixed {
            check: "store.tmp".into(),
            message: format!(
                ".tmp/ held {} of an interrupted change",
                crate::engine::lint::counted(leftovers, "leftover")
            ),
        });
    }
    // Anything but a regular file at hcp.lock is left for the report.
    let installed = |id: &PackId| store.is_installed(id);
    if let Ok(Some((aside, kept))) = tx.set_corrupt_lock_aside(installed) {
        fixed.push(Fixed {
            check: "store.lockfile".into(),
            message: format!(
                "{} did not parse: moved it to {} and wrote a new {} from the installed packs",
                store.lockfile_path().display(),
                aside.display(),
                lockfile::LOCK_FILE_NAME
            ),
        });
        fixed.extend(kept.into_iter().map(|id| Fixed {
            check: format!("verify:{id}"),
            message: format!("kept the entry of {id} from the corrupt hcp.lock"),
        }));
    }
    // A repair can reveal another (a dropped activation leaves a Skill copy
    // to remove), so look again, a bounded number of times.
    for _ in 0..3 {
        let mut progress = false;
        for found in consistency(store, &tx.state, false) {
            let Some(repair) = found.repair else { continue };
            let mark = tx.mark();
            match apply(&mut tx, &repair) {
                Ok(()) => {
                    progress = true;
                    fixed.push(Fixed {
                        check: found.check.check,
                        message: found.check.message,
                    });
                }
                Err(_) => tx.rollback_to(mark),
            }
        }
        if !progress {
            break;
        }
    }
    fixed.extend(record_unrecorded(engine, &mut tx));
    fixed.extend(sweep_cache(store));
    if let Some(project) = engine.project() {
        let listed = crate::engine::project::keep::list_unlisted(&project, &mut tx)?;
        fixed.extend(listed.into_iter().map(|id| Fixed {
            check: "project.file".into(),
            message: format!("listed {id} in hcp.yaml, as hcp.lock records it"),
        }));
    }
    // Harness copies follow the repaired state (missing, outdated, stale).
    fixed.extend(
        engine
            .harness_repair(&mut tx)?
            .into_iter()
            .map(|message| Fixed {
                check: "harness".into(),
                message,
            }),
    );
    tx.commit()?;
    Ok(FixReport {
        report: run(engine),
        fixed,
    })
}

/// Records in `hcp.lock` each installed pack it does not list (see the
/// module doc), each as its own step; says what it recorded.
fn record_unrecorded(engine: &Engine, tx: &mut Transaction<'_>) -> Vec<Fixed> {
    let store = engine.store();
    let Ok(lock) = store.read_lockfile() else {
        return Vec::new();
    };
    let mut fixed = Vec::new();
    for id in store.installed_ids().unwrap_or_default() {
        if id == PackId::bootstrap() || lock.packs.contains_key(&id) {
            continue;
        }
        let Some(entry) = entry_of_installed(engine, &id) else {
            continue;
        };
        let message = format!(
            "recorded {id} {} in hcp.lock with the digest of its installed copy, {} (source: {})",
            entry.version,
            entry.digest,
            source_words(&entry.source)
        );
        let mark = tx.mark();
        match tx.record_lock(&id, Some(entry)) {
            Ok(()) => fixed.push(Fixed {
                check: format!("verify:{id}"),
                message,
            }),
            Err(_) => tx.rollback_to(mark),
        }
    }
    fixed
}

/// The lock entry of an installed pack as it is: its digest and version,
/// and the source that is known (see the module doc).
fn entry_of_installed(engine: &Engine, id: &PackId) -> Option<LockEntry> {
    let dir = engine.store().pack_dir(id);
    let tree = digest::scan(&dir).ok()?;
    if !tree.others.is_empty() {
        return None;
    }
    let manifest = lint_pack(&dir, LintOptions::default())
        .manifest
        .filter(|m| m.id == id.as_str())?;
    let index_dir = engine.store().root().join("catalogs");
    let source = catalog_index::find(&index_dir, engine.catalogs(), id)
        .filter(|pack| digest::digest(&pack.dir).is_ok_and(|d| d == tree.digest))
        .map_or_else(LockedSource::unknown, |pack| {
            LockedSource::folder(SourceKind::Catalog, &pack.dir)
        });
    Some(LockEntry {
        digest: tree.digest,
        source,
        version: manifest.version,
    })
}

/// A recorded source in words, for what `--fix` says it did.
fn source_words(source: &LockedSource) -> String {
    let kind = match source.kind {
        SourceKind::Dir => "dir",
        SourceKind::Catalog => "catalog",
        SourceKind::Git => "git",
    };
    match (&source.path, &source.url, &source.commit) {
        (Some(path), _, _) => format!("{kind} {path}"),
        (None, Some(url), Some(commit)) => format!("{kind} {url} at {commit}"),
        (None, Some(url), None) => format!("{kind} {url}"),
        (None, None, _) => format!("unknown, recorded as kind {kind} without a path"),
    }
}

fn apply(tx: &mut Transaction<'_>, repair: &Repair) -> Result<()> {
    match repair {
        Repair::Deactivate(id) => {
            tx.state.deactivate(id);
        }
        Repair::Disconnect(id) => {
            tx.state.disconnect(id);
        }
        Repair::Unlock(id) => tx.record_lock(id, None)?,
        Repair::CopySkill(id) => copy_skill(tx, id)?,
        Repair::RemoveSkill(id) => {
            let dir = tx.store().skill_dir(id);
            tx.move_aside(&dir)?;
        }
        Repair::RemoveSecret(id) => {
            let path = tx.store().secret_path(id);
            tx.move_aside(&path)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1024 * MIB;

    fn space(available: u64, total: u64) -> Space {
        Space {
            available,
            total,
            inodes_available: 1000,
            inodes_total: 10_000,
        }
    }

    #[test]
    fn a_nearly_full_disk_is_a_problem() {
        // Less than 1 MiB is always too little.
        assert!(space_problem(&space(MIB - 1, 10 * MIB)).is_some());
        // Under 1% of a 50 GiB disk.
        assert!(space_problem(&space(400 * MIB, 50 * GIB)).is_some());
        // A large disk needs at most 1 GiB free.
        assert!(space_problem(&space(GIB - 1, 1000 * GIB)).is_some());
        let message = space_problem(&space(0, 10 * GIB)).unwrap_or_default();
        assert!(message.contains("only 0 KiB free"), "{message}");
    }

    #[test]
    fn enough_room_is_fine() {
        assert_eq!(space_problem(&space(MIB, 10 * MIB)), None);
        assert_eq!(space_problem(&space(600 * MIB, 50 * GIB)), None);
        assert_eq!(space_problem(&space(GIB, 1000 * GIB)), None);
    }

    #[test]
    fn no_free_inodes_is_a_problem() {
        let mut s = space(GIB, 10 * GIB);
        s.inodes_available = 3;
        assert!(space_problem(&s).is_some());
        // File systems that do not count inodes report 0 of 0.
        s.inodes_available = 0;
        s.inodes_total = 0;
        assert_eq!(space_problem(&s), None);
    }
}
