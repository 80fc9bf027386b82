//! A `tools/call` in and out (HCP.md §16.3), pure: the call's JSON
//! arguments → the `(name, text)` pairs the exec path binds and checks
//! (§6.2, `Engine::exec_named`), and the exec's result or refusal → the
//! `CallToolResult`.
//!
//! - Each argument must have its JSON type (`string` and `enum` a string,
//!   `integer` an integer, `number` a number, `boolean` true or false); a
//!   value of another type is a `usage` error naming the arg, as a word
//!   that does not parse is for `hcpx exec`. `null` is the arg left out.
//!   Names, required args, enum values and defaults are then checked by
//!   the exec path itself, so the words of every refusal are the CLI's.
//! - `content` is one text item: the stdout, and when the stderr is not
//!   empty a line `--- stderr ---` and the stderr. `structuredContent` is
//!   `data` for `output: json`. `isError` is true when the command exits
//!   non-zero or is refused; a refusal's text is its code, message and fix
//!   (addressed to the user: "ask the user to run: `hcpx grant …`"), and
//!   nothing ran. A timeout says the command was started and stopped and
//!   may have done part of its work. A stream cut at the cap ends the text
//!   with `[hcpx: stdout cut at N bytes]` (or stderr). `_meta` carries `hcp/exit_code`, `hcp/duration_ms`,
//!   and `hcp/stdout_truncated`/`hcp/stderr_truncated` when the output cap
//!   cut a stream; a refusal's `_meta` carries the error object of §10.1.

use crate::engine::error::{Error, ErrorCode, Fix};
use crate::engine::exec::OUTPUT_LIMIT;
use crate::engine::exec::args::value_text;
use crate::engine::ops::ExecResult;
use crate::engine::pack::manifest::{ArgType, Command};
use crate::engine::pack::text::terminal_safe;
use crate::fixline::{FixFlags, command_line};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject};
use serde_json::{Value, json};

/// The line that separates stdout from stderr in a result's text.
pub const STDERR_LINE: &str = "--- stderr ---";

/// The call's arguments as `(name, text)` pairs for the exec path.
pub fn named_args(
    command: &Command,
    arguments: Option<&JsonObject>,
) -> Result<Vec<(String, String)>, Error> {
    let mut pairs = Vec::new();
    for (name, value) in arguments.into_iter().flatten() {
        if value.is_null() {
            continue;
        }
        // An unknown name goes through: the exec path names it.
        if let Some(arg) = command.args.iter().find(|a| &a.name == name) {
            let fits = match arg.kind {
                ArgType::String | ArgType::Enum => value.is_string(),
                ArgType::Integer => value.is_i64() || value.is_u64(),
                ArgType::Number => value.is_number(),
                ArgType::Boolean => value.is_boolean(),
            };
            if !fits {
                return Err(Error::usage(format!(
                    "argument `{name}` of {} must be {}, not {}",
                    command.key,
                    type_words(arg.kind),
                    json_kind(value)
                ))
                .verb(&command.key)
                .arg(name));
            }
        } else if !value.is_string() && !value.is_number() && !value.is_boolean() {
            return Err(
                Error::usage(format!("{} has no argument `{name}`", command.key))
                    .verb(&command.key)
                    .arg(name),
            );
        }
        pairs.push((name.clone(), value_text(value)));
    }
    Ok(pairs)
}

fn type_words(kind: ArgType) -> &'static str {
    match kind {
        ArgType::String => "a string",
        ArgType::Enum => "a string (one of its values)",
        ArgType::Integer => "an integer",
        ArgType::Number => "a number",
        ArgType::Boolean => "true or false",
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The result of a command that ran (§16.3).
pub fn ran(result: &ExecResult) -> CallToolResult {
    let mut text = result.stdout.clone();
    if !result.stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(STDERR_LINE);
        text.push('\n');
        text.push_str(&result.stderr);
    }
    // The cut is said in the text, which the model sees (§16.3).
    for (cut, stream) in [
        (result.stdout_truncated, "stdout"),
        (result.stderr_truncated, "stderr"),
    ] {
        if cut {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("[hcpx: {stream} cut at {OUTPUT_LIMIT} bytes]"));
        }
    }
    let content = vec![ContentBlock::text(text)];
    let mut out = if result.ok {
        CallToolResult::success(content)
    } else {
        CallToolResult::error(content)
    };
    if let Some(data) = &result.data {
        out.structured_content = Some(data.clone());
    }
    let mut meta = JsonObject::new();
    meta.insert("hcp/exit_code".into(), json!(result.exit_code));
    meta.insert("hcp/duration_ms".into(), json!(result.duration_ms));
    if result.stdout_truncated {
        meta.insert("hcp/stdout_truncated".into(), json!(true));
    }
    if result.stderr_truncated {
        meta.insert("hcp/stderr_truncated".into(), json!(true));
    }
    out.with_meta(Some(MetaObject(meta)))
}

/// The result of a refused call: nothing ran (§16.3). `flags` are the
/// ones the fix's command line repeats. A timeout is no refusal: see
/// [`timed_out`].
pub fn refused(err: &Error, flags: &FixFlags) -> CallToolResult {
    let mut text = format!("refused ({}): {}", err.code.as_str(), err.message);
    push_fix(&mut text, err, flags);
    text.push_str("\nnothing ran");
    error_result(text, err, flags)
}

/// The result of a command that was started and stopped at its timeout
/// (§16.3) after `timeout_ms`: never "nothing ran", since it may have
/// done part of its work.
pub fn timed_out(err: &Error, timeout_ms: u64, flags: &FixFlags) -> CallToolResult {
    let mut text = format!(
        "timeout: the command was started and stopped after {timeout_ms} ms (its timeout): \
         it may have done part of its work, so check what it did before calling it again.\n{}",
        err.message
    );
    push_fix(&mut text, err, flags);
    error_result(text, err, flags)
}

/// The refusal's fix, addressed to the user (§16.3): the agent is told
/// to ask the user to run it, never to run it itself (a grant, a connect
/// with a secret are the user's to decide). A hint without a command
/// stays a hint.
fn push_fix(text: &mut String, err: &Error, flags: &FixFlags) {
    match &err.context.fix {
        Some(Fix::SetEnv { names }) => {
            text.push_str(&format!(
                "\nfix: ask the user to set {} (non-empty) in the environment the MCP server \
                 is started with",
                names.join(", ")
            ));
        }
        Some(fix) => {
            text.push_str(&format!(
                "\nfix: ask the user to run: `{}`",
                command_line(fix, flags)
            ));
        }
        None => {
            if let Some(hint) = crate::fixline::hint(err, flags) {
                text.push_str("\nhint: ");
                text.push_str(&hint);
            }
        }
    }
}

fn error_result(text: String, err: &Error, flags: &FixFlags) -> CallToolResult {
    let mut shown = err.clone();
    shown.context.hint = crate::fixline::hint(err, flags).map(Into::into);
    let mut meta = JsonObject::new();
    meta.insert(
        "hcp/error".into(),
        serde_json::to_value(&shown).unwrap_or(Value::Null),
    );
    CallToolResult::error(vec![ContentBlock::text(text)]).with_meta(Some(MetaObject(meta)))
}

/// A refusal the server itself makes (the client's listing is out of
/// date, §16.4), in the same shape.
pub fn stale(name: &str, why: &str) -> CallToolResult {
    refused(&stale_error(name, why), &FixFlags::default())
}

/// The error of [`stale`].
pub fn stale_error(name: &str, why: &str) -> Error {
    Error::new(
        ErrorCode::NotFound,
        format!("tool `{name}` {why}; list the tools again (tools/list) before calling it"),
    )
}

/// The newest line of a running command's output, for its progress
/// notifications (§16.3): the line being written, else the last one that
/// was not blank; at most [`NEWEST_MAX`] bytes kept of it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct NewestLine {
    current: String,
    last: String,
}

/// The most bytes of a line [`NewestLine`] keeps.
pub const NEWEST_MAX: usize = 1000;

impl NewestLine {
    /// Takes a piece of output (redacted already), which may end mid-line.
    pub fn take(&mut self, text: &str) {
        for (i, part) in text.split('\n').enumerate() {
            if i > 0 {
                let line = std::mem::take(&mut self.current);
                if !line.trim().is_empty() {
                    self.last = line;
                }
            }
            let room = NEWEST_MAX.saturating_sub(self.current.len());
            let mut cut = room.min(part.len());
            while !part.is_char_boundary(cut) {
                cut -= 1;
            }
            self.current.push_str(&part[..cut]);
        }
    }

    /// The newest line, control characters replaced; `None` before any.
    pub fn newest(&self) -> Option<String> {
        let line = if self.current.trim().is_empty() {
            &self.last
        } else {
            &self.current
        };
        let line = line.trim_end_matches('\r');
        (!line.trim().is_empty()).then(|| terminal_safe(line).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_line_is_the_one_being_written_else_the_last_one() {
        let mut n = NewestLine::default();
        assert_eq!(n.newest(), None);
        n.take("one\ntw");
        assert_eq!(n.newest().as_deref(), Some("tw"));
        n.take("o\n\n");
        assert_eq!(n.newest().as_deref(), Some("two"));
        n.take("\x1b[31mred\r\n");
        assert_eq!(n.newest().as_deref(), Some("\u{fffd}[31mred"));
        n.take(&"x".repeat(5000));
        assert_eq!(n.newest().map(|l| l.len()), Some(NEWEST_MAX));
    }
}
