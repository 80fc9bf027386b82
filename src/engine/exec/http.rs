//! The `http` adapter (HCP.md §6.4): `{kind: http, method, url, headers,
//! body}`, sent with `ureq`.
//!
//! - `url` is relative to the Binding's `base_url` unless it starts with
//!   `http://` or `https://`. Arg values are percent-encoded in it (every
//!   byte but `A-Z a-z 0-9 - . _ ~`), so a value is always one path segment
//!   or one query value.
//! - `body` is JSON. A string that is exactly `"{name}"` becomes the arg's
//!   typed value (`5`, `true`, `"text"`); a placeholder inside a longer
//!   string is replaced by the value's text. It is sent with
//!   `Content-Type: application/json` unless a header sets another.
//! - Header values may hold `${NAME}`, replaced by the Binding's material
//!   (§8.3). Material never appears in an error message.
//! - The response body is the command's stdout. A status ≥ 400 is a failure
//!   with exit code 1 (an [`ExecOutcome`], not an `Err`: the command ran);
//!   a line `hcpx: HTTP <status>` goes to stderr. No response at all
//!   (connection refused, unknown host, TLS failure) is an `io` error, and
//!   running past `timeout_ms` a `timeout` error.
//!
//! Where the spec is silent:
//! - Joining: `base_url` and `url` are joined as strings with exactly one `/`
//!   between them (`https://api/v1` + `/repos` is `https://api/v1/repos`,
//!   not RFC 3986 resolution, which would drop `/v1`); a `url` starting with
//!   `?` is appended as is; an empty `url` is `base_url`.
//! - Absent optional args (no value, no default): a query parameter
//!   (`&`-separated piece after `?`) that names one is dropped, like an argv
//!   element (§6.3); in the path it is a `usage` error naming the arg; a
//!   header that names one is not sent; in the body, an object member or an
//!   array element whose string names one is left out.
//! - `{name}` in a header value is replaced by the arg's text; a value with a
//!   line break or other control character is refused (`usage`), so an arg
//!   cannot inject headers.
//! - `${NAME}` is only substituted in headers; in the url or body it is
//!   text. A `${NAME}` the caller gave no material for is `env_missing`.
//! - Defects lint rejects (an unknown method, a relative url without
//!   `base_url`, an invalid url or header name) are `lint_failed`.
//! - Redirects are followed (at most 10), and `Authorization` is not sent
//!   across hosts (ureq's default). Proxies come from the usual environment
//!   variables (ureq's default). Only the first [`Limits::output_bytes`] of
//!   a captured body are read; the rest is not downloaded.

use super::{ExecOutcome, ExecRequest, Limits, OutputMode, elapsed_ms, read_capped};
use crate::engine::error::{Error, ErrorCode};
use crate::engine::exec::args::{BoundArgs, value_text};
use crate::engine::pack::grammar::{Piece, template_pieces};
use crate::engine::pack::manifest::HTTP_METHODS;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::{Duration, Instant};
use ureq::http::{self, HeaderName, HeaderValue};

/// Bytes kept as they are in a URL: RFC 3986 "unreserved".
const URL_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The `http` adapter's fields.
pub(super) struct HttpSpec<'a> {
    pub(super) method: &'a str,
    pub(super) url: &'a str,
    pub(super) headers: &'a BTreeMap<String, String>,
    pub(super) body: Option<&'a Value>,
}

/// The full URL of a request: placeholders replaced (percent-encoded),
/// absent query parameters dropped, joined to `base_url` when relative.
pub fn build_url(
    template: &str,
    base_url: Option<&str>,
    args: &BoundArgs,
) -> Result<String, Error> {
    let (path, query) = match template.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (template, None),
    };
    let mut url = String::new();
    for piece in template_pieces(path) {
        match piece {
            Piece::Arg(name) => {
                let Some(value) = args.get(name) else {
                    return Err(Error::usage(format!("the url needs a value for `{name}`"))
                        .arg(name)
                        .hint(format!("add `{name}=VALUE` after `--`")));
                };
                url.extend(utf8_percent_encode(&value_text(value), URL_VALUE));
            }
            Piece::Text(t) => url.push_str(t),
            Piece::Material(m) => push_material_text(&mut url, m),
        }
    }
    if let Some(query) = query {
        let (query, fragment) = match query.split_once('#') {
            Some((q, f)) => (q, Some(f)),
            None => (query, None),
        };
        let kept: Vec<String> = query
            .split('&')
            .filter_map(|pair| render_query_pair(pair, args))
            .filter(|pair| !pair.is_empty())
            .collect();
        if !kept.is_empty() {
            url.push('?');
            url.push_str(&kept.join("&"));
        }
        if let Some(fragment) = fragment {
            url.push('#');
            url.push_str(fragment);
        }
    }
    if is_absolute(&url) {
        return Ok(url);
    }
    let Some(base) = base_url else {
        return Err(Error::new(
            ErrorCode::LintFailed,
            format!("the url `{template}` is relative, but the Binding has no `base_url`"),
        )
        .hint("add binding.base_url, or use an absolute http:// or https:// url"));
    };
    Ok(join(base, &url))
}

fn render_query_pair(pair: &str, args: &BoundArgs) -> Option<String> {
    let mut out = String::new();
    for piece in template_pieces(pair) {
        match piece {
            Piece::Arg(name) => {
                out.extend(utf8_percent_encode(&value_text(args.get(name)?), URL_VALUE))
            }
            Piece::Text(t) => out.push_str(t),
            Piece::Material(m) => push_material_text(&mut out, m),
        }
    }
    Some(out)
}

fn is_absolute(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

fn join(base: &str, url: &str) -> String {
    if url.is_empty() {
        base.to_string()
    } else if url.starts_with('?') || url.starts_with('#') {
        format!("{base}{url}")
    } else {
        format!(
            "{}/{}",
            base.trim_end_matches('/'),
            url.trim_start_matches('/')
        )
    }
}

fn push_material_text(out: &mut String, name: &str) {
    out.push_str("${");
    out.push_str(name);
    out.push('}');
}

/// The request body: `"{name}"` strings become typed values, placeholders
/// in longer strings their text; members and elements that name an arg
/// without a value are left out. `None` when the whole body names one.
pub fn render_body(template: &Value, args: &BoundArgs) -> Option<Value> {
    match template {
        Value::String(s) => {
            let pieces = template_pieces(s);
            if let [Piece::Arg(name)] = pieces.as_slice() {
                return args.get(name).cloned();
            }
            let mut out = String::new();
            for piece in pieces {
                match piece {
                    Piece::Text(t) => out.push_str(t),
                    Piece::Arg(name) => out.push_str(&value_text(args.get(name)?)),
                    Piece::Material(m) => push_material_text(&mut out, m),
                }
            }
            Some(Value::String(out))
        }
        Value::Array(items) => Some(Value::Array(
            items.iter().filter_map(|i| render_body(i, args)).collect(),
        )),
        Value::Object(members) => Some(Value::Object(
            members
                .iter()
                .filter_map(|(k, v)| render_body(v, args).map(|v| (k.clone(), v)))
                .collect(),
        )),
        other => Some(other.clone()),
    }
}

/// One header value: `${NAME}` from material, `{name}` from args. `None`
/// when it names an arg without a value (the header is not sent).
fn render_header(
    name: &str,
    template: &str,
    args: &BoundArgs,
    material: &[(String, String)],
) -> Result<Option<HeaderValue>, Error> {
    let mut out = String::new();
    let mut holds_material = false;
    for piece in template_pieces(template) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Arg(arg) => match args.get(arg) {
                Some(v) => {
                    let text = value_text(v);
                    if text.chars().any(char::is_control) {
                        return Err(Error::usage(format!(
                            "`{arg}` goes into the header `{name}` and must not hold line breaks or control characters"
                        ))
                        .arg(arg));
                    }
                    out.push_str(&text);
                }
                None => return Ok(None),
            },
            Piece::Material(m) => {
                let Some((_, value)) = material.iter().find(|(k, _)| k == m) else {
                    return Err(Error::new(
                        ErrorCode::EnvMissing,
                        format!("the header `{name}` needs `${{{m}}}`, which the Binding did not provide"),
                    )
                    .missing(vec![m.to_string()])
                    .hint("connect the pack again: `hcpx connect PACK`"));
                };
                holds_material = true;
                out.push_str(value);
            }
        }
    }
    // Never echo the value: it may hold a secret.
    let mut value = HeaderValue::from_str(&out).map_err(|_| {
        Error::usage(format!(
            "the value of the header `{name}` is not a valid header value (a line break or control character)"
        ))
    })?;
    if holds_material {
        value.set_sensitive(true);
    }
    Ok(Some(value))
}

/// A URL for a message: any `user:password@` is hidden.
fn shown_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{}***@{}", &url[..scheme_end + 3], &rest[at + 1..]),
        None => url.to_string(),
    }
}

/// Runs an `http` command (§6.4).
pub(super) fn run(
    req: &ExecRequest<'_>,
    spec: &HttpSpec<'_>,
    limits: &Limits,
) -> Result<ExecOutcome, Error> {
    let method_name = spec.method.to_ascii_uppercase();
    if !HTTP_METHODS.contains(&method_name.as_str()) {
        return Err(Error::new(
            ErrorCode::LintFailed,
            format!(
                "`{}` is not an HTTP method this runtime sends ({})",
                spec.method,
                HTTP_METHODS.join(", ")
            ),
        ));
    }
    let method = http::Method::from_bytes(method_name.as_bytes()).map_err(|_| {
        Error::new(
            ErrorCode::LintFailed,
            format!("`{}` is not an HTTP method", spec.method),
        )
    })?;
    let url = build_url(spec.url, req.base_url, req.args)?;
    let shown = shown_url(&url);
    let uri: http::Uri = url.parse().map_err(|_| {
        Error::new(
            ErrorCode::LintFailed,
            format!("`{shown}` is not a valid url"),
        )
    })?;

    let mut builder = http::Request::builder().method(method).uri(uri);
    let mut content_type = false;
    for (name, template) in spec.headers {
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            Error::new(
                ErrorCode::LintFailed,
                format!("`{name}` is not a valid header name"),
            )
        })?;
        if let Some(value) = render_header(name, template, req.args, req.material)? {
            content_type |= header == http::header::CONTENT_TYPE;
            builder = builder.header(header, value);
        }
    }
    let body = spec
        .body
        .and_then(|b| render_body(b, req.args))
        .map(|b| serde_json::to_vec(&b))
        .transpose()
        .map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("could not encode the request body: {e}"),
            )
        })?;
    if body.is_some() && !content_type {
        builder = builder.header(http::header::CONTENT_TYPE, "application/json");
    }

    let timeout = Duration::from_millis(req.command.timeout_ms);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .user_agent(concat!("hcpx/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let build_error = |_| {
        Error::new(
            ErrorCode::LintFailed,
            format!("the request to `{shown}` cannot be built"),
        )
    };

    let start = Instant::now();
    let sent = match body {
        Some(bytes) => agent.run(builder.body(bytes).map_err(build_error)?),
        None => agent.run(builder.body(()).map_err(build_error)?),
    };
    let response = sent.map_err(|e| request_error(e, &shown, req.command.timeout_ms))?;

    let status = response.status();
    let failed = status.as_u16() >= 400;
    let note = failed.then(|| {
        format!(
            "hcpx: HTTP {} {}\n",
            status.as_u16(),
            status.canonical_reason().unwrap_or("")
        )
        .replace(" \n", "\n")
    });
    let mut reader = response.into_body().into_reader();
    let read_error = |e: io::Error| response_error(&e, &shown, req.command.timeout_ms);
    let (stdout, truncated) = match req.mode {
        OutputMode::Capture => {
            let captured =
                read_capped(&mut reader, limits.output_bytes, false).map_err(read_error)?;
            (captured.text(), captured.truncated)
        }
        OutputMode::Inherit => {
            let mut out = io::stdout().lock();
            io::copy(&mut reader, &mut out).map_err(read_error)?;
            let _ = out.flush();
            if let Some(note) = &note {
                let _ = io::stderr().lock().write_all(note.as_bytes());
            }
            (String::new(), false)
        }
    };
    let stderr = match req.mode {
        OutputMode::Capture => note.unwrap_or_default(),
        OutputMode::Inherit => String::new(),
    };
    Ok(ExecOutcome {
        exit_code: i32::from(failed),
        duration_ms: elapsed_ms(start),
        stdout,
        stderr,
        data: None,
        truncated,
    })
}

fn timeout_error(url: &str, timeout_ms: u64) -> Error {
    Error::new(
        ErrorCode::Timeout,
        format!("no complete response from {url} within {timeout_ms} ms"),
    )
    .hint("raise the command's `timeout_ms` (at most 600000) if it needs longer")
}

fn request_error(e: ureq::Error, url: &str, timeout_ms: u64) -> Error {
    match e {
        ureq::Error::Timeout(_) => timeout_error(url, timeout_ms),
        ureq::Error::Io(io) if io.kind() == io::ErrorKind::TimedOut => {
            timeout_error(url, timeout_ms)
        }
        ureq::Error::Io(io) => Error::new(ErrorCode::Io, format!("could not reach {url}: {io}")),
        ureq::Error::HostNotFound => Error::new(
            ErrorCode::Io,
            format!("could not reach {url}: host not found"),
        ),
        ureq::Error::ConnectionFailed => Error::new(
            ErrorCode::Io,
            format!("could not reach {url}: connection failed"),
        ),
        other => Error::new(
            ErrorCode::Io,
            format!("the request to {url} failed: {other}"),
        ),
    }
}

fn response_error(e: &io::Error, url: &str, timeout_ms: u64) -> Error {
    let inner_timeout = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<ureq::Error>())
        .is_some_and(|inner| matches!(inner, ureq::Error::Timeout(_)));
    if inner_timeout || e.kind() == io::ErrorKind::TimedOut {
        timeout_error(url, timeout_ms)
    } else {
        Error::new(
            ErrorCode::Io,
            format!("could not read the response from {url}: {e}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::exec::bind_args;
    use crate::engine::exec::test_support::{field, list};
    use crate::engine::pack::manifest::{Adapter, Arg, ArgType, Command, Effect, OutputKind};
    use serde_json::json;

    fn args(words: &[&str]) -> BoundArgs {
        let arg = |name: &str, kind| Arg {
            name: name.into(),
            kind,
            ..Arg::default()
        };
        let command = Command {
            key: "t".into(),
            summary: "t".into(),
            effect: Effect::Read,
            args: vec![
                arg("q", ArgType::String),
                arg("limit", ArgType::Integer),
                arg("draft", ArgType::Boolean),
                arg("label", ArgType::String),
            ],
            adapter: Adapter::Other { kind: "x".into() },
            timeout_ms: 1,
            output: OutputKind::Text,
        };
        let words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        bind_args(&command, &words).unwrap_or_default()
    }

    #[test]
    fn urls_are_percent_encoded_and_joined() -> Result<(), Error> {
        let a = args(&["q=a b/c?d&e=f#g", "limit=5"]);
        assert_eq!(
            build_url(
                "/search/{q}?limit={limit}",
                Some("https://api.example/v1/"),
                &a
            )?,
            "https://api.example/v1/search/a%20b%2Fc%3Fd%26e%3Df%23g?limit=5"
        );
        assert_eq!(
            build_url("http://h/x?q={q}", None, &args(&["q=é"]))?,
            "http://h/x?q=%C3%A9"
        );
        assert_eq!(build_url("", Some("http://h/api"), &a)?, "http://h/api");
        assert_eq!(
            build_url("?n={limit}", Some("http://h/api"), &a)?,
            "http://h/api?n=5"
        );
        assert_eq!(
            build_url("items", Some("http://h/api"), &a)?,
            "http://h/api/items"
        );
        Ok(())
    }

    #[test]
    fn absent_args_drop_query_parameters_and_fail_in_the_path() -> Result<(), Error> {
        let a = args(&["limit=5"]);
        assert_eq!(
            build_url("http://h/x?label={label}&limit={limit}&x=1", None, &a)?,
            "http://h/x?limit=5&x=1"
        );
        assert_eq!(
            build_url("http://h/x?label={label}", None, &a)?,
            "http://h/x"
        );
        let err = build_url("http://h/x/{label}", None, &a).err();
        assert_eq!(err.as_ref().map(|e| e.code), Some(ErrorCode::Usage));
        assert_eq!(
            err.as_ref().and_then(|e| field(e, "arg")).as_deref(),
            Some("label")
        );
        Ok(())
    }

    #[test]
    fn relative_url_without_base_is_a_pack_defect() {
        let err = build_url("/x", None, &args(&[])).err();
        assert_eq!(err.map(|e| e.code), Some(ErrorCode::LintFailed));
    }

    #[test]
    fn body_keeps_types() {
        let a = args(&["q=hello", "limit=5", "draft=true"]);
        let template = json!({
            "title": "{q}",
            "count": "{limit}",
            "draft": "{draft}",
            "text": "q is {q}, limit {limit}",
            "label": "{label}",
            "labels": ["{label}", "{q}", 1],
            "nested": {"x": "{limit}", "n": null, "lit": "{not an arg}"}
        });
        assert_eq!(
            render_body(&template, &a),
            Some(json!({
                "title": "hello",
                "count": 5,
                "draft": true,
                "text": "q is hello, limit 5",
                "labels": ["hello", 1],
                "nested": {"x": 5, "n": null, "lit": "{not an arg}"}
            }))
        );
        assert_eq!(render_body(&json!("{label}"), &a), None);
    }

    #[test]
    fn headers_take_material_and_refuse_injection() -> Result<(), Error> {
        let material = vec![("API_TOKEN".to_string(), "tok-123".to_string())];
        let a = args(&["q=x\r\nEvil: 1", "limit=5"]);
        let v = render_header("Authorization", "Bearer ${API_TOKEN}", &a, &material)?;
        assert_eq!(
            v.as_ref().map(HeaderValue::as_bytes),
            Some(&b"Bearer tok-123"[..])
        );
        assert!(v.is_some_and(|v| v.is_sensitive()));
        assert_eq!(render_header("X-Label", "{label}", &a, &material)?, None);
        let err = render_header("X-Q", "{q}", &a, &material).err();
        assert_eq!(
            err.as_ref().and_then(|e| field(e, "arg")).as_deref(),
            Some("q")
        );

        let err = render_header("Authorization", "Bearer ${OTHER}", &a, &material).err();
        assert_eq!(err.as_ref().map(|e| e.code), Some(ErrorCode::EnvMissing));
        assert_eq!(
            err.as_ref().and_then(|e| list(e, "missing")),
            Some(vec!["OTHER".to_string()])
        );

        let bad = vec![("API_TOKEN".to_string(), "zq9\nzq9".to_string())];
        let err = render_header("Authorization", "Bearer ${API_TOKEN}", &a, &bad).err();
        let shown = format!("{err:?}");
        assert!(err.is_some());
        assert!(!shown.contains("zq9"), "{shown}");
        Ok(())
    }

    #[test]
    fn userinfo_is_hidden_in_messages() {
        assert_eq!(shown_url("https://u:p@h/x@y"), "https://***@h/x@y");
        assert_eq!(shown_url("https://h/x"), "https://h/x");
        assert_eq!(shown_url("nonsense"), "nonsense");
    }
}
