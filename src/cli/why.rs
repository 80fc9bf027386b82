//! `hcpx why PACK_ID [VERB]`: why a pack or command is not executable, and
//! the command that fixes it (HCP.md §11.3).
//!
//! A report: its request, outcome, words and document are in
//! `crate::command` (run by `cli::report`).

pub use crate::command::args::why::WhyArgs;
