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
    pub activated: IdList,
    #[serde(default)]
    pub connected: IdList,
    /// principal (or `"*"`: every principal not listed) → grants. Absent:
    /// the defaults of HCP.md §9.3 (see `policy::grants`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grants: Option<BTreeMap<String, Vec<GrantEntry>>>,
    /// Keys another runtime wrote; kept as they are.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl State {
    pub fn is_activated(&self, pack_id: &str) -> bool {
        self.activated.contains_id(pack_id)
    }

    pub fn is_connected(&self, pack_id: &str) -> bool {
        self.connected.contains_id(pack_id)
    }

    /// Adds `pack_id` to `activated`; false if it was there.
    ///
    /// `activated` is kept in activation order (HCP.md §12.7: the pack
    /// activated first keeps a Skill name it shares): a new one goes to the
    /// end, and one activated again after a deactivation too.
    pub fn activate(&mut self, pack_id: &PackId) -> bool {
        if self.activated.contains_id(pack_id.as_str()) {
            return false;
        }
        self.activated.push(pack_id.clone());
        true
    }

    /// Removes activation and connection (§11.1 rule 4); false if neither
    /// was recorded.
    pub fn deactivate(&mut self, pack_id: &str) -> bool {
        let a = self.activated.remove(pack_id);
        let c = self.connected.remove(pack_id);
        a || c
    }

    /// Adds `pack_id` to `connected`, which hcpx keeps sorted; false if it
    /// was there.
    pub fn connect(&mut self, pack_id: &PackId) -> bool {
        if self.connected.contains_id(pack_id.as_str()) {
            return false;
        }
        self.connected.push(pack_id.clone());
        self.connected.sort();
        true
    }

    pub fn disconnect(&mut self, pack_id: &str) -> bool {
        self.connected.remove(pack_id)
    }

    /// Forgets everything about a pack (uninstall).
    pub fn forget(&mut self, pack_id: &str) {
        self.deactivate(pack_id);
    }
}

/// A list of pack ids as `state.json` holds it, in its own order
/// (`activated` is in activation order, `connected` sorted by hcpx; a list
/// another runtime wrote may be in any order), with the positions of its
/// ids sorted by id beside it: whether it holds an id is one binary search,
/// whatever the order. Read through `Deref` as a slice; changed only by
/// its own methods, which keep the two in step.
#[derive(Debug, Clone, Default)]
pub struct IdList {
    ids: Vec<PackId>,
    /// Indexes into `ids`, ordered by the id at each.
    by_id: Vec<usize>,
}

impl IdList {
    /// Whether the list holds `id` (a binary search).
    pub fn contains_id(&self, id: &str) -> bool {
        self.find(id).is_ok()
    }

    /// Adds `id` at the end.
    pub fn push(&mut self, id: PackId) {
        let at = self.find(id.as_str()).unwrap_or_else(|at| at);
        self.by_id.insert(at, self.ids.len());
        self.ids.push(id);
    }

    /// Removes every copy of `id`; false if there was none.
    pub fn remove(&mut self, id: &str) -> bool {
        let before = self.ids.len();
        self.ids.retain(|p| p != id);
        if self.ids.len() == before {
            return false;
        }
        self.index();
        true
    }

    /// Puts the ids in order.
    pub fn sort(&mut self) {
        self.ids.sort();
        self.index();
    }

    /// Where `id` is in `by_id`, or where it would go.
    fn find(&self, id: &str) -> std::result::Result<usize, usize> {
        self.by_id
            .binary_search_by(|&i| self.ids[i].as_str().cmp(id))
    }

    fn index(&mut self) {
        let ids = &self.ids;
        self.by_id = (0..ids.len()).collect();
        self.by_id.sort_by(|&a, &b| ids[a].cmp(&ids[b]));
    }
}

impl From<Vec<PackId>> for IdList {
    fn from(ids: Vec<PackId>) -> IdList {
        let mut list = IdList {
            ids,
            by_id: Vec::new(),
        };
        list.index();
        list
    }
}

impl std::ops::Deref for IdList {
    type Target = [PackId];

    fn deref(&self) -> &[PackId] {
        &self.ids
    }
}

impl<'a> IntoIterator for &'a IdList {
    type Item = &'a PackId;
    type IntoIter = std::slice::Iter<'a, PackId>;

    fn into_iter(self) -> Self::IntoIter {
        self.ids.iter()
    }
}

impl PartialEq for IdList {
    fn eq(&self, other: &IdList) -> bool {
        self.ids == other.ids
    }
}

impl PartialEq<Vec<PackId>> for IdList {
    fn eq(&self, other: &Vec<PackId>) -> bool {
        self.ids == *other
    }
}

impl Serialize for IdList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.ids.serialize(s)
    }
}

impl<'de> Deserialize<'de> for IdList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<IdList, D::Error> {
        Vec::<PackId>::deserialize(d).map(IdList::from)
    }
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

    /// A list in activation order (here reversed) answers by binary search
    /// through its index, before and after it changes.
    #[test]
    fn membership_holds_in_a_long_list_out_of_order() {
        let id = |i: usize| PackId::parse(&format!("p.n{i:04}")).unwrap_or_else(|| panic!("id"));
        let mut s = State::default();
        for i in (0..500).rev() {
            assert!(s.activate(&id(2 * i)));
        }
        assert!((0..1000).all(|i| s.is_activated(id(i).as_str()) == (i % 2 == 0)));
        assert!(s.deactivate(id(10).as_str()) && !s.is_activated(id(10).as_str()));
        assert!(s.is_activated(id(12).as_str()) && s.is_activated(id(8).as_str()));
        assert!(s.activate(&id(10)) && s.is_activated(id(10).as_str()));
        assert_eq!(s.activated.last(), Some(&id(10)));
        assert!(s.connect(&id(3)) && s.connect(&id(1)) && !s.connect(&id(3)));
        assert!(s.is_connected("p.n0001") && s.is_connected("p.n0003"));
        assert!(!s.is_connected("p.n0002"));
        let order: Vec<&str> = s.connected.iter().map(|p| p.as_str()).collect();
        assert_eq!(order, ["p.n0001", "p.n0003"]);
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
