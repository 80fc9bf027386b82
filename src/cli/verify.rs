//! `hcpx verify [PACK_ID...]` (HCP.md §13.5): installed packs against the
//! lock file. A mismatch exits 1 with `integrity`; with `--json` the
//! document is §13.5's, with the error beside it: `{"ok": false, "packs":
//! [..], "error": {"code": "integrity", ..}}`.
//!
//! A report: its request, outcome, words and document are in
//! `crate::command` (run by `cli::report`).

pub use crate::command::args::verify::VerifyArgs;
