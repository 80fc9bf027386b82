//! Fixes in the TUI (HCP.md §10.1 `hint`): the key that does a [`Fix`] on
//! the selected pack, and the command line the CLI prints for it
//! (`cli::fix`, with the `--principal` and `--catalog` the TUI was given).

use crate::cli::fix::{FixFlags, command_line};
use crate::engine::error::{Error, Fix};
use crate::tui::app::Config;

/// `fix` as the key to press and the command line: `press a, or run hcpx
/// activate acme.x`; only the line for a fix no key does.
pub fn fix_line(fix: &Fix, config: &Config) -> String {
    let flags = FixFlags {
        principal: config.principal_arg.clone(),
        catalogs: config.catalog_args.clone(),
    };
    let line = command_line(fix, &flags);
    let key = match fix {
        Fix::Install { .. } => "i",
        Fix::Activate { .. } | Fix::Deactivate { .. } => "a",
        Fix::Connect { .. } => "c",
        Fix::Lint { .. } => "l",
        Fix::Grant { .. } | Fix::SetEnv { .. } => return line,
    };
    format!("press {key}, or run {line}")
}

/// What an error shows as its hint: its fix, else its hint in words.
pub fn hint(err: &Error, config: &Config) -> Option<String> {
    match &err.context.fix {
        Some(fix) => Some(fix_line(fix, config)),
        None => err.context.hint.clone(),
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
            fix_line(&install, &config),
            "press i, or run hcpx install acme.x --catalog ./cat --principal bot"
        );
        let grant = Fix::Grant {
            principal: "bot".into(),
            grant: "verb.exec.read:acme.x".into(),
        };
        assert_eq!(
            fix_line(&grant, &config),
            "hcpx grant bot verb.exec.read:acme.x"
        );
        let err = Error::usage("no").fix(Fix::Connect {
            pack: "acme.x".into(),
            secret: false,
        });
        assert_eq!(
            hint(&err, &Config::new("user")).as_deref(),
            Some("press c, or run hcpx connect acme.x")
        );
    }
}
