//! The bootstrap pack's `builtin` operations (HCP.md §6.5, §11.4): each
//! reaches the same engine function as the matching `hcpx` subcommand and
//! answers with that subcommand's `--json` document as its stdout (the
//! commands declare `output: json`, so it is also the result's `data`),
//! built from the same structs as the CLI's (`ops::docs`). The `op` is
//! parsed into a [`BuiltinOp`] before anything runs.

use super::Engine;
use crate::engine::error::{Error, Fix};
use crate::engine::exec::{BoundArgs, ExecOutcome, OutputMode};
use crate::engine::lint::{LintOptions, lint_pack};
use crate::engine::ops::docs::{self, Failure, Success};
use crate::engine::ops::doctor;
use crate::engine::ops::list;
use crate::engine::pack::id::PackId;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

/// The bootstrap pack's operations (§11.4), one per `hcpx` subcommand it
/// mirrors; a `builtin` adapter's `op` is parsed into one once, before
/// anything runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinOp {
    Doctor,
    List,
    Lint,
    Install,
    Activate,
    Deactivate,
    Connect,
    Availability,
    Exec,
    Uninstall,
    HarnessStatus,
}

impl BuiltinOp {
    pub const ALL: [BuiltinOp; 11] = [
        BuiltinOp::Doctor,
        BuiltinOp::List,
        BuiltinOp::Lint,
        BuiltinOp::Install,
        BuiltinOp::Activate,
        BuiltinOp::Deactivate,
        BuiltinOp::Connect,
        BuiltinOp::Availability,
        BuiltinOp::Exec,
        BuiltinOp::Uninstall,
        BuiltinOp::HarnessStatus,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BuiltinOp::Doctor => "doctor",
            BuiltinOp::List => "list",
            BuiltinOp::Lint => "lint",
            BuiltinOp::Install => "install",
            BuiltinOp::Activate => "activate",
            BuiltinOp::Deactivate => "deactivate",
            BuiltinOp::Connect => "connect",
            BuiltinOp::Availability => "availability",
            BuiltinOp::Exec => "exec",
            BuiltinOp::Uninstall => "uninstall",
            BuiltinOp::HarnessStatus => "harness.status",
        }
    }

    pub fn parse(op: &str) -> Option<BuiltinOp> {
        BuiltinOp::ALL.into_iter().find(|o| o.as_str() == op)
    }
}

impl Engine {
    /// Runs builtin operation `op`; never fails as a Rust error: a failed
    /// operation (or an unknown one) exits non-zero with its error
    /// document.
    pub(super) fn builtin(&self, op: &str, args: &BoundArgs) -> ExecOutcome {
        let started = Instant::now();
        let (code, doc) = match BuiltinOp::parse(op) {
            Some(op) => self.builtin_op(op, args),
            None => {
                let err = Error::usage(format!("unknown builtin operation `{op}`"));
                (err.code.exit_code(), to_value(&Failure::new(&err)))
            }
        };
        let mut stdout = serde_json::to_string_pretty(&doc).unwrap_or_default();
        stdout.push('\n');
        ExecOutcome {
            exit_code: code,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            stdout,
            stderr: String::new(),
            data: Some(doc),
            truncated: false,
            stdout_truncated: false,
            stderr_truncated: false,
            killed: false,
        }
    }

    /// One operation: its exit code and the matching subcommand's document.
    fn builtin_op(&self, op: BuiltinOp, args: &BoundArgs) -> (i32, Value) {
        let text = |name: &str| args.text(name).unwrap_or_default();
        match op {
            BuiltinOp::Doctor => {
                let mut report = doctor::run(self);
                if let Some(line) = &self.fix_line {
                    report.render(&*line.0);
                }
                let ok = report.ok();
                let doc = docs::Doctor {
                    ok,
                    report: &report,
                    fixed: None,
                };
                (i32::from(!ok), to_value(&doc))
            }
            BuiltinOp::List => self.result(list::list(self).map(|packs| docs::Packs {
                principal: None,
                packs,
            })),
            BuiltinOp::Lint => {
                let report = lint_pack(Path::new(&text("path")), LintOptions::default());
                (i32::from(!report.ok), to_value(&report))
            }
            BuiltinOp::Install => {
                let force = args.get("force").and_then(Value::as_bool).unwrap_or(false);
                self.result(self.install(&text("source"), force))
            }
            BuiltinOp::Activate => self.toggled(self.toggle_one(&text("pack"), Engine::activate)),
            BuiltinOp::Deactivate => {
                self.toggled(self.toggle_one(&text("pack"), Engine::deactivate))
            }
            BuiltinOp::Connect => self.connect_op(&text("pack")),
            BuiltinOp::HarnessStatus => {
                match pack_arg(args).and_then(|pack| self.harness_status(pack.as_ref())) {
                    Ok(targets) => {
                        let doc = docs::HarnessReport::new(&targets);
                        (i32::from(!doc.ok), to_value(&doc))
                    }
                    Err(err) => (err.code.exit_code(), to_value(&Failure::new(&err))),
                }
            }
            BuiltinOp::Availability => {
                let packs = pack_arg(args).and_then(|pack| self.availability(pack.as_ref()));
                self.result(packs.map(|packs| docs::Packs {
                    principal: Some(self.principal().to_string()),
                    packs,
                }))
            }
            BuiltinOp::Exec => {
                let words: Vec<String> = text("args")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect();
                let run = super::checked_id(&text("pack"))
                    .and_then(|id| self.exec(&id, &text("verb"), &words, OutputMode::Capture));
                match run {
                    Ok(run) => (run.exit_code, to_value(&run)),
                    Err(err) => (
                        err.code.exec_exit_code(),
                        to_value(&Failure::new(&self.shown(err))),
                    ),
                }
            }
            BuiltinOp::Uninstall => {
                let word = text("pack");
                let done = match PackId::parse(&word) {
                    Some(id) => self.uninstall(&id),
                    None => Err(self.uninstall_not_an_id(&word)),
                };
                self.result(done)
            }
        }
    }

    /// `connect`: a `secret` Binding is refused (a person gives the secret).
    fn connect_op(&self, word: &str) -> (i32, Value) {
        let mut no_secret = |_: &crate::engine::pack::manifest::SecretSpec| {
            Err(
                Error::usage("a secret binding is connected by a person").fix(Fix::Connect {
                    pack: word.to_string(),
                    secret: true,
                }),
            )
        };
        let id = super::checked_id(word);
        self.result(id.and_then(|id| self.connect(&id, &mut no_secret)))
    }

    /// A result as the subcommand's document: `{"ok": true, ...}` or
    /// `{"ok": false, "error": ...}`.
    fn result<T: Serialize>(&self, r: Result<T, Error>) -> (i32, Value) {
        match r {
            Ok(body) => (0, to_value(&Success::new(body))),
            Err(err) => (
                err.code.exit_code(),
                to_value(&Failure::new(&self.shown(err))),
            ),
        }
    }

    /// Activates or deactivates the pack `word` names.
    fn toggle_one(&self, word: &str, toggle: fn(&Engine, &[PackId]) -> Toggled) -> Toggled {
        match self.pack_id(word) {
            Ok(id) => toggle(self, &[id]),
            // On no pack: the lock and the state come first, as always.
            Err(err) => {
                let (done, first) = toggle(self, &[]);
                (done, first.or(Some(err)))
            }
        }
    }

    fn toggled(&self, (done, err): (Vec<super::Toggle>, Option<Error>)) -> (i32, Value) {
        let code = err.as_ref().map_or(0, |e| e.code.exit_code());
        let err = err.map(|e| self.shown(e));
        let doc = docs::Toggled {
            ok: err.is_none(),
            results: &done,
            error: err.as_ref(),
        };
        (code, to_value(&doc))
    }
}

/// The optional `pack` arg, checked (§3.2).
fn pack_arg(args: &BoundArgs) -> Result<Option<PackId>, Error> {
    args.text("pack")
        .map(|word| super::checked_id(&word))
        .transpose()
}

/// What activate / deactivate return.
type Toggled = (Vec<super::Toggle>, Option<Error>);

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_of_the_bootstrap_pack_parses_and_round_trips() {
        for op in BuiltinOp::ALL {
            assert_eq!(BuiltinOp::parse(op.as_str()), Some(op));
        }
        assert_eq!(BuiltinOp::parse("LIST"), None);
        assert_eq!(BuiltinOp::parse("why"), None);
        let manifest = super::super::bootstrap::FILES
            .iter()
            .find(|(name, _)| *name == "pack.yaml")
            .map(|(_, text)| *text)
            .unwrap_or_default();
        let ops: Vec<&str> = manifest
            .lines()
            .filter_map(|l| l.split("op:").nth(1))
            .map(|rest| rest.trim().trim_end_matches('}').trim())
            .collect();
        assert_eq!(ops.len(), BuiltinOp::ALL.len(), "{ops:?}");
        for op in ops {
            assert!(BuiltinOp::parse(op).is_some(), "{op}");
        }
    }
}
