//! `hcpx availability [PACK_ID]`: the availability flags of packs and
//! whether each command is executable (HCP.md §11.2, §11.3).
//!
//! A report: its request, outcome, words and document are in
//! `crate::command` (run by `cli::report`).

pub use crate::command::args::availability::AvailabilityArgs;
