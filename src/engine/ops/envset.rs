//! Values a front-end sets for one session for an `env` Binding's
//! variables (HCP.md §8.3, §8.5 step 4): the TUI asks for a variable in a
//! masked input instead of making the user quit and export it. An
//! override wins over the process environment for connect, the probe and
//! exec; nothing else reads it, and it is never stored.
//!
//! The values are secrets (§14.3): `Debug` shows only the names, exec's
//! redaction covers them as it covers any Binding material, and nothing
//! here logs.

use std::collections::BTreeMap;

/// Variable names and their values, for this session only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct EnvOverrides(BTreeMap<String, String>);

impl EnvOverrides {
    /// Sets `name` to `value`; an empty value removes it (an `env`
    /// variable counts only when non-empty, §8.5).
    pub fn set(&mut self, name: &str, value: &str) {
        if value.is_empty() {
            self.0.remove(name);
        } else {
            self.0.insert(name.to_string(), value.to_string());
        }
    }

    /// The value set for `name`, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// The names set, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// `name`'s value: the override, else the process environment's;
    /// `None` when neither is set and non-empty.
    pub fn value(&self, name: &str) -> Option<String> {
        match self.get(name) {
            Some(value) => Some(value.to_string()),
            None => std::env::var(name).ok().filter(|v| !v.is_empty()),
        }
    }
}

impl std::fmt::Debug for EnvOverrides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names only: the values are secrets.
        f.debug_set().entries(self.names()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_override_wins_and_debug_hides_its_value() {
        let mut env = EnvOverrides::default();
        env.set("HCPX_ENVSET_UNIT_TOKEN", "v4lue-Secret");
        assert_eq!(
            env.value("HCPX_ENVSET_UNIT_TOKEN").as_deref(),
            Some("v4lue-Secret")
        );
        let shown = format!("{env:?}");
        assert!(shown.contains("HCPX_ENVSET_UNIT_TOKEN"), "{shown}");
        assert!(!shown.contains("v4lue-Secret"), "{shown}");
        env.set("HCPX_ENVSET_UNIT_TOKEN", "");
        assert_eq!(env.value("HCPX_ENVSET_UNIT_TOKEN"), None);
    }
}
