//! `grant` and `revoke` in words (§9.3–§9.4): what changed, and when a
//! grant first wrote the store's `grants` down, what it wrote.

use crate::engine::pack::text::one_line;
use crate::engine::policy::grants::GrantsFrom;
use std::fmt::{Result, Write};

/// `(revoke, changed, written_from)` say what was done.
pub fn write(
    w: &mut impl Write,
    principal: &str,
    grant: &str,
    (revoke, changed, written_from): (bool, bool, Option<GrantsFrom>),
) -> Result {
    let (principal, grant) = (one_line(principal), one_line(grant));
    match (revoke, changed) {
        (false, true) => writeln!(w, "granted {grant} to {principal}")?,
        (false, false) => writeln!(w, "{principal} already holds {grant}")?,
        (true, true) => writeln!(w, "revoked {grant} from {principal}")?,
        (true, false) => writeln!(w, "{principal} did not hold {grant}")?,
    }
    match written_from {
        Some(GrantsFrom::Default) => writeln!(
            w,
            "grants are now written in state.json: `user` keeps `*`, every principal not listed keeps `verb.exec.read` (the defaults)"
        )?,
        Some(GrantsFrom::UserStore) => writeln!(
            w,
            "this store's grants are now its own: what the user store gave each principal was copied first"
        )?,
        Some(GrantsFrom::ProjectStore) | None => {}
    }
    Ok(())
}

/// Where `principal`'s grants come from, in a few words: what
/// `availability`, `why`, the TUI and `hcpx mcp` say (§9.3).
pub fn source_words(principal: &str, from: GrantsFrom) -> &'static str {
    match from {
        GrantsFrom::Default if principal == crate::engine::policy::grants::DEFAULT_PRINCIPAL => {
            "defaults — every capability"
        }
        GrantsFrom::Default => "defaults — read commands only",
        GrantsFrom::UserStore => "the user store's grants",
        GrantsFrom::ProjectStore => "this project's grants",
    }
}

/// `principal: NAME (grants: ...)`, one source or several (packs of both
/// stores).
pub fn principal_line(principal: &str, froms: &[GrantsFrom]) -> String {
    let mut seen: Vec<GrantsFrom> = Vec::new();
    for from in froms {
        if !seen.contains(from) {
            seen.push(*from);
        }
    }
    let words: Vec<&str> = seen.iter().map(|f| source_words(principal, *f)).collect();
    let shown = one_line(principal);
    match words.as_slice() {
        [] => format!("principal: {shown}"),
        [one] => format!("principal: {shown} (grants: {one})"),
        many => format!("principal: {shown} (grants: {}, by pack)", many.join("; ")),
    }
}

/// Where the grants come from, shortest: the TUI's status line.
pub fn short_source(principal: &str, from: GrantsFrom) -> &'static str {
    match from {
        GrantsFrom::Default if principal == crate::engine::policy::grants::DEFAULT_PRINCIPAL => {
            "default grants"
        }
        GrantsFrom::Default => "default grants: read commands only",
        GrantsFrom::UserStore => "user store's grants",
        GrantsFrom::ProjectStore => "project's grants",
    }
}

/// What `principal` may do and where that comes from, e.g. `agent: read
/// commands only (default grants)`; `admin`: it holds the unscoped `*`.
pub fn summary(principal: &str, from: GrantsFrom, admin: bool) -> String {
    let may = match (admin, from) {
        (true, _) => "every capability",
        (false, GrantsFrom::Default) => "read commands only",
        (false, _) => "only what it is granted",
    };
    let source = match from {
        GrantsFrom::Default => "default grants",
        GrantsFrom::UserStore => "the user store's grants",
        GrantsFrom::ProjectStore => "the project's grants",
    };
    format!("{}: {may} ({source})", one_line(principal))
}
