//! Fixes in the TUI (HCP.md §10.1 `hint`): the key that does a [`Fix`] on
//! the selected pack, and the command line the CLI prints for it (the one
//! renderer, `fixline::command_line`, with the `--principal` and
//! `--catalog` the TUI was given).
//! The key is offered only when it acts on the pack the fix is about (the
//! selected or marked packs): after `:exec other.pack …`, `press i` would
//! install the selection instead, so only the command line is shown; and
//! only when the key works now (not greyed: `i` for a principal without
//! `pack.install`, §9.2, says who may run the line instead).

use crate::engine::error::{Error, Fix};
use crate::fixline::{FixFlags, command_line, hint_text};
use crate::tui::config::Config;

/// `fix` as the key to press and the command line: `press a, or run hcpx
/// activate acme.x`; only the line for a fix no key does, or for a pack
/// that is not among `keyed` (the packs the keys act on now).
pub fn fix_line(fix: &Fix, config: &Config, keyed: &[&str]) -> String {
    let line = command_line(fix, &flags(config));
    let (key, pack) = match fix {
        // Installing needs `pack.install` unscoped (§9.2): `i` is greyed.
        Fix::Install { .. } if !config.powers.install => {
            return format!("ask a holder of `pack.install` to run {line}");
        }
        Fix::Install { pack, .. } => ("i", pack.as_str()),
        Fix::Activate { pack } | Fix::Deactivate { pack } => ("a", pack.as_str()),
        Fix::Connect { pack, .. } => ("c", pack.as_str()),
        // `l` lints the selected pack, wherever its copy is.
        Fix::Lint { path } => (
            "l",
            std::path::Path::new(path)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(path),
        ),
        // Only a holder of `*` may change grants (§9.4): anyone else is
        // told who can, not offered a command it would be refused.
        Fix::Grant { .. } if !config.powers.admin => {
            return format!("ask a holder of `*` to run {line}");
        }
        // `e` sets them for this session, in a masked input.
        Fix::SetEnv { names } => {
            return format!(
                "press e to set {} for this session, or {line}",
                names.join(", ")
            );
        }
        Fix::Grant { .. }
        | Fix::CatalogList
        | Fix::Uninstall { .. }
        | Fix::List
        | Fix::Verify { .. }
        | Fix::Doctor { .. }
        | Fix::Upgrade { .. }
        | Fix::HarnessStatus
        | Fix::HarnessSync { .. }
        | Fix::HarnessDisable { .. }
        | Fix::Init
        | Fix::Sync => return line,
    };
    if keyed.contains(&pack) {
        format!("press {key}, or run {line}")
    } else {
        format!("run {line}")
    }
}

/// The key that does `fix` on the selected pack, if one does: the TUI
/// offers it only when that key is not greyed (`App::fix_line`).
pub fn key_cmd(fix: &Fix) -> Option<crate::tui::keys::Cmd> {
    use crate::tui::keys::Cmd;
    match fix {
        Fix::Install { .. } => Some(Cmd::Install),
        Fix::Activate { .. } | Fix::Deactivate { .. } => Some(Cmd::Activate),
        Fix::Connect { .. } => Some(Cmd::Connect),
        Fix::Lint { .. } => Some(Cmd::Lint),
        _ => None,
    }
}

/// The `--principal` and `--catalog` the TUI was given, which a fix's
/// command line repeats.
pub fn flags(config: &Config) -> FixFlags {
    FixFlags {
        principal: config.principal_arg.clone(),
        catalogs: config.catalog_args.clone(),
        // The TUI adds `-g` to the lines it shows itself (`tui::scope`).
        global: false,
    }
}

/// What an error shows as its hint: its fix, else its hint in words (each
/// command in them a command line).
pub fn hint(err: &Error, config: &Config, keyed: &[&str]) -> Option<String> {
    match &err.context.fix {
        Some(fix) => Some(fix_line(fix, config, keyed)),
        None => err
            .context
            .hint
            .as_ref()
            .map(|h| hint_text(h, &flags(config))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fix_is_its_key_and_the_full_command_line() {
        let mut config = Config::new("bot");
        config.principal_arg = Some("bot".into());
        config.catalog_args = vec!["./cat".into()];
        let install = Fix::Install {
            pack: "acme.x".into(),
            force: false,
        };
        assert_eq!(
            fix_line(&install, &config, &["acme.x"]),
            "press i, or run hcpx install acme.x --catalog ./cat --principal bot"
        );
        // The keys act on another pack: only the command line.
        assert_eq!(
            fix_line(&install, &config, &["acme.y"]),
            "run hcpx install acme.x --catalog ./cat --principal bot"
        );
        let grant = Fix::Grant {
            principal: "bot".into(),
            grant: "verb.exec.read:acme.x".into(),
        };
        assert_eq!(
            fix_line(&grant, &config, &["acme.x"]),
            "hcpx grant bot verb.exec.read:acme.x"
        );
        let err = Error::usage("no").fix(Fix::Connect {
            pack: "acme.x".into(),
            secret: false,
        });
        assert_eq!(
            hint(&err, &Config::new("user"), &["acme.x"]).as_deref(),
            Some("press c, or run hcpx connect acme.x")
        );
    }
}
