//! The `:` command line (k9s): an `hcpx` subcommand line, parsed with THE
//! clap tree of `hcpx` (`command::line`), so every subcommand and flag of
//! the CLI is taken here, with the CLI's usage errors (HCP.md §11.5). A
//! line a key runs too keeps the key's work (`install SOURCE` and its
//! picker, `connect` and its masked prompt, with or without
//! `--secret-stdin`, `upgrade ID...` and its diff, `harness enable|disable
//! TARGET`, the stages, `lint`, `exec`); every other line is the command
//! layer's `Request` (reports, and changes such as `install --all`,
//! `upgrade --dry-run`, `sync`, `init`, `add`, `remove`, `catalog
//! add|remove`, `harness enable --detected`), run through
//! `command::execute`: its words, `J` its `--json` document. Only `tui`,
//! `mcp`, `completions` and `man` are refused, each saying what to run in
//! a shell. `Tab` completes subcommands and flags from the same tree, pack
//! ids, a pack's verbs, a grant's capabilities (§9.2) and the folders a
//! path names. `:principal NAME` (TUI only) switches the
//! principal the TUI acts for (§9.1). Words are split as a POSIX shell
//! would for plain and quoted words; nothing is ever run through a shell.

use crate::command::Request;
use crate::command::args::Command;
use crate::command::args::harness::HarnessCommand;
use crate::command::line::{self, LineError};
use crate::engine::harness::TargetName;
use crate::engine::project::ScopeFlag;
use crate::engine::store::principal::Principal;
use crate::tui::job::Stage;
use std::path::PathBuf;

/// The TUI's own subcommand, beside the tree's.
pub const PRINCIPAL: &str = "principal";

/// The line being typed.
#[derive(Debug, Clone, Default)]
pub struct CmdLine {
    pub input: String,
    /// Whether keys go to the line.
    pub editing: bool,
    /// What `Tab` offered last, when there was more than one choice.
    pub choices: Vec<String>,
}

/// A parsed line: what to run, and the flags it runs with.
#[derive(Debug)]
pub struct Line {
    pub parsed: Parsed,
    /// `--principal`: this command acts for it (§9.1).
    pub principal: Option<Principal>,
    /// `--catalog`: this command searches these too (§11.6).
    pub catalogs: Vec<PathBuf>,
    /// `--json`: a report shows its document first.
    pub json: bool,
    /// `-g` or `--project`: the store this line acts on (§15.1).
    pub scope: ScopeFlag,
}

/// What a line runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Stage(Stage, Vec<String>),
    Lint(Vec<String>),
    Exec {
        pack_id: String,
        verb: String,
        words: Vec<String>,
    },
    /// `harness` alone opens the Harnesses view.
    HarnessView,
    Harness {
        target: TargetName,
        enable: bool,
    },
    /// `upgrade ID...`: the dry run, then the diff to confirm (§13.7).
    Upgrade(Vec<String>),
    /// A request of the command layer (`command::Request`), report or
    /// change, run in a worker (`tui::query`).
    Report(Request),
    /// `principal NAME`: act for NAME from now on.
    Principal(Principal),
    /// `--help` or `--version`: clap's text, for the Output pane.
    Help(String),
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
pub fn parse(words: &[String]) -> Result<Line, String> {
    if let Some(parsed) = principal(words)? {
        return Ok(plain(parsed));
    }
    if words == ["harness"] {
        return Ok(plain(Parsed::HarnessView));
    }
    let invocation = match line::parse(words) {
        Ok(invocation) => invocation,
        Err(LineError::Help(text)) => return Ok(plain(Parsed::Help(text))),
        Err(LineError::Usage(why)) => return Err(why),
    };
    Ok(Line {
        parsed: to_parsed(invocation.command)?,
        principal: invocation.principal,
        catalogs: invocation.catalogs,
        json: invocation.json,
        scope: invocation.scope,
    })
}

fn plain(parsed: Parsed) -> Line {
    Line {
        parsed,
        principal: None,
        catalogs: Vec::new(),
        json: false,
        scope: ScopeFlag::Auto,
    }
}

/// `principal NAME`, the TUI's own subcommand.
fn principal(words: &[String]) -> Result<Option<Parsed>, String> {
    match words {
        [sub, name] if sub == PRINCIPAL => Principal::parse(name)
            .map(|p| Some(Parsed::Principal(p)))
            .map_err(|e| e.message),
        [sub, ..] if sub == PRINCIPAL => Err("principal takes one name: principal NAME".into()),
        _ => Ok(None),
    }
}

/// A subcommand that cannot run inside the TUI, said with what to run
/// instead.
fn in_a_shell(what: &str) -> String {
    format!("{what}; run it in a shell")
}

/// The parsed subcommand as the work the TUI starts: the TUI's own work
/// for the lines its keys do too (`install SOURCE` opens the picker of a
/// collection, `connect` the masked secret prompt, `upgrade ID...` the
/// diff to confirm), else the command layer's [`Request`].
fn to_parsed(command: Command) -> Result<Parsed, String> {
    if let Some(request) = Request::from_command(&command) {
        return Ok(Parsed::Report(request));
    }
    Ok(match command {
        Command::Install(a) if !(a.list || a.all || a.force || !a.skill.is_empty()) => {
            match a.sources.as_slice() {
                [_] => Parsed::Stage(Stage::Install, a.sources),
                _ => {
                    return Err(
                        "install takes one source here, or several with --list, --skill or --all"
                            .into(),
                    );
                }
            }
        }
        Command::Activate(a) => Parsed::Stage(Stage::Activate, a.packs),
        Command::Deactivate(a) => Parsed::Stage(Stage::Deactivate, a.packs),
        // With or without --secret-stdin: the TUI is the secret's stdin,
        // its masked prompt.
        Command::Connect(a) => Parsed::Stage(Stage::Connect, vec![a.pack]),
        Command::Uninstall(a) => Parsed::Stage(Stage::Uninstall, a.packs),
        Command::Lint(a) => Parsed::Lint(
            a.paths
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
        ),
        Command::Exec(a) => Parsed::Exec {
            pack_id: a.pack,
            verb: a.verb,
            words: a.words,
        },
        Command::Harness(a) => match harness(&a.command) {
            Some(parsed) => parsed,
            None => request(&Command::Harness(a))?,
        },
        Command::Upgrade(a) if !(a.dry_run || a.yes || a.offline || !a.expect.is_empty()) => {
            Parsed::Upgrade(a.packs)
        }
        Command::Tui(_) => {
            return Err(in_a_shell(
                "the TUI is running already; another one starts from a shell",
            ));
        }
        Command::Completions(_) | Command::Man(_) => {
            return Err(in_a_shell(
                "completions and man print a script or a page for a shell, not for the TUI",
            ));
        }
        Command::Mcp(_) => {
            return Err(in_a_shell(
                "mcp starts a server for an MCP client, which talks to it on stdin and stdout (hcpx mcp --print-config TARGET prints the client's entry)",
            ));
        }
        other => request(&other)?,
    })
}

/// The command layer's request of `command`, or its usage error.
fn request(command: &Command) -> Result<Parsed, String> {
    match Request::parse(command) {
        Some(Ok(request)) => Ok(Parsed::Report(request)),
        Some(Err(err)) => Err(match &err.context.hint {
            Some(hint) => format!("{}; {hint}", err.message),
            None => err.message,
        }),
        None => Err(in_a_shell(
            "this subcommand is not run by the command layer",
        )),
    }
}

/// `harness enable|disable TARGET` of one target, as `H` toggles it; any
/// other `harness` line is a request (`--detected`, several targets,
/// `sync`) or a report (`list`, `status`).
fn harness(command: &HarnessCommand) -> Option<Parsed> {
    match command {
        HarnessCommand::Enable {
            targets,
            detected: false,
            ..
        } => one_target(targets).map(|target| Parsed::Harness {
            target,
            enable: true,
        }),
        HarnessCommand::Disable { targets, .. } => {
            one_target(targets).map(|target| Parsed::Harness {
                target,
                enable: false,
            })
        }
        _ => None,
    }
}

/// The one known target `targets` names.
fn one_target(targets: &[String]) -> Option<TargetName> {
    match targets {
        [name] => TargetName::parse(name),
        _ => None,
    }
}

/// The subcommands whose words after the subcommand are pack ids.
const TAKES_IDS: &[&str] = &[
    "activate",
    "availability",
    "connect",
    "deactivate",
    "exec",
    "install",
    "lint",
    "remove",
    "show",
    "uninstall",
    "upgrade",
    "verify",
    "why",
];

/// The subcommands that take more than one pack id.
const TAKES_MANY_IDS: &[&str] = &[
    "activate",
    "deactivate",
    "lint",
    "remove",
    "uninstall",
    "upgrade",
    "verify",
];

/// What `Tab` offers for the word at `position` of `words`: subcommands
/// and flags from the clap tree, pack ids (`ids`), harness targets, and for
/// `exec` and `why` the pack's verbs (`verbs_of`).
fn candidates(
    words: &[String],
    position: usize,
    ids: &[&str],
    verbs_of: impl Fn(&str) -> Vec<String>,
) -> Vec<String> {
    let first = words[0].as_str();
    let has_subs = !line::subcommands(&[first]).is_empty();
    let path: Vec<&str> = match words.get(1) {
        Some(sub) if has_subs && position > 1 => vec![first, sub.as_str()],
        _ => vec![first],
    };
    let ids = || -> Vec<String> { ids.iter().map(|s| s.to_string()).collect() };
    if position == 0 {
        let mut subs = line::subcommands(&[]);
        subs.push(PRINCIPAL.into());
        return subs;
    }
    if words[position].starts_with('-') {
        return line::flags(&path);
    }
    let word = words[position].as_str();
    match (path.as_slice(), position) {
        (_, 1) if has_subs => line::subcommands(&[first]),
        (["grant" | "revoke"], 2) => grant_words(word, &ids()),
        (["install" | "lint" | "add"], _) if is_path(word) => folders(word),
        (["harness", "enable" | "disable"], _) => TargetName::ALL
            .iter()
            .map(|t| t.as_str().to_string())
            .collect(),
        (["harness", "status"], 2) => ids(),
        (["exec" | "why"], 2) => verbs_of(&words[1]),
        ([sub], 1) if TAKES_IDS.contains(sub) => ids(),
        ([sub], _) if TAKES_MANY_IDS.contains(sub) => ids(),
        _ => Vec::new(),
    }
}

/// The capabilities a `grant` takes (§9.2), each also scoped to a pack
/// once the word has its `:` (`verb.exec.write:acme.x`).
fn grant_words(word: &str, ids: &[String]) -> Vec<String> {
    use crate::engine::policy::grants::Capability;
    let caps = std::iter::once(Capability::All).chain(Capability::NAMED);
    match word.split_once(':') {
        Some((cap, _)) => ids.iter().map(|id| format!("{cap}:{id}")).collect(),
        None => caps.map(|c| c.as_str().to_string()).collect(),
    }
}

/// A word read as a folder, not a pack id (§11.6: `/`, `./`, `../`, `~`).
fn is_path(word: &str) -> bool {
    ["/", "./", "../", "~"].iter().any(|p| word.starts_with(p)) || word == "." || word == ".."
}

/// The most folders `Tab` reads of one folder.
const MAX_FOLDERS: usize = 500;

/// The folders `word` may go on to (`./sk` → `./skills/`), each ending in
/// `/` so `Tab` goes on into it; hidden ones only for a word naming one.
fn folders(word: &str) -> Vec<String> {
    let (dir, name) = match word.rfind('/') {
        Some(i) => (&word[..=i], &word[i + 1..]),
        None => ("", word),
    };
    let on_disk = match dir.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(|h| std::path::PathBuf::from(h).join(rest))
            .unwrap_or_default(),
        None if dir.is_empty() => std::path::PathBuf::from("."),
        None => std::path::PathBuf::from(dir),
    };
    let Ok(entries) = std::fs::read_dir(&on_disk) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .take(MAX_FOLDERS)
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(name) && (name.starts_with('.') || !n.starts_with('.')))
        .filter(|n| !n.chars().any(char::is_whitespace))
        .map(|n| format!("{dir}{n}/"))
        .collect();
    out.sort();
    out
}

/// Completes the last word of `input`. Returns the new input and, when
/// several fit, the choices.
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
    let fits: Vec<String> = candidates(&words, position, ids, verbs_of)
        .into_iter()
        .filter(|c| c.starts_with(&prefix))
        .collect();
    let common = common_prefix(&fits);
    if common.len() <= prefix.len() && fits.len() != 1 {
        return (input.to_string(), fits);
    }
    // A folder goes on: no space after it.
    let more = common.ends_with('/');
    words[position] = common;
    let mut out = words.join(" ");
    if fits.len() == 1 && !more {
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

/// One `:` line's own `--principal`, `--catalog` and `-g`/`--project`, as
/// typed, while its work is started (`typed`: a line's work is being
/// started, not a key's).
#[derive(Debug, Clone, Default)]
pub struct LineFlags {
    pub principal: Option<String>,
    pub catalogs: Vec<String>,
    pub scope: ScopeFlag,
    pub typed: bool,
}

impl LineFlags {
    pub fn of(line: &Line) -> LineFlags {
        LineFlags {
            scope: line.scope,
            typed: true,
            principal: line.principal.as_ref().map(|p| p.as_str().to_string()),
            catalogs: line
                .catalogs
                .iter()
                .map(|d| d.display().to_string())
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        split(s).unwrap()
    }

    fn parsed(s: &str) -> Result<Parsed, String> {
        parse(&words(s)).map(|l| l.parsed)
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
    fn parses_with_the_clap_tree() {
        assert_eq!(
            parsed("install demo.git"),
            Ok(Parsed::Stage(Stage::Install, vec!["demo.git".into()]))
        );
        assert_eq!(
            parsed("exec demo.clock now -- tz=UTC"),
            Ok(Parsed::Exec {
                pack_id: "demo.clock".into(),
                verb: "now".into(),
                words: vec!["tz=UTC".into()]
            })
        );
        assert_eq!(
            parsed("grant agent verb.exec.read"),
            Ok(Parsed::Report(Request::Grant {
                principal: "agent".into(),
                grant: "verb.exec.read".into(),
                revoke: false
            }))
        );
        assert_eq!(
            parsed("doctor --fix"),
            Ok(Parsed::Report(Request::Doctor {
                fix: true,
                yes: false
            }))
        );
        assert_eq!(
            parsed("why demo.clock now"),
            Ok(Parsed::Report(Request::Why {
                pack: "demo.clock".into(),
                verb: Some("now".into())
            }))
        );
        assert_eq!(
            parsed("sync hcp.lock --prune"),
            Ok(Parsed::Report(Request::Sync {
                lockfile: Some("hcp.lock".into()),
                frozen: false,
                prune: true,
                yes: false,
                expect: Vec::new()
            }))
        );
        assert_eq!(
            parsed("upgrade a b"),
            Ok(Parsed::Upgrade(vec!["a".into(), "b".into()]))
        );
        // clap's own words for what it refuses.
        let err = parsed("frobnicate").unwrap_err();
        assert!(err.contains("unrecognized subcommand"), "{err}");
        let err = parsed("doctor --force").unwrap_err();
        assert!(err.contains("--force"), "{err}");
        assert!(parsed("why").is_err());
        assert!(matches!(parsed("install --help"), Ok(Parsed::Help(_))));
    }

    /// The lines the TUI's keys do too keep the TUI's own work; the same
    /// subcommand with a flag of the CLI is the command layer's request.
    #[test]
    fn flagged_lines_are_requests_of_the_command_layer() {
        use crate::engine::ops::sources::Selection;
        let install = |line: &str| match parsed(line) {
            Ok(Parsed::Report(Request::Install {
                selection, force, ..
            })) => Some((selection, force)),
            _ => None,
        };
        assert_eq!(install("install ./c --all"), Some((Selection::All, false)));
        assert_eq!(
            install("install ./c --list"),
            Some((Selection::List, false))
        );
        assert_eq!(
            install("install ./c --skill a --skill b"),
            Some((Selection::Skills(vec!["a".into(), "b".into()]), false))
        );
        assert_eq!(
            install("install ./c --force"),
            Some((Selection::Default, true))
        );
        assert_eq!(
            install("install ./a ./b --all").map(|s| s.0),
            Some(Selection::All)
        );
        // The picker of a collection, as `i` opens it.
        assert_eq!(
            parsed("install ./c"),
            Ok(Parsed::Stage(Stage::Install, vec!["./c".into()]))
        );
        // The TUI's masked prompt is the secret's stdin.
        assert_eq!(
            parsed("connect acme.x --secret-stdin"),
            Ok(Parsed::Stage(Stage::Connect, vec!["acme.x".into()]))
        );
        assert!(matches!(
            parsed("upgrade --dry-run"),
            Ok(Parsed::Report(Request::Upgrade { dry_run: true, .. }))
        ));
        assert!(matches!(
            parsed("upgrade acme.x --yes --offline"),
            Ok(Parsed::Report(Request::Upgrade {
                yes: true,
                offline: true,
                ..
            }))
        ));
    }

    /// The project commands, the catalogs' and the harnesses' changes are
    /// requests; an unknown target is the CLI's usage error.
    #[test]
    fn project_catalog_and_harness_changes_are_requests() {
        use crate::engine::ops::sources::Selection;
        assert!(matches!(
            parsed("sync"),
            Ok(Parsed::Report(Request::Sync { lockfile: None, .. }))
        ));
        assert!(matches!(
            parsed("init"),
            Ok(Parsed::Report(Request::Init { .. }))
        ));
        assert!(matches!(
            parsed("add ./c --all"),
            Ok(Parsed::Report(Request::Add {
                selection: Selection::All,
                ..
            }))
        ));
        assert!(matches!(
            parsed("remove acme.x"),
            Ok(Parsed::Report(Request::Remove { .. }))
        ));
        assert!(matches!(
            parsed("catalog add ./c"),
            Ok(Parsed::Report(Request::CatalogAdd { .. }))
        ));
        assert!(matches!(
            parsed("harness enable --detected"),
            Ok(Parsed::Report(Request::HarnessEnable { .. }))
        ));
        assert!(matches!(
            parsed("harness sync --force"),
            Ok(Parsed::Report(Request::HarnessSync { force: true }))
        ));
        assert!(matches!(
            parsed("harness disable claude-code codex"),
            Ok(Parsed::Report(Request::HarnessDisable { .. }))
        ));
        assert!(matches!(
            parsed("harness enable claude-code"),
            Ok(Parsed::Harness { enable: true, .. })
        ));
        // The CLI's usage error for a target it does not know.
        let err = parsed("harness enable bogus").unwrap_err();
        assert!(err.contains("unknown harness target `bogus`"), "{err}");
        // What cannot run here says what to run instead.
        for line in ["tui", "mcp", "completions bash", "man"] {
            let err = parsed(line).unwrap_err();
            assert!(err.contains("run it in a shell"), "{line}: {err}");
        }
    }

    #[test]
    fn global_flags_before_and_after_the_subcommand() {
        let line = parse(&words("--principal agent availability --json")).unwrap();
        assert_eq!(line.principal.as_ref().map(|p| p.as_str()), Some("agent"));
        assert!(line.json);
        let line = parse(&words("show demo.clock --catalog ./c --principal bot")).unwrap();
        assert_eq!(line.principal.as_ref().map(|p| p.as_str()), Some("bot"));
        assert_eq!(line.catalogs, [PathBuf::from("./c")]);
        assert!(parse(&words("list --principal '$(x)'")).is_err());
        assert!(matches!(
            parsed("principal agent"),
            Ok(Parsed::Principal(p)) if p.as_str() == "agent"
        ));
        assert!(parsed("principal").is_err());
    }

    #[test]
    fn tab_completes_subcommands_flags_ids_and_verbs() {
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
        assert_eq!(
            complete("install x --fo", &ids, verbs).0,
            "install x --force "
        );
        assert_eq!(complete("harness st", &ids, verbs).0, "harness status ");
        assert_eq!(
            complete("remove demo.clock demo.f", &ids, verbs).0,
            "remove demo.clock demo.files "
        );
        assert_eq!(
            complete("availability --pri", &ids, verbs).0,
            "availability --principal "
        );
        let (_, choices) = complete("", &ids, verbs);
        assert!(choices.contains(&"principal".to_string()), "{choices:?}");
        assert_eq!(choices.len(), line::subcommands(&[]).len() + 1);
    }

    #[test]
    fn tab_completes_a_grants_capabilities_and_an_installs_folders() {
        let ids = ["demo.clock", "demo.files"];
        let none = |_: &str| Vec::new();
        assert_eq!(
            complete("grant agent verb.exec.w", &ids, none).0,
            "grant agent verb.exec.write "
        );
        let (_, choices) = complete("revoke agent ", &ids, none);
        assert_eq!(
            choices,
            [
                "*",
                "pack.install",
                "pack.connect",
                "verb.exec.read",
                "verb.exec.write"
            ]
        );
        assert_eq!(
            complete("grant agent verb.exec.read:demo.c", &ids, none).0,
            "grant agent verb.exec.read:demo.clock "
        );
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for d in ["skills", "scripts", ".hidden"] {
            std::fs::create_dir(dir.path().join(d)).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(dir.path().join("skinny.txt"), "").unwrap_or_else(|e| panic!("{e}"));
        let root = format!("{}/", dir.path().display());
        assert_eq!(
            complete(&format!("install {root}sk"), &ids, none).0,
            format!("install {root}skills/"),
            "a folder, no space: Tab goes on into it"
        );
        let (_, choices) = complete(&format!("install {root}"), &ids, none);
        assert_eq!(
            choices,
            [format!("{root}scripts/"), format!("{root}skills/")]
        );
        // A word that is no path is a pack id.
        assert_eq!(
            complete("install demo.f", &ids, none).0,
            "install demo.files "
        );
    }

    /// A word for an argument of the tree: one of its values, else one that
    /// fits its value name.
    fn value_for(arg: &clap::Arg) -> String {
        if let Some(v) = arg.get_possible_values().first() {
            return v.get_name().to_string();
        }
        let name = arg
            .get_value_names()
            .and_then(|n| n.first())
            .map(|n| n.to_string())
            .unwrap_or_default();
        match name.as_str() {
            "PACK_ID" | "ID" => "acme.x".into(),
            "VERB" => "now".into(),
            "TARGET" => "claude-code".into(),
            "PRINCIPAL" | "NAME" => "agent".into(),
            "GRANT" => "verb.exec.read".into(),
            "PACK_ID=DIGEST" => format!("acme.x=sha256:{}", "0".repeat(64)),
            "LOCKFILE" => "hcp.lock".into(),
            _ => "./x".into(),
        }
    }

    /// Every subcommand path of the tree that runs (no subcommand of its
    /// own), with its clap command.
    fn leaves(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, clap::Command)>) {
        let subs: Vec<&clap::Command> = cmd
            .get_subcommands()
            .filter(|c| c.get_name() != "help")
            .collect();
        if subs.is_empty() && !path.is_empty() {
            out.push((path, cmd.clone()));
            return;
        }
        for sub in subs {
            let mut next = path.clone();
            next.push(sub.get_name().to_string());
            leaves(sub, next, out);
        }
    }

    /// Walks the clap tree: every subcommand, alone and with each of its
    /// flags, that clap takes (`Cli::try_parse_from`) is taken by the `:`
    /// parser too, except the few that cannot run inside the TUI (listed,
    /// so that a new one is a decision, not an accident): `tui`, `mcp`,
    /// `completions` and `man`, which start another program or print for a
    /// shell; each says so and what to run instead.
    #[test]
    fn the_line_takes_every_subcommand_and_flag_clap_takes() {
        use crate::command::args::Cli;
        use clap::{CommandFactory, Parser};
        let mut all = Vec::new();
        leaves(&Cli::command(), Vec::new(), &mut all);
        let (mut tried, mut refused) = (0, std::collections::BTreeSet::new());
        for (path, cmd) in &all {
            let positional: Vec<&clap::Arg> = cmd
                .get_arguments()
                .filter(|a| a.is_positional() && !a.is_last_set())
                .collect();
            let required: Vec<String> = positional
                .iter()
                .filter(|a| a.is_required_set())
                .map(|a| value_for(a))
                .collect();
            let every: Vec<String> = positional.iter().map(|a| value_for(a)).collect();
            let mut flags: Vec<Vec<String>> = vec![Vec::new()];
            for arg in cmd.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                if matches!(long, "help" | "version") {
                    continue;
                }
                let mut words = vec![format!("--{long}")];
                if arg.get_action().takes_values() {
                    words.push(value_for(arg));
                }
                flags.push(words);
            }
            for flag in flags {
                let name = format!("{} {}", path.join(" "), flag.join(" "));
                let lines: Vec<Vec<String>> = [&required, &every]
                    .iter()
                    .map(|args| [path.clone(), (*args).clone(), flag.clone()].concat())
                    .filter(|words| {
                        let argv = std::iter::once("hcpx".to_string()).chain(words.iter().cloned());
                        Cli::try_parse_from(argv).is_ok()
                    })
                    .collect();
                if lines.is_empty() {
                    continue;
                }
                tried += 1;
                if !lines.iter().any(|words| parse(words).is_ok()) {
                    refused.insert(name.trim().to_string());
                    for words in &lines {
                        let why = parse(words).err().unwrap_or_default();
                        assert!(why.contains("run it in a shell"), "{name}: {why}");
                    }
                }
            }
        }
        assert!(tried > 80, "only {tried} lines tried");
        let expected: std::collections::BTreeSet<String> = [
            "completions",
            "completions --json",
            "man",
            "man --json",
            "mcp",
            "mcp --catalog ./x",
            "mcp --json",
            "mcp --principal agent",
            "mcp --print-config claude-code",
            "tui",
            "tui --catalog ./x",
            "tui --principal agent",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(refused, expected);
    }
}
