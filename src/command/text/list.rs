//! `list` in words (§11.3): a table of packs, each cut to its column.

use crate::command::style::{ERROR, GOOD, HINT, STRONG};
use crate::engine::ops::list::ListRow;
use crate::engine::pack::text::one_line;
use crate::engine::policy::availability::Status;
use std::fmt::{Result, Write};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

pub fn status_style(status: Status) -> anstyle::Style {
    match status {
        Status::Executable | Status::Connected => GOOD,
        Status::Activated | Status::Installed => STRONG,
        Status::Available => HINT,
        Status::Unavailable => ERROR,
    }
}

/// Widest a column of `hcpx list` gets before its text is cut with `…`.
const ID_MAX: usize = 40;
const VERSION_MAX: usize = 16;
const DESCRIPTION_MAX: usize = 60;

pub fn write(w: &mut impl Write, rows: &[ListRow]) -> Result {
    if rows.is_empty() {
        writeln!(
            w,
            "no packs: install one with `hcpx install DIR`, or add a catalog with --catalog DIR"
        )?;
        return Ok(());
    }
    let cells: Vec<[String; 3]> = rows
        .iter()
        .map(|r| {
            [
                cell(&r.pack_id, ID_MAX),
                cell(r.version.as_deref().unwrap_or("-"), VERSION_MAX),
                cell(r.description.as_deref().unwrap_or(""), DESCRIPTION_MAX),
            ]
        })
        .collect();
    let id_w = cells.iter().map(|c| width(&c[0])).max().unwrap_or(0).max(7);
    let ver_w = cells.iter().map(|c| width(&c[1])).max().unwrap_or(0).max(7);
    writeln!(
        w,
        "{STRONG}{}  {}  {:5}  {:11}  DESCRIPTION{STRONG:#}",
        pad("PACK_ID", id_w),
        pad("VERSION", ver_w),
        "KIND",
        "STATUS"
    )?;
    for (r, [id, version, desc]) in rows.iter().zip(&cells) {
        let style = status_style(r.status);
        writeln!(
            w,
            "{}  {}  {:5}  {style}{:11}{style:#}  {desc}",
            pad(id, id_w),
            pad(version, ver_w),
            r.kind.as_str(),
            r.status.as_str(),
        )?;
    }
    Ok(())
}

/// Pack text as one table cell: terminal-safe, on one line, at most `max`
/// columns wide (cut with `…`).
pub fn cell(text: &str, max: usize) -> String {
    let safe = one_line(text);
    if width(&safe) <= max {
        return safe.into_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in safe.chars() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > max.saturating_sub(1) {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// Columns a string takes on a terminal (wide characters take two).
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` followed by spaces up to `columns` terminal columns.
pub fn pad(text: &str, columns: usize) -> String {
    let fill = columns.saturating_sub(width(text));
    format!("{text}{}", " ".repeat(fill))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_cut_by_terminal_columns() {
        assert_eq!(cell("short", 10), "short");
        assert_eq!(cell("abcdefghij", 5), "abcd…");
        // Wide characters take two columns each.
        assert_eq!(cell("日本語のテキスト", 7), "日本語…");
        assert_eq!(width(&cell("日本語のテキスト", 7)), 7);
        assert_eq!(cell("a\nb\tc", 10), "a b c");
        assert_eq!(pad("日本", 6), "日本  ");
    }
}
