//! `hcpx mcp --print-config TARGET` (HCP.md §16.7): what to add to one
//! harness's MCP client configuration so that it starts `hcpx mcp
//! --principal agent`, in the format that harness reads (JSON with
//! `mcpServers` for Claude Code, Cursor and Gemini CLI, JSON with
//! `servers` for VS Code, TOML `[mcp_servers.hcpx]` for Codex), the file
//! it goes in, and the harness's own one-line command where it has one.
//!
//! Pure: the caller passes the [`Launch`]: the running binary's absolute
//! path (links resolved), the principal (`$HCP_PRINCIPAL` when set, else
//! `agent`) and the `HCP_HOME` to repeat, since harnesses do not pass the
//! shell's environment to a server (§16.7); the CLI prints it. The
//! one-line commands (`claude mcp add`, `codex mcp add`, `gemini mcp
//! add`) put the server name before `-e`/`--env`, whose values are a
//! list, and the server's command after `--` (Gemini CLI: its program
//! before the flags, its args after `--`), as Claude Code 2.1.197, Codex
//! 0.171.0 and Gemini CLI 0.61.0 take them.
//!
//! Where the spec is silent: the server is named `hcpx` in every
//! configuration; Claude Code's command adds it to the project
//! (`--scope project`, `.mcp.json`), Gemini CLI's to the user's settings
//! (`--scope user`, `~/.gemini/settings.json`), as the entries printed.

use crate::command::args::mcp::McpTarget;
use serde::Serialize;
use serde_json::{Value, json};

/// The principal a harness configuration names (§16.1) unless
/// `$HCP_PRINCIPAL` names another.
pub const MCP_PRINCIPAL: &str = "agent";

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

/// How the harness is to start the server (§16.7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch<'a> {
    /// The running binary's absolute path, links resolved.
    pub program: &'a str,
    /// The principal named: `$HCP_PRINCIPAL` when set, else `agent`.
    pub principal: &'a str,
    /// `$HCP_HOME` when set: harnesses do not pass the shell's environment.
    pub hcp_home: Option<&'a str>,
}

impl Launch<'_> {
    fn args(&self) -> Vec<&str> {
        vec!["mcp", "--principal", self.principal]
    }

    /// `PROGRAM mcp --principal P`, each word quoted for a shell.
    fn command_words(&self) -> String {
        std::iter::once(self.program)
            .chain(self.args())
            .map(crate::fixline::shell_quote)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `FLAG HCP_HOME=…` when there is a store to pass, quoted.
    fn env_flag(&self, flag: &str) -> String {
        self.hcp_home
            .map(|home| {
                format!(
                    " {flag} {}",
                    crate::fixline::shell_quote(&format!("HCP_HOME={home}"))
                )
            })
            .unwrap_or_default()
    }
}

/// The entry for `target`, starting the server as `launch` says.
pub fn config(target: McpTarget, launch: &Launch<'_>) -> McpConfig {
    let args = launch.args();
    let env = launch.hcp_home.map(|home| json!({ "HCP_HOME": home }));
    let mut server = json!({ "command": launch.program, "args": args });
    if let Some(env) = &env {
        server["env"] = env.clone();
    }
    let words = launch.command_words();
    // Each CLI takes its server name before `-e`/`--env`, whose values are
    // a list: a name after them would be read as one more value.
    let (file, config, command) = match target {
        McpTarget::ClaudeCode => {
            let mut entry = json!({ "type": "stdio" });
            merge(&mut entry, &server);
            (
                ".mcp.json",
                pretty(&json!({ "mcpServers": { "hcpx": entry } })),
                Some(format!(
                    "claude mcp add --scope project hcpx{} -- {words}",
                    launch.env_flag("-e")
                )),
            )
        }
        McpTarget::Codex => (
            "~/.codex/config.toml",
            codex_toml(launch),
            Some(format!(
                "codex mcp add hcpx{} -- {words}",
                launch.env_flag("--env")
            )),
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
            // Gemini CLI reads what follows `--` as the args, not the
            // command: the program goes before the flags.
            Some(format!(
                "gemini mcp add --scope user hcpx {}{} -- {}",
                crate::fixline::shell_quote(launch.program),
                launch.env_flag("-e"),
                launch.args().join(" ")
            )),
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

fn codex_toml(launch: &Launch<'_>) -> String {
    let list: Vec<String> = launch.args().iter().map(|a| toml_string(a)).collect();
    let mut text = format!(
        "[mcp_servers.hcpx]\ncommand = {}\nargs = [{}]\n",
        toml_string(launch.program),
        list.join(", ")
    );
    if let Some(home) = launch.hcp_home {
        text.push_str(&format!("env = {{ HCP_HOME = {} }}\n", toml_string(home)));
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn launch(hcp_home: Option<&str>) -> Launch<'_> {
        Launch {
            program: "/opt/bin/hcpx",
            principal: MCP_PRINCIPAL,
            hcp_home,
        }
    }

    #[test]
    fn one_line_commands_name_the_server_before_its_env() {
        let l = Launch {
            program: "/opt/my bin/hcpx",
            principal: "agent",
            hcp_home: Some("/srv/h"),
        };
        let line = |t| config(t, &l).command.unwrap();
        assert_eq!(
            line(McpTarget::ClaudeCode),
            "claude mcp add --scope project hcpx -e HCP_HOME=/srv/h -- '/opt/my bin/hcpx' mcp --principal agent"
        );
        assert_eq!(
            line(McpTarget::Codex),
            "codex mcp add hcpx --env HCP_HOME=/srv/h -- '/opt/my bin/hcpx' mcp --principal agent"
        );
        assert_eq!(
            line(McpTarget::Gemini),
            "gemini mcp add --scope user hcpx '/opt/my bin/hcpx' -e HCP_HOME=/srv/h -- mcp --principal agent"
        );
    }

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
            std::fs::write(&file, config(target, &launch(Some("/srv/hcp"))).config).unwrap();
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
            let c = config(target, &launch(None));
            let v: Value = serde_json::from_str(&c.config).unwrap();
            let key = if target == McpTarget::Vscode {
                "servers"
            } else {
                "mcpServers"
            };
            assert_eq!(v[key]["hcpx"]["command"], "/opt/bin/hcpx");
            assert_eq!(
                v[key]["hcpx"]["args"],
                json!(["mcp", "--principal", "agent"])
            );
        }
    }

    #[test]
    fn codex_is_toml_with_the_store_quoted() {
        let c = config(McpTarget::Codex, &launch(Some("/tmp/a \"b\"")));
        assert!(c.config.starts_with("[mcp_servers.hcpx]\n"));
        assert!(
            c.config
                .contains(r#"args = ["mcp", "--principal", "agent"]"#)
        );
        assert!(c.config.contains(r#"HCP_HOME = "/tmp/a \"b\"""#));
    }
}
