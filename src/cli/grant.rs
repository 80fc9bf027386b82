//! `hcpx grant PRINCIPAL GRANT` and `hcpx revoke PRINCIPAL GRANT` (HCP.md §9):
//! run by the command layer (`command::Request::Grant`, printed by
//! `cli::report`).

pub use crate::command::args::grant::GrantArgs;
