//! `hcpx outdated [--offline]` (HCP.md §13.6): installed packs whose
//! recorded source has a newer version (`reason: version`) or, at the same
//! version, other content (`reason: content`), with both digests. The git
//! catalogs read are brought up to date first, unless `--offline`.
//!
//! A report: its request, outcome, words and document are in
//! `crate::command` (run by `cli::report`).

pub use crate::command::args::outdated::OutdatedArgs;
