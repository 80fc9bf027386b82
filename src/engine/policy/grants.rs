//! Principals and grants (HCP.md §9): capabilities, optionally scoped to one
//! pack, `*` for all, and the single-user default when `grants` is absent.

use crate::engine::error::{Error, Result};
use crate::engine::pack::grammar;
use crate::engine::store::state::State;
use std::collections::BTreeMap;

/// The capabilities of §9.2.
pub const PACK_INSTALL: &str = "pack.install";
pub const PACK_CONNECT: &str = "pack.connect";
pub const EXEC_READ: &str = "verb.exec.read";
pub const EXEC_WRITE: &str = "verb.exec.write";
pub const CAPABILITIES: &[&str] = &[PACK_INSTALL, PACK_CONNECT, EXEC_READ, EXEC_WRITE];

/// The principal used when none is named (§9.1).
pub const DEFAULT_PRINCIPAL: &str = "user";

/// Whether `principal` holds `capability` for `pack_id` (§9.3).
pub fn holds(
    grants: Option<&BTreeMap<String, Vec<String>>>,
    principal: &str,
    capability: &str,
    pack_id: &str,
) -> bool {
    let Some(grants) = grants else { return true };
    let Some(list) = grants.get(principal) else {
        return false;
    };
    list.iter().any(|grant| {
        let (cap, scope) = match grant.split_once(':') {
            Some((cap, scope)) => (cap, Some(scope)),
            None => (grant.as_str(), None),
        };
        (cap == "*" || cap == capability) && scope.is_none_or(|s| s == pack_id)
    })
}

/// Checks a grant's spelling: `CAPABILITY[:PACK_ID]` or `*[:PACK_ID]`.
pub fn parse_grant(grant: &str) -> Result<()> {
    let (cap, scope) = match grant.split_once(':') {
        Some((cap, scope)) => (cap, Some(scope)),
        None => (grant, None),
    };
    if cap != "*" && !CAPABILITIES.contains(&cap) {
        return Err(Error::usage(format!(
            "unknown capability `{cap}`: expected one of {}, or *",
            CAPABILITIES.join(", ")
        ))
        .grant(grant));
    }
    if let Some(scope) = scope
        && !grammar::is_pack_id(scope)
    {
        return Err(Error::usage(format!(
                "`{scope}` is not a pack_id; a scoped grant is CAPABILITY:PACK_ID, e.g. verb.exec.write:acme.github"
            ))
            .grant(grant));
    }
    Ok(())
}

/// Checks a principal's name: non-empty, printable, no white space.
pub fn parse_principal(name: &str) -> Result<()> {
    if name.is_empty()
        || name.len() > 128
        || name.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(Error::usage(format!(
            "`{}` is not a principal name: use 1 to 128 printable characters without spaces",
            name.escape_default()
        )));
    }
    Ok(())
}

/// What `grant` changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantChange {
    pub changed: bool,
    /// True when this grant switched the store from the single-user default
    /// to explicit grants; `user` was then given `*` so it keeps working.
    pub enforced_now: bool,
}

/// Adds a grant. The first grant turns enforcement on (§9.3); so that the
/// default principal does not silently lose everything, it is given `*`
/// unless the grant is for it.
pub fn grant(state: &mut State, principal: &str, grant: &str) -> Result<GrantChange> {
    parse_principal(principal)?;
    parse_grant(grant)?;
    let enforced_now = state.grants.is_none();
    let grants = state.grants.get_or_insert_with(|| {
        let mut map = BTreeMap::new();
        if principal != DEFAULT_PRINCIPAL {
            map.insert(DEFAULT_PRINCIPAL.to_string(), vec!["*".to_string()]);
        }
        map
    });
    let list = grants.entry(principal.to_string()).or_default();
    let changed = !list.iter().any(|g| g == grant);
    if changed {
        list.push(grant.to_string());
        list.sort();
    }
    Ok(GrantChange {
        changed: changed || enforced_now,
        enforced_now,
    })
}

/// Removes a grant; false if the principal did not hold it. Under the
/// single-user default there is nothing to revoke.
pub fn revoke(state: &mut State, principal: &str, grant: &str) -> Result<bool> {
    parse_principal(principal)?;
    parse_grant(grant)?;
    let Some(grants) = state.grants.as_mut() else {
        return Ok(false);
    };
    let Some(list) = grants.get_mut(principal) else {
        return Ok(false);
    };
    let before = list.len();
    list.retain(|g| g != grant);
    let changed = list.len() != before;
    if list.is_empty() {
        grants.remove(principal);
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        entries
            .iter()
            .map(|(p, g)| (p.to_string(), g.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn absent_grants_allow_everything() {
        assert!(holds(None, "anyone", EXEC_WRITE, "a.b"));
    }

    #[test]
    fn present_grants_allow_only_what_is_listed() {
        let g = map(&[("agent", &["verb.exec.read", "verb.exec.write:acme.github"])]);
        assert!(holds(Some(&g), "agent", EXEC_READ, "x.y"));
        assert!(holds(Some(&g), "agent", EXEC_WRITE, "acme.github"));
        assert!(!holds(Some(&g), "agent", EXEC_WRITE, "x.y"));
        assert!(!holds(Some(&g), "agent", PACK_INSTALL, "x.y"));
        assert!(!holds(Some(&g), "user", EXEC_READ, "x.y"));
    }

    #[test]
    fn star_is_every_capability() {
        let g = map(&[("ops", &["*"]), ("bot", &["*:acme.x"])]);
        assert!(holds(Some(&g), "ops", PACK_CONNECT, "q.r"));
        assert!(holds(Some(&g), "bot", EXEC_WRITE, "acme.x"));
        assert!(!holds(Some(&g), "bot", EXEC_WRITE, "acme.y"));
    }

    #[test]
    fn first_grant_keeps_the_default_user_whole() {
        let mut s = State::default();
        let change = grant(&mut s, "agent", EXEC_READ).unwrap_or_else(|e| panic!("{e}"));
        assert!(change.enforced_now);
        assert!(holds(s.grants.as_ref(), "user", EXEC_WRITE, "a.b"));
        assert!(holds(s.grants.as_ref(), "agent", EXEC_READ, "a.b"));
        assert!(!holds(s.grants.as_ref(), "agent", EXEC_WRITE, "a.b"));
    }

    #[test]
    fn bad_grants_are_usage_errors() {
        assert!(parse_grant("verb.exec.delete").is_err());
        assert!(parse_grant("verb.exec.read:Bad Id").is_err());
        assert!(parse_grant("verb.exec.read:acme.x").is_ok());
        assert!(parse_grant("*").is_ok());
    }

    #[test]
    fn revoke_removes_only_that_grant() {
        let mut s = State::default();
        let _ = grant(&mut s, "agent", EXEC_READ);
        let _ = grant(&mut s, "agent", EXEC_WRITE);
        assert_eq!(revoke(&mut s, "agent", EXEC_READ).ok(), Some(true));
        assert!(!holds(s.grants.as_ref(), "agent", EXEC_READ, "a.b"));
        assert!(holds(s.grants.as_ref(), "agent", EXEC_WRITE, "a.b"));
        assert_eq!(revoke(&mut s, "agent", EXEC_READ).ok(), Some(false));
    }
}
