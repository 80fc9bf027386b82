//! The harness targets as the TUI shows them (HCP.md §12.4): each target's
//! folder, whether it is detected and enabled (§12.5), and how many Skills
//! are placed there, in conflict or behind (§12.8 states), read by a worker
//! from `Engine::harness_list` and `Engine::harness_status`; and one pack's
//! Skill in every enabled target, for Details; and whether each detected
//! harness's MCP client configuration names `hcpx mcp` (§16.7, read-only,
//! `engine::harness::mcp_config`). Plain data and its reads:
//! the Harnesses view (`dialog::harnesses`) draws it.

use crate::engine::error::Result;
use crate::engine::harness::TargetName;
use crate::engine::harness::mcp_config::{self, McpState};
use crate::engine::harness::plan::SkillState;
use crate::engine::ops::Engine;
use std::path::Path;

/// One target as the view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessRow {
    pub name: TargetName,
    /// The folder, with the home folder written `~`.
    pub folder: String,
    pub detected: bool,
    pub enabled: bool,
    /// Skills `placed` there (an enabled target only).
    pub placed: usize,
    /// Skills in `conflict` or `modified` there: the user's files, which
    /// hcpx leaves alone.
    pub conflicts: usize,
    /// Skills `missing`, `outdated` or `stale` there: `hcpx harness sync`
    /// brings them in step.
    pub behind: usize,
    /// Whether the harness's own MCP client configuration starts `hcpx
    /// mcp` (§16.7); `None` for a harness whose file hcpx does not read.
    pub mcp: Option<McpState>,
    /// That configuration file, with the home folder written `~`.
    pub mcp_file: Option<String>,
    /// The store whose targets these are (inside a project the view
    /// shows the project's and the user store's, as `hcpx harness status`
    /// does there, HCP.md §15.5).
    pub store: crate::engine::project::Scope,
}

/// The state of the selected pack's Skill in one enabled target (§12.8),
/// for the Details pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackHarness {
    pub target: TargetName,
    /// The Skill's folder name there (its frontmatter `name`).
    pub skill: String,
    pub state: SkillState,
}

/// Where the selected pack's Skill stands in the enabled targets: `None`
/// when the pack is not installed (nothing to place), `Err` with the
/// engine's words when the targets do not read.
pub type PackHarnesses = Option<std::result::Result<Vec<PackHarness>, String>>;

/// The selected pack's lines of `hcpx harness status PACK_ID`.
pub fn for_pack(engine: &Engine, pack_id: &str) -> std::result::Result<Vec<PackHarness>, String> {
    let targets = crate::engine::ops::checked_id(pack_id)
        .and_then(|id| engine.harness_status(Some(&id)))
        .map_err(|e| format!("{}: {}", e.code.as_str(), e.message))?;
    Ok(targets
        .into_iter()
        .flat_map(|t| {
            let target = t.name;
            t.skills.into_iter().map(move |s| PackHarness {
                target,
                skill: s.skill,
                state: s.state,
            })
        })
        .collect())
}

/// What fixes a state, as the `hcpx` words after `hcpx ` (§12.7–§12.8):
/// `sync` repairs `missing`, `outdated`, `stale`; `--force` replaces an
/// edited copy; a `conflict` is someone else's folder, never touched.
pub fn fix_for(state: SkillState) -> Option<(&'static str, &'static str)> {
    match state {
        SkillState::Placed => None,
        SkillState::Missing | SkillState::Outdated | SkillState::Stale => {
            Some(("harness sync", "brings it in step"))
        }
        SkillState::Modified => Some((
            "harness sync --force",
            "replaces the edited copy; save your edits first",
        )),
        SkillState::Conflict => Some((
            "harness status",
            "another folder of that name is there, not hcpx's: rename or remove it, then hcpx harness sync",
        )),
    }
}

/// Every target of `engine`'s store with its counts (the same calls as
/// `hcpx harness list` and `hcpx harness status`).
pub fn read(engine: &Engine) -> Result<Vec<HarnessRow>> {
    let env = engine.harness_env()?;
    let home = env.home.clone();
    let list = engine.harness_list()?;
    let status = engine.harness_status(None)?;
    Ok(list
        .into_iter()
        .map(|t| {
            let skills = status
                .iter()
                .find(|s| s.name == t.name)
                .map(|s| s.skills.as_slice())
                .unwrap_or_default();
            let count =
                |f: &dyn Fn(SkillState) -> bool| skills.iter().filter(|s| f(s.state)).count();
            HarnessRow {
                name: t.name,
                folder: tilde(&t.path, &home),
                detected: t.detected,
                enabled: t.enabled,
                placed: count(&|s| s == SkillState::Placed),
                conflicts: count(&|s| matches!(s, SkillState::Conflict | SkillState::Modified)),
                behind: count(&|s| {
                    matches!(
                        s,
                        SkillState::Missing | SkillState::Outdated | SkillState::Stale
                    )
                }),
                mcp: t
                    .detected
                    .then(|| mcp_config::state(&env, t.name))
                    .flatten(),
                mcp_file: mcp_config::config_file(&env, t.name).map(|p| tilde(&p, &home)),
                store: engine.scope(),
            }
        })
        .collect())
}

/// `path` with `home` written `~` (shorter, and the same on every machine).
fn tilde(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) if !home.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_folder_is_written_as_a_tilde() {
        let home = Path::new("/home/ann");
        assert_eq!(
            tilde(Path::new("/home/ann/.claude/skills"), home),
            "~/.claude/skills"
        );
        assert_eq!(tilde(Path::new("/srv/x/skills"), home), "/srv/x/skills");
    }
}
