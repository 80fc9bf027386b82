//! exec (11-lifecycle.md §11.1 rule 1; HCP.md §6.1–§6.2, §8.3): checks the
//! preconditions through the availability function, binds the args, gathers
//! the Binding's material and runs the command (or the bootstrap pack's
//! builtin operation). What it returns is redacted by the exec engine
//! (§14.3); in `OutputMode::Inherit` an `http` body goes to the sink the
//! front-end passes to [`Engine::exec_to`] (the engine never prints).

use super::Engine;
use crate::engine::error::{Error, ErrorCode, Fix, Result};
use crate::engine::exec::{self, BoundArgs, ExecOutcome, ExecRequest, OutputMode};
use crate::engine::pack::id::PackId;
use crate::engine::pack::manifest::{Adapter, BindingKind, Command, Manifest};
use crate::engine::policy::availability::Status;
use crate::engine::policy::why;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// A command that ran, in the `--json` shape of §6.7.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecResult {
    pub ok: bool,
    pub pack_id: String,
    pub verb_key: String,
    pub exit_code: i32,
    pub duration_ms: u64,
    pub stdout: String,
    pub stderr: String,
    /// Whether captured stdout was cut at the output cap (§6.7).
    pub stdout_truncated: bool,
    /// Whether captured stderr was cut at the output cap (§6.7).
    pub stderr_truncated: bool,
    pub data: Option<serde_json::Value>,
}

impl ExecResult {
    fn new(pack_id: &str, verb_key: &str, outcome: ExecOutcome) -> Self {
        ExecResult {
            ok: outcome.exit_code == 0,
            pack_id: pack_id.to_string(),
            verb_key: verb_key.to_string(),
            exit_code: outcome.exit_code,
            duration_ms: outcome.duration_ms,
            stdout: outcome.stdout,
            stderr: outcome.stderr,
            stdout_truncated: outcome.stdout_truncated,
            stderr_truncated: outcome.stderr_truncated,
            data: outcome.data,
        }
    }
}

impl Engine {
    /// Runs `verb_key` of `pack_id` with `k=v` words. A refused exec runs
    /// nothing (§6.1). In [`OutputMode::Inherit`] an `http` body is
    /// captured: use [`Engine::exec_to`] to stream it.
    pub fn exec(
        &self,
        pack_id: &PackId,
        verb_key: &str,
        words: &[String],
        mode: OutputMode,
    ) -> Result<ExecResult> {
        self.exec_to(pack_id, verb_key, words, mode, None)
    }

    /// [`Engine::exec`]; in [`OutputMode::Inherit`] an `http` response body
    /// is written to `sink` as it arrives (redacted), and the result's
    /// `stderr` holds the runtime's `hcpx:` lines for the caller to show.
    pub fn exec_to(
        &self,
        pack_id: &PackId,
        verb_key: &str,
        words: &[String],
        mode: OutputMode,
        sink: Option<&mut dyn Write>,
    ) -> Result<ExecResult> {
        let input = ArgInput::Words(words);
        self.exec_with(pack_id, verb_key, input, (mode, None), sink)
    }

    /// [`Engine::exec`] with the args as `(name, value text)` pairs (a
    /// form's fields), checked and typed like `k=v` words (§6.2).
    pub fn exec_named(
        &self,
        pack_id: &PackId,
        verb_key: &str,
        args: &[(String, String)],
        mode: OutputMode,
    ) -> Result<ExecResult> {
        let input = ArgInput::Named(args);
        self.exec_with(pack_id, verb_key, input, (mode, None), None)
    }

    /// [`Engine::exec_named`], output captured, and `tap` called with it
    /// as it is read, redacted as the result is (§14.3; see
    /// [`exec::live`]). The result is the same as without a tap.
    pub fn exec_named_live(
        &self,
        pack_id: &PackId,
        verb_key: &str,
        args: &[(String, String)],
        tap: &exec::live::Tap,
    ) -> Result<ExecResult> {
        let input = ArgInput::Named(args);
        let how = (OutputMode::Capture, Some(tap));
        self.exec_with(pack_id, verb_key, input, how, None)
    }

    /// [`Engine::exec_named`], with the pairs made by `prepare` from the
    /// manifest and command this exec runs: a caller that promised a
    /// contract (an MCP client's listing, HCP.md §16.4) checks it against
    /// the very read of the pack that runs, so an upgrade between the
    /// check and the run cannot slip in. An error of `prepare` refuses the
    /// exec; nothing runs.
    pub fn exec_prepared(
        &self,
        pack_id: &PackId,
        verb_key: &str,
        prepare: Prepare<'_>,
        mode: OutputMode,
    ) -> Result<ExecResult> {
        self.exec_with(
            pack_id,
            verb_key,
            ArgInput::Prepared(prepare),
            (mode, None),
            None,
        )
    }

    /// [`Engine::exec_prepared`], output captured, and `tap` called with
    /// it as it is read, redacted as the result is (the MCP server's
    /// progress, HCP.md §16.3). The result is the same as without a tap.
    pub fn exec_prepared_live(
        &self,
        pack_id: &PackId,
        verb_key: &str,
        prepare: Prepare<'_>,
        tap: Option<&exec::live::Tap>,
    ) -> Result<ExecResult> {
        let how = (OutputMode::Capture, tap);
        self.exec_with(pack_id, verb_key, ArgInput::Prepared(prepare), how, None)
    }

    fn exec_with(
        &self,
        id: &PackId,
        verb_key: &str,
        input: ArgInput<'_>,
        (mode, live): (OutputMode, Option<&exec::live::Tap>),
        sink: Option<&mut dyn Write>,
    ) -> Result<ExecResult> {
        let pack_id = id.as_str();
        let view = self.pack_view(id)?;
        let state = self.store().read_state()?;
        // Commands that run the same program look it up on PATH once.
        let in_force = self.grants_in_force(&state)?;
        let avail = self.pack_availability_with(&view, &state, &in_force, &super::runnable_memo());
        let locate = |e: Error| e.pack(pack_id).verb(verb_key);
        let manifest = match (&view.installed, view.manifest()) {
            (None, _) => return Err(locate(super::not_installed(pack_id))),
            (Some(_), Some(m)) if avail.status != Status::Unavailable => m,
            _ => {
                let dir = view.dir().map(|d| d.display().to_string());
                let why = why::explain(&avail, None, None, self.principal(), dir.as_deref());
                let mut err = Error::new(ErrorCode::LintFailed, why.explanation.clone());
                if let Some(fix) = why.fix() {
                    err = err.fix(fix.clone());
                }
                return Err(locate(err));
            }
        };
        let command = manifest.command(verb_key).ok_or_else(|| {
            let keys = manifest.commands.iter().map(|c| c.key.as_str());
            super::no_such_verb(pack_id, verb_key, keys)
        })?;
        if let Some(cmd) = avail.command(verb_key)
            && let Some(reason) = cmd.reasons.first()
        {
            let (words, fix) =
                why::describe(reason, pack_id, verb_key, Some(manifest), self.principal());
            let mut err = locate(reason.error(words));
            if let Some(fix) = fix {
                err = err.fix(fix);
            }
            return Err(err);
        }
        let args = match input {
            ArgInput::Words(words) => exec::bind_args(command, words),
            ArgInput::Named(pairs) => exec::bind_named(command, pairs),
            ArgInput::Prepared(prepare) => {
                prepare(manifest, command).and_then(|pairs| exec::bind_named(command, &pairs))
            }
        }
        .map_err(locate)?;
        let dir = view.dir().unwrap_or_default();
        let material = self.material(manifest).map_err(locate)?;
        let run = Run {
            pack_id,
            dir: &dir,
            manifest,
            command,
            args: &args,
            material: &material,
            mode,
            live,
        };
        let outcome = self.run_command_to(&run, sink)?;
        Ok(ExecResult::new(pack_id, verb_key, outcome))
    }

    /// Runs a command whose preconditions were checked.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_command(
        &self,
        pack_id: &str,
        dir: &Path,
        manifest: &Manifest,
        command: &Command,
        args: &BoundArgs,
        material: &[(String, String)],
        mode: OutputMode,
    ) -> Result<ExecOutcome> {
        let run = Run {
            pack_id,
            dir,
            manifest,
            command,
            args,
            material,
            mode,
            live: None,
        };
        self.run_command_to(&run, None)
    }

    /// Runs a command whose preconditions were checked; the exec engine
    /// redacts every material value in what it returns (§14.3).
    fn run_command_to(&self, run: &Run<'_>, sink: Option<&mut dyn Write>) -> Result<ExecOutcome> {
        if let Adapter::Builtin { op } = &run.command.adapter {
            return Ok(self.builtin(op, run.args));
        }
        let request = ExecRequest {
            pack_id: run.pack_id,
            pack_dir: run.dir,
            command: run.command,
            args: run.args,
            material: run.material,
            base_url: run.manifest.binding.base_url.as_deref(),
            mode: run.mode,
            live: run.live,
        };
        let redactor = exec::redact::Redactor::for_material(run.material);
        exec::run_to(&request, &exec::Limits::default(), sink, &redactor)
    }

    /// The Binding's material (§8.3): `env` passes its variables through,
    /// `secret` sets `secret.name` to the stored secret.
    pub(super) fn material(&self, manifest: &Manifest) -> Result<Vec<(String, String)>> {
        let id = manifest.id.as_str();
        match manifest.binding.kind {
            BindingKind::Env => {
                let (set, missing) = env_material(id, &manifest.binding.env, &self.env);
                if missing.is_empty() {
                    Ok(set)
                } else {
                    Err(env_missing(id, missing))
                }
            }
            BindingKind::Secret => {
                let name = manifest
                    .binding
                    .secret
                    .as_ref()
                    .map(|s| s.name.clone())
                    .unwrap_or_default();
                match self.store().read_secret(&super::checked_id(id)?)? {
                    Some(secret) => Ok(vec![(name, secret)]),
                    None => Err(Error::new(
                        ErrorCode::NotConnected,
                        format!("{id} has no stored secret"),
                    )
                    .pack(id)
                    .fix(Fix::Connect {
                        pack: id.to_string(),
                        secret: true,
                    })),
                }
            }
            BindingKind::Public | BindingKind::Local => Ok(Vec::new()),
        }
    }
}

/// How a front-end gives an exec's args: `k=v` words (the command line),
/// or names paired with their values' text (the TUI's form).
enum ArgInput<'a> {
    Words(&'a [String]),
    Named(&'a [(String, String)]),
    /// Pairs made from the manifest and command that run.
    Prepared(Prepare<'a>),
}

/// Makes an exec's `(name, value text)` pairs from the manifest and the
/// command about to run, or refuses it (see [`Engine::exec_prepared`]).
pub type Prepare<'a> = &'a dyn Fn(&Manifest, &Command) -> Result<Vec<(String, String)>>;

/// A command whose preconditions were checked, ready to run.
struct Run<'a> {
    pack_id: &'a str,
    dir: &'a Path,
    manifest: &'a Manifest,
    command: &'a Command,
    args: &'a BoundArgs,
    material: &'a [(String, String)],
    mode: OutputMode,
    /// Sees the output as it is read (see [`exec::live`]).
    live: Option<&'a exec::live::Tap>,
}

/// The variables of `pack_id`'s `env` Binding that are set and non-empty
/// (in `overrides`, else the process environment), and the names of
/// those that are not.
pub(super) fn env_material(
    pack_id: &str,
    names: &[String],
    overrides: &super::EnvOverrides,
) -> (Vec<(String, String)>, Vec<String>) {
    let mut set = Vec::new();
    let mut missing = Vec::new();
    for name in names {
        match overrides.value(pack_id, name) {
            Some(value) => set.push((name.clone(), value)),
            None => missing.push(name.clone()),
        }
    }
    (set, missing)
}

pub(super) fn env_missing(pack_id: &str, missing: Vec<String>) -> Error {
    Error::new(
        ErrorCode::EnvMissing,
        format!("{pack_id} needs {} set and non-empty", missing.join(", ")),
    )
    .pack(pack_id)
    .fix(Fix::SetEnv {
        names: missing.clone(),
    })
    .missing(missing)
}

/// Replaces every occurrence of `secret` in `text`, in every form the
/// exec engine knows (§14.3).
pub fn redact(text: &mut String, secret: &str) {
    exec::redact::Redactor::new([secret]).text(text);
}
