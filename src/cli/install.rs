//! `hcpx install SOURCE... [--list | --skill ID... | --all] [--force]`
//! (11-lifecycle.md §11.1, HCP.md §11.1, §11.6, §13.1). While a git source
//! is fetched, a line on stderr says so when stderr is a terminal. A
//! collection of several packs without `--skill` or `--all` opens a
//! multi-select with a filter when stdin and stderr are terminals and
//! `--json` is not given; the engine is told the chosen ids.
//!
//! Output: one source that installs one pack prints that pack's result as
//! before (`{"ok": true, "pack_id", ..., "source"}`, or the error); one
//! `--list` prints `{"ok": true, "source", "packs"}`; anything else prints
//! `{"ok": bool, "results": [...], "error"?}` with one entry per pack (or
//! per source that failed as a whole, or per listing), the first failure
//! as `error` and as the exit code.

use crate::cli::context::Ctx;
use crate::cli::output::terminal_safe;
use crate::engine::error::Error;
use crate::engine::ops::sources::{
    Chooser, ListedKind, ListedPack, Listing, PackResult, Selection, SourceRun,
};
use crate::engine::ops::{
    Engine, FetchObserver, InstallAction, InstallOptions, InstallOutcome, InstallSource,
};
use serde::Serialize;
use std::io::IsTerminal;

pub use crate::command::args::install::InstallArgs;

/// What one SOURCE came to.
enum Run {
    Listed(Listing),
    Results(Vec<PackResult>),
}

pub fn run(args: &InstallArgs, ctx: &Ctx) -> i32 {
    let pick = Pick {
        list: args.list,
        all: args.all,
        skill: args.skill.clone(),
        force: args.force,
        add: false,
    };
    run_sources(&args.sources, &pick, ctx)
}

/// What to take from each source, and whether to activate it too (`add`).
pub struct Pick {
    pub list: bool,
    pub all: bool,
    pub skill: Vec<String>,
    pub force: bool,
    /// `hcpx add` (HCP.md §15.3): activate what is installed.
    pub add: bool,
}

/// Installs (or adds) each source and reports them.
pub fn run_sources(sources: &[String], pick: &Pick, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| {
        let runs: Vec<Run> = sources
            .iter()
            .map(|s| run_one(engine, pick, ctx, s))
            .collect();
        report(ctx, runs)
    })
}

fn run_one(engine: &Engine, args: &Pick, ctx: &Ctx, text: &str) -> Run {
    let failed = |err: Error| {
        let shown = crate::engine::store::source::redact_source(text);
        Run::Results(vec![PackResult::failed(shown, None, None, err)])
    };
    let source = match InstallSource::parse(text) {
        Ok(source) => source,
        Err(err) => return failed(err),
    };
    let mut options = InstallOptions::new(source);
    options.force = args.force;
    options.on_fetch = fetch_progress();
    options.selection = if args.list {
        Selection::List
    } else if args.all {
        Selection::All
    } else if !args.skill.is_empty() {
        Selection::Skills(args.skill.clone())
    } else {
        Selection::Default
    };
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if interactive && !ctx.out.json {
        options.chooser = Some(picker());
    }
    if args.add {
        return match engine.add(&options) {
            Ok(results) => Run::Results(results),
            Err(err) => failed(err),
        };
    }
    match engine.install_source(&options) {
        Ok(SourceRun::Listed(listing)) => Run::Listed(listing),
        Ok(SourceRun::Done(results)) => Run::Results(results),
        Err(err) => failed(err),
    }
}

#[derive(Serialize)]
struct Several<'a> {
    ok: bool,
    results: Vec<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a Error>,
}

fn report(ctx: &Ctx, mut runs: Vec<Run>) -> i32 {
    if runs.len() == 1 {
        match runs.remove(0) {
            Run::Listed(listing) => return ctx.success(listing, print_listing),
            Run::Results(mut results) if results.len() == 1 => {
                return match results.remove(0) {
                    PackResult::Installed(done) => ctx.success(done.outcome, print),
                    PackResult::Failed(failed) => ctx.fail(&failed.error),
                };
            }
            run => runs.push(run),
        }
    }
    let first_error = runs.iter().find_map(|run| match run {
        Run::Results(results) => results.iter().find_map(PackResult::error).cloned(),
        Run::Listed(_) => None,
    });
    if ctx.out.json {
        let results = runs.iter().flat_map(json_lines).collect();
        let shown = first_error
            .as_ref()
            .map(|e| crate::cli::fix::with_hint(e, &ctx.out.flags));
        ctx.out.json(&Several {
            ok: first_error.is_none(),
            results,
            error: shown.as_ref(),
        });
    } else {
        for run in &runs {
            print_run(ctx, run);
        }
    }
    first_error.map_or(0, |e| e.code.exit_code())
}

fn json_lines(run: &Run) -> Vec<serde_json::Value> {
    let value = |v: serde_json::Result<serde_json::Value>| v.unwrap_or_default();
    match run {
        Run::Listed(listing) => {
            let mut doc = value(serde_json::to_value(listing));
            if let Some(map) = doc.as_object_mut() {
                map.insert("ok".into(), true.into());
            }
            vec![doc]
        }
        Run::Results(results) => results
            .iter()
            .map(|r| value(serde_json::to_value(r)))
            .collect(),
    }
}

fn print_run(ctx: &Ctx, run: &Run) {
    match run {
        Run::Listed(listing) => print_listing(listing),
        Run::Results(results) => {
            for result in results {
                match result {
                    PackResult::Installed(done) => print(&done.outcome),
                    PackResult::Failed(failed) => {
                        let mut err = failed.error.clone();
                        let what = failed.pack_id.as_deref().unwrap_or(&failed.source);
                        err.message = format!("{what}: {}", err.message);
                        ctx.out.error(&err);
                    }
                }
            }
        }
    }
}

fn print(o: &InstallOutcome) {
    let pack_id = terminal_safe(&o.pack_id);
    println!(
        "{} from {}",
        terminal_safe(&o.to_string()),
        terminal_safe(&o.source.display())
    );
    for warning in &o.warnings {
        eprintln!("warning: {}", terminal_safe(warning));
    }
    crate::cli::harness::warn_lines(&o.harnesses, &o.pack_id);
    if o.disconnected {
        println!("its binding changed: run `hcpx connect {pack_id}` again");
    }
    if !o.activated && o.action != InstallAction::Unchanged {
        println!("next: hcpx activate {pack_id}");
    }
}

fn print_listing(listing: &Listing) {
    let count = match listing.packs.len() {
        1 => "1 pack".to_string(),
        n => format!("{n} packs"),
    };
    println!("{} holds {count}:", terminal_safe(&listing.source));
    let width = |f: fn(&ListedPack) -> usize| listing.packs.iter().map(f).max().unwrap_or(0);
    let id_width = width(|p| p.pack_id.chars().count()).max("PACK_ID".len());
    let path_width = width(|p| p.path.chars().count()).max("PATH".len());
    println!(
        "  {:id_width$}  KIND   {:path_width$}  DESCRIPTION",
        "PACK_ID", "PATH"
    );
    for p in &listing.packs {
        let kind = match p.kind {
            ListedKind::Pack => "pack",
            ListedKind::Skill => "skill",
        };
        let broken = if p.lint_ok { "" } else { "[fails lint] " };
        let line = format!(
            "  {:id_width$}  {kind:5}  {:path_width$}  {broken}{}",
            p.pack_id,
            p.path,
            first_line_cut(&p.description, 70)
        );
        println!("{}", terminal_safe(&line));
    }
}

/// The first line of `text`, at most `max` characters (cut with `…`).
fn first_line_cut(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > max {
        line.chars().take(max - 1).collect::<String>() + "…"
    } else {
        line.to_string()
    }
}

/// `pdf  (skill, skills/pdf)  Edit PDF files`, marked when it fails lint.
fn listed_line(p: &ListedPack) -> String {
    let kind = match p.kind {
        ListedKind::Pack => "pack",
        ListedKind::Skill => "skill",
    };
    let broken = if p.lint_ok { "" } else { "  [fails lint]" };
    let description = first_line_cut(&p.description, 70);
    format!("{}  ({kind}, {}){broken}  {description}", p.pack_id, p.path)
}

/// The multi-select of a collection's packs: type to filter, space to mark,
/// enter to install the marked ones.
fn picker() -> Chooser {
    std::sync::Arc::new(|listed: &[ListedPack]| {
        let lines: Vec<String> = listed
            .iter()
            .map(|p| terminal_safe(&listed_line(p)).into_owned())
            .collect();
        let chosen = inquire::MultiSelect::new(
            "Which packs? (type to filter, space to mark)",
            lines.clone(),
        )
        .with_page_size(15)
        .prompt()
        .ok()?;
        Some(
            chosen
                .iter()
                .filter_map(|line| lines.iter().position(|l| l == line))
                .map(|at| listed[at].pack_id.clone())
                .collect(),
        )
    })
}

/// A progress line on stderr while a git source is fetched, when stderr is
/// a terminal.
pub fn fetch_progress() -> Option<FetchObserver> {
    std::io::stderr().is_terminal().then(|| {
        std::sync::Arc::new(|source: &str| eprintln!("hcpx: fetching {}", terminal_safe(source)))
            as FetchObserver
    })
}
