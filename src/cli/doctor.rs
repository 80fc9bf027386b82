//! `hcpx doctor`: checks the store and the programs packs need; `--fix`
//! repairs what an interrupted change left (HCP.md §14.7), records the
//! installed packs `hcp.lock` does not list and sets a corrupt lock aside
//! (§13.3), and exits 0 when nothing is left to fix, 1 otherwise.
//!
//! A report: its request, outcome, words and document are in
//! `crate::command` (run by `cli::report`).

pub use crate::command::args::doctor::DoctorArgs;
