//! A principal's name (HCP.md §9.1), checked where it enters: the
//! `--principal` flag and `$HCP_PRINCIPAL` (through the front-ends), the
//! PRINCIPAL of `grant` and `revoke`, and the keys of `state.json`'s
//! `grants` (a bad one there makes the state `store_corrupt`, see
//! `Store::read_state`). Like a `PackId`, a [`Principal`] is parsed at the
//! edge and only the checked name goes further.
//!
//! The grammar is `^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$`: no space, no quote,
//! no `$(...)`, no invisible or bidirectional character can reach a grant, a
//! message or a command line a front-end prints. A refused name is shown
//! escaped (`\u{202e}`), never as it is.

use crate::engine::error::{Error, Result};

/// The key of `state.json`'s `grants` that is no principal: what it lists,
/// every principal not listed holds (§9.4).
pub const EVERYONE_ELSE: &str = "*";

/// The longest principal name, in bytes (all ASCII).
pub const MAX_LEN: usize = 64;

/// A principal's name, checked against §9.1.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Principal(String);

impl Principal {
    /// Checks `name`; anything else is `usage`, the name shown escaped.
    pub fn parse(name: &str) -> Result<Principal> {
        if is_principal(name) {
            return Ok(Principal(name.to_string()));
        }
        Err(Error::usage(format!(
            "`{}` is not a principal name: use 1 to {MAX_LEN} letters, digits and `_.@-`, starting with a letter or digit",
            name.escape_default()
        )))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Principal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `name` matches `^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$`.
pub fn is_principal(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= MAX_LEN
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || "_.@-".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_of_section_9_1() {
        for good in ["user", "ci-bot", "a", "agent@host.example", "A_1.b-2"] {
            assert!(Principal::parse(good).is_ok(), "{good}");
        }
        let long = "a".repeat(MAX_LEN + 1);
        for bad in [
            "",
            "-x",
            ".x",
            "ci bot",
            "$(touch x)",
            "a'b",
            "us\u{202e}er",
            "us\u{200b}er",
            "usér",
            long.as_str(),
        ] {
            assert!(Principal::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Principal::parse(&"a".repeat(MAX_LEN)).is_ok());
    }

    #[test]
    fn a_refused_name_is_shown_escaped() {
        let err = Principal::parse("us\u{202e}er").err().map(|e| e.message);
        let message = err.unwrap_or_default();
        assert!(message.contains("us\\u{202e}er"), "{message}");
        assert!(!message.contains('\u{202e}'), "{message}");
    }
}
