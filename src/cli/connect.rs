//! `hcpx connect PACK_ID [--secret-stdin]` (HCP.md §8.5), run by the
//! command layer; what only a terminal does is here: a `secret` Binding's
//! secret comes from stdin with `--secret-stdin`, else from a masked
//! prompt on the terminal; it is never echoed or printed.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::cli::report;
use crate::command::args::Command;
use crate::command::execute::Interaction;
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::manifest::SecretSpec;
use std::io::{IsTerminal, Read};

/// Most bytes read as a secret from stdin.
const MAX_SECRET_BYTES: u64 = 64 * 1024;

pub use crate::command::args::connect::ConnectArgs;

pub fn run(command: &Command, ctx: &Ctx) -> i32 {
    let Command::Connect(args) = command else {
        return report::command(command, ctx);
    };
    let mut input = |spec: &SecretSpec| read_secret(&args.pack, spec, args.secret_stdin);
    let io = Interaction {
        secret: Some(&mut input),
        ..Interaction::default()
    };
    report::command_with(command, ctx, io)
}

fn read_secret(pack_id: &str, spec: &SecretSpec, from_stdin: bool) -> Result<String> {
    if from_stdin {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_SECRET_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| {
                Error::new(
                    ErrorCode::Io,
                    format!("cannot read the secret from stdin: {e}"),
                )
            })?;
        if bytes.len() as u64 > MAX_SECRET_BYTES {
            return Err(Error::usage("the secret on stdin is larger than 64 KiB").pack(pack_id));
        }
        return String::from_utf8(bytes)
            .map_err(|_| Error::usage("the secret on stdin is not valid UTF-8").pack(pack_id));
    }
    if !std::io::stdin().is_terminal() {
        return Err(Error::usage(format!(
            "{pack_id} needs a secret ({}): pipe it with --secret-stdin, or run in a terminal to be prompted",
            spec.name
        ))
        .pack(pack_id)
        .hint(format!("printf %s \"$TOKEN\" | hcpx connect {pack_id} --secret-stdin")));
    }
    let prompt = spec
        .prompt
        .clone()
        .unwrap_or_else(|| format!("Secret for {pack_id} ({})", spec.name));
    // The prompt is pack text, shown on the terminal (§14.5).
    rpassword::prompt_password(format!("{}: ", terminal_safe(&prompt))).map_err(|e| {
        Error::new(ErrorCode::Io, format!("cannot read the secret: {e}")).pack(pack_id)
    })
}
