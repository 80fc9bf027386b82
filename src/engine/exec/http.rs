//! The `http` adapter (HCP.md §6.4): `{kind: http, method, url, headers,
//! body}`, sent with `ureq`.
//!
//! - `url` is relative to the Binding's `base_url` unless it starts with
//!   `http://` or `https://`. Arg values are percent-encoded in it (every
//!   byte but `A-Z a-z 0-9 - . _ ~`, so `/` too), so a value is always one
//!   path segment or one query value; `.` and `..` in the path are `usage`
//!   errors (§14.4), so a value cannot walk up the API's path.
//! - `body` is JSON. A string that is exactly `"{name}"` becomes the arg's
//!   typed value (`5`, `true`, `"text"`); a placeholder inside a longer
//!   string is replaced by the value's text. It is sent with
//!   `Content-Type: application/json` unless a header sets another.
//! - Header values may hold `${NAME}`, replaced by the Binding's material
//!   (§8.3). Material never appears in an error message.
//! - The response body is the command's stdout (in `Inherit` mode, written
//!   to the caller's sink as it arrives). A status ≥ 400 is a failure with
//!   exit code 1 (an [`ExecOutcome`], not an `Err`: the command ran); a line
//!   `hcpx: HTTP <status>` goes to the outcome's stderr.
//! - Redirects (301, 302, 303, 307, 308 with a `Location`) are followed only
//!   within the request's origin: scheme, host and port (§14.4), so no header
//!   (`Authorization` or `X-Api-Key: ${TOKEN}` alike) reaches another
//!   server. A redirect elsewhere is not followed: the exec fails with exit
//!   code 1, an empty stdout and a stderr line
//!   `hcpx: refused to follow the redirect to <location>: ...`. No response at all
//!   (connection refused, unknown host, TLS failure) is an `io` error, and
//!   running past `timeout_ms` a `timeout` error.
//!
//! Where the spec is silent:
//! - Joining: `base_url` and `url` are joined as strings with exactly one `/`
//!   between them (`https://api/v1` + `/repos` is `https://api/v1/repos`,
//!   not RFC 3986 resolution, which would drop `/v1`); a `url` starting with
//!   `?` is appended as is; an empty `url` is `base_url` (`pack::url`).
//! - A placeholder in the url's origin (scheme, userinfo, host, port, of
//!   `url` or of `base_url` + `url`) fails lint (§6.4); should such a pack
//!   be installed all the same, exec refuses it (`lint_failed`) before
//!   anything is sent, and refuses a built URL whose origin is not the
//!   template's.
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
//! - At most 10 redirects are followed; an 11th fails like a refused one.
//!   301, 302 and 303 turn a request other than GET or HEAD into a GET
//!   without a body; 307 and 308 keep method and body. Every hop sends the
//!   same headers, and `timeout_ms` covers all hops. A relative `Location`
//!   is resolved against the current url (no dot-segment removal), a
//!   fragment dropped. The refused location is shown with any
//!   `user:password@` hidden (and redacted like all output).
//! - Proxies come from the usual environment variables (ureq's default).
//!   Only the first [`Limits::output_bytes`] of a captured body are read;
//!   the rest is not downloaded.

use super::redact::RedactingWriter;
use super::{ExecOutcome, ExecRequest, Limits, OutputMode, elapsed_ms, read_capped};
use crate::engine::error::{Error, ErrorCode, Fix, Hint};
use crate::engine::exec::args::{BoundArgs, value_text};
use crate::engine::pack::grammar::{Piece, template_pieces};
use crate::engine::pack::manifest::HTTP_METHODS;
use crate::engine::pack::url;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
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
///
/// A placeholder in the origin (scheme, userinfo, host, port) is refused
/// even though lint rejects it (§6.4), and so is a built URL whose origin is
/// not the template's: an argument never chooses where the request goes.
pub fn build_url(
    template: &str,
    base_url: Option<&str>,
    args: &BoundArgs,
) -> Result<String, Error> {
    if let Some(placeholder) = url::origin_placeholder(template, base_url) {
        return Err(Error::new(
            ErrorCode::LintFailed,
            format!(
                "the placeholder `{placeholder}` stands in the url's scheme, userinfo, host or port"
            ),
        )
        .hint("a placeholder may stand in the url's path, query or fragment only"));
    }
    let built = render_url(template, base_url, args)?;
    if let Some(t) = url::effective_template(template, base_url)
        && url::origin(&built) != url::origin(&t)
    {
        return Err(Error::new(
            ErrorCode::LintFailed,
            format!(
                "the url `{}` does not go to the origin its template names",
                shown_url(&built)
            ),
        ));
    }
    Ok(built)
}

fn render_url(template: &str, base_url: Option<&str>, args: &BoundArgs) -> Result<String, Error> {
    let (path, query) = match template.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (template, None),
    };
    let mut out = String::new();
    for piece in template_pieces(path) {
        match piece {
            Piece::Arg(name) => {
                let Some(value) = args.get(name) else {
                    return Err(Error::usage(format!("the url needs a value for `{name}`"))
                        .arg(name)
                        .hint(format!("add `{name}=VALUE` after `--`")));
                };
                let text = value_text(value);
                if text == "." || text == ".." {
                    return Err(Error::usage(format!(
                        "`{name}` goes into the url's path and must not be `{text}`"
                    ))
                    .arg(name)
                    .hint("`.` and `..` would change which resource the path names"));
                }
                out.extend(utf8_percent_encode(&text, URL_VALUE));
            }
            Piece::Text(t) => out.push_str(t),
            Piece::Material(m) => push_material_text(&mut out, m),
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
            out.push('?');
            out.push_str(&kept.join("&"));
        }
        if let Some(fragment) = fragment {
            out.push('#');
            out.push_str(fragment);
        }
    }
    if url::is_absolute(&out) {
        return Ok(out);
    }
    let Some(base) = base_url else {
        return Err(Error::new(
            ErrorCode::LintFailed,
            format!("the url `{template}` is relative, but the Binding has no `base_url`"),
        )
        .hint("add binding.base_url, or use an absolute http:// or https:// url"));
    };
    Ok(url::join(base, &out))
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
                    .hint(
                        Hint::from("connect the pack again: `")
                            .cmd(Fix::Connect {
                                pack: "PACK".into(),
                                secret: false,
                            })
                            .say("`"),
                    ));
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

/// Most redirects followed for one request.
const MAX_REDIRECTS: usize = 10;

/// One request to send: redirects change the url, and may change the method
/// and drop the body.
struct Hop {
    method: http::Method,
    uri: http::Uri,
    body: Option<Vec<u8>>,
}

/// Runs an `http` command (§6.4). In [`OutputMode::Inherit`] the body goes
/// to `sink`, or is captured when there is none.
pub(super) fn run(
    req: &ExecRequest<'_>,
    spec: &HttpSpec<'_>,
    limits: &Limits,
    sink: Option<RedactingWriter<'_, '_>>,
) -> Result<ExecOutcome, Error> {
    let method = method(spec.method)?;
    let url = build_url(spec.url, req.base_url, req.args)?;
    let shown = shown_url(&url);
    let uri: http::Uri = url.parse().map_err(|_| {
        Error::new(
            ErrorCode::LintFailed,
            format!("`{shown}` is not a valid url"),
        )
    })?;
    let headers = render_headers(spec, req)?;
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

    let start = Instant::now();
    let hop = Hop { method, uri, body };
    let response = match send_following(hop, &headers, &shown, req.command.timeout_ms)? {
        Ok(response) => response,
        Err(refused) => return Ok(outcome(1, start, String::new(), false, refused)),
    };
    let status = response.status();
    let failed = status.as_u16() >= 400;
    let note = if failed {
        status_note(status)
    } else {
        String::new()
    };
    let mut reader = response.into_body().into_reader();
    let read_error = |e: io::Error| response_error(&e, &shown, req.command.timeout_ms);
    let code = i32::from(failed);
    match (req.mode, sink) {
        (OutputMode::Inherit, Some(sink)) => {
            pass_on(&mut reader, sink, &shown).map_err(|e| match e {
                Copy::Read(e) => read_error(e),
                Copy::Write(e) => e,
            })?;
            Ok(outcome(code, start, String::new(), false, note))
        }
        _ => {
            let captured =
                read_capped(&mut reader, limits.output_bytes, false).map_err(read_error)?;
            let text = captured.text();
            Ok(outcome(code, start, text, captured.truncated, note))
        }
    }
}

/// The command's method, upper-cased, if this runtime sends it (§6.4).
fn method(name: &str) -> Result<http::Method, Error> {
    let method_name = name.to_ascii_uppercase();
    if !HTTP_METHODS.contains(&method_name.as_str()) {
        return Err(Error::new(
            ErrorCode::LintFailed,
            format!(
                "`{}` is not an HTTP method this runtime sends ({})",
                name,
                HTTP_METHODS.join(", ")
            ),
        ));
    }
    http::Method::from_bytes(method_name.as_bytes()).map_err(|_| {
        Error::new(
            ErrorCode::LintFailed,
            format!("`{}` is not an HTTP method", name),
        )
    })
}

/// The `hcpx:` line for an HTTP error status, e.g. `hcpx: HTTP 404 Not Found`.
fn status_note(status: http::StatusCode) -> String {
    format!(
        "hcpx: HTTP {} {}\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    )
    .replace(" \n", "\n")
}

/// Sends the request, following redirects within its origin (§14.4), all
/// within `timeout_ms`. The inner `Err` is the `hcpx:` line of a refused
/// redirect.
fn send_following(
    mut hop: Hop,
    headers: &[(HeaderName, HeaderValue)],
    shown: &str,
    timeout_ms: u64,
) -> Result<Result<http::Response<ureq::Body>, String>, Error> {
    let timeout = Duration::from_millis(timeout_ms);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(timeout))
        .user_agent(concat!("hcpx/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let start = Instant::now();
    let mut redirects = 0;
    loop {
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(timeout_error(shown, timeout_ms));
        }
        let response = send(&agent, &hop, headers, left, shown, timeout_ms)?;
        let Some(location) = redirect_location(&response) else {
            return Ok(Ok(response));
        };
        match follow(&hop.uri, &location) {
            Ok(_) if redirects >= MAX_REDIRECTS => {
                return Ok(Err(format!(
                    "hcpx: more than {MAX_REDIRECTS} redirects; not following the one to {}\n",
                    shown_url(&location)
                )));
            }
            Ok(next) => {
                redirects += 1;
                hop = redirected(hop, response.status(), next);
            }
            Err(why) => {
                return Ok(Err(format!(
                    "hcpx: refused to follow the redirect to {}: {why}\n",
                    shown_url(&location)
                )));
            }
        }
    }
}

/// Why passing a body on stopped.
enum Copy {
    Read(io::Error),
    Write(Error),
}

/// Copies a response body to the caller's sink as it arrives.
fn pass_on(
    reader: &mut impl Read,
    mut sink: RedactingWriter<'_, '_>,
    shown: &str,
) -> Result<(), Copy> {
    let write_error = |e: io::Error| {
        Copy::Write(Error::new(
            ErrorCode::Io,
            format!("could not pass on the response from {shown}: {e}"),
        ))
    };
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Copy::Read(e)),
        };
        sink.write_all(&chunk[..n]).map_err(write_error)?;
    }
    sink.finish().map_err(write_error)
}

fn outcome(
    exit_code: i32,
    start: Instant,
    stdout: String,
    truncated: bool,
    stderr: String,
) -> ExecOutcome {
    ExecOutcome {
        exit_code,
        duration_ms: elapsed_ms(start),
        stdout,
        stderr,
        data: None,
        truncated,
        stdout_truncated: truncated,
        stderr_truncated: false,
        killed: false,
    }
}

/// The request's headers, rendered once for every hop.
fn render_headers(
    spec: &HttpSpec<'_>,
    req: &ExecRequest<'_>,
) -> Result<Vec<(HeaderName, HeaderValue)>, Error> {
    let mut out = Vec::new();
    for (name, template) in spec.headers {
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            Error::new(
                ErrorCode::LintFailed,
                format!("`{name}` is not a valid header name"),
            )
        })?;
        if let Some(value) = render_header(name, template, req.args, req.material)? {
            out.push((header, value));
        }
    }
    Ok(out)
}

/// Sends one hop with at most `left` of the command's time.
fn send(
    agent: &ureq::Agent,
    hop: &Hop,
    headers: &[(HeaderName, HeaderValue)],
    left: Duration,
    shown: &str,
    timeout_ms: u64,
) -> Result<http::Response<ureq::Body>, Error> {
    let mut builder = http::Request::builder()
        .method(hop.method.clone())
        .uri(hop.uri.clone());
    let mut content_type = false;
    for (name, value) in headers {
        content_type |= name == http::header::CONTENT_TYPE;
        builder = builder.header(name, value.clone());
    }
    if hop.body.is_some() && !content_type {
        builder = builder.header(http::header::CONTENT_TYPE, "application/json");
    }
    let build_error = |_| {
        Error::new(
            ErrorCode::LintFailed,
            format!("the request to `{shown}` cannot be built"),
        )
    };
    let sent = match &hop.body {
        Some(bytes) => {
            let request = builder.body(bytes.clone()).map_err(build_error)?;
            agent.run(
                agent
                    .configure_request(request)
                    .timeout_global(Some(left))
                    .build(),
            )
        }
        None => {
            let request = builder.body(()).map_err(build_error)?;
            agent.run(
                agent
                    .configure_request(request)
                    .timeout_global(Some(left))
                    .build(),
            )
        }
    };
    sent.map_err(|e| request_error(e, shown, timeout_ms))
}

/// The `Location` of a redirect response (301, 302, 303, 307, 308).
fn redirect_location(response: &http::Response<ureq::Body>) -> Option<String> {
    if !matches!(response.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = response.headers().get(http::header::LOCATION)?;
    Some(String::from_utf8_lossy(location.as_bytes()).into_owned())
}

/// Where a redirect from `from` to `location` goes, if it stays within the
/// origin (§14.4: scheme, host, port); else why it is refused.
fn follow(from: &http::Uri, location: &str) -> Result<http::Uri, String> {
    let scheme = from.scheme_str().unwrap_or("http");
    let authority = from.authority().map_or("", |a| a.as_str());
    let location = location.split('#').next().unwrap_or_default();
    let target = if url::is_absolute(location) {
        location.to_string()
    } else if let Some(rest) = location.strip_prefix("//") {
        format!("{scheme}://{rest}")
    } else if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else if location.starts_with('?') || location.is_empty() {
        format!("{scheme}://{authority}{}{location}", from.path())
    } else {
        let path = from.path();
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        let dir = if dir.is_empty() { "/" } else { dir };
        format!("{scheme}://{authority}{dir}{location}")
    };
    let to: http::Uri = target
        .parse()
        .map_err(|_| "it is not a valid url".to_string())?;
    if origin(&to) == origin(from) {
        Ok(to)
    } else {
        Err(format!(
            "it leaves the origin {scheme}://{authority} (redirects are followed only within one scheme, host and port)"
        ))
    }
}

/// An url's origin: scheme, host (lower-cased) and port (or the scheme's
/// default).
fn origin(uri: &http::Uri) -> Option<(String, String, u16)> {
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri.port_u16().or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    })?;
    Some((scheme, host, port))
}

/// The next hop after a redirect: 301, 302 and 303 turn a request other
/// than GET or HEAD into a GET without a body (what browsers and ureq do);
/// 307 and 308 keep the method and body.
fn redirected(hop: Hop, status: http::StatusCode, uri: http::Uri) -> Hop {
    let keeps = matches!(status.as_u16(), 307 | 308)
        || hop.method == http::Method::GET
        || hop.method == http::Method::HEAD;
    if keeps {
        Hop { uri, ..hop }
    } else {
        Hop {
            method: http::Method::GET,
            uri,
            body: None,
        }
    }
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

    /// Defence in depth (§6.4): lint rejects these, yet an installed pack
    /// that holds one is refused before anything is sent.
    #[test]
    fn a_placeholder_in_the_origin_is_refused() {
        let a = args(&["q=evil.example", "label=https"]);
        for (template, base) in [
            ("http://{q}/x", None),
            ("HTTPS://user@{q}:443/x", None),
            ("{label}://evil.example/x", Some("https://api.example")),
            ("{q}/x", Some("https://")),
            ("/x", Some("https://{q}")),
        ] {
            let err = build_url(template, base, &a).err();
            assert_eq!(
                err.as_ref().map(|e| e.code),
                Some(ErrorCode::LintFailed),
                "{template}"
            );
            let message = err.map(|e| e.message).unwrap_or_default();
            assert!(
                message.contains("scheme, userinfo, host or port"),
                "{message}"
            );
        }
        assert_eq!(
            build_url("https://api.example/{q}", None, &a)
                .ok()
                .as_deref(),
            Some("https://api.example/evil.example")
        );
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
    fn dot_segments_in_the_path_are_usage_errors() -> Result<(), Error> {
        for bad in [".", ".."] {
            let err = build_url(
                "/items/{q}",
                Some("http://h/api"),
                &args(&[&format!("q={bad}")]),
            )
            .err();
            assert_eq!(err.as_ref().map(|e| e.code), Some(ErrorCode::Usage));
            assert_eq!(
                err.as_ref().and_then(|e| field(e, "arg")).as_deref(),
                Some("q")
            );
        }
        assert_eq!(
            build_url(
                "/items/{q}",
                Some("http://h/api"),
                &args(&["q=../../admin"])
            )?,
            "http://h/api/items/..%2F..%2Fadmin"
        );
        assert_eq!(
            build_url("/items/{q}", Some("http://h/api"), &args(&["q=..."]))?,
            "http://h/api/items/..."
        );
        // In the query a dot is only text.
        assert_eq!(
            build_url("/items?q={q}", Some("http://h/api"), &args(&["q=.."]))?,
            "http://h/api/items?q=.."
        );
        Ok(())
    }

    #[test]
    fn redirects_stay_within_the_origin() {
        let from: http::Uri = "http://127.0.0.1:8080/api/v1/items?x=1"
            .parse()
            .unwrap_or_default();
        let to = |loc: &str| follow(&from, loc).map(|u| u.to_string());
        assert_eq!(to("/other").as_deref(), Ok("http://127.0.0.1:8080/other"));
        assert_eq!(
            to("next").as_deref(),
            Ok("http://127.0.0.1:8080/api/v1/next")
        );
        assert_eq!(
            to("?y=2#frag").as_deref(),
            Ok("http://127.0.0.1:8080/api/v1/items?y=2")
        );
        assert_eq!(
            to("HTTP://127.0.0.1:8080/x").as_deref(),
            Ok("http://127.0.0.1:8080/x")
        );
        for elsewhere in [
            "http://127.0.0.1:8081/x",
            "https://127.0.0.1:8080/x",
            "http://localhost:8080/x",
            "//evil.example/x",
            "http://127.0.0.1/x",
        ] {
            assert!(to(elsewhere).is_err(), "{elsewhere}");
        }
        let plain: http::Uri = "http://h/x".parse().unwrap_or_default();
        assert!(follow(&plain, "http://h:80/y").is_ok());
        assert!(follow(&plain, "http://h:81/y").is_err());
    }

    #[test]
    fn userinfo_is_hidden_in_messages() {
        assert_eq!(shown_url("https://u:p@h/x@y"), "https://***@h/x@y");
        assert_eq!(shown_url("https://h/x"), "https://h/x");
        assert_eq!(shown_url("nonsense"), "nonsense");
    }
}
