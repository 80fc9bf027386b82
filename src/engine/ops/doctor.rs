//! `doctor`: checks the store (layout, permissions, state, config, lock),
//! the catalogs, and the programs installed packs need on PATH, and says
//! what to fix. Reads only; never repairs anything by itself.

use crate::engine::exec::process::find_on_path;
use crate::engine::ops::Engine;
use crate::engine::pack::manifest::Adapter;
use crate::engine::store::config;
use crate::engine::store::snapshot::lint_installed;
use serde::Serialize;
use std::fs;
use std::os::unix::fs::PermissionsExt;

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

    for path in store.stray_entries() {
        checks.push(fail(
            "store.stray",
            format!(
                "{} is not named by a pack id (§3.2); hcpx never uses or deletes it",
                path.display()
            ),
            format!("move {} out of the store", path.display()),
        ));
    }

    let path_var = std::env::var_os("PATH");
    let installed = store.installed_ids().unwrap_or_default();
    if let Ok(state) = &state {
        for id in state.activated.iter().filter(|id| !installed.contains(id)) {
            checks.push(fail(
                &format!("pack:{id}"),
                format!("{id} is activated but not installed"),
                format!("hcpx deactivate {id}"),
            ));
        }
        for id in state.activated.iter().filter(|id| installed.contains(id)) {
            if !store.skill_path(id).is_file() {
                checks.push(fail(
                    &format!("pack:{id}"),
                    format!("{id} is activated but its Skill copy is missing"),
                    format!("hcpx activate {id}"),
                ));
            }
        }
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
