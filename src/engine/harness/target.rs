//! Harness targets (HCP.md §12.4): the folders where real harnesses read
//! Agent Skills, and when each harness counts as detected on this machine.
//!
//! Paths are resolved from a [`HarnessEnv`] (the few environment variables
//! the table names) so the table is plain data, testable without touching
//! the real home folder.

use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// A harness hcpx can place Skills for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetName {
    Agents,
    ClaudeCode,
    Codex,
    Cursor,
    Copilot,
    Opencode,
    Gemini,
    Windsurf,
}

impl TargetName {
    /// Every target, in the order of the spec's table.
    pub const ALL: [TargetName; 8] = [
        TargetName::Agents,
        TargetName::ClaudeCode,
        TargetName::Codex,
        TargetName::Cursor,
        TargetName::Copilot,
        TargetName::Opencode,
        TargetName::Gemini,
        TargetName::Windsurf,
    ];

    /// The name users type (`hcpx harness enable claude-code`).
    pub fn as_str(self) -> &'static str {
        match self {
            TargetName::Agents => "agents",
            TargetName::ClaudeCode => "claude-code",
            TargetName::Codex => "codex",
            TargetName::Cursor => "cursor",
            TargetName::Copilot => "copilot",
            TargetName::Opencode => "opencode",
            TargetName::Gemini => "gemini",
            TargetName::Windsurf => "windsurf",
        }
    }

    /// The target a user named; `None` for any other word.
    pub fn parse(name: &str) -> Option<TargetName> {
        TargetName::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The targets a project has (HCP.md §15.4): its own `.agents/skills`,
    /// `.claude/skills` and `.windsurf/skills`.
    pub const PROJECT: [TargetName; 3] = [
        TargetName::Agents,
        TargetName::ClaudeCode,
        TargetName::Windsurf,
    ];

    /// The project target this name stands for in a project (§15.4):
    /// `codex`, `cursor`, `copilot`, `opencode` and `gemini` read the
    /// project's `.agents/skills`, so they name `agents` there.
    pub fn in_project(self) -> TargetName {
        match self {
            TargetName::ClaudeCode => TargetName::ClaudeCode,
            TargetName::Windsurf => TargetName::Windsurf,
            _ => TargetName::Agents,
        }
    }

    /// Who reads this folder, for help texts and the TUI.
    pub fn readers(self) -> &'static str {
        match self {
            TargetName::Agents => "Codex, Cursor, Copilot, OpenCode, Gemini CLI, Goose, Amp",
            TargetName::ClaudeCode => "Claude Code",
            TargetName::Codex => "Codex",
            TargetName::Cursor => "Cursor",
            TargetName::Copilot => "GitHub Copilot",
            TargetName::Opencode => "OpenCode",
            TargetName::Gemini => "Gemini CLI",
            TargetName::Windsurf => "Windsurf",
        }
    }
}

impl fmt::Display for TargetName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The environment the target table depends on. Empty variables count as
/// unset, as they do for `HCP_HOME`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HarnessEnv {
    pub home: PathBuf,
    pub claude_config_dir: Option<PathBuf>,
    pub codex_home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    /// The project whose own folders the targets are (§15.4), when the
    /// store is a project's; detection still looks at the user's home.
    pub project: Option<PathBuf>,
}

impl HarnessEnv {
    /// Reads `$HOME`, `$CLAUDE_CONFIG_DIR`, `$CODEX_HOME`, `$XDG_CONFIG_HOME`;
    /// `None` when no home folder is known.
    pub fn from_process() -> Option<HarnessEnv> {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home =
            var("HOME").or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().into()))?;
        Some(HarnessEnv {
            home,
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            codex_home: var("CODEX_HOME"),
            xdg_config_home: var("XDG_CONFIG_HOME"),
            project: None,
        })
    }

    /// This environment with the targets in `project`'s folders (§15.4).
    pub fn for_project(&self, project: &Path) -> HarnessEnv {
        HarnessEnv {
            project: Some(project.to_path_buf()),
            ..self.clone()
        }
    }

    /// The targets this environment has: the project targets in a project
    /// (§15.4), else every target of the table (§12.4).
    pub fn names(&self) -> &'static [TargetName] {
        match self.project {
            Some(_) => &TargetName::PROJECT,
            None => &TargetName::ALL,
        }
    }

    /// The folder a target reads Skills from, and the path whose existence
    /// means the harness is installed (`None`: always detected).
    pub fn locate(&self, target: TargetName) -> Location {
        let user = HarnessEnv {
            project: None,
            ..self.clone()
        };
        if let Some(project) = &self.project {
            let target = target.in_project();
            let rel = match target {
                TargetName::ClaudeCode => ".claude/skills",
                TargetName::Windsurf => ".windsurf/skills",
                _ => ".agents/skills",
            };
            // Detected when the harness is on this machine (the user's
            // folders); for `agents`, when any harness reading it is.
            let detect = match target {
                TargetName::Agents => Detect::Always,
                _ => user.locate(target).detect,
            };
            return Location {
                folder: project.join(rel),
                detect,
            };
        }
        let home = |rel: &str| self.home.join(rel);
        let (folder, marker, by_env) = match target {
            TargetName::Agents => (home(".agents/skills"), None, false),
            TargetName::ClaudeCode => match &self.claude_config_dir {
                Some(dir) => (dir.join("skills"), None, true),
                None => (home(".claude/skills"), Some(home(".claude")), false),
            },
            TargetName::Codex => match &self.codex_home {
                Some(dir) => (dir.join("skills"), None, true),
                None => (home(".codex/skills"), Some(home(".codex")), false),
            },
            TargetName::Cursor => (home(".cursor/skills"), Some(home(".cursor")), false),
            TargetName::Copilot => (home(".copilot/skills"), Some(home(".copilot")), false),
            TargetName::Opencode => {
                let config = self
                    .xdg_config_home
                    .clone()
                    .unwrap_or_else(|| home(".config"));
                let dir = config.join("opencode");
                (dir.join("skills"), Some(dir), false)
            }
            TargetName::Gemini => (home(".gemini/skills"), Some(home(".gemini")), false),
            TargetName::Windsurf => (
                home(".codeium/windsurf/skills"),
                Some(home(".codeium/windsurf")),
                false,
            ),
        };
        Location {
            folder,
            detect: match (marker, by_env) {
                (_, true) => Detect::Always,
                (Some(path), false) => Detect::Exists(path),
                (None, false) => Detect::Always,
            },
        }
    }
}

/// Where a target's Skills go and how it is detected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub folder: PathBuf,
    pub detect: Detect,
}

/// When a target counts as detected (§12.4's last column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detect {
    /// Always: the shared `agents` folder, or a harness whose home is set
    /// by its environment variable.
    Always,
    /// When this path exists.
    Exists(PathBuf),
}

impl Location {
    /// Whether the harness is on this machine (reads the file system).
    pub fn detected(&self) -> bool {
        match &self.detect {
            Detect::Always => true,
            Detect::Exists(path) => is_dir(path),
        }
    }
}

fn is_dir(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> HarnessEnv {
        HarnessEnv {
            home: PathBuf::from("/h"),
            ..HarnessEnv::default()
        }
    }

    #[test]
    fn folders_follow_the_table() {
        let folder = |t| env().locate(t).folder;
        assert_eq!(
            folder(TargetName::Agents),
            PathBuf::from("/h/.agents/skills")
        );
        assert_eq!(
            folder(TargetName::ClaudeCode),
            PathBuf::from("/h/.claude/skills")
        );
        assert_eq!(folder(TargetName::Codex), PathBuf::from("/h/.codex/skills"));
        assert_eq!(
            folder(TargetName::Cursor),
            PathBuf::from("/h/.cursor/skills")
        );
        assert_eq!(
            folder(TargetName::Copilot),
            PathBuf::from("/h/.copilot/skills")
        );
        assert_eq!(
            folder(TargetName::Opencode),
            PathBuf::from("/h/.config/opencode/skills")
        );
        assert_eq!(
            folder(TargetName::Gemini),
            PathBuf::from("/h/.gemini/skills")
        );
        assert_eq!(
            folder(TargetName::Windsurf),
            PathBuf::from("/h/.codeium/windsurf/skills")
        );
    }

    #[test]
    fn environment_overrides_move_the_folders_and_detect_them() {
        let env = HarnessEnv {
            claude_config_dir: Some(PathBuf::from("/c")),
            codex_home: Some(PathBuf::from("/x")),
            xdg_config_home: Some(PathBuf::from("/cfg")),
            ..env()
        };
        let claude = env.locate(TargetName::ClaudeCode);
        assert_eq!(claude.folder, PathBuf::from("/c/skills"));
        assert_eq!(claude.detect, Detect::Always);
        let codex = env.locate(TargetName::Codex);
        assert_eq!(codex.folder, PathBuf::from("/x/skills"));
        assert_eq!(codex.detect, Detect::Always);
        let opencode = env.locate(TargetName::Opencode);
        assert_eq!(opencode.folder, PathBuf::from("/cfg/opencode/skills"));
        assert_eq!(
            opencode.detect,
            Detect::Exists(PathBuf::from("/cfg/opencode"))
        );
    }

    #[test]
    fn detection_looks_for_the_harness_folder() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let env = HarnessEnv {
            home: home.path().to_path_buf(),
            ..HarnessEnv::default()
        };
        assert!(env.locate(TargetName::Agents).detected());
        assert!(!env.locate(TargetName::ClaudeCode).detected());
        std::fs::create_dir(home.path().join(".claude")).unwrap_or_else(|e| panic!("{e}"));
        assert!(env.locate(TargetName::ClaudeCode).detected());
        // A file is not a harness's folder.
        std::fs::write(home.path().join(".cursor"), "").unwrap_or_else(|e| panic!("{e}"));
        assert!(!env.locate(TargetName::Cursor).detected());
    }

    #[test]
    fn a_project_has_its_own_folders() {
        let env = env().for_project(Path::new("/p"));
        let folder = |t| env.locate(t).folder;
        assert_eq!(
            folder(TargetName::Agents),
            PathBuf::from("/p/.agents/skills")
        );
        assert_eq!(
            folder(TargetName::Codex),
            PathBuf::from("/p/.agents/skills")
        );
        assert_eq!(
            folder(TargetName::Gemini),
            PathBuf::from("/p/.agents/skills")
        );
        assert_eq!(
            folder(TargetName::ClaudeCode),
            PathBuf::from("/p/.claude/skills")
        );
        assert_eq!(
            folder(TargetName::Windsurf),
            PathBuf::from("/p/.windsurf/skills")
        );
        assert_eq!(env.names(), &TargetName::PROJECT);
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for t in TargetName::ALL {
            assert_eq!(TargetName::parse(t.as_str()), Some(t));
        }
        assert_eq!(TargetName::parse("claude"), None);
        assert_eq!(TargetName::parse(""), None);
    }
}
