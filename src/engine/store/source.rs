//! Where a pack comes from (HCP.md §13.1): the `SOURCE` of `hcpx install`,
//! parsed once into an [`InstallSource`] that the CLI, the TUI and `sync`
//! share, so no front-end passes source strings around.
//!
//! - `git+URL[//SUBDIR][#REF]`: URL is what the `git` program accepts. The
//!   SUBDIR separator is the first `//` after the URL's own `scheme://`
//!   (`git+file:///srv/repo//packs/notes`); REF follows the first `#`.
//! - `github:OWNER/REPO[/SUBDIR][#REF]` means
//!   `git+https://github.com/OWNER/REPO.git[//SUBDIR][#REF]`, and so do
//!   `https://github.com/OWNER/REPO[.git]` and
//!   `https://github.com/OWNER/REPO/tree/REF[/SUBDIR]` (REF is the one part
//!   after `tree`) as pasted from a browser;
//! - a word starting with `/`, `./`, `../` or `~` is a folder;
//! - a word that is a pack id is a catalog pack, else a folder of that name
//!   ([`InstallSource::Catalog`]: the catalogs are asked first, §11.6);
//! - another word with a `/` is a folder if one exists there, else
//!   `OWNER/REPO[/SUBDIR][#REF]` on GitHub ([`InstallSource::DirOrGithub`]);
//! - anything else is a folder path.
//!
//! Parsing looks at nothing on disk; the existence checks happen in one
//! place, when the engine resolves the source with its catalogs known.
//!
//! Where the spec is silent (refused as `usage`, before anything runs):
//! a SUBDIR that is absolute or has `..`, `.` or empty parts; a URL or REF
//! that starts with `-` (it would reach git as an option) or holds a
//! control character or whitespace; a REF with `..`; the `ext::` and `fd::`
//! transports (they run programs); a `scheme://` URL without `git+` (it
//! would be looked for as a folder, and its password echoed). Credentials
//! in a URL (`https://user:token@host/..`, `https://token@host/..`) never
//! reach a message or the lock: [`redact_url`] drops them.

use crate::engine::error::{Error, Fix, Hint, Result};
use crate::engine::pack::grammar;
use crate::engine::pack::id::PackId;
use std::path::PathBuf;

/// What `hcpx install SOURCE` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallSource {
    /// A pack folder.
    Dir(PathBuf),
    /// A pack id: the pack of the first catalog holding it, else the
    /// folder of that name in the working directory.
    Catalog(PackId),
    /// A folder of a git repository at a ref.
    Git(GitSource),
    /// A word with a `/` such as `anthropics/skills/skills/pdf`: the folder
    /// when it exists, else that GitHub repository.
    DirOrGithub(PathBuf, GitSource),
}

/// A git source: the repository, the pack's folder in it, and the ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSource {
    /// The URL as git takes it (credentials included, if given).
    pub url: String,
    /// The pack's folder in the repository, `/`-separated; `None`: its root.
    pub subdir: Option<String>,
    /// A branch, tag or full commit; `None`: the remote's default branch.
    pub reference: Option<String>,
}

impl GitSource {
    /// The source as the user would write it, with the URL's password
    /// removed: for messages.
    pub fn display(&self) -> String {
        let mut text = format!("git+{}", redact_url(&self.url));
        if let Some(subdir) = &self.subdir {
            text.push_str("//");
            text.push_str(subdir);
        }
        if let Some(reference) = &self.reference {
            text.push('#');
            text.push_str(reference);
        }
        text
    }

    /// Whether the ref is a full commit id (40 or 64 hex digits).
    pub fn reference_is_commit(&self) -> bool {
        self.reference.as_deref().is_some_and(is_commit_id)
    }
}

/// Whether `s` is a full commit id: 40 (SHA-1) or 64 (SHA-256) hex digits.
pub fn is_commit_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

impl InstallSource {
    /// Parses `SOURCE` (pure: nothing on disk is looked at), in the order
    /// of HCP.md §11.6.
    pub fn parse(source: &str) -> Result<InstallSource> {
        if let Some(rest) = source.strip_prefix("git+") {
            return parse_git(source, rest).map(InstallSource::Git);
        }
        if let Some(rest) = source.strip_prefix("github:") {
            return parse_github(source, rest).map(InstallSource::Git);
        }
        if let Some(git) = parse_github_url(source) {
            return git.map(InstallSource::Git);
        }
        if source.is_empty() {
            return Err(Error::usage(
                "the source is empty: name a folder, a pack id or a git source",
            ));
        }
        if is_explicit_path(source) {
            return Ok(InstallSource::Dir(PathBuf::from(source)));
        }
        if grammar::is_pack_id(source)
            && let Some(id) = PackId::parse(source)
        {
            return Ok(InstallSource::Catalog(id));
        }
        if has_url_scheme(source) {
            let shown = redact_url(source).escape_default().to_string();
            return Err(Error::usage(format!(
                "`{shown}` is a URL, not a folder: a git repository is written git+URL"
            ))
            .hint(Hint::from("e.g. ").cmd(Fix::Install {
                pack: format!("git+{shown}"),
                force: false,
            })));
        }
        if source.contains('/')
            && let Ok(git) = parse_github(source, source)
        {
            return Ok(InstallSource::DirOrGithub(PathBuf::from(source), git));
        }
        Ok(InstallSource::Dir(PathBuf::from(source)))
    }

    /// The source as the user would write it, without a URL's password.
    pub fn display(&self) -> String {
        match self {
            InstallSource::Dir(path) | InstallSource::DirOrGithub(path, _) => {
                path.display().to_string()
            }
            InstallSource::Catalog(id) => id.to_string(),
            InstallSource::Git(git) => git.display(),
        }
    }
}

/// Whether a word is a path whatever else it could be: it starts with
/// `/`, `./`, `../` or `~` (§11.6), or is `.` or `..`.
fn is_explicit_path(source: &str) -> bool {
    source.starts_with('/')
        || source.starts_with("./")
        || source.starts_with("../")
        || source.starts_with('~')
        || source == "."
        || source == ".."
}

/// `https://github.com/OWNER/REPO[.git][/]` and
/// `https://github.com/OWNER/REPO/tree/REF[/SUBDIR]`: `None` when the word
/// is not a github.com URL (without credentials); an error when it is one
/// of another shape.
fn parse_github_url(source: &str) -> Option<Result<GitSource>> {
    let lower = source.get(..19)?.to_ascii_lowercase();
    let rest = match lower.as_str() {
        "https://github.com/" => &source[19..],
        _ if source.len() > 23 && source[..23].eq_ignore_ascii_case("https://www.github.com/") => {
            &source[23..]
        }
        _ => return None,
    };
    let rest = rest.trim_end_matches('/');
    let parts: Vec<&str> = rest.splitn(5, '/').collect();
    let github = match parts.as_slice() {
        [owner, repo] => format!("{owner}/{repo}"),
        [owner, repo, "tree", reference] => format!("{owner}/{repo}#{reference}"),
        [owner, repo, "tree", reference, subdir] => {
            format!("{owner}/{repo}/{subdir}#{reference}")
        }
        _ => {
            return Some(Err(bad_source(
                source,
                "a GitHub URL names a repository, https://github.com/OWNER/REPO, or a folder of it, https://github.com/OWNER/REPO/tree/REF/SUBDIR",
            )));
        }
    };
    if rest.contains('#') {
        return Some(Err(bad_source(
            source,
            "write the ref after /tree/ in a GitHub URL",
        )));
    }
    Some(parse_github(source, &github))
}

/// Whether `s` starts with `scheme://` (letters, digits, `+`, `-`, `.`).
fn has_url_scheme(s: &str) -> bool {
    s.split_once("://").is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    })
}

fn parse_git(source: &str, rest: &str) -> Result<GitSource> {
    let (rest, reference) = split_ref(source, rest)?;
    // The SUBDIR separator is the first `//` after `scheme://`.
    let after_scheme = rest.find("://").map_or(0, |at| at + 3);
    let (url, subdir) = match rest[after_scheme..].find("//") {
        // `file:///path`: the third slash is the path's own.
        Some(0) if rest[..after_scheme].ends_with("://") => {
            match rest[after_scheme + 1..].find("//") {
                Some(at) => split_at(rest, after_scheme + 1 + at),
                None => (rest, None),
            }
        }
        Some(at) => split_at(rest, after_scheme + at),
        None => (rest, None),
    };
    check_url(source, url)?;
    let subdir = subdir.map(|s| check_subdir(source, s)).transpose()?;
    Ok(GitSource {
        url: url.to_string(),
        subdir: subdir.flatten(),
        reference,
    })
}

fn split_at(rest: &str, at: usize) -> (&str, Option<&str>) {
    (&rest[..at], Some(&rest[at + 2..]))
}

fn parse_github(source: &str, rest: &str) -> Result<GitSource> {
    let (rest, reference) = split_ref(source, rest)?;
    let mut parts = rest.splitn(3, '/');
    let (owner, repo) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let name_ok = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && !s.starts_with('-')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    if !name_ok(owner) || !name_ok(repo) {
        return Err(bad_source(
            source,
            "github: takes OWNER/REPO[/SUBDIR][#REF], e.g. github:acme/packs/notes#v1.0.0",
        ));
    }
    let repo = repo.strip_suffix(".git").unwrap_or(repo);
    // `github:OWNER/REPO//SUBDIR` (the `//` of `git+URL//SUBDIR`, as in
    // HCP.md §15.2's example) means the same as `/SUBDIR`.
    let subdir = parts
        .next()
        .map(|s| check_subdir(source, s.strip_prefix('/').unwrap_or(s)))
        .transpose()?;
    Ok(GitSource {
        url: format!("https://github.com/{owner}/{repo}.git"),
        subdir: subdir.flatten(),
        reference,
    })
}

/// Splits `#REF` off, checking the ref.
fn split_ref<'a>(source: &str, rest: &'a str) -> Result<(&'a str, Option<String>)> {
    let Some((head, reference)) = rest.split_once('#') else {
        return Ok((rest, None));
    };
    if !is_safe_ref(reference) {
        return Err(bad_source(
            source,
            "REF after `#` must be a branch, a tag or a full commit id",
        ));
    }
    Ok((head, Some(reference.to_string())))
}

/// Whether a REF may reach git: not empty, no leading `-` (an option), no
/// `..`, whitespace, control or revision-syntax characters.
fn is_safe_ref(reference: &str) -> bool {
    !(reference.is_empty()
        || reference.starts_with('-')
        || reference.contains("..")
        || reference
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || "~^:?*[\\".contains(c)))
}

fn check_url(source: &str, url: &str) -> Result<()> {
    url_problem(url).map_or(Ok(()), |why| Err(bad_source(source, why)))
}

/// What is wrong with a URL for git, if anything.
fn url_problem(url: &str) -> Option<&'static str> {
    if url.is_empty() {
        return Some("the URL after `git+` is empty");
    }
    if url.starts_with('-') || url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Some("the URL must not start with `-` or hold spaces or control characters");
    }
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("ext::") || lower.starts_with("fd::") {
        return Some("the ext:: and fd:: transports run programs and are not accepted");
    }
    None
}

const BAD_SUBDIR: &str =
    "SUBDIR must be a relative folder inside the repository, without `.` or `..` parts";

/// A SUBDIR: relative, `/`-separated, no `.`, `..` or empty parts (a
/// trailing `/` is dropped). An empty SUBDIR is the root.
fn check_subdir(source: &str, subdir: &str) -> Result<Option<String>> {
    checked_subdir(subdir).ok_or_else(|| bad_source(source, BAD_SUBDIR))
}

/// [`check_subdir`]'s rule: `None` when the SUBDIR is refused.
fn checked_subdir(subdir: &str) -> Option<Option<String>> {
    let trimmed = subdir.trim_end_matches('/');
    if trimmed.is_empty() {
        return Some(None);
    }
    let bad_part = trimmed
        .split('/')
        .any(|p| p.is_empty() || p == "." || p == ".." || p.chars().any(char::is_control));
    if trimmed.starts_with('/') || bad_part {
        return None;
    }
    Some(Some(trimmed.to_string()))
}

/// What is wrong with a git source's parts as a lock file records them
/// (`url`, `subdir`, `ref`, `commit`), by the rules [`InstallSource::parse`]
/// applies to a SOURCE, if anything: a lock file is text anyone may have
/// edited, and these parts reach git and the file system.
pub fn locked_git_problem(
    url: Option<&str>,
    subdir: Option<&str>,
    reference: Option<&str>,
    commit: Option<&str>,
) -> Option<&'static str> {
    if let Some(why) = url.and_then(url_problem) {
        return Some(why);
    }
    if subdir.is_some_and(|s| checked_subdir(s).is_none()) {
        return Some(BAD_SUBDIR);
    }
    if reference.is_some_and(|r| !is_safe_ref(r)) {
        return Some("`ref` must be a branch, a tag or a full commit id");
    }
    if commit.is_some_and(|c| !is_commit_id(c)) {
        return Some("`commit` must be a full commit id (40 or 64 hex digits)");
    }
    None
}

fn bad_source(source: &str, why: &str) -> Error {
    let shown = redact_source(source);
    Error::usage(format!("bad source `{shown}`: {why}"))
        .hint("sources are a folder, a pack id, git+URL[//SUBDIR][#REF] or github:OWNER/REPO[/SUBDIR][#REF]")
}

/// A whole source string with the password of its URL removed.
pub fn redact_source(source: &str) -> String {
    match source.strip_prefix("git+") {
        Some(rest) => format!("git+{}", redact_url(rest)),
        None => source.escape_default().to_string(),
    }
}

/// A URL with its credentials removed. Over `http(s)://` everything
/// before `@` is a credential (`https://TOKEN@github.com/..` is a form
/// GitHub documents), so the whole userinfo goes; over other schemes
/// (`ssh://git@host/..`) the user names an account and stays, the password
/// goes. Everything else is kept.
pub fn redact_url(url: &str) -> String {
    let Some((start, at)) = userinfo_span(url) else {
        return url.to_string();
    };
    let userinfo = &url[start..at];
    if is_http(url) {
        return format!("{}{}", &url[..start], &url[at + 1..]);
    }
    let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
    format!("{}{user}{}", &url[..start], &url[at..])
}

/// A URL with its whole userinfo removed (`ssh://git@h/r` → `ssh://h/r`):
/// what two URLs are compared by when credentials do not matter (a
/// project's lock entry and its `hcp.yaml` entry, §15.3).
pub fn without_userinfo(url: &str) -> String {
    match userinfo_span(url) {
        Some((start, at)) => format!("{}{}", &url[..start], &url[at + 1..]),
        None => url.to_string(),
    }
}

/// The secret parts of a URL's userinfo, to be blanked out of git's
/// messages: the whole userinfo over `http(s)://`, and the password.
pub fn url_credentials(url: &str) -> Vec<&str> {
    let Some((start, at)) = userinfo_span(url) else {
        return Vec::new();
    };
    let userinfo = &url[start..at];
    let password = userinfo.split_once(':').map(|(_, p)| p);
    let whole = is_http(url).then_some(userinfo);
    whole
        .into_iter()
        .chain(password)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Where a URL's userinfo starts, and where its `@` is.
fn userinfo_span(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let authority_end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |at| start + at);
    let at = url[start..authority_end].rfind('@')?;
    Some((start, start + at))
}

fn is_http(url: &str) -> bool {
    let scheme = url.split_once("://").map_or("", |(scheme, _)| scheme);
    scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::error::ErrorCode;

    fn git(s: &str) -> GitSource {
        match InstallSource::parse(s) {
            Ok(InstallSource::Git(g)) => g,
            other => panic!("{s}: {other:?}"),
        }
    }

    fn refused(s: &str) {
        let err = InstallSource::parse(s).err();
        assert_eq!(err.map(|e| e.code), Some(ErrorCode::Usage), "{s}");
    }

    fn g(url: &str, subdir: Option<&str>, reference: Option<&str>) -> GitSource {
        GitSource {
            url: url.into(),
            subdir: subdir.map(Into::into),
            reference: reference.map(Into::into),
        }
    }

    #[test]
    fn git_sources_split_url_subdir_and_ref() {
        let cases = [
            ("git+https://h/r.git", g("https://h/r.git", None, None)),
            (
                "git+https://h/r.git//packs/notes#v1.2.0",
                g("https://h/r.git", Some("packs/notes"), Some("v1.2.0")),
            ),
            ("git+file:///srv/repo", g("file:///srv/repo", None, None)),
            (
                "git+file:///srv/repo//notes#main",
                g("file:///srv/repo", Some("notes"), Some("main")),
            ),
            (
                "git+ssh://git@h:22/r//a/b/",
                g("ssh://git@h:22/r", Some("a/b"), None),
            ),
            ("git+/srv/repo//x#t", g("/srv/repo", Some("x"), Some("t"))),
            (
                "git+https://h/r#feature/x",
                g("https://h/r", None, Some("feature/x")),
            ),
            ("git+https://h/r//", g("https://h/r", None, None)),
        ];
        for (text, want) in cases {
            assert_eq!(git(text), want, "{text}");
        }
    }

    #[test]
    fn github_is_shorthand_for_https() {
        assert_eq!(
            git("github:acme/packs/notes/v2#v1.0.0"),
            g(
                "https://github.com/acme/packs.git",
                Some("notes/v2"),
                Some("v1.0.0")
            )
        );
        assert_eq!(
            git("github:acme/packs.git"),
            g("https://github.com/acme/packs.git", None, None)
        );
        // `//SUBDIR` as in git+URL//SUBDIR (HCP.md §15.2's example).
        assert_eq!(
            git("github:anthropics/skills//skills/pdf"),
            g(
                "https://github.com/anthropics/skills.git",
                Some("skills/pdf"),
                None
            )
        );
        assert!(InstallSource::parse("github:a/b///x").is_err());
    }

    #[test]
    fn dangerous_or_malformed_sources_are_refused() {
        for s in [
            "git+",
            "git+https://h/r//../x",
            "git+https://h/r//a/../../x",
            "git+https://h/r//a/./b",
            "git+https://h/r//a//b",
            "git+https://h/r#",
            "git+https://h/r#-upload-pack=evil",
            "git+https://h/r#a..b",
            "git+https://h/r#a b",
            "git+--upload-pack=touch /tmp/x",
            "git+ext::sh -c touch% /tmp/pwned",
            "git+EXT::sh",
            "git+fd::3",
            "git+https://h/r\n",
            "github:",
            "github:acme",
            "github:-x/r",
            "github:acme/..",
            "github:acme/r/../x",
            "https://me:s3cret@h/r.git",
            "file:///srv/repo",
            "",
        ] {
            refused(s);
        }
    }

    #[test]
    fn ids_are_catalog_packs_and_the_rest_folders() {
        assert_eq!(
            InstallSource::parse("acme.notes").ok(),
            PackId::parse("acme.notes").map(InstallSource::Catalog)
        );
        for dir in [
            "./acme.notes",
            "/abs",
            "Not An Id",
            "..",
            "~/packs/x",
            "a b/c d",
        ] {
            assert_eq!(
                InstallSource::parse(dir).ok(),
                Some(InstallSource::Dir(PathBuf::from(dir))),
                "{dir}"
            );
        }
    }

    #[test]
    fn readme_forms_are_github_sources() {
        let gh = |subdir: Option<&str>, reference: Option<&str>| {
            g(
                "https://github.com/anthropics/skills.git",
                subdir,
                reference,
            )
        };
        let either = |s: &str| match InstallSource::parse(s) {
            Ok(InstallSource::DirOrGithub(path, git)) => {
                assert_eq!(path, PathBuf::from(s));
                git
            }
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(either("anthropics/skills"), gh(None, None));
        assert_eq!(
            either("anthropics/skills/skills/pdf#main"),
            gh(Some("skills/pdf"), Some("main"))
        );
        assert_eq!(
            either("packs/acme.notes"),
            g("https://github.com/packs/acme.notes.git", None, None)
        );
        let cases = [
            ("https://github.com/anthropics/skills", gh(None, None)),
            ("https://github.com/anthropics/skills.git", gh(None, None)),
            ("https://github.com/anthropics/skills/", gh(None, None)),
            (
                "https://github.com/anthropics/skills/tree/main",
                gh(None, Some("main")),
            ),
            (
                "https://github.com/anthropics/skills/tree/main/skills/pdf",
                gh(Some("skills/pdf"), Some("main")),
            ),
            (
                "HTTPS://www.github.com/anthropics/skills/tree/v1/skills",
                gh(Some("skills"), Some("v1")),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(git(text), want, "{text}");
        }
        for bad in [
            "https://github.com/anthropics",
            "https://github.com/anthropics/skills/issues",
            "https://github.com/anthropics/skills/tree/main/../x",
            "https://github.com/-x/skills",
        ] {
            refused(bad);
        }
    }

    #[test]
    fn passwords_never_show() {
        let s = git("git+https://me:s3cret@h/r.git//p#v1");
        assert_eq!(s.display(), "git+https://h/r.git//p#v1");
        assert_eq!(url_credentials(&s.url), ["me:s3cret", "s3cret"]);
        // A token as the user name (GitHub's form) is a credential too.
        assert_eq!(redact_url("https://ghp_tok@h/x"), "https://h/x");
        assert_eq!(url_credentials("HTTPS://ghp_tok@h/x"), ["ghp_tok"]);
        assert_eq!(redact_url("https://h/a@b"), "https://h/a@b");
        assert!(url_credentials("https://h/a@b").is_empty());
        // Over ssh the user names an account: kept; a password is not.
        assert_eq!(redact_url("ssh://git@h/r"), "ssh://git@h/r");
        assert!(url_credentials("ssh://git@h/r").is_empty());
        assert_eq!(redact_url("ssh://git:pw@h/r"), "ssh://git@h/r");
        assert_eq!(url_credentials("ssh://git:pw@h/r"), ["pw"]);
        let err = InstallSource::parse("git+https://me:s3cret@h/r#a b").err();
        let text = err.map(|e| e.message).unwrap_or_default();
        assert!(
            !text.contains("s3cret") && !text.contains("me@") && text.contains("https://h/r"),
            "{text}"
        );
    }

    #[test]
    fn commit_ids_are_recognised() {
        assert!(is_commit_id(&"a".repeat(40)));
        assert!(!is_commit_id(&"a".repeat(39)));
        assert!(!is_commit_id("main"));
        assert!(git(&format!("git+https://h/r#{}", "0".repeat(40))).reference_is_commit());
    }
}
