//! Principals and grants (HCP.md §9): what a principal holds — everything
//! while `grants` is absent (§9.3), else what is listed for it — and who may
//! change grants: once `grants` is present, only a holder of the unscoped `*`
//! (§9.4). The grants themselves are parsed when the state is read
//! (`store::grant`).

use crate::engine::error::{Error, ErrorCode, Fix, Result};
use crate::engine::store::state::State;
use std::collections::BTreeMap;

pub use crate::engine::store::grant::{Capability, Grant, GrantEntry};

/// The capabilities of §9.2.
pub const PACK_INSTALL: Capability = Capability::PackInstall;
pub const PACK_CONNECT: Capability = Capability::PackConnect;
pub const EXEC_READ: Capability = Capability::ExecRead;
pub const EXEC_WRITE: Capability = Capability::ExecWrite;

/// The principal used when none is named (§9.1).
pub const DEFAULT_PRINCIPAL: &str = "user";

/// `state.json`'s `grants`: principal → grants.
pub type Grants = BTreeMap<String, Vec<GrantEntry>>;

/// Whether `principal` holds `capability` for `pack_id` (§9.3).
pub fn holds(
    grants: Option<&Grants>,
    principal: &str,
    capability: Capability,
    pack_id: &str,
) -> bool {
    let Some(grants) = grants else { return true };
    grants.get(principal).is_some_and(|list| {
        list.iter()
            .filter_map(GrantEntry::grant)
            .any(|g| g.allows(capability, pack_id))
    })
}

/// Whether `principal` holds `capability` unscoped (§9.2: what changes
/// where packs come from or go, `pack.install`, counts only unscoped).
pub fn holds_unscoped(grants: Option<&Grants>, principal: &str, capability: Capability) -> bool {
    let Some(grants) = grants else { return true };
    grants.get(principal).is_some_and(|list| {
        list.iter()
            .filter_map(GrantEntry::grant)
            .any(|g| g.scope.is_none() && g.capability.covers(capability))
    })
}

/// Whether `principal` holds the unscoped `*` in `grants`.
fn holds_all(grants: &Grants, principal: &str) -> bool {
    let all = GrantEntry::Valid(Grant::all());
    grants
        .get(principal)
        .is_some_and(|list| list.contains(&all))
}

/// Refuses unless `principal` may change grants (§9.4): anyone under the
/// single-user default, else only a holder of the unscoped `*`.
pub fn require_admin(state: &State, principal: &str) -> Result<()> {
    match &state.grants {
        Some(grants) if !holds_all(grants, principal) => Err(Error::new(
            ErrorCode::GrantMissing,
            format!("principal `{principal}` does not hold `*`, which changing grants needs"),
        )
        .grant("*")
        .fix(Fix::Grant {
            principal: principal.to_string(),
            grant: "*".to_string(),
        })),
        _ => Ok(()),
    }
}

/// Reads a grant given on the command line; anything else is `usage`.
pub fn parse_grant(text: &str) -> Result<Grant> {
    Grant::parse(text).map_err(|why| Error::usage(why.to_string()).grant(text))
}

pub use crate::engine::store::principal::Principal;

/// Checks a principal's name (see [`Principal::parse`]).
pub fn parse_principal(name: &str) -> Result<()> {
    Principal::parse(name).map(|_| ())
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
/// default principal does not silently lose everything, and someone can
/// still change grants (§9.4), `user` is then given the unscoped `*`.
pub fn grant(state: &mut State, principal: &Principal, grant: &Grant) -> GrantChange {
    let enforced_now = state.grants.is_none();
    let grants = state.grants.get_or_insert_with(|| {
        Grants::from([(
            DEFAULT_PRINCIPAL.to_string(),
            vec![GrantEntry::Valid(Grant::all())],
        )])
    });
    let list = grants.entry(principal.to_string()).or_default();
    let entry = GrantEntry::Valid(grant.clone());
    let changed = !list.contains(&entry);
    if changed {
        list.push(entry);
        list.sort_by_cached_key(GrantEntry::to_string);
    }
    GrantChange {
        changed: changed || enforced_now,
        enforced_now,
    }
}

/// Removes a grant; false if the principal did not hold it. Under the
/// single-user default there is nothing to revoke. `text` may also be an
/// entry of the file that is no grant (`doctor` reports those), to remove
/// it. Removing the last unscoped `*` is refused (`usage`): nobody could
/// change grants any more.
pub fn revoke(state: &mut State, principal: &Principal, text: &str) -> Result<bool> {
    let Some(grants) = state.grants.as_mut() else {
        parse_grant(text)?;
        return Ok(false);
    };
    let entry = match parse_grant(text) {
        Ok(grant) => GrantEntry::Valid(grant),
        Err(err) => {
            let invalid = GrantEntry::Invalid(text.to_string());
            let listed = grants
                .get(principal.as_str())
                .is_some_and(|l| l.contains(&invalid));
            if !listed {
                return Err(err);
            }
            invalid
        }
    };
    let holder = principal.as_str();
    if !grants.get(holder).is_some_and(|l| l.contains(&entry)) {
        return Ok(false);
    }
    if entry == GrantEntry::Valid(Grant::all())
        && !grants.keys().any(|p| p != holder && holds_all(grants, p))
    {
        return Err(Error::usage(format!(
            "`{principal}` holds the last `*`: without it nobody could change grants"
        ))
        .grant("*")
        .hint("grant `*` to another principal first, or remove `grants` from state.json to return to the single-user default"));
    }
    if let Some(list) = grants.get_mut(holder) {
        list.retain(|g| *g != entry);
        if list.is_empty() {
            grants.remove(holder);
        }
    }
    Ok(true)
}

/// The entries of `grants` that are no grant, as (principal, text, why).
pub fn invalid_entries(grants: &Grants) -> Vec<(&str, &str, String)> {
    grants
        .iter()
        .flat_map(|(principal, list)| {
            list.iter().filter_map(move |entry| match entry {
                GrantEntry::Invalid(text) => Some((
                    principal.as_str(),
                    text.as_str(),
                    Grant::parse(text)
                        .err()
                        .map(|e| e.to_string())
                        .unwrap_or_default(),
                )),
                GrantEntry::Valid(_) => None,
            })
        })
        .collect()
}

/// Whether some principal holds the unscoped `*` (and so can change grants).
pub fn has_admin(grants: &Grants) -> bool {
    grants.keys().any(|p| holds_all(grants, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: &[(&str, &[&str])]) -> Grants {
        entries
            .iter()
            .map(|(p, g)| {
                let list = g.iter().map(|s| GrantEntry::from(s.to_string())).collect();
                (p.to_string(), list)
            })
            .collect()
    }

    fn who(name: &str) -> Principal {
        Principal::parse(name).unwrap_or_else(|e| panic!("{e}"))
    }

    fn g(text: &str) -> Grant {
        Grant::parse(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn absent_grants_allow_everything() {
        assert!(holds(None, "anyone", EXEC_WRITE, "a.b"));
        assert!(require_admin(&State::default(), "anyone").is_ok());
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
    fn unknown_entries_give_nothing_and_are_listed() {
        let g = map(&[("bot", &["verb.exec.delete", "*:Not An Id"])]);
        assert!(!holds(Some(&g), "bot", EXEC_READ, "a.b"));
        let found: Vec<(&str, &str)> = invalid_entries(&g)
            .iter()
            .map(|(p, t, _)| (*p, *t))
            .collect();
        assert_eq!(
            found,
            vec![("bot", "verb.exec.delete"), ("bot", "*:Not An Id")]
        );
    }

    #[test]
    fn only_the_unscoped_star_may_change_grants() {
        let state = State {
            grants: Some(map(&[
                ("ops", &["*"]),
                ("bot", &["*:acme.x"]),
                (
                    "agent",
                    &[
                        "verb.exec.read",
                        "pack.install",
                        "pack.connect",
                        "verb.exec.write",
                    ],
                ),
            ])),
            ..State::default()
        };
        assert!(require_admin(&state, "ops").is_ok());
        for principal in ["bot", "agent", "nobody"] {
            let err = require_admin(&state, principal)
                .err()
                .unwrap_or_else(|| panic!("{principal}"));
            assert_eq!(err.code, ErrorCode::GrantMissing);
            assert_eq!(err.context.grant.as_deref(), Some("*"));
        }
    }

    #[test]
    fn first_grant_keeps_the_default_user_whole() {
        let mut s = State::default();
        let change = grant(&mut s, &who("agent"), &g("verb.exec.read"));
        assert!(change.enforced_now);
        assert!(holds(s.grants.as_ref(), "user", EXEC_WRITE, "a.b"));
        assert!(holds(s.grants.as_ref(), "agent", EXEC_READ, "a.b"));
        assert!(!holds(s.grants.as_ref(), "agent", EXEC_WRITE, "a.b"));
        assert!(require_admin(&s, "user").is_ok());
    }

    #[test]
    fn a_first_grant_for_user_still_leaves_someone_to_change_grants() {
        let mut s = State::default();
        grant(&mut s, &who("user"), &g("verb.exec.read"));
        assert!(require_admin(&s, "user").is_ok());
        assert!(s.grants.as_ref().is_some_and(has_admin));
    }

    #[test]
    fn bad_grants_are_usage_errors() {
        let err = parse_grant("verb.exec.delete").err().map(|e| e.code);
        assert_eq!(err, Some(ErrorCode::Usage));
        assert!(parse_grant("verb.exec.read:Bad Id").is_err());
        assert!(parse_grant("verb.exec.read:acme.x").is_ok());
        assert!(parse_grant("*").is_ok());
    }

    #[test]
    fn revoke_removes_only_that_grant() {
        let mut s = State::default();
        let agent = who("agent");
        grant(&mut s, &agent, &g("verb.exec.read"));
        grant(&mut s, &agent, &g("verb.exec.write"));
        assert_eq!(revoke(&mut s, &agent, "verb.exec.read").ok(), Some(true));
        assert!(!holds(s.grants.as_ref(), "agent", EXEC_READ, "a.b"));
        assert!(holds(s.grants.as_ref(), "agent", EXEC_WRITE, "a.b"));
        assert_eq!(revoke(&mut s, &agent, "verb.exec.read").ok(), Some(false));
    }

    #[test]
    fn revoke_removes_an_unknown_entry_only_if_listed() {
        let mut s = State {
            grants: Some(map(&[("user", &["*"]), ("bot", &["verb.exec.delete"])])),
            ..State::default()
        };
        let bot = who("bot");
        let other = revoke(&mut s, &bot, "verb.exec.erase")
            .err()
            .map(|e| e.code);
        assert_eq!(other, Some(ErrorCode::Usage));
        assert_eq!(revoke(&mut s, &bot, "verb.exec.delete").ok(), Some(true));
        assert!(
            s.grants
                .as_ref()
                .is_some_and(|g| invalid_entries(g).is_empty())
        );
    }

    #[test]
    fn the_last_star_is_not_revoked() {
        let mut s = State::default();
        grant(&mut s, &who("agent"), &g("verb.exec.read"));
        let before = s.clone();
        let err = revoke(&mut s, &who("user"), "*").err().map(|e| e.code);
        assert_eq!(err, Some(ErrorCode::Usage));
        assert_eq!(s, before);
        grant(&mut s, &who("ops"), &g("*"));
        assert_eq!(revoke(&mut s, &who("user"), "*").ok(), Some(true));
    }
}
