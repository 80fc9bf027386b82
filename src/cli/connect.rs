//! `hcpx connect PACK_ID [--secret-stdin]` (HCP.md §8.5). A `secret`
//! Binding's secret comes from stdin with `--secret-stdin`, else from a
//! masked prompt on the terminal; it is never echoed or printed.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::ops::ConnectOutcome;
use crate::engine::pack::manifest::{BindingKind, SecretSpec};
use std::io::{IsTerminal, Read};

/// Most bytes read as a secret from stdin.
const MAX_SECRET_BYTES: u64 = 64 * 1024;

pub use crate::command::args::connect::ConnectArgs;

pub fn run(args: &ConnectArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine_holding(Some(&args.pack), |engine| {
        let mut input = |spec: &SecretSpec| read_secret(&args.pack, spec, args.secret_stdin);
        match engine.connect(&args.pack, &mut input) {
            Ok(outcome) => ctx.success(outcome, print),
            Err(err) => ctx.fail(&err),
        }
    })
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

fn print(o: &ConnectOutcome) {
    let pack_id = terminal_safe(&o.pack_id);
    if o.binding == BindingKind::Public {
        println!("{pack_id}: public binding, nothing to connect");
        return;
    }
    if let Some(probe) = &o.probe {
        let verb = terminal_safe(&probe.verb_key);
        println!("probe {verb} passed ({} ms)", probe.duration_ms);
    }
    if o.changed {
        println!("connected {pack_id} ({} binding)", o.binding.as_str());
    } else {
        println!("{pack_id} is connected ({} binding)", o.binding.as_str());
    }
}
