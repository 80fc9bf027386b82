//! `hcpx mcp --print-config TARGET` (HCP.md §16.7): what to add to one
//! harness's MCP client configuration so that it starts `hcpx mcp
//! --principal agent`, in the format that harness reads (JSON with
//! `mcpServers` for Claude Code, Cursor and Gemini CLI, JSON with
//! `servers` for VS Code, TOML `[mcp_servers.hcpx]` for Codex), the file
//! it goes in, and the harness's own one-line command where it has one.
//!
//! Pure: the caller passes the [`Launch`]: the running binary's absolute
//! path (links resolved), `$HCP_PRINCIPAL` and `$HCP_HOME` when set. The
//! entry names `--principal agent`, or, where `$HCP_PRINCIPAL` is set,
//! carries it in the server's environment instead (with `HCP_HOME` when
//! set), since harnesses do not pass the shell's environment to a server
//! (§16.7); the CLI prints it. The one-line commands (`claude mcp add`,
//! `codex mcp add`, `gemini mcp add`) put the server name before
//! `-e`/`--env` (one flag a variable), whose values are a list, and the
//! server's command after `--` (Gemini CLI: its program before the flags,
//! its args after `--`), as Claude Code 2.1.197, Codex 0.171.0 and Gemini
//! CLI 0.61.0 take them.
//!
//! Where the spec is silent: the server is named `hcpx` in every
//! configuration; Claude Code's command adds it to the project
//! (`--scope project`, `.mcp.json`), Gemini CLI's to the user's settings
//! (`--scope user`, `~/.gemini/settings.json`), as the entries printed.

use crate::command::args::mcp::McpTarget;
use serde::Serialize;
use serde_json::{Value, json};

/// The principal a harness configuration names (§16.1) unless
/// `$HCP_PRINCIPAL` names another (then carried in its environment).
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
    /// `$HCP_PRINCIPAL` when set: the server's environment carries it,
    /// instead of `--principal agent`.
    pub principal: Option<&'a str>,
    /// `$HCP_HOME` when set: harnesses do not pass the shell's environment.
    pub hcp_home: Option<&'a str>,
}

impl Launch<'_> {
    fn args(&self) -> Vec<&str> {
        match self.principal {
            Some(_) => vec!["mcp"],
            None => vec!["mcp", "--principal", MCP_PRINCIPAL],
        }
    }

    /// The server's environment: `HCP_HOME`, `HCP_PRINCIPAL`, those set.
    fn env(&self) -> Vec<(&'static str, &str)> {
        [
            ("HCP_HOME", self.hcp_home),
            ("HCP_PRINCIPAL", self.principal),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect()
    }

    /// `PROGRAM mcp --principal P`, each word quoted for a shell.
    fn command_words(&self) -> String {
        std::iter::once(self.program)
            .chain(self.args())
            .map(crate::fixline::shell_quote)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// ` FLAG NAME=VALUE` for each variable of [`Launch::env`], quoted.
    fn env_flag(&self, flag: &str) -> String {
        self.env()
            .iter()
            .map(|(name, value)| {
                format!(
                    " {flag} {}",
                    crate::fixline::shell_quote(&format!("{name}={value}"))
                )
            })
            .collect()
    }
}

/// The entry for `target`, starting the server as `launch` says.
pub fn config(target: McpTarget, launch: &Launch<'_>) -> McpConfig {
    let args = launch.args();
    let env = launch.env();
    let mut server = json!({ "command": launch.program, "args": args });
    if !env.is_empty() {
        server["env"] = env
            .iter()
            .map(|(name, value)| ((*name).to_string(), json!(value)))
            .collect::<serde_json::Map<_, _>>()
            .into();
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
    let env = launch.env();
    if !env.is_empty() {
        let pairs: Vec<String> = env
            .iter()
            .map(|(name, value)| format!("{name} = {}", toml_string(value)))
            .collect();
        text.push_str(&format!("env = {{ {} }}\n", pairs.join(", ")));
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
            principal: None,
            hcp_home,
        }
    }

    #[test]
    fn one_line_commands_name_the_server_before_its_env() {
        let l = Launch {
            program: "/opt/my bin/hcpx",
            principal: None,
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

    /// `$HCP_PRINCIPAL` goes in the server's environment, beside
    /// `HCP_HOME`, instead of `--principal agent` (§16.7).
    #[test]
    fn hcp_principal_is_carried_in_the_environment() {
        let l = Launch {
            program: "/opt/bin/hcpx",
            principal: Some("bot"),
            hcp_home: Some("/srv/h"),
        };
        let c = config(McpTarget::Cursor, &l);
        let v: Value = serde_json::from_str(&c.config).unwrap();
        assert_eq!(v["mcpServers"]["hcpx"]["args"], json!(["mcp"]));
        assert_eq!(
            v["mcpServers"]["hcpx"]["env"],
            json!({"HCP_HOME": "/srv/h", "HCP_PRINCIPAL": "bot"})
        );
        let codex = config(McpTarget::Codex, &l);
        assert!(
            codex.config.contains(r#"args = ["mcp"]"#),
            "{}",
            codex.config
        );
        assert!(
            codex
                .config
                .contains(r#"env = { HCP_HOME = "/srv/h", HCP_PRINCIPAL = "bot" }"#),
            "{}",
            codex.config
        );
        assert_eq!(
            codex.command.unwrap(),
            "codex mcp add hcpx --env HCP_HOME=/srv/h --env HCP_PRINCIPAL=bot -- /opt/bin/hcpx mcp"
        );
        assert_eq!(
            config(McpTarget::ClaudeCode, &l).command.unwrap(),
            "claude mcp add --scope project hcpx -e HCP_HOME=/srv/h -e HCP_PRINCIPAL=bot -- /opt/bin/hcpx mcp"
        );
        assert_eq!(
            config(McpTarget::Gemini, &l).command.unwrap(),
            "gemini mcp add --scope user hcpx /opt/bin/hcpx -e HCP_HOME=/srv/h -e HCP_PRINCIPAL=bot -- mcp"
        );
    }
}
