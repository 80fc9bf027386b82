//! Dynamic shell completion (clap_complete's `CompleteEnv`): the shell runs
//! `HCPX_COMPLETE=<shell> hcpx -- hcpx WORDS...` on TAB, and hcpx answers with
//! subcommands and flags from the clap tree, plus the pack ids it knows
//! (installed and in catalogs, HCP.md §11.6) and the verbs of the pack
//! named on the line (§4). `hcpx completions SHELL` prints the shell code
//! that does this. Completion only reads: it never creates a store, takes
//! the lock or installs the bootstrap pack.
//!
//! This module holds the completers the clap tree (`command::args`) names;
//! the request is answered with that tree by
//! [`crate::command::complete_if_asked`], so this module needs no tree.

use crate::engine::lint::{declared_manifest, manifest_id};
use crate::engine::pack::document::Node;
use crate::engine::pack::grammar;
use crate::engine::pack::id::PackId;
use crate::engine::store::parallel::parallel_map;
use crate::engine::store::{self, Store, catalog, config};
use clap_complete::engine::{
    ArgValueCompleter, CompletionCandidate, PathCompleter, ValueCompleter,
};
use std::ffi::OsStr;
use std::path::PathBuf;

/// The environment variable that turns a run into a completion request
/// (not clap's default `COMPLETE`, a name common enough to be set for
/// something else in the environment a harness runs `hcpx exec` in).
pub const VAR: &str = "HCPX_COMPLETE";

/// The shell a completion request is for (the value of [`VAR`]).
static SHELL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Keeps the shell a completion request is for, if this run is one:
/// clap removes [`VAR`] before it asks the completers
/// ([`crate::command::complete_if_asked`] calls this first).
pub fn remember_shell() {
    if let Ok(shell) = std::env::var(VAR) {
        let _ = SHELL.set(shell);
    }
}

/// Completes a PACK_ID argument.
pub fn pack_ids() -> ArgValueCompleter {
    ArgValueCompleter::new(complete_pack_id)
}

/// Completes `install`'s DIR|PACK_ID: pack ids and folders.
pub fn pack_ids_or_dirs() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let mut out = complete_pack_id(current);
        out.extend(PathCompleter::dir().complete(current));
        out
    })
}

/// Completes a VERB argument: the commands of the pack before it.
/// Harness target names (§12.4), with who reads each folder.
pub fn harness_targets() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let current = current.to_string_lossy();
        crate::engine::harness::TargetName::ALL
            .into_iter()
            .filter(|t| t.as_str().starts_with(current.as_ref()))
            .map(|t| CompletionCandidate::new(t.as_str()).help(Some(t.readers().into())))
            .collect()
    })
}

pub fn verbs() -> ArgValueCompleter {
    ArgValueCompleter::new(complete_verb)
}

fn complete_pack_id(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(prefix) = current.to_str() else {
        return Vec::new();
    };
    let line = Line::from_env();
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (id, help) in known_packs(&line, prefix) {
        if seen.insert(id.clone()) {
            out.push(CompletionCandidate::new(id).help(help.map(Into::into)));
        }
    }
    out
}

fn complete_verb(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(prefix) = current.to_str() else {
        return Vec::new();
    };
    let line = Line::from_env();
    let Some(doc) = line.pack.as_deref().and_then(|id| manifest_of(&line, id)) else {
        return Vec::new();
    };
    commands_of(&doc)
        .into_iter()
        // A pack failing lint may hold any text as a key: offer only
        // verb_keys, which cannot break the shell's candidate lines.
        .filter(|(key, _)| grammar::is_verb_key(key) && key.starts_with(prefix))
        .map(|(key, summary)| CompletionCandidate::new(key).help(Some(one_line(summary).into())))
        .collect()
}

/// What completion needs from the command line being completed: the
/// `--catalog` folders on it and the first word after the subcommand.
#[derive(Debug, Default)]
struct Line {
    catalogs: Vec<PathBuf>,
    pack: Option<String>,
}

impl Line {
    /// The words the shell passed after `--` (the first is the program).
    fn from_env() -> Line {
        let args: Vec<String> = std::env::args_os()
            .skip_while(|a| a != "--")
            .skip(2)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        Line::parse(&args)
    }

    fn parse(words: &[String]) -> Line {
        let mut line = Line::default();
        let mut positional = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let word = words[i].as_str();
            if word == "--" {
                break;
            }
            if word == "--catalog" {
                if let Some(dir) = words.get(i + 1) {
                    line.catalogs.push(PathBuf::from(dir));
                }
                i += 1;
            } else if let Some(dir) = word.strip_prefix("--catalog=") {
                line.catalogs.push(PathBuf::from(dir));
            } else if word == "--principal" {
                i += 1;
            } else if !word.starts_with('-') {
                positional.push(word.to_string());
            }
            i += 1;
        }
        // positional[0] is the subcommand; [1] the pack; the word being
        // completed is the last one, which is the pack only when it is not
        // the last.
        if positional.len() > 2 {
            line.pack = positional.get(1).cloned();
        }
        line
    }

    fn store(&self) -> Option<Store> {
        store::default_home().and_then(Store::open_existing)
    }

    fn catalogs(&self, store: Option<&Store>) -> Vec<PathBuf> {
        let mut dirs = store
            .and_then(|s| config::read(&s.config_path()).ok())
            .map(|c| c.catalogs)
            .unwrap_or_default();
        dirs.extend(self.catalogs.iter().cloned());
        dirs
    }
}

/// `(pack id, description)` of the installed packs, then the catalogs',
/// for the ids starting with `prefix`. Manifests are read, never linted:
/// an installed pack's for its `name` (only when the shell shows
/// descriptions and at most [`MAX_DESCRIBED`] installed packs match), a
/// catalog pack's for its id and `name`. The description is `None` where
/// lint would find no manifest.
fn known_packs(line: &Line, prefix: &str) -> Vec<(String, Option<String>)> {
    let store = line.store();
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    if let Some(store) = &store {
        let ids: Vec<PackId> = store
            .installed_ids()
            .unwrap_or_default()
            .into_iter()
            .filter(|id| id.as_str().starts_with(prefix))
            .collect();
        if shows_help() && ids.len() <= MAX_DESCRIBED {
            out.extend(parallel_map(ids, |id| {
                let help = declared_manifest(&store.pack_dir(&id)).map(|doc| name_of(&doc));
                (id.as_str().to_string(), help)
            }));
        } else {
            out.extend(ids.into_iter().map(|id| (id.as_str().to_string(), None)));
        }
    }
    let dirs = catalog::pack_dirs(&line.catalogs(store.as_ref()));
    let packs = parallel_map(dirs, |(_, dir)| {
        let doc = declared_manifest(&dir)?;
        let id = manifest_id(&doc).filter(|id| id.starts_with(prefix))?;
        PackId::parse(id)?;
        Some((id.to_string(), Some(name_of(&doc))))
    });
    out.extend(packs.into_iter().flatten());
    out
}

/// The most installed packs whose descriptions a TAB reads: past that
/// many matches the menu lists ids alone, so a TAB on a big store stays
/// quick (each description is a manifest read and parsed).
const MAX_DESCRIBED: usize = 100;

/// Whether the shell asking shows a candidate's description: bash and
/// elvish show values alone, so for them no installed pack's manifest is
/// read just for its `name`.
fn shows_help() -> bool {
    !matches!(SHELL.get().map(String::as_str), Some("bash" | "elvish"))
}

/// The manifest document of `pack_id`: the installed copy, else the first
/// catalog pack declaring that id (as `catalog::find` over a scan).
fn manifest_of(line: &Line, pack_id: &str) -> Option<Node> {
    let id = PackId::parse(pack_id)?;
    let store = line.store();
    if let Some(store) = &store
        && store.is_installed(&id)
    {
        return declared_manifest(&store.pack_dir(&id));
    }
    catalog::pack_dirs(&line.catalogs(store.as_ref()))
        .into_iter()
        .filter_map(|(_, dir)| declared_manifest(&dir))
        .find(|doc| manifest_id(doc) == Some(pack_id))
}

/// The manifest's `name`, as lint reads it (empty when not a string).
fn name_of(doc: &Node) -> String {
    one_line(doc.get("name").and_then(Node::as_str).unwrap_or_default())
}

/// `(key, summary)` of each command of a manifest, as lint reads them:
/// every mapping of `commands`, its `key`'s text and its `summary` when a
/// string. The keys are not checked here.
fn commands_of(doc: &Node) -> Vec<(String, &str)> {
    let Some(items) = doc.get("commands").and_then(Node::as_seq) else {
        return Vec::new();
    };
    items
        .iter()
        .filter(|item| item.as_map().is_some())
        .map(|item| {
            let key = item.get("key").map(Node::scalar_text).unwrap_or_default();
            let summary = item
                .get("summary")
                .and_then(Node::as_str)
                .unwrap_or_default();
            (key, summary)
        })
        .collect()
}

/// Pack text as one terminal-safe line for a completion menu.
fn one_line(text: &str) -> String {
    crate::engine::pack::text::one_line(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn finds_the_pack_and_the_catalogs_on_the_line() {
        let line = Line::parse(&words("exec --catalog /c demo.clock n"));
        assert_eq!(line.pack.as_deref(), Some("demo.clock"));
        assert_eq!(line.catalogs, vec![PathBuf::from("/c")]);
        let line = Line::parse(&words("exec demo.cl"));
        assert_eq!(line.pack, None);
        let line = Line::parse(&words("--catalog=/d why --principal bot demo.clock "));
        assert_eq!(line.pack.as_deref(), Some("demo.clock"));
        assert_eq!(line.catalogs, vec![PathBuf::from("/d")]);
    }
}
