//! `hcpx why PACK_ID [VERB]`: why a pack or command is not executable, and
//! the command that fixes it (HCP.md §11.3).

use crate::cli::context::Ctx;
use crate::cli::output::{GOOD, HINT, WARNING, terminal_safe};
use crate::engine::error::{Error, ErrorCode};
use crate::engine::policy::why::{self, WhyReason};
use serde::Serialize;
use std::io::Write;

pub use crate::command::args::why::WhyArgs;
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
