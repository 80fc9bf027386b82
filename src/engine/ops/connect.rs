//! connect (11-lifecycle.md §11.1; HCP.md §8.5), in the order of §8.5:
//! (1) the pack is activated, else refused; (2) `public` succeeds at once;
//! (3) the principal holds `pack.connect`; (4) the material is gathered (the
//! `env` variables, or the secret from the caller); (5) the probe runs, if
//! any, and a failure leaves nothing recorded; (6) the pack is added to
//! `connected` (and a secret stored with mode 0600).
//!
//! Step (6) goes together (HCP.md §14.7): when the state cannot be written,
//! the secret is put back as it was.

use super::Engine;
use super::exec::{env_material, env_missing, redact};
use crate::engine::error::{Error, ErrorCode, Fix, Hint, Result};
use crate::engine::exec::{self, OutputMode};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::{Binding, BindingKind, Manifest, SecretSpec};
use crate::engine::policy::grants::{Capability, PACK_CONNECT};
use serde::Serialize;

/// Where a `secret` Binding's secret comes from: called only once steps
/// (1)–(3) passed, with the Binding's `secret` spec (for its prompt).
pub type SecretInput<'a> = &'a mut dyn FnMut(&SecretSpec) -> Result<String>;

/// What connect did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConnectOutcome {
    pub pack_id: String,
    /// The Binding's kind (`public`, `local`, `env`, `secret`).
    pub binding: BindingKind,
    /// False when it was connected already (or the Binding is `public`).
    pub changed: bool,
    /// The probe that ran, if any.
    pub probe: Option<ProbeRun>,
}

/// A probe that passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbeRun {
    pub verb_key: String,
    pub exit_code: i32,
    pub duration_ms: u64,
}

impl Engine {
    /// Connects a pack's Binding.
    pub fn connect(&self, id: &PackId, secret_input: SecretInput<'_>) -> Result<ConnectOutcome> {
        let pack_id = id.as_str();
        let view = self.pack_view(id)?;
        let state = self.store().read_state()?;
        let Some(report) = &view.installed else {
            return Err(super::not_installed(pack_id));
        };
        // (1)
        if !state.is_activated(pack_id) {
            return Err(Error::new(
                ErrorCode::NotActivated,
                format!("{pack_id} must be activated before it is connected"),
            )
            .pack(pack_id)
            .fix(Fix::Activate {
                pack: pack_id.to_string(),
            }));
        }
        let Some(manifest) = report.manifest.as_ref().filter(|_| report.ok) else {
            return Err(Error::new(
                ErrorCode::LintFailed,
                format!("the installed copy of {pack_id} fails lint"),
            )
            .pack(pack_id)
            .fix(Fix::Lint {
                path: report.path.clone(),
            }));
        };
        let binding = &manifest.binding;
        let outcome = |changed, probe| ConnectOutcome {
            pack_id: pack_id.to_string(),
            binding: binding.kind,
            changed,
            probe,
        };
        // (2)
        if binding.kind == BindingKind::Public {
            return Ok(outcome(false, None));
        }
        // (3)
        self.require_grant(&state, PACK_CONNECT, pack_id)?;
        // A probe is an exec (§9.2): the principal also needs the grant its
        // effect needs, or nothing runs and nothing is recorded.
        if let Some(probe) = binding.probe.as_deref().and_then(|k| manifest.command(k)) {
            self.require_grant(&state, Capability::from(probe.effect), pack_id)?;
        }
        // (4)
        let (material, secret) = gather(pack_id, binding, secret_input, &self.env)?;
        // (5)
        let probe = match &binding.probe {
            None => None,
            Some(key) => Some(self.probe(id, manifest, key, &material, secret.as_deref())?),
        };
        // (6)
        let mut tx = self.store().lock()?;
        if !tx.state.is_activated(pack_id) {
            return Err(Error::new(
                ErrorCode::NotActivated,
                format!("{pack_id} was deactivated while connecting"),
            )
            .pack(pack_id));
        }
        if let Some(secret) = &secret {
            tx.replace_file(&self.store().secret_path(id), secret.as_bytes(), 0o600)?;
        }
        let changed = tx.state.connect(id);
        tx.commit()?;
        Ok(outcome(changed, probe))
    }
}

impl Engine {
    /// Step (5) of §8.5: runs the probe `key` as an exec with `material`;
    /// its failure names the probe (its stderr redacted of `secret`).
    fn probe(
        &self,
        id: &PackId,
        manifest: &Manifest,
        key: &str,
        material: &[(String, String)],
        secret: Option<&str>,
    ) -> Result<ProbeRun> {
        let pack_id = id.as_str();
        let command = manifest.command(key).ok_or_else(|| {
            Error::new(
                ErrorCode::ProbeFailed,
                format!("the probe `{key}` is not a command of {pack_id}"),
            )
            .pack(pack_id)
            .verb(key)
        })?;
        let probe_failed = |message: String| {
            Error::new(ErrorCode::ProbeFailed, message)
                .pack(pack_id)
                .verb(key)
        };
        let args = exec::bind_args(command, &[])
            .map_err(|e| probe_failed(format!("the probe `{key}` cannot run: {}", e.message)))?;
        let dir = self.store().pack_dir(id);
        let run = self
            .run_command(
                pack_id,
                &dir,
                manifest,
                command,
                &args,
                material,
                OutputMode::Capture,
            )
            .map_err(|e| probe_failed(format!("the probe `{key}` failed: {}", e.message)))?;
        if run.exit_code != 0 {
            let mut detail = run.stderr.trim().to_string();
            if let Some(s) = secret {
                redact(&mut detail, s);
            }
            let detail: String = detail.chars().take(500).collect();
            let mut message = format!("the probe `{key}` exited with code {}", run.exit_code);
            if !detail.is_empty() {
                message.push_str(": ");
                message.push_str(&detail);
            }
            return Err(
                probe_failed(message).hint("check the binding's material, then connect again")
            );
        }
        Ok(ProbeRun {
            verb_key: key.to_string(),
            exit_code: run.exit_code,
            duration_ms: run.duration_ms,
        })
    }
}

/// A Binding's material: (variable, value) pairs for the adapter (§8.3).
type Material = Vec<(String, String)>;

/// Step (4) of §8.5: the Binding's material (the `env` variables, or the
/// secret from `secret_input`), and the secret to store.
fn gather(
    pack_id: &str,
    binding: &Binding,
    secret_input: SecretInput<'_>,
    overrides: &super::EnvOverrides,
) -> Result<(Material, Option<String>)> {
    let mut secret = None;
    let material = match binding.kind {
        BindingKind::Env => {
            let (set, missing) = env_material(pack_id, &binding.env, overrides);
            if !missing.is_empty() {
                return Err(env_missing(pack_id, missing));
            }
            set
        }
        BindingKind::Secret => {
            let spec = binding.secret.clone().unwrap_or_default();
            let value = secret_input(&spec)?;
            let value = value.trim_end_matches(['\n', '\r']).to_string();
            if value.is_empty() {
                return Err(Error::usage(format!("the secret for {pack_id} is empty"))
                    .pack(pack_id)
                    .hint(Hint::from("printf %s \"$TOKEN\" | ").cmd(Fix::Connect {
                        pack: pack_id.to_string(),
                        secret: true,
                    })));
            }
            if value.contains('\0') {
                // It could not reach the adapter's environment (§8.3).
                return Err(
                    Error::usage(format!("the secret for {pack_id} contains a NUL byte"))
                        .pack(pack_id)
                        .hint("give the secret without NUL bytes"),
                );
            }
            secret = Some(value.clone());
            vec![(spec.name, value)]
        }
        BindingKind::Local | BindingKind::Public => Vec::new(),
    };
    Ok((material, secret))
}
