//! A checked pack id (HCP.md §3.2, §14.2): a [`PackId`] exists only for a
//! string that matches the pack_id grammar and length, so a path the store
//! builds from one (`packs/<id>`, `skills/<id>`, `secrets/<id>`) never
//! leaves its folder: no `/`, no `..`, never empty.
//!
//! Ids from the command line, `state.json` and catalogs are turned into a
//! `PackId` before any path is built; deserializing one (as `state.json`
//! does) refuses a bad id, which the store reports as `store_corrupt`.

use crate::engine::pack::grammar;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A pack id that passed §3.2.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PackId(String);

/// The id of the runtime's bootstrap pack (§11.4).
const BOOTSTRAP: &str = "hcp-cli";

impl PackId {
    /// The id, if `s` passes §3.2.
    pub fn parse(s: &str) -> Option<PackId> {
        grammar::is_pack_id(s).then(|| PackId(s.to_string()))
    }

    /// `hcp-cli`, the bootstrap pack (§11.4).
    pub fn bootstrap() -> PackId {
        PackId(BOOTSTRAP.to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for PackId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for PackId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PackId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for PackId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for PackId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<PackId> for str {
    fn eq(&self, other: &PackId) -> bool {
        self == other.0
    }
}

impl PartialEq<PackId> for &str {
    fn eq(&self, other: &PackId) -> bool {
        *self == other.0
    }
}

impl Serialize for PackId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for PackId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PackId, D::Error> {
        let s = String::deserialize(deserializer)?;
        if grammar::is_pack_id(&s) {
            Ok(PackId(s))
        } else {
            Err(serde::de::Error::custom(format_args!(
                "`{}` is not a pack id (§3.2: lowercase words of a-z and 0-9 joined by `.` or `-`, 2-64 characters)",
                s.escape_default()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_valid_ids_parse() {
        assert_eq!(
            PackId::parse("acme.notes").map(|id| id.to_string()),
            Some("acme.notes".into())
        );
        for bad in [
            "",
            ".",
            "..",
            "../packs",
            "../../outside",
            "a/b",
            "A.b",
            "a",
            "a\0b",
        ] {
            assert_eq!(PackId::parse(bad), None, "{bad:?}");
        }
        assert_eq!(PackId::bootstrap().as_str(), "hcp-cli");
    }

    #[test]
    fn serde_round_trip_and_refusal() {
        let id: Result<PackId, _> = serde_json::from_str(r#""acme.x""#);
        assert_eq!(
            id.ok().map(|i| serde_json::to_string(&i).ok()),
            Some(Some(r#""acme.x""#.into()))
        );
        for bad in [r#""../packs""#, r#""""#, r#""a/b""#, "3"] {
            assert!(serde_json::from_str::<PackId>(bad).is_err(), "{bad}");
        }
        let err = serde_json::from_str::<PackId>(r#""../x""#)
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("`../x` is not a pack id")));
    }

    #[test]
    fn compares_with_strings() {
        let id = PackId::parse("acme.x").unwrap_or_else(|| panic!("valid id"));
        assert!(id == "acme.x");
        assert!("acme.x" == id);
        assert!(id != "acme.y");
    }
}
