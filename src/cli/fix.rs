//! Fixes as command lines (HCP.md §10.1 `hint`, §9.1, §11.6): the engine
//! returns a [`Fix`] as data; this renders it as a complete `hcpx` command
//! line a user can paste, repeating the `--principal NAME` and
//! `--catalog DIR` flags the user gave where the command needs them. The
//! TUI shows the same line (`tui::fix`).
//!
//! Which flags a fix repeats: `--principal` for the operations that check a
//! grant of that principal (install, connect; activation checks none), never
//! for `grant` (the principal that lacks a capability is the grant's
//! subject; an administrator runs it, §9.4); `--catalog` for `install` of a
//! pack id (a folder needs no catalog). Every word is shell-quoted.

use crate::engine::error::{Error, Fix};
use crate::tui::text::shell_quote;

/// The flags the user gave that a fix's command line repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixFlags {
    /// `--principal NAME`, as given (not `$HCP_PRINCIPAL`, which a pasted
    /// line in the same shell still sees).
    pub principal: Option<String>,
    /// `--catalog DIR`, each as given.
    pub catalogs: Vec<String>,
}

/// `fix` as one line: an `hcpx` command, or (for [`Fix::SetEnv`]) words.
pub fn command_line(fix: &Fix, flags: &FixFlags) -> String {
    let (words, principal, catalogs): (Vec<&str>, bool, bool) = match fix {
        Fix::Install { pack, force } => {
            let mut words = vec!["install", pack.as_str()];
            if *force {
                words.push("--force");
            }
            (words, true, !pack.contains('/'))
        }
        // Activation checks no grant (§11.1): `activate` takes no --principal.
        Fix::Activate { pack } => (vec!["activate", pack], false, false),
        Fix::Deactivate { pack } => (vec!["deactivate", pack], false, false),
        Fix::Connect { pack, secret } => {
            let mut words = vec!["connect", pack.as_str()];
            if *secret {
                words.push("--secret-stdin");
            }
            (words, true, false)
        }
        Fix::Grant { principal, grant } => (vec!["grant", principal, grant], false, false),
        Fix::Lint { path } => (vec!["lint", path], false, false),
        Fix::SetEnv { names } => {
            return format!(
                "set {} (non-empty) in the environment, then run the command again",
                names.join(", ")
            );
        }
    };
    let mut line = String::from("hcpx");
    let mut push = |word: &str| {
        line.push(' ');
        line.push_str(&shell_quote(word));
    };
    for word in words {
        push(word);
    }
    if catalogs {
        for dir in &flags.catalogs {
            push("--catalog");
            push(dir);
        }
    }
    if principal && let Some(name) = &flags.principal {
        push("--principal");
        push(name);
    }
    line
}

/// What an error shows as its `hint`: its fix as a command line, else its
/// hint in words.
pub fn hint(err: &Error, flags: &FixFlags) -> Option<String> {
    match &err.context.fix {
        Some(fix) => Some(command_line(fix, flags)),
        None => err.context.hint.clone(),
    }
}

/// `err` with its fix rendered into `hint`, for a `--json` error object.
pub fn with_hint(err: &Error, flags: &FixFlags) -> Error {
    let mut err = err.clone();
    err.context.hint = hint(&err, flags);
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags() -> FixFlags {
        FixFlags {
            principal: Some("ci bot".into()),
            catalogs: vec!["/tmp/my packs".into(), "cat".into()],
        }
    }

    #[test]
    fn each_fix_is_a_complete_command_line() {
        let pack = || "acme.x".to_string();
        let table = [
            (
                Fix::Install {
                    pack: pack(),
                    force: false,
                },
                "hcpx install acme.x --catalog '/tmp/my packs' --catalog cat --principal 'ci bot'",
            ),
            (
                Fix::Install {
                    pack: "./dir/p".into(),
                    force: true,
                },
                "hcpx install ./dir/p --force --principal 'ci bot'",
            ),
            (Fix::Activate { pack: pack() }, "hcpx activate acme.x"),
            (Fix::Deactivate { pack: pack() }, "hcpx deactivate acme.x"),
            (
                Fix::Connect {
                    pack: pack(),
                    secret: true,
                },
                "hcpx connect acme.x --secret-stdin --principal 'ci bot'",
            ),
            (
                Fix::Grant {
                    principal: "ci bot".into(),
                    grant: "*".into(),
                },
                "hcpx grant 'ci bot' '*'",
            ),
            (
                Fix::Lint {
                    path: "/s/packs/it's".into(),
                },
                r"hcpx lint '/s/packs/it'\''s'",
            ),
            (
                Fix::SetEnv {
                    names: vec!["A".into(), "B".into()],
                },
                "set A, B (non-empty) in the environment, then run the command again",
            ),
        ];
        for (fix, line) in table {
            assert_eq!(command_line(&fix, &flags()), line);
        }
        let bare = Fix::Activate { pack: pack() };
        assert_eq!(
            command_line(&bare, &FixFlags::default()),
            "hcpx activate acme.x"
        );
    }

    #[test]
    fn an_error_shows_its_fix_as_its_hint() {
        let err = Error::usage("no").fix(Fix::Activate {
            pack: "acme.x".into(),
        });
        assert_eq!(
            with_hint(&err, &FixFlags::default())
                .context
                .hint
                .as_deref(),
            Some("hcpx activate acme.x")
        );
        let words = Error::usage("no").hint("do this");
        assert_eq!(hint(&words, &flags()).as_deref(), Some("do this"));
    }
}
