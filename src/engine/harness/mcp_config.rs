//! Whether a harness's own MCP client configuration names `hcpx mcp`
//! (HCP.md §16.7): read-only — hcpx never edits a harness's MCP
//! configuration here, it only tells the TUI what is there.
//!
//! For each harness `hcpx mcp --print-config` knows and that has a
//! user-level file (Claude Code `~/.claude.json` or
//! `$CLAUDE_CONFIG_DIR/.claude.json`, Codex `~/.codex/config.toml` or
//! `$CODEX_HOME/config.toml`, Cursor `~/.cursor/mcp.json`, Gemini CLI
//! `~/.gemini/settings.json`), the file is read (at most [`MAX_BYTES`]) and
//! searched for a server whose command is `hcpx` (or a path ending in
//! `/hcpx`) and whose first argument is `mcp`.
//!
//! Where the spec is silent:
//! - VS Code keeps its MCP servers per workspace (`.vscode/mcp.json`) and in
//!   its user profile, which has no `TargetName`: it is not read;
//! - Claude Code's per-project entries (`projects.*.mcpServers` in
//!   `~/.claude.json`) count as configured too;
//! - a file that is too large, not UTF-8, or does not parse is
//!   [`McpState::Unreadable`], never an error.

use super::target::{HarnessEnv, TargetName};
use serde::Serialize;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest configuration file read; a larger one is unreadable.
pub const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// What a harness's MCP client configuration says about `hcpx mcp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum McpState {
    /// A server entry starts `hcpx mcp`.
    Configured,
    /// No file, or no entry that starts `hcpx mcp`.
    NotConfigured,
    /// The file is there but could not be read or parsed.
    Unreadable,
}

impl McpState {
    /// The state's name (`configured`, `not-configured`, `unreadable`).
    pub fn as_str(self) -> &'static str {
        match self {
            McpState::Configured => "configured",
            McpState::NotConfigured => "not-configured",
            McpState::Unreadable => "unreadable",
        }
    }
}

/// The file format of a harness's MCP configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// `mcpServers` at the top (and under `projects.*` for Claude Code).
    Json,
    /// `[mcp_servers.NAME]` tables (Codex).
    Toml,
}

/// The user-level MCP configuration file of `target`, if it has one.
pub fn config_file(env: &HarnessEnv, target: TargetName) -> Option<PathBuf> {
    locate(env, target).map(|(path, _)| path)
}

fn locate(env: &HarnessEnv, target: TargetName) -> Option<(PathBuf, Format)> {
    let home = |rel: &str| env.home.join(rel);
    Some(match target {
        TargetName::ClaudeCode => match &env.claude_config_dir {
            Some(dir) => (dir.join(".claude.json"), Format::Json),
            None => (home(".claude.json"), Format::Json),
        },
        TargetName::Codex => match &env.codex_home {
            Some(dir) => (dir.join("config.toml"), Format::Toml),
            None => (home(".codex/config.toml"), Format::Toml),
        },
        TargetName::Cursor => (home(".cursor/mcp.json"), Format::Json),
        TargetName::Gemini => (home(".gemini/settings.json"), Format::Json),
        _ => return None,
    })
}

/// How `target`'s MCP configuration stands; `None` for a harness whose
/// MCP configuration hcpx does not read.
pub fn state(env: &HarnessEnv, target: TargetName) -> Option<McpState> {
    let (path, format) = locate(env, target)?;
    Some(match read_bounded(&path) {
        Ok(None) => McpState::NotConfigured,
        Ok(Some(text)) => parse_state(&text, format),
        Err(()) => McpState::Unreadable,
    })
}

/// The file's text; `Ok(None)` when it does not exist.
fn read_bounded(path: &Path) -> std::result::Result<Option<String>, ()> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(_) => return Err(()),
    };
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| ())?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(());
    }
    String::from_utf8(bytes).map(Some).map_err(|_| ())
}

fn parse_state(text: &str, format: Format) -> McpState {
    let found = match format {
        Format::Json => match serde_json::from_str::<Value>(text) {
            Ok(doc) => json_names_hcpx(&doc),
            Err(_) => return McpState::Unreadable,
        },
        Format::Toml => match toml::from_str::<toml::Table>(text) {
            Ok(doc) => toml_names_hcpx(&doc),
            Err(_) => return McpState::Unreadable,
        },
    };
    if found {
        McpState::Configured
    } else {
        McpState::NotConfigured
    }
}

/// `command` is `hcpx` or a path ending in `/hcpx`, first argument `mcp`.
fn starts_hcpx_mcp(command: Option<&str>, first_arg: Option<&str>) -> bool {
    let is_hcpx = command.is_some_and(|c| c == "hcpx" || c.ends_with("/hcpx"));
    is_hcpx && first_arg == Some("mcp")
}

fn json_servers_name_hcpx(servers: Option<&Value>) -> bool {
    let Some(servers) = servers.and_then(Value::as_object) else {
        return false;
    };
    servers.values().any(|server| {
        let first = server
            .get("args")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str);
        starts_hcpx_mcp(server.get("command").and_then(Value::as_str), first)
    })
}

fn json_names_hcpx(doc: &Value) -> bool {
    json_servers_name_hcpx(doc.get("mcpServers"))
        || doc
            .get("projects")
            .and_then(Value::as_object)
            .is_some_and(|projects| {
                projects
                    .values()
                    .any(|p| json_servers_name_hcpx(p.get("mcpServers")))
            })
}

fn toml_names_hcpx(doc: &toml::Table) -> bool {
    let Some(servers) = doc.get("mcp_servers").and_then(toml::Value::as_table) else {
        return false;
    };
    servers.values().any(|server| {
        let first = server
            .get("args")
            .and_then(toml::Value::as_array)
            .and_then(|a| a.first())
            .and_then(toml::Value::as_str);
        starts_hcpx_mcp(server.get("command").and_then(toml::Value::as_str), first)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn env(home: &Path) -> HarnessEnv {
        HarnessEnv {
            home: home.to_path_buf(),
            ..HarnessEnv::default()
        }
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn no_file_is_not_configured_and_other_targets_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        assert_eq!(
            state(&env, TargetName::ClaudeCode),
            Some(McpState::NotConfigured)
        );
        assert_eq!(state(&env, TargetName::Windsurf), None);
    }

    #[test]
    fn json_entries_that_start_hcpx_mcp_count() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        write(
            &dir.path().join(".claude.json"),
            r#"{"projects":{"/w":{"mcpServers":{"x":{"command":"/usr/bin/hcpx","args":["mcp","--principal","agent"]}}}}}"#,
        );
        write(
            &dir.path().join(".cursor/mcp.json"),
            r#"{"mcpServers":{"hcpx":{"command":"hcpx","args":["list"]}}}"#,
        );
        write(&dir.path().join(".gemini/settings.json"), "{not json");
        assert_eq!(
            state(&env, TargetName::ClaudeCode),
            Some(McpState::Configured)
        );
        assert_eq!(
            state(&env, TargetName::Cursor),
            Some(McpState::NotConfigured)
        );
        assert_eq!(state(&env, TargetName::Gemini), Some(McpState::Unreadable));
    }

    #[test]
    fn codex_toml_is_read_from_codex_home() {
        let dir = tempfile::tempdir().unwrap();
        let mut env = env(dir.path());
        env.codex_home = Some(dir.path().join("cx"));
        write(
            &dir.path().join("cx/config.toml"),
            "[mcp_servers.hcpx]\ncommand = \"hcpx\"\nargs = [\"mcp\"]\n",
        );
        assert_eq!(state(&env, TargetName::Codex), Some(McpState::Configured));
        write(&dir.path().join("cx/config.toml"), "[mcp_servers\n");
        assert_eq!(state(&env, TargetName::Codex), Some(McpState::Unreadable));
    }
}
