//! `hcpx list`: installed and catalog packs with their status (HCP.md §11.3).
//!
//! A report: its request, outcome, words and document are in
//! `crate::command` (run by `cli::report`).

pub use crate::command::args::list::ListArgs;
