//! Command lines the front-ends show (HCP.md §10.1 `hint`, §9.1, §11.6):
//! a [`Fix`] the engine returns as data, rendered as a complete `hcpx`
//! command line a user can paste, and the one shell quoting every such
//! line uses. The CLI (`cli::fix`), the command layer (`command::execute`:
//! the line that confirms an upgrade's diff) and the TUI (`tui::fix`,
//! its equivalent commands) all render through this module, so no word of
//! a line they print — a principal, a path, a pack id — reaches a shell
//! unquoted (`$(cmd)` is shown as `'$(cmd)'`).
//!
//! Which flags a fix repeats: `--principal` for the operations that check a
//! grant of that principal (install, connect, uninstall, upgrade, harness
//! sync and disable; activation checks none), never for `grant` (the
//! principal that lacks a capability is the grant's subject; an
//! administrator runs it, §9.4); `--catalog` for `install` of a pack id (a
//! folder needs no catalog), `list`, and `doctor` (whose `--fix` records a
//! pack's source from the catalog holding it).
//!
//! A [`Hint`] in words that names commands is rendered with each command
//! as its line ([`hint_text`]).

use crate::engine::error::{Error, Fix, Hint};

/// The flags the user gave that a fix's command line repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixFlags {
    /// `--principal NAME`, as given (not `$HCP_PRINCIPAL`, which a pasted
    /// line in the same shell still sees).
    pub principal: Option<String>,
    /// `--catalog DIR`, each as given.
    pub catalogs: Vec<String>,
    /// `-g`: the fix acts on the user store, and the user is (or said
    /// `-g` in) a project, where a plain line would act on the project's
    /// store (§15.1).
    pub global: bool,
}

/// What an error shows as its `hint`: its fix as a command line, else its
/// hint in words.
pub fn hint(err: &Error, flags: &FixFlags) -> Option<String> {
    match &err.context.fix {
        Some(fix) => Some(command_line(fix, flags)),
        None => err.context.hint.as_ref().map(|h| hint_text(h, flags)),
    }
}

/// `err` with its fix rendered into `hint`, for a `--json` error object.
pub fn with_hint(err: &Error, flags: &FixFlags) -> Error {
    let mut err = err.clone();
    err.context.hint = hint(&err, flags).map(Into::into);
    err
}

/// `fix` as one line: an `hcpx` command, or (for [`Fix::SetEnv`]) words.
pub fn command_line(fix: &Fix, flags: &FixFlags) -> String {
    let Some(Words {
        words,
        principal,
        catalogs,
    }) = words(fix)
    else {
        return match fix {
            Fix::SetEnv { names } => format!(
                "set {} (non-empty) in the environment, then run the command again",
                names.join(", ")
            ),
            _ => String::new(),
        };
    };
    let mut line = String::from("hcpx");
    let mut push = |word: &str| {
        line.push(' ');
        line.push_str(&shell_quote(word));
    };
    if flags.global {
        push("-g");
    }
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

/// `hint` as one text, each command in it rendered by [`command_line`].
pub fn hint_text(hint: &Hint, flags: &FixFlags) -> String {
    hint.render(&|fix| command_line(fix, flags))
}

/// A fix's subcommand words, and which of the user's flags it repeats.
struct Words<'f> {
    words: Vec<&'f str>,
    principal: bool,
    catalogs: bool,
}

/// The words of `fix`'s command; none for a fix that is no command.
fn words(fix: &Fix) -> Option<Words<'_>> {
    let with = |words: Vec<&'static str>, flag: &'static str, on: bool| {
        let mut words = words;
        if on {
            words.push(flag);
        }
        words
    };
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
        Fix::Uninstall { pack } => (vec!["uninstall", pack], true, false),
        // The catalogs given are among the packs it lists.
        Fix::List => (vec!["list"], false, true),
        Fix::Verify { pack } => {
            let mut words = vec!["verify"];
            words.extend(pack.as_deref());
            (words, false, false)
        }
        // `--fix` records a pack's source from the catalog that holds it.
        Fix::Doctor { fix } => (with(vec!["doctor"], "--fix", *fix), false, true),
        // A dry run changes nothing and checks no grant.
        Fix::Upgrade { dry_run } => (
            with(vec!["upgrade"], "--dry-run", *dry_run),
            !dry_run,
            false,
        ),
        Fix::HarnessStatus => (vec!["harness", "status"], false, false),
        Fix::HarnessSync { force } => (
            with(vec!["harness", "sync"], "--force", *force),
            true,
            false,
        ),
        Fix::HarnessDisable { target } => (vec!["harness", "disable", target], true, false),
        Fix::SetEnv { .. } => return None,
    };
    Some(Words {
        words,
        principal,
        catalogs,
    })
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
            global: false,
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
    fn each_command_repeats_the_flags_it_needs() {
        let pack = || "acme.x".to_string();
        let catalogs = "--catalog '/tmp/my packs' --catalog cat";
        let more = [
            (
                Fix::Uninstall { pack: pack() },
                "hcpx uninstall acme.x --principal 'ci bot'".to_string(),
            ),
            (Fix::List, format!("hcpx list {catalogs}")),
            (
                Fix::Verify { pack: Some(pack()) },
                "hcpx verify acme.x".into(),
            ),
            (
                Fix::Doctor { fix: true },
                format!("hcpx doctor --fix {catalogs}"),
            ),
            (
                Fix::Upgrade { dry_run: true },
                "hcpx upgrade --dry-run".into(),
            ),
            (Fix::HarnessStatus, "hcpx harness status".into()),
            (
                Fix::HarnessSync { force: true },
                "hcpx harness sync --force --principal 'ci bot'".into(),
            ),
            (
                Fix::HarnessDisable {
                    target: "codex".into(),
                },
                "hcpx harness disable codex --principal 'ci bot'".into(),
            ),
        ];
        for (fix, line) in more {
            assert_eq!(command_line(&fix, &flags()), line);
        }
    }

    #[test]
    fn a_hint_keeps_its_words_around_each_command_line() {
        let hint = Hint::from("run `")
            .cmd(Fix::Lint {
                path: "/my pack".into(),
            })
            .say("`, or ")
            .cmd(Fix::Uninstall {
                pack: "acme.x".into(),
            });
        assert_eq!(
            hint_text(&hint, &flags()),
            "run `hcpx lint '/my pack'`, or hcpx uninstall acme.x --principal 'ci bot'"
        );
        assert_eq!(hint.fixes().count(), 2);
        assert_eq!(hint.words(), None);
        assert_eq!(Hint::from("by hand").words().as_deref(), Some("by hand"));
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
