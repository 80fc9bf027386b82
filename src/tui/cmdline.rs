//! The `:` command line (k9s): an `hcpx` subcommand line, run by the same
//! engine call as the CLI, with `Tab` completing subcommands, pack ids and
//! a pack's verbs (HCP.md §11.1 lifecycle, §9.4 grants). `:install
//! demo.git`, `:exec demo.clock now -- tz=UTC`, `:grant agent
//! verb.exec.read`, `:doctor`, `:why demo.clock now`, `:catalog list`
//! (§13.2), `:upgrade demo.clock` (§13.7). Words are split as a POSIX shell would for plain and
//! quoted words; nothing is ever run through a shell.

use crate::tui::query::Query;
use crate::tui::worker::Stage;

/// The subcommands the line takes, as `hcpx` spells them.
pub const SUBCOMMANDS: &[&str] = &[
    "activate",
    "availability",
    "catalog",
    "connect",
    "deactivate",
    "doctor",
    "exec",
    "grant",
    "harness",
    "install",
    "lint",
    "list",
    "outdated",
    "revoke",
    "show",
    "sync",
    "uninstall",
    "upgrade",
    "verify",
    "why",
];

/// `harness` sub-subcommands.
const HARNESS_SUBS: &[&str] = &["disable", "enable", "list", "status", "sync"];

/// `catalog` sub-subcommands.
const CATALOG_SUBS: &[&str] = &["add", "list", "remove", "update"];

/// The line being typed.
#[derive(Debug, Clone, Default)]
pub struct CmdLine {
    pub input: String,
    /// Whether keys go to the line.
    pub editing: bool,
    /// What `Tab` offered last, when there was more than one choice.
    pub choices: Vec<String>,
}

/// A parsed line: what to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Stage(Stage, Vec<String>),
    Lint(Vec<String>),
    Exec {
        pack_id: String,
        verb: String,
        words: Vec<String>,
    },
    Grant {
        principal: String,
        grant: String,
        revoke: bool,
    },
    List,
    /// `harness` alone opens the Harnesses view.
    HarnessView,
    Harness {
        target: crate::engine::harness::TargetName,
        enable: bool,
    },
    Outdated,
    /// `upgrade ID...`: the dry run, then the diff to confirm (§13.7).
    Upgrade(Vec<String>),
    /// A report subcommand (`tui::query`).
    Query(Query),
}

/// `principal NAME`, the TUI's own word (not an `hcpx` subcommand): the
/// name given, or why not; `None` for any other line.
pub fn principal_words(words: &[String]) -> Option<Result<String, String>> {
    match words {
        [sub, name] if sub == "principal" => Some(Ok(name.clone())),
        [sub, ..] if sub == "principal" => Some(Err("principal takes one name".into())),
        _ => None,
    }
}

/// Splits a line into words: whitespace separates, `'…'` and `"…"` quote,
/// `\` escapes outside single quotes.
pub fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a ' is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => word.extend(chars.next()),
                        Some(c) => word.push(c),
                        None => return Err("a \" is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// What the words ask for, or what is wrong with them, in `hcpx`'s terms.
pub fn parse(words: &[String]) -> Result<Parsed, String> {
    let Some((sub, rest)) = words.split_first() else {
        return Err("type an hcpx subcommand (Tab completes)".into());
    };
    let rest: Vec<String> = rest.to_vec();
    let need_ids = |what: &str| -> Result<Vec<String>, String> {
        if rest.is_empty() {
            Err(format!("{what} needs a pack id (Tab completes)"))
        } else if let Some(flag) = rest.iter().find(|w| w.starts_with('-')) {
            Err(format!(
                "{what}: {flag} is not taken here; run it in a shell"
            ))
        } else {
            Ok(rest.clone())
        }
    };
    let one = |what: &str| -> Result<Vec<String>, String> {
        let ids = need_ids(what)?;
        match ids.len() {
            1 => Ok(ids),
            _ => Err(format!("{what} takes one pack id")),
        }
    };
    match sub.as_str() {
        "install" => one("install").map(|ids| Parsed::Stage(Stage::Install, ids)),
        "activate" => need_ids("activate").map(|ids| Parsed::Stage(Stage::Activate, ids)),
        "deactivate" => need_ids("deactivate").map(|ids| Parsed::Stage(Stage::Deactivate, ids)),
        "connect" => one("connect").map(|ids| Parsed::Stage(Stage::Connect, ids)),
        "uninstall" => one("uninstall").map(|ids| Parsed::Stage(Stage::Uninstall, ids)),
        "lint" => need_ids("lint").map(Parsed::Lint),
        "list" => Ok(Parsed::List),
        "outdated" => Ok(Parsed::Outdated),
        "upgrade" => need_ids("upgrade").map(Parsed::Upgrade),
        "verify" | "show" | "why" | "availability" | "doctor" => {
            parse_report(sub, &rest).map(Parsed::Query)
        }
        "catalog" => parse_catalog(&rest),
        "sync" => parse_sync(&rest),
        "harness" => parse_harness(&rest),
        "exec" => {
            let (pack_id, verb) = match (rest.first(), rest.get(1)) {
                (Some(p), Some(v)) => (p.clone(), v.clone()),
                _ => return Err("exec needs a pack id and a verb (Tab completes)".into()),
            };
            let mut words: Vec<String> = rest[2..].to_vec();
            if words.first().map(String::as_str) == Some("--") {
                words.remove(0);
            }
            Ok(Parsed::Exec {
                pack_id,
                verb,
                words,
            })
        }
        "grant" | "revoke" => match rest.as_slice() {
            [principal, grant] => Ok(Parsed::Grant {
                principal: principal.clone(),
                grant: grant.clone(),
                revoke: sub == "revoke",
            }),
            _ => Err(format!("{sub} takes a principal and a grant")),
        },
        other => Err(format!(
            "`{other}` is not a subcommand here; one of {}",
            SUBCOMMANDS.join(", ")
        )),
    }
}

/// `verify [ID...]`, `show ID`, `why ID [VERB]`, `availability [ID]`,
/// `doctor [--fix]`.
fn parse_report(sub: &str, rest: &[String]) -> Result<Query, String> {
    let flag = rest.iter().find(|w| w.starts_with('-'));
    match sub {
        "verify" => match flag {
            Some(flag) => Err(format!(
                "verify: {flag} is not taken here; run it in a shell"
            )),
            None => Ok(Query::Verify(rest.to_vec())),
        },
        "show" => match (rest, flag) {
            ([id], None) => Ok(Query::Show(id.clone())),
            _ => Err("show takes one pack id (Tab completes)".into()),
        },
        "why" => match (rest, flag) {
            ([pack], None) | ([pack, _], None) => Ok(Query::Why {
                pack: pack.clone(),
                verb: rest.get(1).cloned(),
            }),
            _ => Err("why takes a pack id and, optionally, a verb (Tab completes)".into()),
        },
        "availability" => match (rest, flag) {
            ([], _) => Ok(Query::Availability(None)),
            ([id], None) => Ok(Query::Availability(Some(id.clone()))),
            _ => Err("availability takes at most one pack id".into()),
        },
        _ => match rest {
            [] => Ok(Query::Doctor { fix: false }),
            [f] if f == "--fix" => Ok(Query::Doctor { fix: true }),
            _ => Err("doctor takes nothing or --fix".into()),
        },
    }
}

/// `catalog list|add SOURCE|remove SOURCE|update` (§13.2).
fn parse_catalog(rest: &[String]) -> Result<Parsed, String> {
    let query = match rest {
        [sub] if sub == "list" => Query::CatalogList,
        [sub] if sub == "update" => Query::CatalogUpdate,
        [sub, source] if sub == "add" && !source.starts_with('-') => {
            Query::CatalogAdd(source.clone())
        }
        [sub, source] if sub == "remove" && !source.starts_with('-') => {
            Query::CatalogRemove(source.clone())
        }
        _ => {
            return Err(format!(
                "catalog takes one of {}: list, add SOURCE, remove SOURCE, update",
                CATALOG_SUBS.join(", ")
            ));
        }
    };
    Ok(Parsed::Query(query))
}

/// `sync LOCKFILE [--frozen] [--prune] [--yes]` (§13.8).
fn parse_sync(rest: &[String]) -> Result<Parsed, String> {
    let (mut lockfile, mut frozen, mut prune, mut yes) = (None, false, false, false);
    for word in rest {
        match word.as_str() {
            "--frozen" => frozen = true,
            "--prune" => prune = true,
            "--yes" => yes = true,
            flag if flag.starts_with('-') => {
                return Err(format!("sync: {flag} is not taken here; run it in a shell"));
            }
            _ if lockfile.is_some() => return Err("sync takes one lock file".into()),
            path => lockfile = Some(path.to_string()),
        }
    }
    let lockfile =
        lockfile.ok_or("sync needs a lock file: sync LOCKFILE [--frozen] [--prune] [--yes]")?;
    Ok(Parsed::Query(Query::Sync {
        lockfile,
        frozen,
        prune,
        yes,
    }))
}

/// `harness [enable|disable TARGET | list | status [ID] | sync]` (§12.4–§12.8).
fn parse_harness(rest: &[String]) -> Result<Parsed, String> {
    use crate::engine::harness::{TargetName, names_list};
    match rest {
        [] => Ok(Parsed::HarnessView),
        [sub] if sub == "list" => Ok(Parsed::Query(Query::HarnessList)),
        [sub] if sub == "sync" => Ok(Parsed::Query(Query::HarnessSync)),
        [sub] if sub == "status" => Ok(Parsed::Query(Query::HarnessStatus(None))),
        [sub, id] if sub == "status" && !id.starts_with('-') => {
            Ok(Parsed::Query(Query::HarnessStatus(Some(id.clone()))))
        }
        [verb, target] if verb == "enable" || verb == "disable" => TargetName::parse(target)
            .map(|target| Parsed::Harness {
                target,
                enable: verb == "enable",
            })
            .ok_or_else(|| format!("unknown harness target `{target}`; one of {}", names_list())),
        _ => Err(format!(
            "harness takes one of {}: enable TARGET, disable TARGET, list, status [ID], sync (or nothing: the view)",
            HARNESS_SUBS.join(", ")
        )),
    }
}

/// Completes the last word of `input`: a subcommand first, then pack ids
/// (`ids`), and for `exec` the pack's verbs (`verbs_of`). Returns the new
/// input and, when several fit, the choices.
pub fn complete(
    input: &str,
    ids: &[&str],
    verbs_of: impl Fn(&str) -> Vec<String>,
) -> (String, Vec<String>) {
    let ends_in_space = input.is_empty() || input.ends_with(char::is_whitespace);
    let mut words: Vec<String> = input.split_whitespace().map(str::to_string).collect();
    if ends_in_space {
        words.push(String::new());
    }
    let position = words.len() - 1;
    let prefix = words[position].clone();
    let candidates: Vec<String> = match position {
        0 => SUBCOMMANDS.iter().map(|s| s.to_string()).collect(),
        1 if words[0] == "harness" => HARNESS_SUBS.iter().map(|s| s.to_string()).collect(),
        1 if words[0] == "catalog" => CATALOG_SUBS.iter().map(|s| s.to_string()).collect(),
        1 if words[0] == "doctor" => vec!["--fix".into()],
        2 if words[0] == "harness" && matches!(words[1].as_str(), "enable" | "disable") => {
            crate::engine::harness::TargetName::ALL
                .iter()
                .map(|t| t.as_str().to_string())
                .collect()
        }
        2 if words[0] == "harness" && words[1] == "status" => {
            ids.iter().map(|s| s.to_string()).collect()
        }
        _ if words[0] == "sync" && position >= 2 => {
            vec!["--frozen".into(), "--prune".into(), "--yes".into()]
        }
        _ if matches!(
            words[0].as_str(),
            "harness" | "outdated" | "catalog" | "doctor" | "sync"
        ) =>
        {
            Vec::new()
        }
        2 if matches!(words[0].as_str(), "exec" | "why") => verbs_of(&words[1]),
        1 if !matches!(words[0].as_str(), "grant" | "revoke" | "list") => {
            ids.iter().map(|s| s.to_string()).collect()
        }
        _ if matches!(
            words[0].as_str(),
            "activate" | "deactivate" | "lint" | "verify" | "upgrade"
        ) =>
        {
            ids.iter().map(|s| s.to_string()).collect()
        }
        _ => Vec::new(),
    };
    let fits: Vec<String> = candidates
        .into_iter()
        .filter(|c| c.starts_with(&prefix))
        .collect();
    let common = common_prefix(&fits);
    if common.len() <= prefix.len() && fits.len() != 1 {
        return (input.to_string(), fits);
    }
    words[position] = common;
    let mut out = words.join(" ");
    if fits.len() == 1 {
        out.push(' ');
    }
    (out, if fits.len() == 1 { Vec::new() } else { fits })
}

fn common_prefix(words: &[String]) -> String {
    let Some(first) = words.first() else {
        return String::new();
    };
    let mut end = first.len();
    for w in &words[1..] {
        end = end.min(
            first
                .char_indices()
                .zip(w.chars())
                .find(|((_, a), b)| a != b)
                .map_or(end.min(w.len()), |((i, _), _)| i),
        );
    }
    first[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        split(s).unwrap()
    }

    #[test]
    fn splits_like_a_shell_without_one() {
        assert_eq!(
            words("exec a b -- 'msg=hi there'"),
            ["exec", "a", "b", "--", "msg=hi there"]
        );
        assert_eq!(words(r#"x "a \"q\"" b\ c"#), ["x", "a \"q\"", "b c"]);
        assert!(split("exec 'open").is_err());
    }

    #[test]
    fn parses_the_subcommands_it_runs() {
        assert_eq!(
            parse(&words("install demo.git")),
            Ok(Parsed::Stage(Stage::Install, vec!["demo.git".into()]))
        );
        assert_eq!(
            parse(&words("exec demo.clock now -- tz=UTC")),
            Ok(Parsed::Exec {
                pack_id: "demo.clock".into(),
                verb: "now".into(),
                words: vec!["tz=UTC".into()]
            })
        );
        assert_eq!(
            parse(&words("grant agent verb.exec.read")),
            Ok(Parsed::Grant {
                principal: "agent".into(),
                grant: "verb.exec.read".into(),
                revoke: false
            })
        );
        assert!(
            parse(&words("frobnicate"))
                .unwrap_err()
                .contains("not a subcommand")
        );
        assert!(
            parse(&words("install"))
                .unwrap_err()
                .contains("needs a pack id")
        );
        assert!(parse(&words("install --force x")).is_err());
    }

    #[test]
    fn parses_the_report_subcommands() {
        assert_eq!(
            parse(&words("doctor --fix")),
            Ok(Parsed::Query(Query::Doctor { fix: true }))
        );
        assert_eq!(
            parse(&words("why demo.clock now")),
            Ok(Parsed::Query(Query::Why {
                pack: "demo.clock".into(),
                verb: Some("now".into())
            }))
        );
        assert_eq!(
            parse(&words("sync hcp.lock --prune")),
            Ok(Parsed::Query(Query::Sync {
                lockfile: "hcp.lock".into(),
                frozen: false,
                prune: true,
                yes: false
            }))
        );
        assert_eq!(
            parse(&words("sync hcp.lock --yes")),
            Ok(Parsed::Query(Query::Sync {
                lockfile: "hcp.lock".into(),
                frozen: false,
                prune: false,
                yes: true
            }))
        );
        assert_eq!(
            parse(&words("catalog add ./cat")),
            Ok(Parsed::Query(Query::CatalogAdd("./cat".into())))
        );
        assert_eq!(
            parse(&words("upgrade a b")),
            Ok(Parsed::Upgrade(vec!["a".into(), "b".into()]))
        );
        assert!(parse(&words("doctor --force")).is_err());
        assert!(parse(&words("catalog frob")).is_err());
        assert!(parse(&words("sync")).is_err());
        assert!(parse(&words("sync a --force")).is_err());
        assert!(parse(&words("harness frob")).is_err());
        assert!(parse(&words("why")).is_err());
    }

    #[test]
    fn tab_completes_subcommands_ids_and_verbs() {
        let ids = ["demo.clock", "demo.files", "hcp-cli"];
        let verbs = |id: &str| match id {
            "demo.clock" => vec!["now".to_string(), "next".to_string()],
            _ => Vec::new(),
        };
        assert_eq!(complete("ins", &ids, verbs).0, "install ");
        assert_eq!(
            complete("install demo.c", &ids, verbs).0,
            "install demo.clock "
        );
        let (line, choices) = complete("install demo.", &ids, verbs);
        assert_eq!(line, "install demo.");
        assert_eq!(choices, ["demo.clock", "demo.files"]);
        assert_eq!(
            complete("exec demo.clock n", &ids, verbs).0,
            "exec demo.clock n"
        );
        assert_eq!(
            complete("exec demo.clock no", &ids, verbs).0,
            "exec demo.clock now "
        );
        let (_, choices) = complete("", &ids, verbs);
        assert_eq!(choices.len(), SUBCOMMANDS.len());
    }
}
