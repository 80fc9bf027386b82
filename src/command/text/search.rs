//! `search` in words (HCP.md §11.6): the catalog packs found, as a table
//! with where each is, or why nothing was.

use crate::command::style::{HINT, STRONG};
use crate::command::text::list::{cell, pad, width};
use crate::engine::ops::list::SearchHit;
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, words: &[String], hits: &[SearchHit], catalogs: usize) -> Result {
    let query = one_line(&words.join(" ")).into_owned();
    if catalogs == 0 {
        return writeln!(
            w,
            "no catalogs to search: add one with `hcpx catalog add SOURCE`, or give --catalog DIR"
        );
    }
    if hits.is_empty() {
        let searched = match catalogs {
            1 => "the catalog".to_string(),
            n => format!("{n} catalogs"),
        };
        return writeln!(
            w,
            "no pack in {searched} matches `{query}` (its id, name or description)\n\
             {HINT}hint{HINT:#}: `hcpx list` shows every pack; `hcpx catalog list` the catalogs"
        );
    }
    let ids: Vec<String> = hits.iter().map(|h| cell(&h.pack_id, 40)).collect();
    let id_w = ids.iter().map(|id| width(id)).max().unwrap_or(0).max(7);
    writeln!(
        w,
        "{STRONG}{}  {:5}  {:9}  DESCRIPTION{STRONG:#}",
        pad("PACK_ID", id_w),
        "KIND",
        "STATUS"
    )?;
    for (hit, id) in hits.iter().zip(&ids) {
        let status = if hit.installed {
            "installed"
        } else {
            "available"
        };
        writeln!(
            w,
            "{}  {:5}  {status:9}  {}",
            pad(id, id_w),
            hit.kind.as_str(),
            cell(hit.description.as_deref().unwrap_or(""), 60),
        )?;
    }
    writeln!(
        w,
        "{} matching `{query}`: `hcpx install PACK_ID` installs one",
        super::packs(hits.len())
    )
}
