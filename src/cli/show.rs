//! `hcpx show PACK_ID`: one pack in full, like `cargo info` — the manifest
//! facts (HCP.md §3), every command with its args (§4) and availability
//! (§11.2–§11.3), the Binding (§8, names only, never a secret value), where
//! the pack is installed and its Skill copy (§5.4). `--json` prints the
//! engine's `PackDetails` (documented in the README). Also renders one
//! command's arg table for `hcpx exec PACK_ID VERB --help`. Pack text goes
//! through `terminal_safe` (§14.5).

use crate::cli::context::Ctx;
use crate::cli::output::{GOOD, HINT, STRONG, WARNING};
use crate::command::text::show::arg_line;
use crate::engine::ops::show::{self, CommandDetails};
use crate::engine::pack::text::one_line;
use std::io::Write;

pub use crate::command::args::show::ShowArgs;

/// `hcpx exec PACK_ID VERB --help`: the command's summary, its usage and its
/// arg table; with `--json`, the command's entry of `show --json`.
pub fn exec_help(pack: &str, verb: &str, ctx: &Ctx) -> i32 {
    let result = ctx.engine().and_then(|engine| {
        let id = crate::engine::ops::checked_id(pack)?;
        show::command(&engine, &id, verb)
    });
    match result {
        Ok(command) => {
            if ctx.out.json {
                ctx.out.json(&crate::cli::context::Success {
                    ok: true,
                    body: serde_json::json!({"pack_id": pack, "command": command}),
                });
            } else {
                print_command_help(pack, &command);
            }
            0
        }
        Err(err) => {
            ctx.out.error(&err);
            err.code.exec_exit_code()
        }
    }
}

fn print_command_help(pack_id: &str, c: &CommandDetails) {
    let mut w = anstream::stdout().lock();
    let safe = one_line;
    let _ = writeln!(w, "{}", safe(&c.summary));
    let _ = writeln!(w);
    let words: Vec<String> = c
        .args
        .iter()
        .map(|a| {
            if a.required {
                format!("{}=<{}>", a.name, a.kind.as_str())
            } else {
                format!("[{}=<{}>]", a.name, a.kind.as_str())
            }
        })
        .collect();
    let tail = if words.is_empty() {
        String::new()
    } else {
        format!(" -- {}", words.join(" "))
    };
    let _ = writeln!(
        w,
        "{STRONG}Usage:{STRONG:#} hcpx exec {} {}{}",
        safe(pack_id),
        safe(&c.verb_key),
        safe(&tail)
    );
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "effect: {}   adapter: {}   output: {}   timeout: {} ms",
        c.effect.as_str(),
        safe(&c.adapter),
        c.output.as_str(),
        c.timeout_ms
    );
    let state = if c.executable {
        format!("{GOOD}executable{GOOD:#}")
    } else {
        let reasons: Vec<String> = c.reasons.iter().map(ToString::to_string).collect();
        format!(
            "{WARNING}not executable{WARNING:#}: {}",
            safe(&reasons.join(", "))
        )
    };
    let _ = writeln!(w, "{state}");
    let _ = writeln!(w);
    if c.args.is_empty() {
        let _ = writeln!(w, "{STRONG}Arguments:{STRONG:#} none");
        return;
    }
    let _ = writeln!(w, "{STRONG}Arguments{STRONG:#} (k=v words after `--`):");
    for arg in &c.args {
        let _ = writeln!(w, "  {}", arg_line(arg));
    }
    if !c.executable {
        let _ = writeln!(w);
        let _ = writeln!(
            w,
            "{HINT}hint{HINT:#}: `hcpx why {} {}` says what is missing",
            safe(pack_id),
            safe(&c.verb_key)
        );
    }
}
