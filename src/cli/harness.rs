//! `hcpx harness list | status [PACK_ID] | enable TARGET... | enable --detected
//! | disable TARGET... | sync [--force]` (HCP.md §12.4–§12.8): put the Skills
//! of activated packs where Claude Code, Codex, Cursor, Copilot, OpenCode,
//! Gemini CLI and Windsurf read them.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::cli::output::{GOOD, WARNING};
use crate::cli::report;
use crate::command::{Outcome, Request};
use crate::engine::error::Error;
use crate::engine::harness::plan::{SkillState, Taken};
use crate::engine::harness::{self, HarnessLine, TargetName, TargetStatus};
use serde::Serialize;
use std::io::Write;

pub use crate::command::args::harness::{HarnessArgs, HarnessCommand};

#[derive(Serialize)]
struct Change<'a> {
    changed: Vec<&'static str>,
    targets: &'a [TargetStatus],
}

pub fn run(args: &HarnessArgs, ctx: &Ctx) -> i32 {
    match &args.command {
        HarnessCommand::List { .. } => report::run(&Request::HarnessList, ctx),
        HarnessCommand::Status { pack, .. } => {
            let pack = pack.clone();
            report::run(&Request::HarnessStatus { pack }, ctx)
        }
        HarnessCommand::Enable {
            targets, detected, ..
        } => enable(targets, *detected, ctx),
        HarnessCommand::Disable { targets, .. } => disable(targets, ctx),
        HarnessCommand::Sync { force, .. } => sync(*force, ctx),
    }
}

fn sync(force: bool, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match engine.harness_sync(force) {
        Ok(targets) => {
            warn_conflicts(&targets);
            report::print(&Outcome::HarnessStatus(targets), ctx)
        }
        Err(err) => ctx.fail(&err),
    })
}

fn enable(names: &[String], detected: bool, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| {
        let targets = if detected {
            engine.detected_harnesses()
        } else {
            parse_targets(names)
        };
        let change = targets.and_then(|t| engine.harness_enable(&t));
        changed(change, "enabled", ctx)
    })
}

fn disable(names: &[String], ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| {
        let change = parse_targets(names).and_then(|t| engine.harness_disable(&t));
        changed(change, "disabled", ctx)
    })
}

fn changed(
    change: Result<crate::engine::ops::harness::HarnessChange, Error>,
    verb: &str,
    ctx: &Ctx,
) -> i32 {
    match change {
        Ok(change) => {
            warn_conflicts(&change.targets);
            let body = Change {
                changed: change.changed.iter().map(|t| t.as_str()).collect(),
                targets: &change.targets,
            };
            ctx.success(body, |b| {
                if b.changed.is_empty() {
                    anstream::println!("nothing to change: {verb} already");
                } else {
                    anstream::println!("{GOOD}{verb}{GOOD:#} {}", b.changed.join(", "));
                }
                print_targets(b.targets);
            })
        }
        Err(err) => ctx.fail(&err),
    }
}

/// Target names as typed; an unknown one is a usage error listing the known.
fn parse_targets(names: &[String]) -> Result<Vec<TargetName>, Error> {
    names
        .iter()
        .map(|name| {
            TargetName::parse(name).ok_or_else(|| {
                Error::usage(format!(
                    "unknown harness target `{}`",
                    name.escape_default()
                ))
                .hint(format!("known targets: {}", harness::names_list()))
            })
        })
        .collect()
}

fn print_targets(targets: &[TargetStatus]) {
    let mut words = String::new();
    let _ = crate::command::text::harness::write_targets(&mut words, targets);
    anstream::print!("{words}");
}

/// `warning:` lines on stderr for conflicts and edited copies (§12.7).
pub fn warn_conflicts(targets: &[TargetStatus]) {
    for target in targets {
        for skill in &target.skills {
            warn(
                target.name,
                &target.path.join(&skill.skill),
                &skill.pack_id,
                skill.state,
                skill.taken.as_ref(),
            );
        }
    }
}

/// [`warn_conflicts`] for the `harnesses` lines of a lifecycle result.
pub fn warn_lines(lines: &[HarnessLine], pack_id: &str) {
    for line in lines {
        warn(
            line.target,
            &line.path,
            pack_id,
            line.state,
            line.taken.as_ref(),
        );
    }
}

fn warn(
    target: TargetName,
    path: &std::path::Path,
    pack_id: &str,
    state: SkillState,
    taken: Option<&Taken>,
) {
    let why = match (state, taken) {
        (SkillState::Conflict, Some(Taken::Pack(holder))) => format!(
            "is held by the Skill of the same name of {} (activated first, or its edited copy is there); left alone",
            terminal_safe(holder)
        ),
        (SkillState::Conflict, Some(Taken::Store(store))) => format!(
            "was placed by another store ({}); left alone",
            terminal_safe(store)
        ),
        (SkillState::Conflict, Some(Taken::Reserved)) => {
            "is a name only the bootstrap pack may use (hcp-cli, hcp-*); not placed".to_string()
        }
        (SkillState::Conflict, _) => "is taken by a folder hcpx did not place; left alone".to_string(),
        (SkillState::Modified, _) => {
            "was edited by someone; left as it is (`hcpx harness sync --force` replaces it while the pack is activated)".to_string()
        }
        _ => return,
    };
    let _ = writeln!(
        anstream::stderr().lock(),
        "{WARNING}warning{WARNING:#}: {}: {} of {} {why}",
        target.as_str(),
        terminal_safe(&path.display().to_string()),
        terminal_safe(pack_id)
    );
}
