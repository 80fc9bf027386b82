//! How results reach the user: one JSON document on stdout with `--json`
//! (HCP.md §10.1), otherwise text, coloured only when stdout is a terminal
//! and `NO_COLOR` is unset (anstream decides). Pack-derived text goes
//! through [`terminal_safe`] (HCP.md §14.5) before it is printed as text,
//! and through [`one_line`] in a one-line field (an id, a path, a status line);
//! JSON is data and keeps it, escaped by serde.

use crate::cli::fix::{FixFlags, hint, with_hint};
use crate::engine::error::Error;
use crate::engine::ops::docs::Failure;
use serde::Serialize;
use std::io::Write;

pub use crate::engine::pack::text::{one_line, terminal_safe};

pub use crate::command::style::{ERROR, GOOD, HINT, STRONG, WARNING};

/// The output mode of one invocation.
#[derive(Debug, Clone)]
pub struct Output {
    pub json: bool,
    /// The flags a fix's command line repeats.
    pub flags: FixFlags,
    /// The store the command acted on, once an engine was opened: every
    /// JSON document carries it (`"scope"`, and `"project"` in a project,
    /// HCP.md §15.1).
    pub scope: std::sync::Arc<std::sync::Mutex<Option<ScopeTag>>>,
    /// Warnings about the run itself (an `hcp.yaml` the walk-up passed
    /// over, a project store not used, HCP.md §15.1–§15.2): said on stderr
    /// as they arise, and carried by the JSON document as `warnings`.
    pub warnings: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

/// `"scope"` and `"project"` of a result (§15.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeTag {
    pub scope: crate::engine::project::Scope,
    pub project: Option<String>,
}

impl Output {
    pub fn new(json: bool) -> Self {
        Output {
            json,
            flags: FixFlags::default(),
            scope: std::sync::Arc::default(),
            warnings: std::sync::Arc::default(),
        }
    }

    /// Says `warning` on stderr (text mode) and keeps it for the JSON
    /// document's `warnings`; said once however often it is given.
    pub fn warn(&self, warning: &str) {
        let Ok(mut warnings) = self.warnings.lock() else {
            return;
        };
        if warnings.iter().any(|w| w == warning) {
            return;
        }
        warnings.push(warning.to_string());
        if !self.json {
            let _ = writeln!(
                anstream::stderr().lock(),
                "{WARNING}warning:{WARNING:#} {}",
                crate::engine::pack::text::one_line(warning)
            );
        }
    }

    /// Records the store the command acts on (see [`Output::scope`]).
    pub fn set_scope(&self, tag: ScopeTag) {
        if let Ok(mut scope) = self.scope.lock() {
            *scope = Some(tag);
        }
    }

    /// The store the command acted on, if known.
    pub fn scope(&self) -> Option<ScopeTag> {
        self.scope.lock().ok().and_then(|s| s.clone())
    }

    /// Prints one JSON document and a newline on stdout.
    pub fn json<T: Serialize>(&self, doc: &T) {
        self.json_value(serde_json::to_value(doc).unwrap_or_default(), None);
    }

    /// Prints `answer`'s document: the run's warnings, then the answer's
    /// `"scope"` (HCP.md §15.1).
    pub fn json_answer(&self, answer: &crate::command::workspace::Answer) {
        self.json_value(answer.unscoped(), Some(answer));
    }

    /// Prints `value` with the run's warnings and the scope: `answer`'s,
    /// else the one recorded.
    fn json_value(
        &self,
        mut value: serde_json::Value,
        answer: Option<&crate::command::workspace::Answer>,
    ) {
        crate::cli::signals::hold_if_ending();
        let mut stdout = std::io::stdout().lock();
        let warnings = self.warnings.lock().map(|w| w.clone()).unwrap_or_default();
        if let (false, Some(map)) = (warnings.is_empty(), value.as_object_mut()) {
            let list = map
                .entry("warnings")
                .or_insert_with(|| serde_json::json!([]));
            if let Some(list) = list.as_array_mut() {
                list.extend(warnings.into_iter().map(serde_json::Value::from));
            }
        }
        if let Some(answer) = answer {
            answer.scope_into(&mut value);
        } else if let (Some(tag), Some(map)) = (self.scope(), value.as_object_mut()) {
            map.entry("scope").or_insert(tag.scope.as_str().into());
            if let Some(project) = tag.project {
                map.entry("project").or_insert(project.into());
            }
        }
        let text = serde_json::to_string_pretty(&value).unwrap_or_else(|err| {
            format!(r#"{{"ok": false, "error": {{"code": "io", "message": "cannot encode output: {err}"}}}}"#)
        });
        let _ = writeln!(stdout, "{text}");
    }

    /// Reports an error: `{"ok": false, "error": {...}}` with `--json`,
    /// else `error: MESSAGE` (and a hint) on stderr.
    pub fn error(&self, error: &Error) {
        self.error_with(error, &self.flags);
    }

    /// [`Output::error`], its fix repeating `flags`.
    pub fn error_with(&self, error: &Error, flags: &FixFlags) {
        crate::cli::signals::hold_if_ending();
        if self.json {
            let error = with_hint(error, flags);
            self.json(&Failure::new(&error));
            return;
        }
        let mut words = String::new();
        let hint = hint(error, flags);
        let _ = crate::command::text::error::write(&mut words, error, hint.as_deref());
        let _ = write!(anstream::stderr().lock(), "{words}");
    }
}

/// Writes a report's words to stdout in one write: styled on a terminal,
/// plain elsewhere (a long list is not written line by line).
pub fn write_text(text: &str) {
    let stdout = anstream::stdout();
    if stdout.current_choice() == anstream::ColorChoice::Never {
        let plain = crate::command::style::plain(text);
        let _ = std::io::stdout().lock().write_all(plain.as_bytes());
    } else {
        let _ = write!(stdout.lock(), "{text}");
    }
}
