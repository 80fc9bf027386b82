//! Project scope (HCP.md §15): a folder holding `hcp.yaml`, with its own
//! store in `.hcp/` and its lock in `hcp.lock`.
//!
//! - [`file`]: `hcp.yaml` read with line and column, and edited in place
//!   keeping the user's comments and layout (§15.2).

pub mod file;
