//! Grants as `state.json` holds them (HCP.md §9.2–§9.3), parsed once when
//! the state is read: a [`Capability`] (or `*`), optionally scoped to one
//! pack. What a principal may do with them is `policy::grants`.

use crate::engine::pack::grammar;
use crate::engine::pack::manifest::Effect;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A capability of §9.2, or `*`, every capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Capability {
    /// `*`
    All,
    /// `pack.install`: install, uninstall.
    PackInstall,
    /// `pack.connect`
    PackConnect,
    /// `verb.exec.read`
    ExecRead,
    /// `verb.exec.write`
    ExecWrite,
}

impl Capability {
    /// The named capabilities, without `*`.
    pub const NAMED: [Capability; 4] = [
        Capability::PackInstall,
        Capability::PackConnect,
        Capability::ExecRead,
        Capability::ExecWrite,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Capability::All => "*",
            Capability::PackInstall => "pack.install",
            Capability::PackConnect => "pack.connect",
            Capability::ExecRead => "verb.exec.read",
            Capability::ExecWrite => "verb.exec.write",
        }
    }

    pub fn parse(text: &str) -> Option<Capability> {
        std::iter::once(Capability::All)
            .chain(Capability::NAMED)
            .find(|c| c.as_str() == text)
    }

    /// Whether holding `self` gives `wanted`.
    pub fn covers(self, wanted: Capability) -> bool {
        self == Capability::All || self == wanted
    }
}

impl From<Effect> for Capability {
    /// The capability an exec of this effect needs (§9.2).
    fn from(effect: Effect) -> Capability {
        match effect {
            Effect::Read => Capability::ExecRead,
            Effect::Write => Capability::ExecWrite,
        }
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A grant: a capability, optionally scoped to one pack
/// (`verb.exec.write:acme.github`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Grant {
    pub capability: Capability,
    /// The pack_id it is limited to (checked against §3.2).
    pub scope: Option<String>,
}

/// Why a text is not a grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantError {
    UnknownCapability(String),
    BadScope(String),
}

impl fmt::Display for GrantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrantError::UnknownCapability(cap) => write!(
                f,
                "unknown capability `{}`: expected one of {}, or *",
                cap.escape_default(),
                Capability::NAMED.map(Capability::as_str).join(", ")
            ),
            GrantError::BadScope(scope) => write!(
                f,
                "`{}` is not a pack_id; a scoped grant is CAPABILITY:PACK_ID, e.g. verb.exec.write:acme.github",
                scope.escape_default()
            ),
        }
    }
}

impl Grant {
    /// Reads `CAPABILITY[:PACK_ID]` or `*[:PACK_ID]`.
    pub fn parse(text: &str) -> Result<Grant, GrantError> {
        let (cap, scope) = match text.split_once(':') {
            Some((cap, scope)) => (cap, Some(scope)),
            None => (text, None),
        };
        let capability =
            Capability::parse(cap).ok_or_else(|| GrantError::UnknownCapability(cap.into()))?;
        if let Some(scope) = scope
            && !grammar::is_pack_id(scope)
        {
            return Err(GrantError::BadScope(scope.into()));
        }
        Ok(Grant {
            capability,
            scope: scope.map(str::to_string),
        })
    }

    /// The unscoped `*`: every capability on every pack.
    pub fn all() -> Grant {
        Grant {
            capability: Capability::All,
            scope: None,
        }
    }

    /// Whether this grant gives `capability` on `pack_id`.
    pub fn allows(&self, capability: Capability, pack_id: &str) -> bool {
        self.capability.covers(capability) && self.scope.as_deref().is_none_or(|s| s == pack_id)
    }
}

impl fmt::Display for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.scope {
            Some(scope) => write!(f, "{}:{scope}", self.capability),
            None => f.write_str(self.capability.as_str()),
        }
    }
}

/// One entry of a principal's list in `state.json`: a grant, or a text that
/// is none (an unknown capability, a bad scope), kept as written so that
/// rewriting the state loses nothing. Such an entry gives nothing; `doctor`
/// reports it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum GrantEntry {
    Valid(Grant),
    Invalid(String),
}

impl GrantEntry {
    pub fn grant(&self) -> Option<&Grant> {
        match self {
            GrantEntry::Valid(grant) => Some(grant),
            GrantEntry::Invalid(_) => None,
        }
    }
}

impl From<String> for GrantEntry {
    fn from(text: String) -> GrantEntry {
        match Grant::parse(&text) {
            Ok(grant) => GrantEntry::Valid(grant),
            Err(_) => GrantEntry::Invalid(text),
        }
    }
}

impl From<GrantEntry> for String {
    fn from(entry: GrantEntry) -> String {
        match entry {
            GrantEntry::Valid(grant) => grant.to_string(),
            GrantEntry::Invalid(text) => text,
        }
    }
}

impl fmt::Display for GrantEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrantEntry::Valid(grant) => grant.fmt(f),
            GrantEntry::Invalid(text) => f.write_str(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_read_and_print_the_same() {
        for text in [
            "*",
            "pack.install",
            "verb.exec.write:acme.github",
            "*:acme.x",
        ] {
            let grant = Grant::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(grant.to_string(), text);
        }
    }

    #[test]
    fn bad_grants_say_why() {
        assert_eq!(
            Grant::parse("verb.exec.delete"),
            Err(GrantError::UnknownCapability("verb.exec.delete".into()))
        );
        assert_eq!(
            Grant::parse("verb.exec.read:Bad Id"),
            Err(GrantError::BadScope("Bad Id".into()))
        );
        assert!(Grant::parse("").is_err());
        assert!(Grant::parse("**").is_err());
    }

    #[test]
    fn unknown_entries_are_kept_as_written() {
        let list: Vec<GrantEntry> =
            serde_json::from_str(r#"["verb.exec.read", "verb.exec.delete", "*:No Id"]"#)
                .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(list[0], GrantEntry::Valid(_)));
        assert_eq!(list[1], GrantEntry::Invalid("verb.exec.delete".into()));
        assert_eq!(list[2], GrantEntry::Invalid("*:No Id".into()));
        let text = serde_json::to_string(&list).unwrap_or_default();
        assert_eq!(text, r#"["verb.exec.read","verb.exec.delete","*:No Id"]"#);
    }
}
