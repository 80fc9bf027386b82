//! What a front-end asks the engine for, parsed (HCP.md §10, §11.5): one
//! [`Request`] per report subcommand (and `grant`/`revoke`), built from the clap tree's
//! [`Command`], so the CLI and the TUI's `:` line make the same request
//! from the same words.
//!
//! Pack ids stay the words the user typed: the engine's lookups
//! (`pack_view`, `show`) check them and answer `not_found` in the words the
//! CLI has always used.

use crate::command::args::Command;
use crate::command::args::catalog::CatalogCommand;
use crate::command::args::harness::HarnessCommand;

/// A report subcommand and its parsed values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `doctor [--fix]` (§14.7).
    Doctor { fix: bool },
    /// `verify [PACK_ID...]` (§13.5).
    Verify { packs: Vec<String> },
    /// `show PACK_ID`.
    Show { pack: String },
    /// `availability [PACK_ID]` (§11.2).
    Availability { pack: Option<String> },
    /// `why PACK_ID [VERB]` (§11.3).
    Why { pack: String, verb: Option<String> },
    /// `list` (§11.3).
    List,
    /// `catalog list` (§13.2).
    CatalogList,
    /// `catalog update` (§13.2).
    CatalogUpdate,
    /// `harness list` (§12.4).
    HarnessList,
    /// `harness status [PACK_ID]` (§12.6).
    HarnessStatus { pack: Option<String> },
    /// `outdated [--offline]` (§13.6).
    Outdated { offline: bool },
    /// `grant PRINCIPAL GRANT`, or with `revoke` `revoke PRINCIPAL GRANT`
    /// (§9.4).
    Grant {
        principal: String,
        grant: String,
        revoke: bool,
    },
}

impl Request {
    /// The request `command` makes, when the command layer runs it.
    pub fn from_command(command: &Command) -> Option<Request> {
        Some(match command {
            Command::Doctor(a) => Request::Doctor { fix: a.fix },
            Command::Verify(a) => Request::Verify {
                packs: a.packs.clone(),
            },
            Command::Show(a) => Request::Show {
                pack: a.pack.clone(),
            },
            Command::Availability(a) => Request::Availability {
                pack: a.pack.clone(),
            },
            Command::Why(a) => Request::Why {
                pack: a.pack.clone(),
                verb: a.verb.clone(),
            },
            Command::List(_) => Request::List,
            Command::Catalog(a) => match &a.command {
                CatalogCommand::List => Request::CatalogList,
                CatalogCommand::Update => Request::CatalogUpdate,
                _ => return None,
            },
            Command::Harness(a) => match &a.command {
                HarnessCommand::List { .. } => Request::HarnessList,
                HarnessCommand::Status { pack, .. } => {
                    Request::HarnessStatus { pack: pack.clone() }
                }
                _ => return None,
            },
            Command::Outdated(a) => Request::Outdated { offline: a.offline },
            Command::Grant(a) | Command::Revoke(a) => Request::Grant {
                principal: a.principal_name.clone(),
                grant: a.grant.clone(),
                revoke: matches!(command, Command::Revoke(_)),
            },
            _ => return None,
        })
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
                vec![sub.into(), principal.clone(), grant.clone()]
            }
        };
        match self {
            Request::Doctor { fix: true } => words.push("--fix".into()),
            Request::Outdated { offline: true } => words.push("--offline".into()),
            Request::Verify { packs } => words.extend(packs.iter().cloned()),
            Request::Show { pack } => words.push(pack.clone()),
            Request::Availability { pack } | Request::HarnessStatus { pack } => {
                words.extend(pack.iter().cloned());
            }
            Request::Why { pack, verb } => {
                words.push(pack.clone());
                words.extend(verb.iter().cloned());
            }
            _ => {}
        }
        words
    }

    /// Whether it may change the store, so a browser reads it again.
    pub fn changes(&self) -> bool {
        matches!(
            self,
            Request::Doctor { fix: true }
                | Request::CatalogUpdate
                | Request::Outdated { .. }
                | Request::Grant { .. }
        )
    }

    /// Whether a front-end asks y/n before it runs (`doctor --fix`).
    pub fn asks(&self) -> bool {
        matches!(self, Request::Doctor { fix: true })
    }
}
