//! `hcpx context` (HCP.md §17.1–§17.5): for each harness whose targets
//! are enabled (the user's, and in a project the project's too), or those
//! named, the one listing it builds from all its folders, priced by its
//! rule (`engine::context`).

use super::Engine;
use crate::engine::context::read::{self, FoundSkill};
use crate::engine::context::{self as ledger, HarnessLedger, LedgerFolder, Rule, claude};
use crate::engine::error::Result;
use crate::engine::harness::{self, HarnessEnv, TargetName};
use crate::engine::project::Scope;
use crate::engine::store::config;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What `hcpx context` was asked.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContextOptions {
    /// The harnesses named (`--harness`); empty: those enabled.
    pub harnesses: Vec<TargetName>,
    pub context_tokens: Option<u64>,
    pub chars_per_token: Option<u64>,
    /// `--max-percent`.
    pub max_percent: Option<f64>,
}

/// §17.4's document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextReport {
    pub ok: bool,
    pub harnesses: Vec<HarnessLedger>,
    /// With `--max-percent`: the harnesses over it (§17.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_max: Option<Vec<TargetName>>,
    /// `--max-percent`, to say it (not in the document).
    #[serde(skip)]
    pub max_percent: Option<f64>,
}

impl Engine {
    /// The ledger of every harness `options` asks for.
    pub fn context(&self, options: &ContextOptions) -> Result<ContextReport> {
        let env = self.harness_env()?;
        let user_env = HarnessEnv {
            project: None,
            ..env.clone()
        };
        let project = self.store().project().map(Path::to_path_buf);
        let names = if options.harnesses.is_empty() {
            self.context_harnesses()?
        } else {
            dedup(&options.harnesses)
        };
        let tokens = options
            .context_tokens
            .unwrap_or(claude::DEFAULT_CONTEXT_TOKENS);
        let harnesses: Vec<HarnessLedger> = names
            .iter()
            .map(|&name| {
                let folders = listing_folders(name, &user_env, project.as_deref());
                let skills = read_folders(&folders);
                let rule = rule_of(name, &user_env, project.as_deref(), options, tokens);
                ledger::ledger(name, folders, skills, &rule)
            })
            .collect();
        let over_max = options.max_percent.map(|max| {
            harnesses
                .iter()
                .filter(|h| h.over_percent(max))
                .map(|h| h.harness)
                .collect::<Vec<_>>()
        });
        Ok(ContextReport {
            ok: over_max.as_ref().is_none_or(Vec::is_empty),
            harnesses,
            over_max,
            max_percent: options.max_percent,
        })
    }

    /// The harnesses whose targets are enabled: the user store's and, in a
    /// project, the project's (§17.1), in the order of the target table.
    fn context_harnesses(&self) -> Result<Vec<TargetName>> {
        let user_config = match &self.user_config {
            Some(path) => path.clone(),
            None => self.store().config_path(),
        };
        let mut enabled =
            harness::parse_enabled(&config::read(&user_config)?.harnesses, &user_config)?;
        if self.store().project().is_some() {
            enabled.extend(self.enabled_harnesses()?);
        }
        Ok(TargetName::ALL
            .into_iter()
            .filter(|t| enabled.contains(t))
            .collect())
    }
}

fn dedup(names: &[TargetName]) -> Vec<TargetName> {
    let mut out: Vec<TargetName> = Vec::new();
    for name in names {
        if !out.contains(name) {
            out.push(*name);
        }
    }
    out
}

/// Whether a harness also reads the shared `~/.agents/skills` (§12.4).
fn reads_agents(name: TargetName) -> bool {
    matches!(
        name,
        TargetName::Agents
            | TargetName::Codex
            | TargetName::Cursor
            | TargetName::Copilot
            | TargetName::Opencode
            | TargetName::Gemini
    )
}

/// The folders `name` lists Skills from: its own, the shared one where it
/// reads it, and in a project the project's folder it reads (§15.4).
pub fn listing_folders(
    name: TargetName,
    user: &HarnessEnv,
    project: Option<&Path>,
) -> Vec<LedgerFolder> {
    let mut paths: Vec<(Scope, PathBuf)> = vec![(Scope::User, user.locate(name).folder)];
    if reads_agents(name) {
        paths.push((Scope::User, user.locate(TargetName::Agents).folder));
    }
    if let Some(project) = project {
        let env = user.for_project(project);
        paths.push((Scope::Project, env.locate(name).folder));
    }
    let mut folders: Vec<LedgerFolder> = Vec::new();
    for (scope, path) in paths {
        if !folders.iter().any(|f| f.path == path) {
            folders.push(LedgerFolder { scope, path });
        }
    }
    folders
}

/// Every Skill of `folders`; a folder reached twice (a link) is read once.
fn read_folders(folders: &[LedgerFolder]) -> Vec<FoundSkill> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut skills = Vec::new();
    for folder in folders {
        let real = folder
            .path
            .canonicalize()
            .unwrap_or_else(|_| folder.path.clone());
        if seen.contains(&real) {
            continue;
        }
        skills.extend(
            read::read_root(&real, folder.scope)
                .into_iter()
                .map(|mut s| {
                    // The path as the harness names it: under the folder as given.
                    s.skill_md = folder.path.join(&s.folder).join("SKILL.md");
                    s
                }),
        );
        seen.push(real);
    }
    skills
}

/// The rule `name` prices its listing by (§17.2, §17.3).
fn rule_of(
    name: TargetName,
    user: &HarnessEnv,
    project: Option<&Path>,
    options: &ContextOptions,
    tokens: u64,
) -> Rule {
    match name {
        TargetName::ClaudeCode => {
            let settings = claude_settings(user, project);
            let env = std::env::var(claude::BUDGET_VAR).ok();
            Rule::Claude {
                budget: claude::budget(
                    tokens,
                    options
                        .chars_per_token
                        .unwrap_or(claude::DEFAULT_CHARS_PER_TOKEN),
                    &settings,
                    env.as_deref(),
                ),
                cap: settings.cap(),
            }
        }
        TargetName::Codex => Rule::Codex {
            context_tokens: tokens,
        },
        _ => Rule::Unknown,
    }
}

/// Claude Code's settings, merged: the user's (`$CLAUDE_CONFIG_DIR`, else
/// `~/.claude`), then the project's `.claude/settings.json` and
/// `.claude/settings.local.json`.
fn claude_settings(user: &HarnessEnv, project: Option<&Path>) -> claude::Settings {
    let user_dir = user
        .claude_config_dir
        .clone()
        .unwrap_or_else(|| user.home.join(".claude"));
    let mut files = vec![user_dir.join("settings.json")];
    if let Some(project) = project {
        files.push(project.join(".claude/settings.json"));
        files.push(project.join(".claude/settings.local.json"));
    }
    let read: Vec<serde_json::Value> = files.iter().filter_map(|f| read::read_json(f)).collect();
    claude::Settings::merge(&read)
}
