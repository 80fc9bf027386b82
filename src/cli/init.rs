//! `hcpx init [DIR]` (HCP.md §15.3): writes `hcp.yaml` and `.hcp/` (with
//! its `.gitignore` of `*`). JSON: `{"ok": true, "project", "file",
//! "harnesses", "warnings"?, "scope": "project"}`; an existing `hcp.yaml`
//! is `already_exists` (exit 3).

use crate::cli::context::Ctx;
use crate::cli::output::{ScopeTag, terminal_safe};
use crate::engine::harness::HarnessEnv;
use crate::engine::project::Scope;

pub use crate::command::args::init::InitArgs;

pub fn run(args: &InitArgs, ctx: &Ctx) -> i32 {
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from("."));
    let home = match ctx.user_home() {
        Ok(home) => home,
        Err(err) => return ctx.fail(&err),
    };
    let Some(env) = HarnessEnv::from_process() else {
        return ctx.fail(&crate::engine::error::Error::usage(
            "no home folder is known: set HOME so hcpx can find the harnesses' folders",
        ));
    };
    match crate::engine::ops::project::init(&dir, &home, &env) {
        Ok(done) => {
            ctx.out.set_scope(ScopeTag {
                scope: Scope::Project,
                project: Some(done.project.clone()),
            });
            for warning in &done.warnings {
                eprintln!("warning: {}", terminal_safe(warning));
            }
            ctx.success(done, |done| {
                let names: Vec<&str> = done.harnesses.iter().map(|t| t.as_str()).collect();
                println!(
                    "wrote {} (harnesses: {})",
                    terminal_safe(&done.file),
                    names.join(", ")
                );
                println!("next: hcpx add SOURCE, then commit hcp.yaml and hcp.lock");
            })
        }
        Err(err) => ctx.fail(&err),
    }
}

/// In text mode, says on stderr which store the command acted on when it
/// was a project's (§15.1: every command says its scope).
pub fn say_scope(ctx: &Ctx) {
    if ctx.out.json {
        return;
    }
    if let Some(ScopeTag {
        scope: Scope::Project,
        project: Some(path),
    }) = ctx.out.scope()
    {
        eprintln!("project: {}", terminal_safe(&path));
    }
}
