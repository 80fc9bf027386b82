//! The one command layer between the engine and every front-end (HCP.md
//! §10, §11.4, §11.5): the clap tree both the CLI and the TUI's `:` line
//! parse with (`args`), its help words (`help`) and its shell completion
//! (`complete`). It may use clap; it never draws or reads the terminal.

pub mod args;
pub mod complete;
pub mod help;
