//! What a front-end asks the engine for, parsed (HCP.md §10, §11.5): one
//! [`Request`] per subcommand the command layer runs, built from the clap
//! tree's [`Command`], so the CLI and the TUI's `:` line make the same
//! request from the same words.
//!
//! Values are parsed here, once, and the engine is given the types: a pack
//! id the user names is a [`PackArg`] (a checked [`PackId`], or the word
//! that is not one), a harness target a [`TargetName`], an install source
//! an [`InstallSource`], a principal a [`Principal`] and a grant a
//! [`Grant`] (each with the words typed, for the answer to repeat). A word that does not parse is kept with the
//! request rather than refused at once, because the command meets it in
//! its turn: `activate a.b BAD c.d` activates `a.b` before it stops at
//! `BAD`, `uninstall` goes on past it, and the error names the closest
//! known id, which only the engine knows (`command::execute`).
//!
//! The words of `exec` stay the `k=v` words the user typed: what they mean
//! (which names exist, which types they take) is the command's, which the
//! engine binds them against once it has read the pack (§6.2).
//!
//! `verify`'s pack ids stay the words the user typed: it reads the lock
//! file before it looks at them, so a broken lock file is its error first.

use crate::command::args::Command;
use crate::command::args::catalog::CatalogCommand;
use crate::command::args::harness::HarnessCommand;
use crate::engine::error::{Error, Result};
use crate::engine::harness::{self, TargetName};
use crate::engine::ops::InstallSource;
use crate::engine::ops::context::ContextOptions;
use crate::engine::ops::sources::Selection;
use crate::engine::ops::sync::SyncOptions;
use crate::engine::ops::upgrade::Expected;
use crate::engine::pack::id::PackId;
use crate::engine::policy::grants::{self, Grant, Principal};
use crate::engine::store::source::redact_source;
use std::path::PathBuf;

/// A pack id as the user gave it: checked (§3.2), or the word that is not
/// one, which the command refuses as `not_found` when it comes to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackArg {
    Id(PackId),
    NotAnId(String),
}

impl PackArg {
    pub fn parse(word: &str) -> PackArg {
        match PackId::parse(word) {
            Some(id) => PackArg::Id(id),
            None => PackArg::NotAnId(word.to_string()),
        }
    }

    /// The word as typed.
    pub fn as_str(&self) -> &str {
        match self {
            PackArg::Id(id) => id.as_str(),
            PackArg::NotAnId(word) => word,
        }
    }

    fn all(words: &[String]) -> Vec<PackArg> {
        words.iter().map(|w| PackArg::parse(w)).collect()
    }
}

impl From<&str> for PackArg {
    fn from(word: &str) -> PackArg {
        PackArg::parse(word)
    }
}

/// A principal's name as the user gave it (§9.1): checked, or refused
/// (`usage`, the name shown escaped) when the command comes to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrincipalArg {
    pub text: String,
    pub principal: Result<Principal>,
}

impl From<&str> for PrincipalArg {
    fn from(text: &str) -> PrincipalArg {
        PrincipalArg {
            text: text.to_string(),
            principal: Principal::parse(text),
        }
    }
}

/// A grant as the user gave it (§9.2): parsed, or refused (`usage`) when
/// `grant` comes to it; `revoke` takes the text as written (an entry of
/// the file that is no grant is removed too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantArg {
    pub text: String,
    pub grant: Result<Grant>,
}

impl From<&str> for GrantArg {
    fn from(text: &str) -> GrantArg {
        GrantArg {
            text: text.to_string(),
            grant: grants::parse_grant(text),
        }
    }
}

/// One SOURCE of `install`, parsed (§11.6); one that does not parse is that
/// source's failed result, the others still run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceArg {
    /// The source as a result may show it (no password, §14.3).
    pub shown: String,
    pub source: Result<InstallSource>,
}

impl SourceArg {
    pub fn parse(text: &str) -> SourceArg {
        SourceArg {
            shown: redact_source(text),
            source: InstallSource::parse(text),
        }
    }
}

/// The harness targets `enable` or `disable` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Targets {
    Named(Vec<TargetName>),
    /// `enable --detected`: those whose harness is installed here.
    Detected,
}

/// What `context` asks (§17.1): its options, compared as their words
/// were (a percentage is a number, never NaN: `args::context` refuses it).
#[derive(Debug, Clone, PartialEq)]
pub struct ContextAsk(pub ContextOptions);

impl Eq for ContextAsk {}

/// A subcommand and its parsed values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `doctor [--fix]` (§14.7).
    Doctor { fix: bool, yes: bool },
    /// `verify [PACK_ID...]` (§13.5).
    Verify { packs: Vec<PackArg> },
    /// `show PACK_ID`.
    Show { pack: PackArg },
    /// `availability [PACK_ID]` (§11.2).
    Availability { pack: Option<PackArg> },
    /// `why PACK_ID [VERB]` (§11.3).
    Why { pack: PackArg, verb: Option<String> },
    /// `list` (§11.3).
    List,
    /// `search WORD...` (§11.6): the catalog packs matching every word.
    Search { words: Vec<String> },
    /// `catalog list` (§13.2).
    CatalogList,
    /// `catalog update` (§13.2).
    CatalogUpdate,
    /// `harness list` (§12.4).
    HarnessList,
    /// `harness status [PACK_ID]` (§12.6).
    HarnessStatus { pack: Option<PackArg> },
    /// `context [--harness TARGET]... [--context-tokens N]
    /// [--chars-per-token N] [--max-percent P]` (§17).
    Context(ContextAsk),
    /// `outdated [--offline]` (§13.6).
    Outdated { offline: bool },
    /// `grant PRINCIPAL GRANT`, or with `revoke` `revoke PRINCIPAL GRANT`
    /// (§9.4).
    Grant {
        principal: PrincipalArg,
        grant: GrantArg,
        revoke: bool,
    },
    /// `activate PACK_ID...` (§11.1, §5.4).
    Activate { packs: Vec<PackArg> },
    /// `deactivate PACK_ID...` (§11.1).
    Deactivate { packs: Vec<PackArg> },
    /// `uninstall PACK_ID...` (§11.1, §13.1).
    Uninstall { packs: Vec<PackArg> },
    /// `connect PACK_ID [--secret-stdin]` (§8.5); where the secret comes
    /// from is the front-end's (`execute::Interaction`).
    Connect { pack: PackArg },
    /// `exec PACK_ID VERB [-- k=v ...]` (§6).
    Exec {
        pack: PackArg,
        verb: String,
        words: Vec<String>,
    },
    /// `install SOURCE... [--list | --skill ID... | --all] [--force]
    /// [--yes]` (§11.1, §11.6, §13.1); `yes` consents to a replacement
    /// whose capability diff escalates.
    Install {
        sources: Vec<SourceArg>,
        selection: Selection,
        force: bool,
        yes: bool,
    },
    /// `lint PATH... [--deny-warnings]` (§10.4): reads no store.
    Lint {
        paths: Vec<PathBuf>,
        deny_warnings: bool,
    },
    /// `upgrade [PACK_ID...] [--dry-run] [--yes] [--expect ...]
    /// [--offline]` (§13.7).
    Upgrade {
        packs: Vec<PackArg>,
        dry_run: bool,
        yes: bool,
        expect: Vec<Expected>,
        offline: bool,
    },
    /// `sync LOCKFILE [--frozen] [--prune] [--yes]` (§13.8); without
    /// LOCKFILE, a project's sync to its `hcp.yaml` and `hcp.lock` (§15.3).
    Sync {
        lockfile: Option<PathBuf>,
        frozen: bool,
        prune: bool,
        yes: bool,
        /// With `yes`: only these new digests (the diffs shown, §15.6).
        expect: Vec<Expected>,
    },
    /// `catalog add SOURCE` (§13.2).
    CatalogAdd { source: String },
    /// `catalog remove SOURCE` (§13.2).
    CatalogRemove { source: String },
    /// `harness enable TARGET... | --detected` (§12.5).
    HarnessEnable { targets: Targets },
    /// `harness disable TARGET...` (§12.5).
    HarnessDisable { targets: Vec<TargetName> },
    /// `harness sync [--force]` (§12.6).
    HarnessSync { force: bool },
    /// `init [DIR]` (§15.3): makes a folder a project; opens no store.
    Init { dir: PathBuf },
    /// `add SOURCE... [--skill ID... | --all] [--yes]` (§15.3): install
    /// and activate, recorded in the project's files in a project.
    Add {
        sources: Vec<SourceArg>,
        selection: Selection,
        yes: bool,
    },
    /// `remove PACK_ID...` (§15.3): deactivate and uninstall, the entries
    /// of the project's files dropped in a project.
    Remove { packs: Vec<PackArg> },
}

impl Request {
    /// The report request `command` makes (a report changes nothing but
    /// grants, doctor's repairs and the catalogs' copies); `None` for a
    /// lifecycle subcommand or one the command layer does not run.
    pub fn from_command(command: &Command) -> Option<Request> {
        Some(match command {
            Command::Doctor(a) => Request::Doctor {
                fix: a.fix,
                yes: a.yes,
            },
            Command::Verify(a) => Request::Verify {
                packs: PackArg::all(&a.packs),
            },
            Command::Show(a) => Request::Show {
                pack: PackArg::parse(&a.pack),
            },
            Command::Availability(a) => Request::Availability {
                pack: a.pack.as_deref().map(PackArg::parse),
            },
            Command::Why(a) => Request::Why {
                pack: PackArg::parse(&a.pack),
                verb: a.verb.clone(),
            },
            Command::List(_) => Request::List,
            Command::Search(a) => Request::Search {
                words: a.words.clone(),
            },
            Command::Catalog(a) => match &a.command {
                CatalogCommand::List => Request::CatalogList,
                CatalogCommand::Update => Request::CatalogUpdate,
                _ => return None,
            },
            Command::Harness(a) => match &a.command {
                HarnessCommand::List { .. } => Request::HarnessList,
                HarnessCommand::Status { pack, .. } => Request::HarnessStatus {
                    pack: pack.as_deref().map(PackArg::parse),
                },
                _ => return None,
            },
            Command::Outdated(a) => Request::Outdated { offline: a.offline },
            Command::Grant(a) | Command::Revoke(a) => Request::Grant {
                principal: a.principal_name.as_str().into(),
                grant: a.grant.as_str().into(),
                revoke: matches!(command, Command::Revoke(_)),
            },
            _ => return None,
        })
    }

    /// The request `command` makes, report or lifecycle; `None` for a
    /// subcommand the command layer does not run (`completions`, `man`,
    /// `tui`). An unknown harness target is `usage` (§12.4), in the words
    /// the CLI has always used.
    pub fn parse(command: &Command) -> Option<Result<Request>> {
        if let Some(report) = Request::from_command(command) {
            return Some(Ok(report));
        }
        Some(Ok(match command {
            Command::Activate(a) => Request::Activate {
                packs: PackArg::all(&a.packs),
            },
            Command::Deactivate(a) => Request::Deactivate {
                packs: PackArg::all(&a.packs),
            },
            Command::Uninstall(a) => Request::Uninstall {
                packs: PackArg::all(&a.packs),
            },
            Command::Connect(a) => Request::Connect {
                pack: PackArg::parse(&a.pack),
            },
            Command::Exec(a) => Request::Exec {
                pack: PackArg::parse(&a.pack),
                verb: a.verb.clone(),
                words: a.words.clone(),
            },
            Command::Install(a) => Request::Install {
                sources: a.sources.iter().map(|s| SourceArg::parse(s)).collect(),
                selection: if a.list {
                    Selection::List
                } else if a.all {
                    Selection::All
                } else if !a.skill.is_empty() {
                    Selection::Skills(a.skill.clone())
                } else {
                    Selection::Default
                },
                force: a.force,
                yes: a.yes,
            },
            Command::Lint(a) => Request::Lint {
                paths: a.paths.clone(),
                deny_warnings: a.deny_warnings,
            },
            Command::Upgrade(a) => Request::Upgrade {
                packs: PackArg::all(&a.packs),
                dry_run: a.dry_run,
                yes: a.yes,
                expect: a.expect.clone(),
                offline: a.offline,
            },
            Command::Sync(a) => Request::Sync {
                lockfile: a.lockfile.clone(),
                frozen: a.frozen,
                prune: a.prune,
                yes: a.yes,
                expect: a.expect.clone(),
            },
            Command::Init(_) | Command::Add(_) | Command::Remove(_) => {
                return project_request(command).map(Ok);
            }
            Command::Catalog(a) => match &a.command {
                CatalogCommand::Add { source } => Request::CatalogAdd {
                    source: source.clone(),
                },
                CatalogCommand::Remove { source } => Request::CatalogRemove {
                    source: source.clone(),
                },
                _ => return None,
            },
            Command::Context(a) => return Some(context_request(a)),
            Command::Harness(a) => match harness_request(&a.command) {
                Some(request) => return Some(request),
                None => return None,
            },
            _ => return None,
        }))
    }

    /// Its `hcpx` words (without the program name), as a front-end says
    /// what it runs.
    pub fn words(&self) -> Vec<String> {
        let mut words: Vec<String> = match self {
            Request::Doctor { .. } => vec!["doctor".into()],
            Request::Verify { .. } => vec!["verify".into()],
            Request::Show { .. } => vec!["show".into()],
            Request::Availability { .. } => vec!["availability".into()],
            Request::Why { .. } => vec!["why".into()],
            Request::List => vec!["list".into()],
            Request::Search { words } => std::iter::once("search".to_string())
                .chain(words.iter().cloned())
                .collect(),
            Request::CatalogList => vec!["catalog".into(), "list".into()],
            Request::CatalogUpdate => vec!["catalog".into(), "update".into()],
            Request::HarnessList => vec!["harness".into(), "list".into()],
            Request::HarnessStatus { .. } => vec!["harness".into(), "status".into()],
            Request::Outdated { .. } => vec!["outdated".into()],
            Request::Grant {
                principal,
                grant,
                revoke,
            } => {
                let sub = if *revoke { "revoke" } else { "grant" };
                vec![sub.into(), principal.text.clone(), grant.text.clone()]
            }
            other => return other.lifecycle_words(),
        };
        match self {
            Request::Doctor { fix: true, yes } => {
                words.push("--fix".into());
                if *yes {
                    words.push("--yes".into());
                }
            }
            Request::Outdated { offline: true } => words.push("--offline".into()),
            Request::Verify { packs } => words.extend(packs.iter().map(|p| p.as_str().to_string())),
            Request::Show { pack } => words.push(pack.as_str().to_string()),
            Request::Availability { pack } | Request::HarnessStatus { pack } => {
                words.extend(pack.iter().map(|p| p.as_str().to_string()));
            }
            Request::Why { pack, verb } => {
                words.push(pack.as_str().to_string());
                words.extend(verb.iter().cloned());
            }
            _ => {}
        }
        words
    }

    /// [`Request::words`] of a lifecycle request: the subcommand and its
    /// operands (its flags are the front-end's to show).
    fn lifecycle_words(&self) -> Vec<String> {
        let ids = |sub: &str, packs: &[PackArg]| {
            std::iter::once(sub.to_string())
                .chain(packs.iter().map(|p| p.as_str().to_string()))
                .collect()
        };
        let two = |a: &str, b: &str| vec![a.to_string(), b.to_string()];
        match self {
            Request::Activate { packs } => ids("activate", packs),
            Request::Deactivate { packs } => ids("deactivate", packs),
            Request::Uninstall { packs } => ids("uninstall", packs),
            Request::Connect { pack } => two("connect", pack.as_str()),
            Request::Exec { pack, verb, words } => {
                let mut all = vec!["exec".into(), pack.as_str().into(), verb.clone()];
                if !words.is_empty() {
                    all.push("--".into());
                    all.extend(words.iter().cloned());
                }
                all
            }
            Request::Install { sources, .. } => std::iter::once("install".to_string())
                .chain(sources.iter().map(|s| s.shown.clone()))
                .collect(),
            Request::Lint { paths, .. } => std::iter::once("lint".to_string())
                .chain(paths.iter().map(|p| p.display().to_string()))
                .collect(),
            Request::Upgrade { packs, .. } => std::iter::once("upgrade".to_string())
                .chain(packs.iter().map(|p| p.as_str().to_string()))
                .collect(),
            Request::Sync { lockfile, .. } => std::iter::once("sync".to_string())
                .chain(lockfile.iter().map(|l| l.display().to_string()))
                .collect(),
            Request::Init { dir } => two("init", &dir.display().to_string()),
            Request::Add { sources, .. } => std::iter::once("add".to_string())
                .chain(sources.iter().map(|s| s.shown.clone()))
                .collect(),
            Request::Remove { packs } => ids("remove", packs),
            Request::CatalogAdd { source } => vec!["catalog".into(), "add".into(), source.clone()],
            Request::CatalogRemove { source } => {
                vec!["catalog".into(), "remove".into(), source.clone()]
            }
            Request::HarnessEnable { .. } => two("harness", "enable"),
            Request::HarnessDisable { .. } => two("harness", "disable"),
            Request::HarnessSync { .. } => two("harness", "sync"),
            Request::Context(ask) => std::iter::once("context".to_string())
                .chain(
                    ask.0
                        .harnesses
                        .iter()
                        .flat_map(|h| ["--harness".to_string(), h.as_str().to_string()]),
                )
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether it may change the store, so a browser reads it again.
    pub fn changes(&self) -> bool {
        !matches!(
            self,
            Request::Doctor { fix: false, .. }
                | Request::Verify { .. }
                | Request::Show { .. }
                | Request::Availability { .. }
                | Request::Why { .. }
                | Request::List
                | Request::Search { .. }
                | Request::CatalogList
                | Request::HarnessList
                | Request::HarnessStatus { .. }
                | Request::Context(_)
                | Request::Lint { .. }
                | Request::Upgrade { dry_run: true, .. }
        )
    }

    /// Whether a front-end asks y/n before it runs (`doctor --fix`).
    pub fn asks(&self) -> bool {
        matches!(self, Request::Doctor { fix: true, .. })
    }

    /// The sync options of a `sync [LOCKFILE]` request (a project's sync
    /// has no lock file of its own).
    pub fn sync_options(&self) -> Option<SyncOptions> {
        match self {
            Request::Sync {
                lockfile,
                frozen,
                prune,
                yes,
                expect,
            } => Some(SyncOptions {
                lockfile: lockfile.clone().unwrap_or_default(),
                frozen: *frozen,
                prune: *prune,
                yes: *yes,
                expect: expect.clone(),
                ..SyncOptions::default()
            }),
            _ => None,
        }
    }
}

/// The request of `init`, `add` or `remove` (§15.3).
fn project_request(command: &Command) -> Option<Request> {
    Some(match command {
        Command::Init(a) => Request::Init {
            dir: a.dir.clone().unwrap_or_else(|| PathBuf::from(".")),
        },
        Command::Add(a) => Request::Add {
            sources: a.sources.iter().map(|s| SourceArg::parse(s)).collect(),
            selection: if a.all {
                Selection::All
            } else if !a.skill.is_empty() {
                Selection::Skills(a.skill.clone())
            } else {
                Selection::Default
            },
            yes: a.yes,
        },
        Command::Remove(a) => Request::Remove {
            packs: PackArg::all(&a.packs),
        },
        _ => return None,
    })
}

/// The request of `context` (§17.1): an unknown `--harness` is `usage`.
fn context_request(a: &crate::command::args::context::ContextArgs) -> Result<Request> {
    target_names(&a.harnesses).map(|harnesses| {
        Request::Context(ContextAsk(ContextOptions {
            harnesses,
            context_tokens: a.context_tokens,
            chars_per_token: a.chars_per_token,
            max_percent: a.max_percent,
        }))
    })
}

/// The request of `harness enable|disable|sync`.
fn harness_request(command: &HarnessCommand) -> Option<Result<Request>> {
    Some(match command {
        HarnessCommand::Enable { detected: true, .. } => Ok(Request::HarnessEnable {
            targets: Targets::Detected,
        }),
        HarnessCommand::Enable { targets, .. } => {
            target_names(targets).map(|t| Request::HarnessEnable {
                targets: Targets::Named(t),
            })
        }
        HarnessCommand::Disable { targets, .. } => {
            target_names(targets).map(|targets| Request::HarnessDisable { targets })
        }
        HarnessCommand::Sync { force, .. } => Ok(Request::HarnessSync { force: *force }),
        HarnessCommand::List { .. } | HarnessCommand::Status { .. } => return None,
    })
}

/// Target names as typed; an unknown one is a usage error listing the known.
fn target_names(names: &[String]) -> Result<Vec<TargetName>> {
    names
        .iter()
        .map(|name| {
            TargetName::parse(name).ok_or_else(|| {
                Error::usage(format!(
                    "unknown harness target `{}`",
                    name.escape_default()
                ))
                .hint(format!("known targets: {}", harness::names_list()))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::line;

    fn request(words: &str) -> Result<Request> {
        let words: Vec<String> = words.split(' ').map(str::to_string).collect();
        let invocation = line::parse(&words).map_err(|e| Error::usage(format!("{e:?}")))?;
        Request::parse(&invocation.command).unwrap_or_else(|| panic!("{words:?}: not a request"))
    }

    /// A word that is not a pack id stays in its place, for the command
    /// to meet in its turn; the ids around it are checked ones.
    #[test]
    fn pack_words_are_parsed_in_place() {
        let Ok(Request::Activate { packs }) = request("activate acme.a Bad acme.c") else {
            panic!("not an activate");
        };
        assert_eq!(
            packs,
            vec![
                PackArg::Id(PackId::parse("acme.a").unwrap_or_else(|| panic!("id"))),
                PackArg::NotAnId("Bad".into()),
                PackArg::Id(PackId::parse("acme.c").unwrap_or_else(|| panic!("id"))),
            ]
        );
        let Ok(Request::Exec { pack, words, .. }) = request("exec ../x now -- a=1") else {
            panic!("not an exec");
        };
        assert_eq!(pack, PackArg::NotAnId("../x".into()));
        assert_eq!(words, vec!["a=1".to_string()]);
    }

    /// An unknown harness target is the CLI's usage error; `--detected`
    /// names none.
    #[test]
    fn harness_targets_are_parsed() {
        let err = request("harness enable claude-code bogus").err();
        assert_eq!(
            err.map(|e| e.message),
            Some("unknown harness target `bogus`".to_string())
        );
        assert_eq!(
            request("harness enable --detected").ok(),
            Some(Request::HarnessEnable {
                targets: Targets::Detected
            })
        );
    }

    /// A source keeps its words without a password, and one that does not
    /// parse is its own failure, beside the others.
    #[test]
    fn install_sources_are_parsed_each() {
        let Ok(Request::Install { sources, .. }) =
            request("install git+https://u:secret@example.com/r.git acme.a")
        else {
            panic!("not an install");
        };
        assert!(!sources[0].shown.contains("secret"), "{}", sources[0].shown);
        assert!(sources[1].source.is_ok());
        assert_eq!(
            request("uninstall acme.a ../b").map(|r| r.words()).ok(),
            Some(vec!["uninstall".into(), "acme.a".into(), "../b".into()])
        );
    }
}
