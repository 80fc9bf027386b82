//! hcpx: a pack manager for the Harness Context Protocol.
//!
//! `engine` holds the lifecycle (no terminal or clap code); `command` the
//! one clap tree and the requests both front-ends share; `cli` is the
//! headless front-end; `tui` the interactive one; `mcp` the MCP server
//! (a third front-end); `binary` what the two
//! binaries run (the CLI, given the TUI's launcher).

pub mod binary;
pub mod cli;
pub mod command;
pub mod engine;
pub mod fixline;
pub(crate) mod mcp;
pub mod tui;
