//! `hcpx activate PACK_ID...` and `hcpx deactivate PACK_ID...`
//! (11-lifecycle.md §11.1, HCP.md §5.4).

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::error::Error;
use crate::engine::ops::Toggle;
use crate::engine::ops::docs::Toggled;

/// Activate installed packs: their commands become loadable and their Skills are copied to the store
#[derive(Debug, clap::Args)]
pub struct ActivateArgs {
    #[arg(required = true, value_name = "PACK_ID")]
    pub packs: Vec<String>,
}

/// Deactivate packs: drops activation, connection and the Skill copy
#[derive(Debug, clap::Args)]
pub struct DeactivateArgs {
    #[arg(required = true, value_name = "PACK_ID")]
    pub packs: Vec<String>,
}

pub fn activate(args: &ActivateArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| {
        let (done, err) = engine.activate(&args.packs);
        report(ctx, &done, err, "activated", "already activated")
    })
}

pub fn deactivate(args: &DeactivateArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| {
        let (done, err) = engine.deactivate(&args.packs);
        report(ctx, &done, err, "deactivated", "was not activated")
    })
}

fn report(ctx: &Ctx, done: &[Toggle], err: Option<Error>, changed: &str, same: &str) -> i32 {
    if ctx.out.json {
        let shown = err
            .as_ref()
            .map(|e| crate::cli::fix::with_hint(e, &ctx.out.flags));
        ctx.out.json(&Toggled {
            ok: err.is_none(),
            results: done,
            error: shown.as_ref(),
        });
    } else {
        for t in done {
            let pack_id = terminal_safe(&t.pack_id);
            println!("{pack_id}: {}", if t.changed { changed } else { same });
        }
        if let Some(err) = &err {
            ctx.out.error(err);
        }
    }
    err.map_or(0, |e| e.code.exit_code())
}
