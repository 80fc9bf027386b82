//! hcpx: a pack manager for the Harness Context Protocol.
//!
//! `engine` holds the lifecycle (no terminal or clap code); `cli` is the
//! headless front-end; `tui` the interactive one.

pub mod cli;
pub mod command;
pub mod engine;
pub mod fixline;
pub mod tui;
