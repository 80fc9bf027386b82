//! Read-only views: `hcpx list`, `hcpx availability [PACK_ID]` (HCP.md
//! §11.3) and `hcpx why PACK_ID [VERB]`.

use crate::cli::context::Ctx;
use crate::cli::output::{ERROR, GOOD, HINT, STRONG, WARNING, terminal_safe};
use crate::engine::error::{Error, ErrorCode};
use crate::engine::ops::docs::Packs;
use crate::engine::ops::list::{self, ListRow};
use crate::engine::policy::availability::{PackAvailability, Status};
use crate::engine::policy::why::{self, WhyReason};
use serde::Serialize;
use std::io::Write;

/// List installed and catalog packs with their status
#[derive(Debug, clap::Args)]
pub struct ListArgs {}

/// Report the availability flags of packs and whether each command is executable (§11.2)
#[derive(Debug, clap::Args)]
pub struct AvailabilityArgs {
    /// Only this pack
    #[arg(value_name = "PACK_ID")]
    pub pack: Option<String>,
}

/// Explain why a pack or command is not executable, and the command that fixes it
#[derive(Debug, clap::Args)]
pub struct WhyArgs {
    #[arg(value_name = "PACK_ID")]
    pub pack: String,
    #[arg(value_name = "VERB")]
    pub verb: Option<String>,
}

pub fn list(_args: &ListArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match list::list(engine) {
        Ok(rows) => ctx.success(
            Packs {
                principal: None,
                packs: rows,
            },
            |p| print_list(&p.packs),
        ),
        Err(err) => ctx.fail(&err),
    })
}

fn status_style(status: Status) -> anstyle::Style {
    match status {
        Status::Executable | Status::Connected => GOOD,
        Status::Activated | Status::Installed => STRONG,
        Status::Available => HINT,
        Status::Unavailable => ERROR,
    }
}

fn print_list(rows: &[ListRow]) {
    let mut w = anstream::stdout().lock();
    if rows.is_empty() {
        let _ = writeln!(
            w,
            "no packs: install one with `hcpx install DIR`, or add a catalog with --catalog DIR"
        );
        return;
    }
    let id_w = rows
        .iter()
        .map(|r| r.pack_id.len())
        .max()
        .unwrap_or(0)
        .max(7);
    let ver_w = rows
        .iter()
        .map(|r| r.version.as_deref().unwrap_or("-").len())
        .max()
        .unwrap_or(0)
        .max(7);
    let _ = writeln!(
        w,
        "{STRONG}{:id_w$}  {:ver_w$}  {:11}  DESCRIPTION{STRONG:#}",
        "PACK_ID", "VERSION", "STATUS"
    );
    for r in rows {
        let style = status_style(r.status);
        let desc = r.description.as_deref().unwrap_or("");
        let desc: String = desc.chars().take(60).collect();
        let desc = terminal_safe(&desc);
        let _ = writeln!(
            w,
            "{:id_w$}  {:ver_w$}  {style}{:11}{style:#}  {desc}",
            terminal_safe(&r.pack_id),
            terminal_safe(r.version.as_deref().unwrap_or("-")),
            r.status.as_str(),
        );
    }
}

pub fn availability(args: &AvailabilityArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match engine.availability(args.pack.as_deref()) {
        Ok(packs) => ctx.success(
            Packs {
                principal: Some(engine.principal().to_string()),
                packs,
            },
            |p| print_availability(&p.packs),
        ),
        Err(err) => ctx.fail(&err),
    })
}

fn yes_no(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}

fn print_availability(packs: &[PackAvailability]) {
    let mut w = anstream::stdout().lock();
    for p in packs {
        let style = status_style(p.status);
        let _ = writeln!(
            w,
            "{STRONG}{}{STRONG:#} {}  {style}{}{style:#}  installed: {}  activated: {}  connected: {}  sense: {}",
            terminal_safe(&p.pack_id),
            terminal_safe(p.version.as_deref().unwrap_or("-")),
            p.status.as_str(),
            yes_no(p.installed),
            yes_no(p.activated),
            yes_no(p.connected),
            if p.sense.active { "active" } else { "inactive" },
        );
        for problem in &p.problems {
            let _ = writeln!(w, "  {ERROR}problem{ERROR:#}: {}", terminal_safe(problem));
        }
        for c in &p.commands {
            let (mark, style) = if c.executable {
                ("✓", GOOD)
            } else {
                ("✗", WARNING)
            };
            let reasons: Vec<String> = c.reasons.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                w,
                "  {style}{mark}{style:#} {:24} {:5}  {}",
                terminal_safe(&c.verb_key),
                c.effect,
                terminal_safe(&reasons.join(", "))
            );
        }
    }
}

pub fn why(args: &WhyArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| {
        let view = match engine.pack_view(&args.pack) {
            Ok(view) => view,
            Err(err) => return ctx.fail(&err),
        };
        let state = match engine.store().read_state() {
            Ok(state) => state,
            Err(err) => return ctx.fail(&err),
        };
        let avail = engine.pack_availability(&view, &state);
        let dir = view.dir().map(|d| d.display().to_string());
        let answer = why::explain(
            &avail,
            view.manifest(),
            args.verb.as_deref(),
            engine.principal(),
            dir.as_deref(),
        );
        if answer.reason() == Some(&WhyReason::NotFound) {
            let mut err =
                Error::new(ErrorCode::NotFound, answer.explanation.clone()).pack(&args.pack);
            if let Some(verb) = &args.verb {
                err = err.verb(verb.clone());
            }
            return ctx.fail(&err);
        }
        let fixes: Vec<Option<String>> = answer
            .unmet
            .iter()
            .map(|u| u.fix.as_ref().map(|f| ctx.out.fix_line(f)))
            .collect();
        let doc = WhyDoc {
            pack_id: &answer.pack_id,
            verb_key: answer.verb_key.as_deref(),
            executable: answer.executable,
            reason: answer.reason(),
            explanation: &answer.explanation,
            fix: fixes.first().cloned().flatten(),
            reasons: answer.unmet.iter().map(|u| &u.reason).collect(),
            fixes: fixes.clone(),
        };
        ctx.success(doc, |_| {
            let mut w = anstream::stdout().lock();
            if answer.unmet.is_empty() {
                let style = if answer.executable { GOOD } else { WARNING };
                let _ = writeln!(w, "{style}{}{style:#}", terminal_safe(&answer.explanation));
            }
            for (unmet, fix) in answer.unmet.iter().zip(&fixes) {
                let _ = writeln!(
                    w,
                    "{WARNING}{}{WARNING:#}",
                    terminal_safe(&unmet.explanation)
                );
                if let Some(fix) = fix {
                    let _ = writeln!(w, "  {HINT}fix{HINT:#}: {}", terminal_safe(fix));
                }
            }
        })
    })
}

/// `why --json`: the first unmet condition (`reason`, `explanation`, `fix`,
/// as before) and every one (`reasons`, and `fixes` beside them: the
/// command line for each, `null` where hcpx has none).
#[derive(Serialize)]
struct WhyDoc<'a> {
    pack_id: &'a str,
    verb_key: Option<&'a str>,
    executable: bool,
    reason: Option<&'a WhyReason>,
    explanation: &'a str,
    fix: Option<String>,
    reasons: Vec<&'a WhyReason>,
    fixes: Vec<Option<String>>,
}
