//! Principals and grants (HCP.md §9): what a principal holds and who may
//! change grants (§9.3–§9.4).
//!
//! - Where a store has no `grants`, the defaults hold: `user` holds `*`,
//!   every other principal `verb.exec.read` only. A project store without
//!   `grants` gives each principal what the user store gives it (§9.3).
//! - A principal not listed in `grants` holds what the key `"*"` lists
//!   (nothing where it is absent).
//! - Only a holder of the unscoped `*` may grant or revoke; the first
//!   `grant` writes what held until then, so nobody loses a default.
//!
//! [`InForce`] is the grants one store applies and where they were read
//! ([`GrantsFrom`], the `grants_from` of `availability` and `why`). The
//! grants themselves are parsed when the state is read (`store::grant`).

use crate::engine::error::{Error, ErrorCode, Fix, Result};
use crate::engine::store::state::State;
use serde::Serialize;
use std::collections::BTreeMap;

pub use crate::engine::store::grant::{Capability, Grant, GrantEntry};
pub use crate::engine::store::principal::EVERYONE_ELSE;

/// The capabilities of §9.2.
pub const PACK_INSTALL: Capability = Capability::PackInstall;
pub const PACK_CONNECT: Capability = Capability::PackConnect;
pub const EXEC_READ: Capability = Capability::ExecRead;
pub const EXEC_WRITE: Capability = Capability::ExecWrite;

/// The principal used when none is named (§9.1).
pub const DEFAULT_PRINCIPAL: &str = "user";

/// `state.json`'s `grants`: principal (or `"*"`) → grants.
pub type Grants = BTreeMap<String, Vec<GrantEntry>>;

/// Where the grants a store applies were read (§9.3): `grants_from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantsFrom {
    /// No `grants` anywhere: the defaults of §9.3.
    #[default]
    Default,
    /// The user store's `grants` (in a project store without its own).
    UserStore,
    /// The project store's own `grants`.
    ProjectStore,
}

impl GrantsFrom {
    pub fn as_str(self) -> &'static str {
        match self {
            GrantsFrom::Default => "default",
            GrantsFrom::UserStore => "user_store",
            GrantsFrom::ProjectStore => "project_store",
        }
    }
}

/// The grants one store applies (§9.3): its own `grants`, or, in a project
/// store without them, the user store's; `table` is `None` under the
/// defaults.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InForce {
    table: Option<Grants>,
    from: GrantsFrom,
}

impl InForce {
    /// The grants in force in a store whose own `grants` are `own`;
    /// `inherited` is the user store's [`InForce`] when the store is a
    /// project's (`None` for the user store itself).
    pub fn resolve(own: Option<&Grants>, inherited: Option<&InForce>) -> InForce {
        match (own, inherited) {
            (Some(table), None) => InForce {
                table: Some(table.clone()),
                from: GrantsFrom::UserStore,
            },
            (Some(table), Some(_)) => InForce {
                table: Some(table.clone()),
                from: GrantsFrom::ProjectStore,
            },
            (None, Some(inherited)) => inherited.clone(),
            (None, None) => InForce::default(),
        }
    }

    /// Where these grants were read.
    pub fn from(&self) -> GrantsFrom {
        self.from
    }

    /// The `grants` table in force; `None` under the defaults.
    pub fn table(&self) -> Option<&Grants> {
        self.table.as_ref()
    }

    /// Whether `principal` holds `capability` for `pack_id`.
    pub fn holds(&self, principal: &str, capability: Capability, pack_id: &str) -> bool {
        holds(self.table(), principal, capability, pack_id)
    }

    /// Whether `principal` holds `capability` unscoped.
    pub fn holds_unscoped(&self, principal: &str, capability: Capability) -> bool {
        holds_unscoped(self.table(), principal, capability)
    }

    /// What the first `grant` in a store writes before its own change
    /// (§9.4): what held until then, so nobody loses a default.
    pub fn written(&self) -> Grants {
        self.table.clone().unwrap_or_else(|| {
            let read = Grant {
                capability: EXEC_READ,
                scope: None,
            };
            Grants::from([
                (
                    DEFAULT_PRINCIPAL.to_string(),
                    vec![GrantEntry::Valid(Grant::all())],
                ),
                (EVERYONE_ELSE.to_string(), vec![GrantEntry::Valid(read)]),
            ])
        })
    }
}

/// The grants `principal` holds under `grants` (`None`: the defaults): its
/// own list, else the list of `"*"`.
fn held(grants: Option<&Grants>, principal: &str) -> Vec<Grant> {
    let Some(grants) = grants else {
        return if principal == DEFAULT_PRINCIPAL {
            vec![Grant::all()]
        } else {
            vec![Grant {
                capability: EXEC_READ,
                scope: None,
            }]
        };
    };
    grants
        .get(principal)
        .or_else(|| grants.get(EVERYONE_ELSE))
        .map(|list| list.iter().filter_map(GrantEntry::grant).cloned().collect())
        .unwrap_or_default()
}

/// Whether `principal` holds `capability` for `pack_id` under `grants`
/// (`None`: the defaults of §9.3).
pub fn holds(
    grants: Option<&Grants>,
    principal: &str,
    capability: Capability,
    pack_id: &str,
) -> bool {
    held(grants, principal)
        .iter()
        .any(|g| g.allows(capability, pack_id))
}

/// Whether `principal` holds `capability` unscoped (§9.2: what changes
/// where packs come from or go, `pack.install`, counts only unscoped).
pub fn holds_unscoped(grants: Option<&Grants>, principal: &str, capability: Capability) -> bool {
    held(grants, principal)
        .iter()
        .any(|g| g.scope.is_none() && g.capability.covers(capability))
}

/// Whether `principal` holds the unscoped `*` in `grants`.
fn holds_all(grants: &Grants, principal: &str) -> bool {
    holds_unscoped(Some(grants), principal, Capability::All)
}

/// Refuses unless `principal` may change grants (§9.4): only a holder of
/// the unscoped `*` in the grants in force (under the defaults, `user`).
pub fn require_admin(in_force: &InForce, principal: &str) -> Result<()> {
    if in_force.holds_unscoped(principal, Capability::All) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::GrantMissing,
        format!("principal `{principal}` does not hold `*`, which changing grants needs"),
    )
    .grant("*")
    .fix(Fix::Grant {
        principal: principal.to_string(),
        grant: "*".to_string(),
    }))
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
    /// Where the grants that held until this change were read, when this
    /// grant created the store's `grants` (and so first wrote them down).
    pub written_from: Option<GrantsFrom>,
}

/// Writes the store's `grants` from what is in force when it has none yet
/// (§9.4: the first change writes what held until then); where it wrote
/// them from.
fn write_down(state: &mut State, in_force: &InForce) -> Option<GrantsFrom> {
    if state.grants.is_some() {
        return None;
    }
    state.grants = Some(in_force.written());
    Some(in_force.from())
}

/// Whether holding `wide` gives everything `narrow` gives.
fn covers(wide: &Grant, narrow: &Grant) -> bool {
    wide.capability.covers(narrow.capability)
        && (wide.scope.is_none() || wide.scope == narrow.scope)
}

/// Adds a grant to the store's `state` (`in_force`: the grants it applies
/// now). The first grant first writes what held until then (§9.4).
pub fn grant(
    state: &mut State,
    in_force: &InForce,
    principal: &Principal,
    grant: &Grant,
) -> GrantChange {
    let written_from = write_down(state, in_force);
    let grants = state.grants.get_or_insert_with(Grants::new);
    let list = match grants.get(principal.as_str()) {
        Some(_) => grants.entry(principal.to_string()).or_default(),
        // A principal not listed held what `"*"` lists: it keeps that, but
        // for what the new grant covers (`*` covers every read).
        None => {
            let mut others = grants.get(EVERYONE_ELSE).cloned().unwrap_or_default();
            others.retain(|e| !e.grant().is_some_and(|held| covers(grant, held)));
            grants.entry(principal.to_string()).or_insert(others)
        }
    };
    let entry = GrantEntry::Valid(grant.clone());
    let changed = !list.contains(&entry);
    if changed {
        list.push(entry);
        list.sort_by_cached_key(GrantEntry::to_string);
    }
    GrantChange {
        changed: changed || written_from.is_some(),
        written_from,
    }
}

/// Removes a grant from the store's `state` (`in_force`: the grants it
/// applies now); false if the principal did not hold it. A principal not
/// listed that holds it through `"*"` (or the defaults) is listed with the
/// rest. `text` may also be an entry of the file that is no grant (`doctor`
/// reports those), to remove it. Removing the last unscoped `*` is refused
/// (`usage`): nobody could change grants any more.
pub fn revoke(
    state: &mut State,
    in_force: &InForce,
    principal: &Principal,
    text: &str,
) -> Result<bool> {
    let holder = principal.as_str();
    let entry = match parse_grant(text) {
        Ok(grant) => GrantEntry::Valid(grant),
        Err(err) => {
            let invalid = GrantEntry::Invalid(text.to_string());
            let listed = in_force
                .table()
                .and_then(|g| g.get(holder))
                .is_some_and(|l| l.contains(&invalid));
            if !listed {
                return Err(err);
            }
            invalid
        }
    };
    let mut grants = in_force.written();
    if !grants.contains_key(holder) {
        let others = grants.get(EVERYONE_ELSE).cloned().unwrap_or_default();
        grants.insert(holder.to_string(), others);
    }
    if !grants.get(holder).is_some_and(|l| l.contains(&entry)) {
        return Ok(false);
    }
    if entry == GrantEntry::Valid(Grant::all())
        && !grants.keys().any(|p| p != holder && holds_all(&grants, p))
    {
        return Err(Error::usage(format!(
            "`{principal}` holds the last `*`: without it nobody could change grants"
        ))
        .grant("*")
        .hint("grant `*` to another principal first"));
    }
    if let Some(list) = grants.get_mut(holder) {
        list.retain(|g| *g != entry);
        // An empty list still says "nothing": without it, `"*"` would give
        // the principal its grants again.
        if list.is_empty() && !grants.contains_key(EVERYONE_ELSE) {
            grants.remove(holder);
        }
    }
    state.grants = Some(grants);
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

    fn own(grants: Grants) -> InForce {
        InForce::resolve(Some(&grants), None)
    }

    fn shown(grants: Option<&Grants>) -> Vec<(String, Vec<String>)> {
        grants
            .into_iter()
            .flatten()
            .map(|(p, l)| (p.clone(), l.iter().map(ToString::to_string).collect()))
            .collect()
    }

    #[test]
    fn absent_grants_give_user_everything_and_others_read_only() {
        let defaults = InForce::default();
        assert_eq!(defaults.from(), GrantsFrom::Default);
        assert!(holds(None, "user", EXEC_WRITE, "a.b"));
        assert!(holds(None, "user", PACK_INSTALL, "a.b"));
        for other in ["agent", "anyone"] {
            assert!(holds(None, other, EXEC_READ, "a.b"));
            for cap in [EXEC_WRITE, PACK_INSTALL, PACK_CONNECT] {
                assert!(!holds(None, other, cap, "a.b"), "{other} {cap}");
            }
            assert!(!holds_unscoped(None, other, PACK_INSTALL));
        }
        assert!(require_admin(&defaults, "user").is_ok());
        let err = require_admin(&defaults, "agent").err();
        assert_eq!(err.as_ref().map(|e| e.code), Some(ErrorCode::GrantMissing));
        assert_eq!(err.and_then(|e| e.context.grant).as_deref(), Some("*"));
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
    fn a_principal_not_listed_holds_what_the_star_key_lists() {
        let g = map(&[("user", &["*"]), ("*", &["verb.exec.read"]), ("ci", &[])]);
        assert!(holds(Some(&g), "agent", EXEC_READ, "x.y"));
        assert!(!holds(Some(&g), "agent", EXEC_WRITE, "x.y"));
        // Listed with nothing: nothing, not the `"*"` list.
        assert!(!holds(Some(&g), "ci", EXEC_READ, "x.y"));
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
        let in_force = own(map(&[
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
        ]));
        assert!(require_admin(&in_force, "ops").is_ok());
        for principal in ["bot", "agent", "nobody", "user"] {
            let err = require_admin(&in_force, principal)
                .err()
                .unwrap_or_else(|| panic!("{principal}"));
            assert_eq!(err.code, ErrorCode::GrantMissing);
            assert_eq!(err.context.grant.as_deref(), Some("*"));
        }
    }

    #[test]
    fn the_first_grant_writes_the_defaults_down_first() {
        let mut s = State::default();
        let change = grant(
            &mut s,
            &InForce::default(),
            &who("agent"),
            &g("verb.exec.write:acme.x"),
        );
        assert_eq!(change.written_from, Some(GrantsFrom::Default));
        assert_eq!(
            shown(s.grants.as_ref()),
            vec![
                ("*".into(), vec!["verb.exec.read".into()]),
                (
                    "agent".into(),
                    vec!["verb.exec.read".into(), "verb.exec.write:acme.x".into()]
                ),
                ("user".into(), vec!["*".into()]),
            ]
        );
        let after = InForce::resolve(s.grants.as_ref(), None);
        assert!(require_admin(&after, "user").is_ok());
        assert!(after.holds("ci", EXEC_READ, "a.b"));
        assert!(!after.holds("ci", EXEC_WRITE, "acme.x"));
    }

    #[test]
    fn a_project_store_inherits_the_user_store_and_writes_it_down() {
        let user = own(map(&[
            ("user", &["*"]),
            ("agent", &["verb.exec.write:acme.x"]),
        ]));
        let inherited = InForce::resolve(None, Some(&user));
        assert_eq!(inherited.from(), GrantsFrom::UserStore);
        assert!(inherited.holds("agent", EXEC_WRITE, "acme.x"));
        assert!(!inherited.holds("agent", EXEC_WRITE, "acme.y"));
        assert_eq!(
            InForce::resolve(None, Some(&InForce::default())).from(),
            GrantsFrom::Default
        );
        let mut s = State::default();
        let change = grant(&mut s, &inherited, &who("bot"), &g("verb.exec.read"));
        assert_eq!(change.written_from, Some(GrantsFrom::UserStore));
        let project = InForce::resolve(s.grants.as_ref(), Some(&user));
        assert_eq!(project.from(), GrantsFrom::ProjectStore);
        assert!(project.holds("agent", EXEC_WRITE, "acme.x"));
        assert!(project.holds("bot", EXEC_READ, "acme.y"));
    }

    #[test]
    fn bad_grants_are_usage_errors() {
        let err = parse_grant("verb.exec.delete").err().map(|e| e.code);
        assert_eq!(err, Some(ErrorCode::Usage));
        assert!(parse_grant("verb.exec.read:Bad Id").is_err());
        assert!(parse_grant("verb.exec.read:acme.x").is_ok());
        assert!(parse_grant("*").is_ok());
    }

    fn revoked(s: &mut State, principal: &str, text: &str) -> Result<bool> {
        let in_force = InForce::resolve(s.grants.as_ref(), None);
        revoke(s, &in_force, &who(principal), text)
    }

    fn granted(s: &mut State, principal: &str, text: &str) {
        let in_force = InForce::resolve(s.grants.as_ref(), None);
        grant(s, &in_force, &who(principal), &g(text));
    }

    #[test]
    fn revoke_removes_only_that_grant() {
        let mut s = State::default();
        granted(&mut s, "agent", "verb.exec.write");
        assert_eq!(revoked(&mut s, "agent", "verb.exec.read").ok(), Some(true));
        assert!(!holds(s.grants.as_ref(), "agent", EXEC_READ, "a.b"));
        assert!(holds(s.grants.as_ref(), "agent", EXEC_WRITE, "a.b"));
        assert_eq!(revoked(&mut s, "agent", "verb.exec.read").ok(), Some(false));
    }

    #[test]
    fn revoking_a_default_lists_the_principal_with_nothing() {
        let mut s = State::default();
        assert_eq!(
            revoked(&mut s, "agent", "verb.exec.write").ok(),
            Some(false)
        );
        assert_eq!(s.grants, None);
        assert_eq!(revoked(&mut s, "agent", "verb.exec.read").ok(), Some(true));
        assert!(!holds(s.grants.as_ref(), "agent", EXEC_READ, "a.b"));
        assert!(holds(s.grants.as_ref(), "ci", EXEC_READ, "a.b"));
    }

    #[test]
    fn revoke_removes_an_unknown_entry_only_if_listed() {
        let mut s = State {
            grants: Some(map(&[("user", &["*"]), ("bot", &["verb.exec.delete"])])),
            ..State::default()
        };
        let other = revoked(&mut s, "bot", "verb.exec.erase")
            .err()
            .map(|e| e.code);
        assert_eq!(other, Some(ErrorCode::Usage));
        assert_eq!(revoked(&mut s, "bot", "verb.exec.delete").ok(), Some(true));
        assert!(
            s.grants
                .as_ref()
                .is_some_and(|g| invalid_entries(g).is_empty())
        );
    }

    #[test]
    fn the_last_star_is_not_revoked() {
        let mut s = State::default();
        granted(&mut s, "agent", "verb.exec.read");
        let before = s.clone();
        let err = revoked(&mut s, "user", "*").err().map(|e| e.code);
        assert_eq!(err, Some(ErrorCode::Usage));
        assert_eq!(s, before);
        granted(&mut s, "ops", "*");
        assert_eq!(revoked(&mut s, "user", "*").ok(), Some(true));
    }
}
