//! `hcpx mcp --print-config TARGET` (HCP.md §16.7): what to add to one
//! harness's MCP client configuration so that it starts `hcpx mcp
//! --principal agent`, in the format that harness reads (JSON with
//! `mcpServers` for Claude Code, Cursor and Gemini CLI, JSON with
//! `servers` for VS Code, TOML `[mcp_servers.hcpx]` for Codex), the file
//! it goes in, and the harness's own one-line command where it has one.
//!
//! Pure: the caller passes the `HCP_HOME` to repeat (a store other than
//! `~/.hcp` must reach the server the harness starts), the CLI prints it.
//!
//! Where the spec is silent:
//! - the server is named `hcpx` in every configuration, and started as
//!   `hcpx` (found on the harness's `PATH`);
//! - `HCP_HOME`, when set, is passed in the entry's environment.

use crate::command::args::mcp::McpTarget;
use serde::Serialize;
use serde_json::{Value, json};

/// The principal a harness configuration names (§16.1).
pub const MCP_PRINCIPAL: &str = "agent";

/// The words after `hcpx` that start the server.
pub const SERVE_ARGS: [&str; 3] = ["mcp", "--principal", MCP_PRINCIPAL];

/// One harness's configuration entry for `hcpx mcp`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpConfig {
    pub target: McpTarget,
    /// Where the entry goes, as the harness's documentation names it.
    pub file: &'static str,
    /// `json` or `toml`.
    pub format: &'static str,
    /// The entry, ready to paste (or to be the whole file).
    pub config: String,
    /// The harness's own command that adds the same entry, where it has one.
    pub command: Option<String>,
}

/// The entry for `target`; `hcp_home` is the store to repeat, if any.
pub fn config(target: McpTarget, hcp_home: Option<&str>) -> McpConfig {
    let args: Vec<&str> = SERVE_ARGS.to_vec();
    let env = hcp_home.map(|home| json!({ "HCP_HOME": home }));
    let mut server = json!({ "command": "hcpx", "args": args });
    if let Some(env) = &env {
        server["env"] = env.clone();
    }
    let (file, config, command) = match target {
        McpTarget::ClaudeCode => {
            let mut entry = json!({ "type": "stdio" });
            merge(&mut entry, &server);
            let env_flag = hcp_home
                .map(|home| format!(" -e HCP_HOME={}", crate::fixline::shell_quote(home)))
                .unwrap_or_default();
            (
                ".mcp.json",
                pretty(&json!({ "mcpServers": { "hcpx": entry } })),
                Some(format!(
                    "claude mcp add --scope project{env_flag} hcpx -- hcpx {}",
                    args.join(" ")
                )),
            )
        }
        McpTarget::Codex => (
            "~/.codex/config.toml",
            codex_toml(&args, hcp_home),
            Some(format!("codex mcp add hcpx -- hcpx {}", args.join(" "))),
        ),
        McpTarget::Cursor => (
            ".cursor/mcp.json",
            pretty(&json!({ "mcpServers": { "hcpx": server } })),
            None,
        ),
        McpTarget::Vscode => {
            let mut entry = json!({ "type": "stdio" });
            merge(&mut entry, &server);
            (
                ".vscode/mcp.json",
                pretty(&json!({ "servers": { "hcpx": entry } })),
                None,
            )
        }
        McpTarget::Gemini => (
            "~/.gemini/settings.json",
            pretty(&json!({ "mcpServers": { "hcpx": server } })),
            None,
        ),
    };
    McpConfig {
        target,
        file,
        format: if target == McpTarget::Codex {
            "toml"
        } else {
            "json"
        },
        config,
        command,
    }
}

impl std::fmt::Display for McpConfig {
    /// The entry alone, so that `> FILE` writes a file the harness reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.config)
    }
}

fn merge(into: &mut Value, from: &Value) {
    if let (Some(into), Some(from)) = (into.as_object_mut(), from.as_object()) {
        for (k, v) in from {
            into.insert(k.clone(), v.clone());
        }
    }
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// A TOML basic string: JSON's escapes are TOML's for every character a
/// path or an argument can hold.
fn toml_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn codex_toml(args: &[&str], hcp_home: Option<&str>) -> String {
    let list: Vec<String> = args.iter().map(|a| toml_string(a)).collect();
    let mut text = format!(
        "[mcp_servers.hcpx]\ncommand = \"hcpx\"\nargs = [{}]\n",
        list.join(", ")
    );
    if let Some(home) = hcp_home {
        text.push_str(&format!("env = {{ HCP_HOME = {} }}\n", toml_string(home)));
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// What `--print-config` prints is what the TUI's `mcp:` line counts
    /// as configured (engine::harness::mcp_config).
    #[test]
    fn the_printed_entry_reads_back_as_configured() {
        use crate::engine::harness::mcp_config::{McpState, config_file, state};
        use crate::engine::harness::{HarnessEnv, TargetName};
        let dir = tempfile::tempdir().unwrap();
        let env = HarnessEnv {
            home: dir.path().to_path_buf(),
            ..HarnessEnv::default()
        };
        for (target, name) in [
            (McpTarget::ClaudeCode, TargetName::ClaudeCode),
            (McpTarget::Codex, TargetName::Codex),
            (McpTarget::Cursor, TargetName::Cursor),
            (McpTarget::Gemini, TargetName::Gemini),
        ] {
            let file = config_file(&env, name).unwrap();
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, config(target, Some("/srv/hcp")).config).unwrap();
            assert_eq!(state(&env, name), Some(McpState::Configured), "{name}");
        }
    }

    #[test]
    fn json_targets_parse_and_name_the_agent_principal() {
        for target in [
            McpTarget::ClaudeCode,
            McpTarget::Cursor,
            McpTarget::Vscode,
            McpTarget::Gemini,
        ] {
            let c = config(target, None);
            let v: Value = serde_json::from_str(&c.config).unwrap();
            let key = if target == McpTarget::Vscode {
                "servers"
            } else {
                "mcpServers"
            };
            assert_eq!(v[key]["hcpx"]["command"], "hcpx");
            assert_eq!(
                v[key]["hcpx"]["args"],
                json!(["mcp", "--principal", "agent"])
            );
        }
    }

    #[test]
    fn codex_is_toml_with_the_store_quoted() {
        let c = config(McpTarget::Codex, Some("/tmp/a \"b\""));
        assert!(c.config.starts_with("[mcp_servers.hcpx]\n"));
        assert!(
            c.config
                .contains(r#"args = ["mcp", "--principal", "agent"]"#)
        );
        assert!(c.config.contains(r#"HCP_HOME = "/tmp/a \"b\"""#));
    }
}
