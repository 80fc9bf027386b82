//! The clap arguments of `hcpx mcp` (HCP.md §16).

/// Serve every executable pack command as an MCP tool over stdio (for Claude Code, Codex, Cursor, VS Code, Gemini CLI)
#[derive(Debug, Default, clap::Args)]
#[command(after_help = crate::command::help::MCP)]
pub struct McpArgs {
    /// Print what to add to this harness's configuration to use `hcpx mcp`, and exit
    #[arg(long, value_name = "TARGET", value_enum)]
    pub print_config: Option<McpTarget>,
    #[command(flatten)]
    pub json: super::JsonArg,
    #[command(flatten)]
    pub principal: super::PrincipalArg,
    #[command(flatten)]
    pub catalog: super::CatalogArg,
}

/// A harness whose MCP client configuration `--print-config` writes
/// (§16.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum McpTarget {
    /// Claude Code: `.mcp.json` in the project, or `claude mcp add`
    ClaudeCode,
    /// Codex: `[mcp_servers.hcpx]` in `~/.codex/config.toml`, or `codex mcp add`
    Codex,
    /// Cursor: `.cursor/mcp.json` in the project (or `~/.cursor/mcp.json`)
    Cursor,
    /// VS Code: `.vscode/mcp.json` in the workspace
    Vscode,
    /// Gemini CLI: `mcpServers` in `~/.gemini/settings.json` (or `.gemini/settings.json`)
    Gemini,
}

impl McpTarget {
    pub fn as_str(self) -> &'static str {
        match self {
            McpTarget::ClaudeCode => "claude-code",
            McpTarget::Codex => "codex",
            McpTarget::Cursor => "cursor",
            McpTarget::Vscode => "vscode",
            McpTarget::Gemini => "gemini",
        }
    }
}
