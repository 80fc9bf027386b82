//! `hcpx man`: the man page (roff) generated from the clap definitions, so
//! it never drifts from the CLI (HCP.md §11.3).

use crate::cli::Cli;
use crate::cli::completions::emit;
use crate::cli::output::Output;
use crate::engine::error::{Error, ErrorCode};
use clap::CommandFactory;

/// Print the man page (roff) on stdout
#[derive(Debug, clap::Args)]
pub struct ManArgs {}

pub fn man(_args: &ManArgs, out: &Output) -> i32 {
    let mut page = Vec::new();
    if let Err(err) = clap_mangen::Man::new(Cli::command()).render(&mut page) {
        out.error(&Error::new(
            ErrorCode::Io,
            format!("cannot render the man page: {err}"),
        ));
        return 1;
    }
    emit(out, &page, serde_json::json!({"ok": true}), "roff")
}
