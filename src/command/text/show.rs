//! `show` in words (§3, §4, §8, §11.2–§11.3): the manifest facts, where the
//! pack is, its Binding (names only, never a secret value), every command
//! with its args.

use super::list::status_style;
use super::yes_no;
use crate::command::style::{ERROR, GOOD, STRONG, WARNING};
use crate::engine::ops::show::{CommandDetails, PackDetails};
use crate::engine::pack::manifest::{Arg, Binding};
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, d: &PackDetails) -> Result {
    write_facts(w, d)?;
    write_place(w, d)?;
    if let Some(b) = &d.binding {
        write_binding(w, b)?;
    }
    for problem in &d.problems {
        writeln!(w, "{ERROR}problem{ERROR:#}: {}", one_line(problem))?;
    }
    write_commands(w, &d.commands)
}

/// The first line, then the manifest facts.
fn write_facts(w: &mut impl Write, d: &PackDetails) -> Result {
    let style = status_style(d.status);
    let version = d.version.as_deref().map_or_else(|| "-".into(), one_line);
    writeln!(
        w,
        "{STRONG}{}{STRONG:#} {version}  {style}{}{style:#}",
        one_line(&d.pack_id),
        d.status.as_str()
    )?;
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
            writeln!(w, "{:14}{}", format!("{label}:"), one_line(&value))?;
        }
    }
    if let Some(req) = &d.requires {
        if let Some(v) = &req.hcpx {
            writeln!(w, "requires:     hcpx {}", one_line(v))?;
        }
        if !req.bins.is_empty() {
            writeln!(
                w,
                "requires:     {} on PATH",
                one_line(&req.bins.join(", "))
            )?;
        }
    }
    if d.sense_only {
        writeln!(w, "sense_only:   yes (no command runs)")?;
    }
    Ok(())
}

/// The four flags, where the pack's files are, and its Skill copy.
fn write_place(w: &mut impl Write, d: &PackDetails) -> Result {
    writeln!(
        w,
        "state:        installed: {}  activated: {}  connected: {}",
        yes_no(d.installed),
        yes_no(d.activated),
        yes_no(d.connected)
    )?;
    if let Some(path) = &d.installed_path {
        writeln!(w, "installed at: {}", one_line(path))?;
    } else if let Some(path) = &d.catalog_path {
        writeln!(w, "in catalog:   {}", one_line(path))?;
    }
    let copy = if d.skill.copied {
        "present"
    } else {
        "absent: copied on activate"
    };
    writeln!(w, "skill copy:   {} ({copy})", one_line(&d.skill.path))?;
    Ok(())
}

/// The Binding: names only, never a secret value (§8.3).
fn write_binding(w: &mut impl Write, b: &Binding) -> Result {
    writeln!(w, "{STRONG}binding{STRONG:#}:      {}", b.kind.as_str())?;
    if !b.env.is_empty() {
        writeln!(w, "  env:        {}", one_line(&b.env.join(", ")))?;
    }
    if let Some(secret) = &b.secret {
        let name = one_line(&secret.name);
        writeln!(w, "  secret:     {name} (given at connect, never shown)")?;
    }
    if let Some(probe) = &b.probe {
        writeln!(w, "  probe:      {}", one_line(probe))?;
    }
    if let Some(url) = &b.base_url {
        writeln!(w, "  base_url:   {}", one_line(url))?;
    }
    Ok(())
}

/// Each command: ✓ or ✗ with its first reason, its summary, its args.
fn write_commands(w: &mut impl Write, commands: &[CommandDetails]) -> Result {
    if commands.is_empty() {
        return Ok(());
    }
    writeln!(w, "{STRONG}commands{STRONG:#}:")?;
    for c in commands {
        let (mark, style, state) = match c.reasons.first() {
            _ if c.executable => ("✓", GOOD, "executable".to_string()),
            Some(reason) => ("✗", WARNING, reason.to_string()),
            None => ("✗", WARNING, "not executable".to_string()),
        };
        writeln!(
            w,
            "  {style}{mark}{style:#} {STRONG}{}{STRONG:#} ({}, {})  {}",
            one_line(&c.verb_key),
            c.effect.as_str(),
            one_line(&state),
            one_line(&c.summary)
        )?;
        for arg in &c.args {
            writeln!(w, "      {}", arg_line(arg))?;
        }
    }
    Ok(())
}

/// `name=<type>  required|optional, default: D, values: a|b  description`,
/// terminal-safe.
pub fn arg_line(arg: &Arg) -> String {
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
    one_line(&line).into_owned()
}
