//! `hcpx add SOURCE... [--skill ID]... [--all]` (HCP.md §15.3): install and
//! activate; in a project each pack is recorded in `hcp.yaml` and
//! `hcp.lock` and placed in the project's targets. Output as `install`'s
//! (one pack: its result; several: `results`), with `"activated": true`.

use crate::cli::context::Ctx;
use crate::cli::install::{Pick, run_sources};

pub use crate::command::args::add::AddArgs;

pub fn run(args: &AddArgs, ctx: &Ctx) -> i32 {
    let pick = Pick {
        list: false,
        all: args.all,
        skill: args.skill.clone(),
        force: false,
        add: true,
    };
    let code = run_sources(&args.sources, &pick, ctx);
    crate::cli::init::say_scope(ctx);
    code
}
