//! `doctor`: checks the store (layout, permissions, state, config, lock),
//! the catalogs, and the programs installed packs need on PATH, and says
//! what to fix. [`run`] reads only; [`fix`] (`doctor --fix`) repairs, under
//! the store lock, what a change killed half way left behind (HCP.md §14.7):
//! see [`consistency`].

use super::activate::copy_skill;
use crate::engine::error::Result;
use crate::engine::exec::process::find_on_path;
use crate::engine::ops::Engine;
use crate::engine::pack::grammar;
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::Adapter;
use crate::engine::store::snapshot::lint_installed;
use crate::engine::store::state::State;
use crate::engine::store::{Store, Transaction, config};
use serde::Serialize;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// One finding of `doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// What was checked, e.g. `store.permissions` or `pack:acme.git`.
    pub check: String,
    pub ok: bool,
    pub message: String,
    /// What to do about it.
    pub fix: Option<String>,
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
}

fn pass(check: &str, message: impl Into<String>) -> Check {
    Check {
        check: check.into(),
        ok: true,
        message: message.into(),
        fix: None,
    }
}

fn fail(check: &str, message: impl Into<String>, fix: impl Into<String>) -> Check {
    Check {
        check: check.into(),
        ok: false,
        message: message.into(),
        fix: Some(fix.into()),
    }
}

/// Runs every check.
pub fn run(engine: &Engine) -> DoctorReport {
    let store = engine.store();
    let mut checks = Vec::new();

    let root = store.root();
    checks.push(match tempfile::tempfile_in(store.tmp_dir()) {
        Ok(_) => pass("store.writable", format!("{} is writable", root.display())),
        Err(err) => fail(
            "store.writable",
            format!("cannot write in {}: {err}", store.tmp_dir().display()),
            format!(
                "make {} writable by this user, or set HCP_HOME",
                root.display()
            ),
        ),
    });

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

    let state = store.read_state();
    checks.push(match &state {
        Ok(_) => pass("store.state", "state.json parses"),
        Err(err) => fail(
            "store.state",
            format!("{} ({})", err.message, err.code.as_str()),
            "repair state.json by hand, or move it away to start from an empty state",
        ),
    });
    checks.push(match config::read(&store.config_path()) {
        Ok(_) => pass("store.config", "config.yaml parses"),
        Err(err) => fail("store.config", err.message, "fix config.yaml by hand"),
    });

    checks.push(
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
        },
    );

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
    for id in &installed {
        let check = format!("pack:{id}");
        let report = lint_installed(store, id);
        let Some(manifest) = report.manifest.as_ref().filter(|_| report.ok) else {
            checks.push(fail(
                &check,
                format!("the installed copy of {id} fails lint"),
                format!("hcpx lint {}, then reinstall it with --force", report.path),
            ));
            continue;
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
            .filter(|p| find_on_path(p, path_var.as_deref()).is_none())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        checks.push(if missing.is_empty() {
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
        });
    }
    DoctorReport {
        store: root.display().to_string(),
        checks,
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
}

/// One inconsistency and, when `--fix` can repair it, how.
struct Finding {
    check: Check,
    repair: Option<Repair>,
}

fn finding(check: &str, message: String, fix: String, repair: Option<Repair>) -> Finding {
    Finding {
        check: fail(check, message, fix),
        repair,
    }
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
                format!("move {} out of packs/", shown(&path)),
                None,
            ));
        }
    }
    let leftovers = entries(&store.tmp_dir()).len();
    if lock_free && leftovers > 0 {
        found.push(Finding {
            check: fail(
                "store.tmp",
                format!(".tmp/ holds {leftovers} leftover(s) of an interrupted change"),
                "hcpx doctor --fix (removes them)",
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
                format!("hcpx deactivate {shown_id}"),
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
            format!("hcpx activate {id}"),
            Some(Repair::CopySkill(id.clone())),
        ));
    }
    for id in state.connected.iter().filter(|id| !state.is_activated(id)) {
        let shown_id = id.escape_debug();
        found.push(finding(
            &format!("pack:{shown_id}"),
            format!("{shown_id} is connected but not activated"),
            format!("hcpx deactivate {shown_id}"),
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
            let fix = format!("hcpx doctor --fix (removes {})", path.display());
            (fix, Some(repair(id)))
        } else {
            (format!("move {} out of {folder}/", shown(&path)), None)
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
            message: format!(".tmp/ held {leftovers} leftover(s) of an interrupted change"),
        });
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
    tx.commit()?;
    Ok(FixReport {
        report: run(engine),
        fixed,
    })
}

fn apply(tx: &mut Transaction<'_>, repair: &Repair) -> Result<()> {
    match repair {
        Repair::Deactivate(id) => {
            tx.state.deactivate(id);
        }
        Repair::Disconnect(id) => {
            tx.state.disconnect(id);
        }
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
