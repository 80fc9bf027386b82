//! The bootstrap pack's `builtin` operations (HCP.md §6.5, §11.4): each
//! reaches the same engine function as the matching `hcpx` subcommand and
//! answers with that subcommand's `--json` document as its stdout (the
//! commands declare `output: json`, so it is also the result's `data`).

use super::Engine;
use crate::engine::error::{Error, Fix};
use crate::engine::exec::{BoundArgs, ExecOutcome, OutputMode};
use crate::engine::lint::{LintOptions, lint_pack};
use crate::engine::ops::doctor;
use crate::engine::ops::list;
use serde::Serialize;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Instant;

impl Engine {
    /// Runs builtin operation `op`; never fails as a Rust error: a failed
    /// operation exits non-zero with its error document.
    pub(super) fn builtin(&self, op: &str, args: &BoundArgs) -> ExecOutcome {
        let started = Instant::now();
        let text = |name: &str| args.text(name).unwrap_or_default();
        let (ok, code, doc): (bool, i32, Value) = match op {
            "doctor" => {
                let report = doctor::run(self);
                let ok = report.ok();
                (ok, i32::from(!ok), with_ok(ok, &report))
            }
            "list" => self.result(list::list(self).map(|packs| json!({"packs": packs}))),
            "lint" => {
                let report = lint_pack(Path::new(&text("path")), LintOptions::default());
                (report.ok, i32::from(!report.ok), to_value(&report))
            }
            "install" => {
                let force = args.get("force").and_then(Value::as_bool).unwrap_or(false);
                self.result(self.install(&text("source"), force).map(|o| to_value(&o)))
            }
            "activate" => self.toggled(self.activate(&[text("pack")])),
            "deactivate" => self.toggled(self.deactivate(&[text("pack")])),
            "connect" => {
                let mut no_secret = |_: &crate::engine::pack::manifest::SecretSpec| {
                    Err(
                        Error::usage("a secret binding is connected by a person").fix(
                            Fix::Connect {
                                pack: text("pack"),
                                secret: true,
                            },
                        ),
                    )
                };
                self.result(
                    self.connect(&text("pack"), &mut no_secret)
                        .map(|o| to_value(&o)),
                )
            }
            "availability" => {
                let pack = args.text("pack");
                self.result(
                    self.availability(pack.as_deref())
                        .map(|packs| json!({"principal": self.principal(), "packs": packs})),
                )
            }
            "exec" => {
                let words: Vec<String> = text("args")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect();
                match self.exec(&text("pack"), &text("verb"), &words, OutputMode::Capture) {
                    Ok(run) => (run.ok, run.exit_code, to_value(&run)),
                    Err(err) => (
                        false,
                        err.code.exec_exit_code(),
                        json!({"ok": false, "error": self.shown(err)}),
                    ),
                }
            }
            "uninstall" => self.result(self.uninstall(&text("pack")).map(|o| to_value(&o))),
            other => {
                let err = Error::usage(format!("unknown builtin operation `{other}`"));
                (
                    false,
                    err.code.exit_code(),
                    json!({"ok": false, "error": err}),
                )
            }
        };
        let doc = if doc.get("ok").is_some() {
            doc
        } else {
            with_ok(ok, &doc)
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
        }
    }
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// `{"ok": ok, ...fields of body}`.
fn with_ok<T: Serialize>(ok: bool, body: &T) -> Value {
    let mut doc = serde_json::Map::new();
    doc.insert("ok".into(), Value::Bool(ok));
    if let Value::Object(fields) = to_value(body) {
        doc.extend(fields);
    }
    Value::Object(doc)
}

impl Engine {
    /// A result as `{"ok": true, ...}` or `{"ok": false, "error": ...}`.
    fn result(&self, r: Result<Value, Error>) -> (bool, i32, Value) {
        match r {
            Ok(body) => (true, 0, with_ok(true, &body)),
            Err(err) => (
                false,
                err.code.exit_code(),
                json!({"ok": false, "error": self.shown(err)}),
            ),
        }
    }

    fn toggled(&self, (done, err): (Vec<super::Toggle>, Option<Error>)) -> (bool, i32, Value) {
        let ok = err.is_none();
        let code = err.as_ref().map_or(0, |e| e.code.exit_code());
        let mut doc = json!({"ok": ok, "results": done});
        if let Some(err) = err {
            doc["error"] = to_value(&self.shown(err));
        }
        (ok, code, doc)
    }
}
