//! `install` in words (§11.1, §11.6, §13.1): each pack installed and from
//! where, the capability diff of a replacement (as `upgrade` words it,
//! §13.7), what to run next; a `--list` listing as a table; beside them
//! (stderr on the CLI) the pack's warnings, its harness warnings, and with
//! several packs the error of each that failed, after its id or source.

use crate::engine::ops::sources::{ListedKind, ListedPack, Listing, PackResult, SourceRun};
use crate::engine::ops::{InstallAction, InstallOutcome};
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, o: &InstallOutcome) -> Result {
    let pack_id = one_line(&o.pack_id);
    writeln!(
        w,
        "{} from {}",
        one_line(&o.to_string()),
        one_line(&o.source.display())
    )?;
    if let Some(changes) = &o.changes {
        super::upgrade::write_changes(w, changes)?;
    }
    if o.disconnected {
        writeln!(w, "its binding changed: run `hcpx connect {pack_id}` again")?;
    }
    if !o.activated && o.action != InstallAction::Unchanged {
        writeln!(w, "next: hcpx activate {pack_id}")?;
    }
    Ok(())
}

/// The pack's warnings, then its harness warnings.
pub fn write_notes(w: &mut impl Write, o: &InstallOutcome) -> Result {
    for warning in &o.warnings {
        writeln!(w, "warning: {}", one_line(warning))?;
    }
    super::harness::write_warnings(w, &o.harnesses, &o.pack_id)
}

/// Several sources, or a source of several packs.
pub fn write_runs(w: &mut impl Write, runs: &[SourceRun]) -> Result {
    for run in runs {
        match run {
            SourceRun::Listed(listing) => write_listing(w, listing)?,
            SourceRun::Done(results) => {
                for result in results {
                    if let PackResult::Installed(done) = result {
                        write(w, &done.outcome)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The notes of [`write_runs`]: each pack's, and each failure's error
/// (its hint already rendered into it).
pub fn write_run_notes(w: &mut impl Write, runs: &[SourceRun]) -> Result {
    for run in runs {
        let SourceRun::Done(results) = run else {
            continue;
        };
        for result in results {
            match result {
                PackResult::Installed(done) => write_notes(w, &done.outcome)?,
                PackResult::Failed(failed) => {
                    let mut err = failed.error.clone();
                    let what = failed.pack_id.as_deref().unwrap_or(&failed.source);
                    err.message = format!("{what}: {}", err.message);
                    // Rendered with the user's flags when the run ended
                    // (`with_hint`); any command left is shown without them.
                    let hint = err.context.hint.as_ref().map(|h| {
                        h.render(&|fix| {
                            crate::fixline::command_line(fix, &crate::fixline::FixFlags::default())
                        })
                    });
                    super::error::write(w, &err, hint.as_deref())?;
                }
            }
        }
    }
    Ok(())
}

/// `SOURCE holds N packs:` and a table of them.
pub fn write_listing(w: &mut impl Write, listing: &Listing) -> Result {
    let count = super::packs(listing.packs.len());
    writeln!(w, "{} holds {count}:", one_line(&listing.source))?;
    let width = |f: fn(&ListedPack) -> usize| listing.packs.iter().map(f).max().unwrap_or(0);
    let id_width = width(|p| p.pack_id.chars().count()).max("PACK_ID".len());
    let path_width = width(|p| p.path.chars().count()).max("PATH".len());
    writeln!(
        w,
        "  {:id_width$}  KIND   {:path_width$}  DESCRIPTION",
        "PACK_ID", "PATH"
    )?;
    for p in &listing.packs {
        let broken = if p.lint_ok { "" } else { "[fails lint] " };
        let line = format!(
            "  {:id_width$}  {:5}  {:path_width$}  {broken}{}",
            p.pack_id,
            kind(p),
            p.path,
            first_line_cut(&p.description, 70)
        );
        writeln!(w, "{}", one_line(&line))?;
    }
    Ok(())
}

fn kind(p: &ListedPack) -> &'static str {
    match p.kind {
        ListedKind::Pack => "pack",
        ListedKind::Skill => "skill",
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

/// `pdf  (skill, skills/pdf)  Edit PDF files`, marked when it fails lint:
/// a line of a picker of a collection's packs (terminal-safe).
pub fn listed_line(p: &ListedPack) -> String {
    let broken = if p.lint_ok { "" } else { "  [fails lint]" };
    let description = first_line_cut(&p.description, 70);
    let line = format!(
        "{}  ({}, {}){broken}  {description}",
        p.pack_id,
        kind(p),
        p.path
    );
    one_line(&line).into_owned()
}
