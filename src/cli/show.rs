//! `hcpx show PACK_ID`: one pack in full, like `cargo info` — the manifest
//! facts (HCP.md §3), every command with its args (§4) and availability
//! (§11.2–§11.3), the Binding (§8, names only, never a secret value), where
//! the pack is installed and its Skill copy (§5.4). `--json` prints the
//! engine's `PackDetails` (documented in the README). Also renders one
//! command's arg table for `hcpx exec PACK_ID VERB --help`. Pack text goes
//! through `terminal_safe` (§14.5).

use crate::cli::context::Ctx;
use crate::cli::list::status_style;
use crate::cli::output::{ERROR, GOOD, HINT, STRONG, WARNING, terminal_safe};
use crate::engine::ops::show::{self, CommandDetails, PackDetails};
use crate::engine::pack::manifest::{Arg, Binding};
use std::io::Write;

pub use crate::command::args::show::ShowArgs;
pub fn run(args: &ShowArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match show::show(engine, &args.pack) {
        Ok(details) => ctx.success(details, print),
        Err(err) => ctx.fail(&err),
    })
}

fn print(d: &PackDetails) {
    let mut w = anstream::stdout().lock();
    print_facts(&mut w, d);
    print_place(&mut w, d);
    if let Some(b) = &d.binding {
        print_binding(&mut w, b);
    }
    for problem in &d.problems {
        let _ = writeln!(w, "{ERROR}problem{ERROR:#}: {}", one_line(problem));
    }
    print_commands(&mut w, &d.commands);
}

/// The first line, then the manifest facts.
fn print_facts(w: &mut impl Write, d: &PackDetails) {
    let style = status_style(d.status);
    let version = d.version.as_deref().map_or_else(|| "-".into(), one_line);
    let _ = writeln!(
        w,
        "{STRONG}{}{STRONG:#} {version}  {style}{}{style:#}",
        one_line(&d.pack_id),
        d.status.as_str()
    );
    let fields = [
        ("kind", Some(d.kind.as_str().to_string())),
        ("name", d.name.clone()),
        ("description", d.description.clone()),
        ("plane", d.plane.map(str::to_string)),
        ("license", d.license.clone()),
        ("homepage", d.homepage.clone()),
    ];
    for (label, value) in fields {
        if let Some(value) = value {
            let _ = writeln!(w, "{:14}{}", format!("{label}:"), one_line(&value));
        }
    }
    if let Some(req) = &d.requires {
        if let Some(v) = &req.hcpx {
            let _ = writeln!(w, "requires:     hcpx {}", one_line(v));
        }
        if !req.bins.is_empty() {
            let _ = writeln!(
                w,
                "requires:     {} on PATH",
                one_line(&req.bins.join(", "))
            );
        }
    }
    if d.sense_only {
        let _ = writeln!(w, "sense_only:   yes (no command runs)");
    }
}

/// The four flags, where the pack's files are, and its Skill copy.
fn print_place(w: &mut impl Write, d: &PackDetails) {
    let _ = writeln!(
        w,
        "state:        installed: {}  activated: {}  connected: {}",
        yes_no(d.installed),
        yes_no(d.activated),
        yes_no(d.connected)
    );
    if let Some(path) = &d.installed_path {
        let _ = writeln!(w, "installed at: {}", one_line(path));
    } else if let Some(path) = &d.catalog_path {
        let _ = writeln!(w, "in catalog:   {}", one_line(path));
    }
    let copy = if d.skill.copied {
        "present"
    } else {
        "absent: copied on activate"
    };
    let _ = writeln!(w, "skill copy:   {} ({copy})", one_line(&d.skill.path));
}

/// The Binding: names only, never a secret value (§8.3).
fn print_binding(w: &mut impl Write, b: &Binding) {
    let _ = writeln!(w, "{STRONG}binding{STRONG:#}:      {}", b.kind.as_str());
    if !b.env.is_empty() {
        let _ = writeln!(w, "  env:        {}", one_line(&b.env.join(", ")));
    }
    if let Some(secret) = &b.secret {
        let name = one_line(&secret.name);
        let _ = writeln!(w, "  secret:     {name} (given at connect, never shown)");
    }
    if let Some(probe) = &b.probe {
        let _ = writeln!(w, "  probe:      {}", one_line(probe));
    }
    if let Some(url) = &b.base_url {
        let _ = writeln!(w, "  base_url:   {}", one_line(url));
    }
}

/// Each command: ✓ or ✗ with its first reason, its summary, its args.
fn print_commands(w: &mut impl Write, commands: &[CommandDetails]) {
    if commands.is_empty() {
        return;
    }
    let _ = writeln!(w, "{STRONG}commands{STRONG:#}:");
    for c in commands {
        let (mark, style, state) = match c.reasons.first() {
            _ if c.executable => ("✓", GOOD, "executable".to_string()),
            Some(reason) => ("✗", WARNING, reason.to_string()),
            None => ("✗", WARNING, "not executable".to_string()),
        };
        let _ = writeln!(
            w,
            "  {style}{mark}{style:#} {STRONG}{}{STRONG:#} ({}, {})  {}",
            one_line(&c.verb_key),
            c.effect.as_str(),
            one_line(&state),
            one_line(&c.summary)
        );
        for arg in &c.args {
            let _ = writeln!(w, "      {}", arg_line(arg));
        }
    }
}

fn yes_no(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}

/// `name=<type>  required|optional, default: D, values: a|b  description`,
/// terminal-safe.
fn arg_line(arg: &Arg) -> String {
    let mut parts = vec![if arg.required {
        "required".to_string()
    } else {
        "optional".to_string()
    }];
    if let Some(default) = &arg.default {
        parts.push(format!("default: {default}"));
    }
    if !arg.values.is_empty() {
        parts.push(format!("values: {}", arg.values.join("|")));
    }
    let mut line = format!("{}=<{}>  {}", arg.name, arg.kind.as_str(), parts.join(", "));
    if let Some(desc) = &arg.description {
        line.push_str("  ");
        line.push_str(desc);
    }
    one_line(&line)
}

/// Pack text on one terminal line: terminal-safe, newlines and tabs as
/// spaces (a pack failing lint may hold them anywhere).
fn one_line(text: &str) -> String {
    terminal_safe(&text.replace(['\n', '\t'], " ")).into_owned()
}

/// `hcpx exec PACK_ID VERB --help`: the command's summary, its usage and its
/// arg table; with `--json`, the command's entry of `show --json`.
pub fn exec_help(pack: &str, verb: &str, ctx: &Ctx) -> i32 {
    let result = ctx
        .engine()
        .and_then(|engine| show::command(&engine, pack, verb));
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
