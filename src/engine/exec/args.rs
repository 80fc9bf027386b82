//! Binding the `k=v` words of an exec to a command's declared args
//! (HCP.md §4 for the arg model, §6.2 for the rules).
//!
//! Every word is checked before anything runs. An unknown name, a word
//! without `=`, a name given twice, a missing required arg, a value that does
//! not parse as its type, or an enum value not in `values` is a `usage` error
//! that names the arg (§10.1 `arg`). Defaults fill absent optional args.
//!
//! Typed values are kept as JSON values, because the `http` adapter puts them
//! into a JSON body as they are (§6.4); [`value_text`] gives the text that
//! goes into an argv element, a URL, a header or an `HCP_ARG_*` variable.
//!
//! Where the spec is silent:
//! - a value is everything after the first `=`, taken as is (no trimming);
//!   `name=` binds the empty string (and fails every type but `string`);
//! - `integer` is an `i64` in Rust's syntax (an optional sign, decimal
//!   digits); `number` is a finite `f64` (`1`, `-2.5`, `1e3`; not `inf` or
//!   `NaN`), kept as a JSON float; `boolean` is exactly `true` or `false`;
//! - a default that does not fit its type (lint rejects such packs) is a
//!   `lint_failed` error rather than a silent coercion.

use crate::engine::error::{Error, ErrorCode, Fix, Hint};
use crate::engine::pack::manifest::{Arg, ArgType, Command};
use serde::Serialize;
use serde_json::Value;

/// The args of one exec, typed and in declaration order. Only args that have
/// a value (given, or filled by a default) are present.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct BoundArgs {
    values: Vec<(String, Value)>,
}

impl BoundArgs {
    /// No args at all (e.g. for a command that declares none).
    pub fn new() -> Self {
        BoundArgs::default()
    }

    /// The typed value of `name`, if it has one.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The text form of `name`'s value (see [`value_text`]).
    pub fn text(&self, name: &str) -> Option<String> {
        self.get(name).map(value_text)
    }

    /// `(name, value)` pairs in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.values.iter().map(|(n, v)| (n.as_str(), v))
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values as one JSON object.
    pub fn to_json(&self) -> serde_json::Map<String, Value> {
        self.values.iter().cloned().collect()
    }
}

/// The text form of a typed value: a string as is, an integer in decimal, a
/// number as Rust prints an `f64` (`3`, `2.5`, never an exponent), a boolean
/// as `true`/`false`. Arrays and objects (never produced by binding) are
/// printed as compact JSON; null as the empty string.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                n.as_f64().map(|f| f.to_string()).unwrap_or_default()
            }
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Checks `words` (`k=v`, as they came after `--`) against `command.args`
/// and returns the typed values, defaults filled in (§6.2).
pub fn bind_args(command: &Command, words: &[String]) -> Result<BoundArgs, Error> {
    bind(
        command,
        words
            .iter()
            .map(|word| word.split_once('=').ok_or_else(|| no_equals(command, word))),
    )
}

/// [`bind_args`] for values already paired with their names (a form's
/// fields): each `(name, text)` is checked and typed as `name=text` would
/// be, without a `k=v` word to build and split.
pub fn bind_named(command: &Command, given: &[(String, String)]) -> Result<BoundArgs, Error> {
    bind(
        command,
        given
            .iter()
            .map(|(name, raw)| Ok((name.as_str(), raw.as_str()))),
    )
}

/// Binds `(name, text)` pairs, each checked in turn (§6.2).
fn bind<'a>(
    command: &Command,
    pairs: impl Iterator<Item = Result<(&'a str, &'a str), Error>>,
) -> Result<BoundArgs, Error> {
    let verb = command.key.as_str();
    let mut given: Vec<Option<Value>> = vec![None; command.args.len()];

    for pair in pairs {
        let (name, raw) = pair?;
        let Some(index) = command.args.iter().position(|a| a.name == name) else {
            return Err(unknown_arg(command, name));
        };
        let arg = &command.args[index];
        if given[index].is_some() {
            return Err(Error::usage(format!("`{name}` is given more than once"))
                .verb(verb)
                .arg(name)
                .hint(format!("give `{name}=VALUE` once")));
        }
        given[index] = Some(parse_value(arg, raw).map_err(|e| e.verb(verb))?);
    }

    let mut values = Vec::with_capacity(command.args.len());
    let mut missing = Vec::new();
    for (arg, value) in command.args.iter().zip(given) {
        let value = match value {
            Some(v) => Some(v),
            None => match &arg.default {
                Some(default) if !arg.required => {
                    Some(typed_default(arg, default).map_err(|e| e.verb(verb))?)
                }
                _ => None,
            },
        };
        match value {
            Some(v) => values.push((arg.name.clone(), v)),
            None if arg.required => missing.push(arg),
            None => {}
        }
    }

    if let Some(first) = missing.first() {
        let names: Vec<String> = missing.iter().map(|a| a.name.clone()).collect();
        let message = if names.len() == 1 {
            format!(
                "missing required argument `{}` ({})",
                first.name,
                expected(first)
            )
        } else {
            format!("missing required arguments {}", quoted_list(&names))
        };
        let hint = names
            .iter()
            .map(|n| format!("{n}=VALUE"))
            .collect::<Vec<_>>()
            .join(" ");
        return Err(Error::usage(message)
            .verb(verb)
            .arg(first.name.clone())
            .missing(names)
            .hint(format!("add `{hint}` after `--`")));
    }

    Ok(BoundArgs { values })
}

/// Parses one given value as its arg's type.
fn parse_value(arg: &Arg, raw: &str) -> Result<Value, Error> {
    let name = arg.name.as_str();
    let bad = |what: String| {
        Error::usage(format!("`{name}` must be {what}, got `{}`", shown(raw))).arg(name)
    };
    match arg.kind {
        ArgType::String => Ok(Value::String(raw.to_string())),
        ArgType::Integer => raw
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| bad("an integer".into())),
        ArgType::Number => raw
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| bad("a finite number".into())),
        ArgType::Boolean => match raw {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad("`true` or `false`".into())),
        },
        ArgType::Enum => {
            if arg.values.iter().any(|v| v == raw) {
                Ok(Value::String(raw.to_string()))
            } else {
                Err(bad(format!("one of {}", quoted_list(&arg.values))))
            }
        }
    }
}

/// A declared default, normalised to the value a given word would bind to.
fn typed_default(arg: &Arg, default: &Value) -> Result<Value, Error> {
    let value = match (arg.kind, default) {
        (ArgType::String, Value::String(_)) => Some(default.clone()),
        (ArgType::Enum, Value::String(s)) if arg.values.contains(s) => Some(default.clone()),
        (ArgType::Integer, Value::Number(n)) => n.as_i64().map(Value::from),
        (ArgType::Number, Value::Number(n)) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        (ArgType::Boolean, Value::Bool(_)) => Some(default.clone()),
        _ => None,
    };
    value.ok_or_else(|| {
        Error::new(
            ErrorCode::LintFailed,
            format!(
                "the default of `{}` does not fit its type ({})",
                arg.name,
                expected(arg)
            ),
        )
        .arg(arg.name.clone())
        .hint(
            Hint::from("run `")
                .cmd(Fix::Lint {
                    path: "PATH".into(),
                })
                .say("` on the pack"),
        )
    })
}

fn no_equals(command: &Command, word: &str) -> Error {
    let err = Error::usage(format!("`{}` is not a `name=value` argument", shown(word)))
        .verb(command.key.clone());
    if command.args.iter().any(|a| a.name == word) {
        err.arg(word).hint(format!("write `{word}=VALUE`"))
    } else {
        err.hint(accepted(command))
    }
}

fn unknown_arg(command: &Command, name: &str) -> Error {
    let err = Error::usage(format!(
        "`{}` is not an argument of `{}`",
        shown(name),
        command.key
    ))
    .verb(command.key.clone())
    .arg(name);
    let names = command.args.iter().map(|a| a.name.as_str());
    match crate::engine::pack::suggest::did_you_mean(name, names) {
        Some(s) => err.hint(format!("{s} {}", accepted(command))),
        None => err.hint(accepted(command)),
    }
}

/// "arguments of `verb`: a (integer), b (string)" or "`verb` takes none".
fn accepted(command: &Command) -> String {
    if command.args.is_empty() {
        return format!("`{}` takes no arguments", command.key);
    }
    let list: Vec<String> = command
        .args
        .iter()
        .map(|a| format!("{} ({})", a.name, expected(a)))
        .collect();
    format!("arguments of `{}`: {}", command.key, list.join(", "))
}

/// What an arg expects, in words.
fn expected(arg: &Arg) -> String {
    match arg.kind {
        ArgType::Enum => format!("one of {}", quoted_list(&arg.values)),
        kind => kind.as_str().to_string(),
    }
}

fn quoted_list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A user value for a message: control characters escaped, long values cut.
fn shown(raw: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    for (i, c) in raw.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::exec::test_support::{field, list};
    use crate::engine::pack::manifest::{Adapter, Effect, OutputKind};
    use serde_json::json;

    fn arg(name: &str, kind: ArgType) -> Arg {
        Arg {
            name: name.into(),
            kind,
            ..Arg::default()
        }
    }

    fn command(args: Vec<Arg>) -> Command {
        Command {
            key: "items.list".into(),
            summary: "List items".into(),
            effect: Effect::Read,
            args,
            adapter: Adapter::Other {
                kind: "none".into(),
            },
            timeout_ms: 1000,
            output: OutputKind::Text,
        }
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    fn all_types() -> Command {
        command(vec![
            arg("s", ArgType::String),
            arg("i", ArgType::Integer),
            arg("n", ArgType::Number),
            arg("b", ArgType::Boolean),
            Arg {
                values: vec!["open".into(), "closed".into()],
                ..arg("e", ArgType::Enum)
            },
        ])
    }

    fn bind(c: &Command, w: &[&str]) -> Result<BoundArgs, Error> {
        bind_args(c, &words(w))
    }

    fn usage_err(c: &Command, w: &[&str]) -> Error {
        match bind(c, w) {
            Ok(b) => panic!("expected an error, bound {b:?}"),
            Err(e) => {
                assert_eq!(e.code, ErrorCode::Usage, "{e:?}");
                assert_eq!(field(&e, "verb_key").as_deref(), Some("items.list"));
                e
            }
        }
    }

    #[test]
    fn every_type_binds_typed() -> Result<(), Error> {
        let b = bind(
            &all_types(),
            &["e=closed", "b=true", "n=2.5", "i=-42", "s=hello world"],
        )?;
        assert_eq!(b.get("s"), Some(&json!("hello world")));
        assert_eq!(b.get("i"), Some(&json!(-42)));
        assert_eq!(b.get("n"), Some(&json!(2.5)));
        assert_eq!(b.get("b"), Some(&json!(true)));
        assert_eq!(b.get("e"), Some(&json!("closed")));
        // Declaration order, whatever the order of the words.
        let names: Vec<&str> = b.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["s", "i", "n", "b", "e"]);
        assert_eq!(b.text("i").as_deref(), Some("-42"));
        assert_eq!(b.text("n").as_deref(), Some("2.5"));
        assert_eq!(b.text("b").as_deref(), Some("true"));
        assert_eq!(b.len(), 5);
        Ok(())
    }

    #[test]
    fn values_keep_everything_after_the_first_equals() -> Result<(), Error> {
        let c = command(vec![arg("q", ArgType::String)]);
        assert_eq!(bind(&c, &["q=a=b c"])?.text("q").as_deref(), Some("a=b c"));
        assert_eq!(bind(&c, &["q="])?.text("q").as_deref(), Some(""));
        Ok(())
    }

    #[test]
    fn named_values_bind_like_words_without_a_round_trip() -> Result<(), Error> {
        let c = all_types();
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        let named = bind_named(&c, &pairs(&[("s", "a=b c"), ("i", "7"), ("e", "open")]))?;
        assert_eq!(named, bind(&c, &["s=a=b c", "i=7", "e=open"])?);
        // A name is never split at `=`: `s=x` is an unknown arg, not `s`.
        let e = bind_named(&c, &pairs(&[("s=x", "y")])).err();
        assert_eq!(e.as_ref().map(|e| e.code), Some(ErrorCode::Usage));
        assert_eq!(e.and_then(|e| e.context.arg).as_deref(), Some("s=x"));
        let e = bind_named(&c, &pairs(&[("i", "x")])).err();
        assert_eq!(e.and_then(|e| e.context.arg).as_deref(), Some("i"));
        Ok(())
    }

    #[test]
    fn numbers_and_booleans() -> Result<(), Error> {
        let c = all_types();
        assert_eq!(bind(&c, &["n=3"])?.get("n"), Some(&json!(3.0)));
        assert_eq!(bind(&c, &["n=3"])?.text("n").as_deref(), Some("3"));
        assert_eq!(bind(&c, &["n=1e3"])?.text("n").as_deref(), Some("1000"));
        assert_eq!(bind(&c, &["b=false"])?.get("b"), Some(&json!(false)));
        assert_eq!(bind(&c, &["i=+7"])?.get("i"), Some(&json!(7)));
        Ok(())
    }

    #[test]
    fn bad_integer_names_the_arg() {
        let e = usage_err(&all_types(), &["i=abc"]);
        assert_eq!(field(&e, "arg").as_deref(), Some("i"));
        assert_eq!(e.message, "`i` must be an integer, got `abc`");
        for bad in ["i=1.5", "i=", "i=99999999999999999999", "i= 1"] {
            assert_eq!(
                field(&usage_err(&all_types(), &[bad]), "arg").as_deref(),
                Some("i")
            );
        }
    }

    #[test]
    fn bad_number_names_the_arg() {
        for bad in ["n=abc", "n=inf", "n=NaN", "n=", "n=1e999"] {
            let e = usage_err(&all_types(), &[bad]);
            assert_eq!(field(&e, "arg").as_deref(), Some("n"), "{bad}");
            assert!(
                e.message.contains("must be a finite number"),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn bad_boolean_names_the_arg() {
        for bad in ["b=yes", "b=1", "b=True", "b="] {
            let e = usage_err(&all_types(), &[bad]);
            assert_eq!(field(&e, "arg").as_deref(), Some("b"));
            assert!(e.message.contains("`true` or `false`"), "{}", e.message);
        }
    }

    #[test]
    fn enum_value_outside_values() {
        let e = usage_err(&all_types(), &["e=merged"]);
        assert_eq!(field(&e, "arg").as_deref(), Some("e"));
        assert_eq!(
            e.message,
            "`e` must be one of `open`, `closed`, got `merged`"
        );
    }

    #[test]
    fn unknown_name() {
        let e = usage_err(&all_types(), &["limit=3"]);
        assert_eq!(field(&e, "arg").as_deref(), Some("limit"));
        assert!(e.message.contains("not an argument of `items.list`"));
        assert!(field(&e, "hint").unwrap_or_default().contains("s (string)"));
        let e = usage_err(&command(vec![arg("limit", ArgType::Integer)]), &["limt=3"]);
        assert!(
            field(&e, "hint")
                .unwrap_or_default()
                .contains("did you mean `limit`")
        );
        let e = usage_err(&command(vec![]), &["x=1"]);
        assert!(
            field(&e, "hint")
                .unwrap_or_default()
                .contains("takes no arguments")
        );
    }

    #[test]
    fn word_without_equals() {
        let e = usage_err(&all_types(), &["s"]);
        assert_eq!(field(&e, "arg").as_deref(), Some("s"));
        assert!(e.message.contains("not a `name=value` argument"));
        let e = usage_err(&all_types(), &["hello"]);
        assert_eq!(field(&e, "arg"), None);
    }

    #[test]
    fn duplicate() {
        let e = usage_err(&all_types(), &["s=a", "s=b"]);
        assert_eq!(field(&e, "arg").as_deref(), Some("s"));
        assert!(e.message.contains("more than once"));
    }

    #[test]
    fn missing_required() {
        let c = command(vec![
            Arg {
                required: true,
                ..arg("repo", ArgType::String)
            },
            Arg {
                required: true,
                ..arg("limit", ArgType::Integer)
            },
        ]);
        let e = usage_err(&c, &["limit=1"]);
        assert_eq!(field(&e, "arg").as_deref(), Some("repo"));
        assert_eq!(e.message, "missing required argument `repo` (string)");
        let e = usage_err(&c, &[]);
        assert_eq!(field(&e, "arg").as_deref(), Some("repo"));
        assert_eq!(
            list(&e, "missing"),
            Some(vec!["repo".into(), "limit".into()])
        );
    }

    #[test]
    fn defaults_fill_absent_optional_args() -> Result<(), Error> {
        let c = command(vec![
            Arg {
                default: Some(json!(30)),
                ..arg("limit", ArgType::Integer)
            },
            Arg {
                default: Some(json!(2)),
                ..arg("ratio", ArgType::Number)
            },
            Arg {
                default: Some(json!("open")),
                values: vec!["open".into(), "closed".into()],
                ..arg("state", ArgType::Enum)
            },
            Arg {
                default: Some(json!(false)),
                ..arg("all", ArgType::Boolean)
            },
            arg("label", ArgType::String),
        ]);
        let b = bind(&c, &["limit=5"])?;
        assert_eq!(b.get("limit"), Some(&json!(5)));
        assert_eq!(b.get("ratio"), Some(&json!(2.0)));
        assert_eq!(b.get("state"), Some(&json!("open")));
        assert_eq!(b.get("all"), Some(&json!(false)));
        assert_eq!(b.get("label"), None);
        assert_eq!(b.len(), 4);
        assert_eq!(b.to_json().len(), 4);
        Ok(())
    }

    #[test]
    fn a_default_that_does_not_fit_is_a_lint_failure() {
        let c = command(vec![Arg {
            default: Some(json!("x")),
            ..arg("limit", ArgType::Integer)
        }]);
        match bind(&c, &[]) {
            Err(e) => {
                assert_eq!(e.code, ErrorCode::LintFailed);
                assert_eq!(field(&e, "arg").as_deref(), Some("limit"));
            }
            Ok(b) => panic!("bound {b:?}"),
        }
    }

    #[test]
    fn messages_escape_control_characters_and_cut_long_values() {
        let e = usage_err(&all_types(), &["i=1\n2"]);
        assert!(e.message.contains("1\\n2"), "{}", e.message);
        let long = format!("i={}", "x".repeat(500));
        let e = usage_err(&all_types(), &[long.as_str()]);
        assert!(e.message.len() < 200);
    }

    #[test]
    fn value_text_forms() {
        assert_eq!(value_text(&json!("a b")), "a b");
        assert_eq!(value_text(&json!(3)), "3");
        assert_eq!(value_text(&json!(u64::MAX)), u64::MAX.to_string());
        assert_eq!(value_text(&json!(0.5)), "0.5");
        assert_eq!(value_text(&json!(true)), "true");
        assert_eq!(value_text(&Value::Null), "");
        assert_eq!(value_text(&json!([1, "a"])), "[1,\"a\"]");
    }
}
