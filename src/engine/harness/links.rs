//! Project targets reached through a link (HCP.md §15.4): a project
//! target folder (`<project>/.agents/skills`, `.claude/skills`,
//! `.windsurf/skills`) and every folder between it and the project root
//! must be a real folder. The one exception is a target folder that is
//! itself a link, inside the project, to another enabled target folder of
//! the same project (`.claude/skills -> ../.agents/skills`): it counts as
//! that target, placed once and `placed` in both. Any other target reached
//! through a link places nothing and removes nothing; its Skills are
//! `conflict` with `"reason": "link"` naming the link.
//!
//! The user's own targets (`~/.claude/skills`, …) are not checked: a user
//! may link their own dotfiles, and markers (§12.7) keep what is not ours
//! untouched there.

use super::target::{HarnessEnv, TargetName};
use crate::engine::store::remove::{Unreal, first_unreal};
use std::path::PathBuf;

/// How a target's folder is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Through real folders only (or a user target, never checked).
    Real,
    /// The folder is a link to this other enabled project target's folder.
    Alias(TargetName),
    /// Through this link: nothing is placed or removed there.
    Link(PathBuf),
}

/// How `name`'s folder is reached, `enabled` being the enabled targets.
pub fn route(env: &HarnessEnv, name: TargetName, enabled: &[TargetName]) -> Route {
    let Some(project) = &env.project else {
        return Route::Real;
    };
    let folder = env.locate(name).folder;
    let link = match first_unreal(project, &folder, true) {
        Some(Unreal::Link { path, .. }) => path,
        _ => return Route::Real,
    };
    if link != folder {
        return Route::Link(link);
    }
    let Ok(reached) = std::fs::canonicalize(&folder) else {
        return Route::Link(link);
    };
    let alias = enabled.iter().copied().find(|&other| {
        let other_folder = env.locate(other).folder;
        other_folder != folder
            && first_unreal(project, &other_folder, true).is_none()
            && std::fs::canonicalize(&other_folder).is_ok_and(|o| o == reached)
    });
    match alias {
        Some(other) => Route::Alias(other),
        None => Route::Link(link),
    }
}

/// The enabled project targets reached through a link that is not allowed,
/// each with that link (§15.4: `sync`, `add` and `harness sync` name them
/// and exit 1).
pub fn linked(env: &HarnessEnv, enabled: &[TargetName]) -> Vec<(TargetName, PathBuf)> {
    enabled
        .iter()
        .filter_map(|&name| match route(env, name, enabled) {
            Route::Link(link) => Some((name, link)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn ok<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    fn project() -> (tempfile::TempDir, HarnessEnv) {
        let dir = ok(tempfile::tempdir());
        let proj = dir.path().join("proj");
        ok(fs::create_dir_all(proj.join(".agents/skills")));
        let env = HarnessEnv {
            home: dir.path().join("home"),
            ..HarnessEnv::default()
        }
        .for_project(&proj);
        (dir, env)
    }

    const BOTH: &[TargetName] = &[TargetName::Agents, TargetName::ClaudeCode];

    #[test]
    fn real_folders_and_user_targets_are_real() {
        let (dir, env) = project();
        assert_eq!(route(&env, TargetName::Agents, BOTH), Route::Real);
        assert_eq!(route(&env, TargetName::ClaudeCode, BOTH), Route::Real);
        let user = HarnessEnv {
            home: dir.path().join("home"),
            ..HarnessEnv::default()
        };
        ok(fs::create_dir_all(dir.path().join("elsewhere")));
        ok(fs::create_dir_all(dir.path().join("home")));
        ok(symlink(
            dir.path().join("elsewhere"),
            dir.path().join("home/.claude"),
        ));
        assert_eq!(route(&user, TargetName::ClaudeCode, BOTH), Route::Real);
    }

    #[test]
    fn a_link_to_another_enabled_target_is_that_target() {
        let (_dir, env) = project();
        let proj = env.project.clone().unwrap_or_default();
        ok(fs::create_dir_all(proj.join(".claude")));
        ok(symlink("../.agents/skills", proj.join(".claude/skills")));
        assert_eq!(
            route(&env, TargetName::ClaudeCode, BOTH),
            Route::Alias(TargetName::Agents)
        );
        // Not enabled: no target to count as.
        assert_eq!(
            route(&env, TargetName::ClaudeCode, &[TargetName::ClaudeCode]),
            Route::Link(proj.join(".claude/skills"))
        );
    }

    #[test]
    fn a_link_elsewhere_or_above_the_target_is_refused() {
        let (dir, env) = project();
        let proj = env.project.clone().unwrap_or_default();
        let global = dir.path().join("home/.claude");
        ok(fs::create_dir_all(global.join("skills")));
        ok(symlink(&global, proj.join(".claude")));
        assert_eq!(
            route(&env, TargetName::ClaudeCode, BOTH),
            Route::Link(proj.join(".claude"))
        );
        assert_eq!(
            linked(&env, BOTH),
            vec![(TargetName::ClaudeCode, proj.join(".claude"))]
        );
    }
}
