//! The URL of an `http` adapter (HCP.md §6.4), as lint and exec both read
//! it: absolute or relative to the Binding's `base_url`, the one way the two
//! are joined, and the URL's *origin* — its scheme, userinfo, host and port,
//! where no placeholder may stand, so an argument never chooses where the
//! Binding's material is sent.
//!
//! Where the spec is silent:
//! - The origin is read leniently, so that it is never shorter than any
//!   client could take it to be: the scheme is what comes before the first
//!   `:` when no `/`, `?` or `#` comes first; any run of `/` or `\` after it
//!   is skipped (`https:/{host}` counts as `https://{host}`), and the
//!   authority runs to the next `/`, `?` or `#`. A `{x}:rest` url with no
//!   `/` before its `:` thus has `{x}` in a scheme.
//! - A placeholder that starts inside the origin is in it.

use crate::engine::pack::grammar::{Piece, template_pieces};

/// True when `url` starts with `http://` or `https://` (in any case): it is
/// not joined to `base_url`.
pub fn is_absolute(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// `base_url` and a relative `url` joined as strings with exactly one `/`
/// between them (`https://api/v1` + `/repos` is `https://api/v1/repos`); a
/// `url` starting with `?` or `#` is appended as is; an empty one is `base`.
pub fn join(base: &str, url: &str) -> String {
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

/// The byte length of `url`'s origin (scheme, `//`, userinfo, host, port),
/// or `None` when it has no scheme (a relative url).
pub fn origin_len(url: &str) -> Option<usize> {
    let colon = url.find([':', '/', '?', '#'])?;
    if url.as_bytes()[colon] != b':' {
        return None;
    }
    let after = &url[colon + 1..];
    let slashes = after.len() - after.trim_start_matches(['/', '\\']).len();
    if slashes == 0 {
        return Some(colon);
    }
    let authority_start = colon + 1 + slashes;
    let authority = &url[authority_start..];
    Some(authority_start + authority.find(['/', '?', '#']).unwrap_or(authority.len()))
}

/// The origin of `url` as text (the whole url when it has no path), for
/// comparing a built URL with its template; `None` for a relative url.
pub fn origin(url: &str) -> Option<&str> {
    origin_len(url).map(|n| &url[..n])
}

/// The template a request's URL is built from: `url` itself when it is
/// absolute, else `url` joined to `base_url` (`None` without one).
pub fn effective_template(url: &str, base_url: Option<&str>) -> Option<String> {
    if is_absolute(url) {
        return Some(url.to_string());
    }
    base_url.map(|base| join(base, url))
}

/// The first placeholder that stands in the origin of the URL a command
/// builds: in `url`'s own (a relative `url` whose values could make it
/// absolute, `{scheme}://host`, included), or in that of `url` joined to
/// `base_url`.
pub fn origin_placeholder(url: &str, base_url: Option<&str>) -> Option<String> {
    placeholder_in_origin(url).or_else(|| {
        effective_template(url, base_url)
            .as_deref()
            .and_then(placeholder_in_origin)
    })
}

/// The first placeholder (`{arg}` or `${NAME}`, as written) that stands in
/// `template`'s origin.
pub fn placeholder_in_origin(template: &str) -> Option<String> {
    let end = origin_len(template)?;
    let mut at = 0;
    for piece in template_pieces(template) {
        if at >= end {
            return None;
        }
        match piece {
            Piece::Text(t) => at += t.len(),
            Piece::Arg(name) => return Some(format!("{{{name}}}")),
            Piece::Material(name) => return Some(format!("${{{name}}}")),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_is_scheme_userinfo_host_and_port() {
        assert_eq!(
            origin("https://u:p@api.example:8443/v1?q#f"),
            Some("https://u:p@api.example:8443")
        );
        assert_eq!(origin("http://host"), Some("http://host"));
        assert_eq!(origin("http://host?x=1"), Some("http://host"));
        assert_eq!(origin("https:/host/x"), Some("https:/host"));
        assert_eq!(origin("http:\\\\host/x"), Some("http:\\\\host"));
        assert_eq!(origin("mailto:x"), Some("mailto"));
        assert_eq!(origin("repos/{owner}:x"), None);
        assert_eq!(origin("/repos"), None);
        assert_eq!(origin("?q=1"), None);
        assert_eq!(origin(""), None);
    }

    #[test]
    fn placeholders_in_the_origin_are_found_and_the_path_is_free() {
        let found = |t: &str| placeholder_in_origin(t);
        assert_eq!(found("http://{host}/x").as_deref(), Some("{host}"));
        assert_eq!(
            found("HTTPS://api.{env}.example/x").as_deref(),
            Some("{env}")
        );
        assert_eq!(
            found("{scheme}://evil.example/").as_deref(),
            Some("{scheme}")
        );
        assert_eq!(
            found("https://{user}@api.example/").as_deref(),
            Some("{user}")
        );
        assert_eq!(
            found("https://api.example:{port}/").as_deref(),
            Some("{port}")
        );
        assert_eq!(found("https://${HOST}/").as_deref(), Some("${HOST}"));
        assert_eq!(found("https:/{host}/x").as_deref(), Some("{host}"));
        assert_eq!(found("https://api.example/{owner}?q={q}#{f}"), None);
        assert_eq!(found("https://api.example?q={q}"), None);
        assert_eq!(found("{owner}/repos"), None);
        let of = |u: &str, b: &str| origin_placeholder(u, Some(b));
        assert_eq!(
            of("{s}://evil.example/", "https://api").as_deref(),
            Some("{s}")
        );
        assert_eq!(of("{host}/x", "https://").as_deref(), Some("{host}"));
        assert_eq!(
            of("/x", "https://{tenant}.example").as_deref(),
            Some("{tenant}")
        );
        assert_eq!(of("items:{id}", "https://api"), None);
        assert_eq!(of("/repos/{owner}", "https://api"), None);
    }

    #[test]
    fn relative_urls_are_read_joined_to_base_url() {
        let joined = |u: &str, b: Option<&str>| effective_template(u, b);
        assert_eq!(
            joined("/repos/{o}", Some("https://api/v1/")).as_deref(),
            Some("https://api/v1/repos/{o}")
        );
        assert_eq!(
            joined("{host}/x", Some("https://")).as_deref(),
            Some("https:/{host}/x")
        );
        assert_eq!(
            joined("http://{h}/", Some("https://api")).as_deref(),
            Some("http://{h}/")
        );
        assert_eq!(
            joined("items:{id}", Some("https://api")).as_deref(),
            Some("https://api/items:{id}")
        );
        assert_eq!(joined("/x", None), None);
        assert_eq!(join("https://api", "?q=1"), "https://api?q=1");
        assert_eq!(join("https://api", ""), "https://api");
    }
}
