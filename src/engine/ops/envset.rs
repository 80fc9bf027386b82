//! Values a front-end sets for one session for an `env` Binding's
//! variables (HCP.md §8.3, §8.5 step 4): the TUI asks for a variable in a
//! masked input instead of making the user quit and export it. An
//! override wins over the process environment for connect, the probe and
//! exec of the one pack it was set for (another pack declaring the same
//! name does not get it); nothing else reads it, and it is never stored.
//!
//! The values are secrets (§14.3): `Debug` shows only the packs and names,
//! exec's redaction covers them as it covers any Binding material, and
//! nothing here logs.

use std::collections::BTreeMap;

/// (pack id, variable name) → value, for this session only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct EnvOverrides(BTreeMap<(String, String), String>);

impl EnvOverrides {
    /// Sets `name` to `value` for `pack_id`; an empty value removes it (an
    /// `env` variable counts only when non-empty, §8.5).
    pub fn set(&mut self, pack_id: &str, name: &str, value: &str) {
        let key = (pack_id.to_string(), name.to_string());
        if value.is_empty() {
            self.0.remove(&key);
        } else {
            self.0.insert(key, value.to_string());
        }
    }

    /// `name`'s value for `pack_id`: the override, else the process
    /// environment's; `None` when neither is set and non-empty.
    pub fn value(&self, pack_id: &str, name: &str) -> Option<String> {
        match self.0.get(&(pack_id.to_string(), name.to_string())) {
            Some(value) => Some(value.clone()),
            None => std::env::var(name).ok().filter(|v| !v.is_empty()),
        }
    }
}

impl std::fmt::Debug for EnvOverrides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Packs and names only: the values are secrets.
        f.debug_set()
            .entries(self.0.keys().map(|(pack, name)| format!("{pack}:{name}")))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_override_is_for_its_pack_only_and_debug_hides_its_value() {
        let mut env = EnvOverrides::default();
        env.set("acme.a", "HCPX_ENVSET_UNIT_TOKEN", "v4lue-Secret");
        assert_eq!(
            env.value("acme.a", "HCPX_ENVSET_UNIT_TOKEN").as_deref(),
            Some("v4lue-Secret")
        );
        // Another pack declaring the same variable does not get it.
        assert_eq!(env.value("acme.b", "HCPX_ENVSET_UNIT_TOKEN"), None);
        let shown = format!("{env:?}");
        assert!(shown.contains("acme.a:HCPX_ENVSET_UNIT_TOKEN"), "{shown}");
        assert!(!shown.contains("v4lue-Secret"), "{shown}");
        env.set("acme.a", "HCPX_ENVSET_UNIT_TOKEN", "");
        assert_eq!(env.value("acme.a", "HCPX_ENVSET_UNIT_TOKEN"), None);
    }
}
