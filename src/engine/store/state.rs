//! `state.json` (HCP.md §11.5, 11-lifecycle.md §11.3): which packs are
//! activated and connected for the session, and the grants (§9.3).
//! Plain data; reading and writing it is the store's job. Its ids are
//! [`PackId`]s: a `state.json` naming a bad id does not parse, and the store
//! reports it as `store_corrupt` (§14.2).

use crate::engine::pack::id::PackId;
use crate::engine::store::grant::GrantEntry;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The session state, as stored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct State {
    #[serde(default)]
    pub activated: Vec<PackId>,
    #[serde(default)]
    pub connected: Vec<PackId>,
    /// principal → grants. Absent: every principal holds every capability.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grants: Option<BTreeMap<String, Vec<GrantEntry>>>,
    /// Keys another runtime wrote; kept as they are.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl State {
    pub fn is_activated(&self, pack_id: &str) -> bool {
        contains(&self.activated, pack_id)
    }

    pub fn is_connected(&self, pack_id: &str) -> bool {
        contains(&self.connected, pack_id)
    }

    /// Adds `pack_id` to `activated`; false if it was there.
    ///
    /// `activated` is kept in activation order (HCP.md §12.7: the pack
    /// activated first keeps a Skill name it shares): a new one goes to the
    /// end, and one activated again after a deactivation too.
    pub fn activate(&mut self, pack_id: &PackId) -> bool {
        if self.activated.contains(pack_id) {
            return false;
        }
        self.activated.push(pack_id.clone());
        true
    }

    /// Removes activation and connection (§11.1 rule 4); false if neither
    /// was recorded.
    pub fn deactivate(&mut self, pack_id: &str) -> bool {
        let a = remove(&mut self.activated, pack_id);
        let c = remove(&mut self.connected, pack_id);
        a || c
    }

    pub fn connect(&mut self, pack_id: &PackId) -> bool {
        insert(&mut self.connected, pack_id)
    }

    pub fn disconnect(&mut self, pack_id: &str) -> bool {
        remove(&mut self.connected, pack_id)
    }

    /// Forgets everything about a pack (uninstall).
    pub fn forget(&mut self, pack_id: &str) {
        self.deactivate(pack_id);
    }
}

/// Whether `list` holds `id`. hcpx keeps `connected` sorted, so a binary
/// search finds an id at once; `activated` is in activation order, and a
/// list another runtime wrote out of order, are searched in full when that
/// finds nothing.
fn contains(list: &[PackId], id: &str) -> bool {
    list.binary_search_by(|p| p.as_str().cmp(id)).is_ok() || list.iter().any(|p| p == id)
}

fn insert(list: &mut Vec<PackId>, id: &PackId) -> bool {
    if list.contains(id) {
        return false;
    }
    list.push(id.clone());
    list.sort();
    true
}

fn remove(list: &mut Vec<PackId>, id: &str) -> bool {
    let before = list.len();
    list.retain(|p| p != id);
    list.len() != before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activated_is_in_activation_order() {
        let mut s = State::default();
        let id = |v: &str| PackId::parse(v).unwrap_or_else(|| panic!("valid id"));
        for v in ["z.z", "a.a", "m.m"] {
            assert!(s.activate(&id(v)));
        }
        assert!(!s.activate(&id("a.a")));
        s.deactivate("z.z");
        s.activate(&id("z.z"));
        let order: Vec<&str> = s.activated.iter().map(|p| p.as_str()).collect();
        assert_eq!(order, ["a.a", "m.m", "z.z"]);
        assert!(s.is_activated("m.m") && !s.is_activated("b.b"));
    }

    #[test]
    fn deactivate_drops_connected() {
        let mut s = State::default();
        let id = PackId::parse("a.b").unwrap_or_else(|| panic!("valid id"));
        s.activate(&id);
        s.connect(&id);
        assert!(s.deactivate("a.b"));
        assert!(!s.is_activated("a.b"));
        assert!(!s.is_connected("a.b"));
        assert!(!s.deactivate("a.b"));
    }

    #[test]
    fn membership_in_lists_in_any_order() {
        let s: State = serde_json::from_str(
            r#"{"activated": ["z.z", "a.a", "m.m"], "connected": ["a.a", "b.b", "c.c"]}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        for id in ["z.z", "a.a", "m.m"] {
            assert!(s.is_activated(id), "{id}");
        }
        assert!(!s.is_activated("b.b"));
        for id in ["a.a", "b.b", "c.c"] {
            assert!(s.is_connected(id), "{id}");
        }
        assert!(!s.is_connected("z.z") && !s.is_connected(""));
    }

    #[test]
    fn reads_the_spec_shape() {
        let s: State = serde_json::from_str(r#"{"activated": ["x.y"], "connected": []}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(s.is_activated("x.y"));
        assert_eq!(s.grants, None);
        let text = serde_json::to_string(&s).unwrap_or_default();
        assert_eq!(text, r#"{"activated":["x.y"],"connected":[]}"#);
    }

    #[test]
    fn bad_ids_do_not_parse() {
        for bad in [
            r#"{"activated": ["../packs"]}"#,
            r#"{"activated": [""]}"#,
            r#"{"connected": ["../../outside"]}"#,
            r#"{"activated": ["a/b"]}"#,
        ] {
            assert!(serde_json::from_str::<State>(bad).is_err(), "{bad}");
        }
    }
}
