//! Command lines the front-ends show (HCP.md §10.1 `hint`, §9.1, §11.6):
//! a [`Fix`] the engine returns as data, rendered as a complete `hcpx`
//! command line a user can paste, and the one shell quoting every such
//! line uses. The CLI (`cli::fix`, `cli::upgrade`) and the TUI (`tui::fix`,
//! its equivalent commands) both render through this module, so no word of
//! a line they print — a principal, a path, a pack id — reaches a shell
//! unquoted (`$(cmd)` is shown as `'$(cmd)'`).
//!
//! Which flags a fix repeats: `--principal` for the operations that check a
//! grant of that principal (install, connect; activation checks none), never
//! for `grant` (the principal that lacks a capability is the grant's
//! subject; an administrator runs it, §9.4); `--catalog` for `install` of a
//! pack id (a folder needs no catalog).

use crate::engine::error::Fix;

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
        Fix::CatalogList => (vec!["catalog", "list"], false, false),
        Fix::Init => (vec!["init"], false, false),
        Fix::Sync => (vec!["sync"], false, false),
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

/// Quotes `word` for a POSIX shell when it needs it: a word of only
/// letters, digits and `-_./=:,@%+` as it is, any other in single quotes
/// (a `'` in it written `'\''`).
pub fn shell_quote(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if safe {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
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
    fn quotes_only_what_a_shell_would_split() {
        assert_eq!(shell_quote("tz=UTC"), "tz=UTC");
        assert_eq!(shell_quote("msg=hello world"), "'msg=hello world'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$(touch x)"), "'$(touch x)'");
        assert_eq!(shell_quote("*"), "'*'");
        assert_eq!(shell_quote(""), "''");
    }
}
