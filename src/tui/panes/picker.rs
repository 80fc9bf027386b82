//! The collection picker's overlay (HCP.md §13.1; state and keys in
//! `tui::picker`): the filter and `N of M shown, K marked`, one row per
//! shown pack — mark box, id (the filter's characters highlighted), kind,
//! path, description, `✗ lint` for one that does not lint (greyed, it
//! cannot be marked) — then the highlighted pack in full and the keys. When
//! the overlay is narrow the description goes first, then the path, then
//! the kind; ids are cut last. `?` shows the picker's key table instead.

use crate::tui::app::App;
use crate::tui::picker::{KEYS, Picker, PickerItem};
use crate::tui::text;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The kind column's width (`skill`).
const KIND_W: usize = 5;
/// The `✗ lint` column's width.
const LINT_W: usize = 6;
/// `▶ [x] ` before the id.
const LEAD_W: usize = 6;

/// The title of the overlay.
pub fn title(picker: &Picker) -> String {
    format!("Install from {}", picker.shown_source())
}

/// The overlay's lines, at most `room` of them, `width` wide.
pub fn lines<'a>(app: &App, picker: &Picker, width: usize, room: usize) -> Vec<Line<'a>> {
    if picker.showing_help() {
        return help(app, width);
    }
    let theme = app.theme();
    let mut out = head(app, picker, width);
    let cols = columns(picker, width);
    let header = format!(
        "{}{}{}",
        " ".repeat(LEAD_W),
        text::fit("ID", cols.id),
        tail_text(&cols, "KIND", "PATH", "DESCRIPTION")
    );
    out.push(Line::styled(text::truncate(&header, width), theme.dim()));
    // Under the list: a blank line, the highlighted pack, the keys.
    let rows = room.saturating_sub(out.len() + 3).max(1);
    let selected = picker.selected();
    let first = (selected + 1).saturating_sub(rows);
    let shown: Vec<Line<'a>> = picker
        .rows()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(n, (item, marked))| row(app, picker, item, marked, n == selected, &cols))
        .collect();
    if shown.is_empty() {
        out.push(Line::styled("  no pack id matches the filter", theme.dim()));
    }
    out.extend(shown);
    out.push(Line::raw(""));
    if let Some(item) = picker.highlighted() {
        out.push(about(app, item, width));
    }
    out.push(keys_line(app, width));
    out
}

/// The filter as typed, and the counts (on their own line when both do
/// not fit on one).
fn head<'a>(app: &App, picker: &Picker, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let counts = format!(
        "{} of {} shown, {} marked",
        picker.shown_count(),
        picker.items().len(),
        picker.marked_count()
    );
    let filter = format!("filter: {}▏", text::safe(picker.query()));
    let gap = width.saturating_sub(text::width(&filter) + text::width(&counts));
    if gap >= 2 {
        return vec![Line::from(vec![
            Span::styled(filter, theme.bold()),
            Span::raw(" ".repeat(gap)),
            Span::styled(counts, theme.dim()),
        ])];
    }
    vec![
        Line::styled(text::truncate(&filter, width), theme.bold()),
        Line::styled(text::truncate(&counts, width), theme.dim()),
    ]
}

/// The widths of the id, kind, path and description columns (0: not
/// shown), and whether the `✗ lint` column is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    id: usize,
    kind: usize,
    path: usize,
    description: usize,
    lint: bool,
}

/// The description goes first, then the path, then the kind: ids are cut
/// last. Widths are measured over every item, so they stay put while
/// filtering.
fn columns(picker: &Picker, width: usize) -> Columns {
    let items = picker.items();
    let widest = |f: fn(&PickerItem) -> &str| items.iter().map(|i| text::width(f(i))).max();
    let id_w = widest(|i| &i.id).unwrap_or(2).max(2);
    let path_w = widest(|i| &i.path).unwrap_or(4).max(4);
    let lint = items.iter().any(|i| !i.lint_ok);
    let avail = width.saturating_sub(LEAD_W + if lint { LINT_W + 2 } else { 0 });
    let with_kind = id_w + 2 + KIND_W;
    let (id, kind, path, description) = if avail >= with_kind + 2 + path_w {
        let rest = avail - with_kind - 2 - path_w;
        let description = if rest >= 8 { rest - 2 } else { 0 };
        (id_w, KIND_W, path_w, description)
    } else if avail >= with_kind + 2 + 6 {
        (id_w, KIND_W, avail - with_kind - 2, 0)
    } else if avail >= with_kind {
        (id_w, KIND_W, 0, 0)
    } else {
        (id_w.min(avail.max(1)), 0, 0, 0)
    };
    Columns {
        id,
        kind,
        path,
        description,
        lint,
    }
}

/// The cells after the id (kind, path, description), laid out to `cols`,
/// each after two spaces.
fn tail_text(cols: &Columns, kind: &str, path: &str, description: &str) -> String {
    let mut line = String::new();
    for (w, cell) in [
        (cols.kind, kind),
        (cols.path, path),
        (cols.description, description),
    ] {
        if w > 0 {
            line.push_str("  ");
            line.push_str(&text::fit(cell, w));
        }
    }
    line
}

/// One pack's row; greyed when it does not lint.
fn row<'a>(
    app: &App,
    picker: &Picker,
    item: &PickerItem,
    marked: bool,
    selected: bool,
    cols: &Columns,
) -> Line<'a> {
    let theme = app.theme();
    let mut base = if item.lint_ok {
        Style::new()
    } else {
        theme.dim()
    };
    if selected {
        base = base.patch(theme.selected());
    }
    let boxed = match (item.lint_ok, marked) {
        (false, _) => "[-] ",
        (true, true) => "[x] ",
        (true, false) => "[ ] ",
    };
    let lead = if selected { "▶ " } else { "  " };
    let mut spans = vec![
        Span::styled(lead, base.patch(theme.key())),
        Span::styled(boxed, base.patch(if marked { theme.good() } else { base })),
    ];
    spans.extend(id_spans(app, picker, &item.id, cols.id, base));
    let tail = tail_text(
        cols,
        item.kind.as_str(),
        &item.path,
        text::first_line(&item.description),
    );
    spans.push(Span::styled(tail, base));
    if cols.lint {
        let (cell, style) = match item.lint_ok {
            true => (" ".repeat(LINT_W), base),
            false => ("✗ lint".to_string(), base.patch(theme.bad())),
        };
        spans.push(Span::styled("  ", base));
        spans.push(Span::styled(cell, style));
    }
    Line::from(spans)
}

/// The id cut to `w` columns, the characters the filter matched in the
/// match style.
fn id_spans<'a>(app: &App, picker: &Picker, id: &str, w: usize, base: Style) -> Vec<Span<'a>> {
    let shown = text::fit(id, w);
    let matched = picker.matched_indices(id);
    let hl = base.patch(app.theme().matched());
    let mut spans: Vec<Span<'a>> = Vec::new();
    let mut run = String::new();
    let mut run_hl = false;
    for (i, c) in shown.chars().enumerate() {
        let is_hl = matched.contains(&i) && i < id.chars().count();
        if is_hl != run_hl && !run.is_empty() {
            let style = if run_hl { hl } else { base };
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
        run_hl = is_hl;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, if run_hl { hl } else { base }));
    }
    spans
}

/// The highlighted pack in full: its path and description, or why it
/// cannot be chosen.
fn about<'a>(app: &App, item: &PickerItem, width: usize) -> Line<'a> {
    let theme = app.theme();
    if !item.lint_ok {
        let why = format!(
            "✗ {} does not lint: hcpx lint {} says why",
            item.id, item.path
        );
        return Line::styled(text::truncate(&why, width), theme.bad());
    }
    let about = format!("{}: {}", item.path, text::first_line(&item.description));
    Line::styled(text::truncate(&about, width), theme.hint())
}

/// The keys that act, from the picker's table, as far as they fit.
fn keys_line<'a>(app: &App, width: usize) -> Line<'a> {
    let theme = app.theme();
    let mut spans = Vec::new();
    let mut used = 0;
    for b in KEYS.iter().filter(|b| b.bar.is_some() && b.shown != "type") {
        let word = b.bar.unwrap_or_default();
        let w = text::width(b.shown) + 1 + text::width(word) + 2;
        if used + w > width {
            break;
        }
        spans.push(Span::styled(b.shown, theme.key()));
        spans.push(Span::raw(format!(" {word}  ")));
        used += w;
    }
    Line::from(spans)
}

/// `?`: the picker's keys, from its table.
fn help<'a>(app: &App, width: usize) -> Vec<Line<'a>> {
    let theme = app.theme();
    let key_w = KEYS.iter().map(|b| text::width(b.shown)).max().unwrap_or(4) + 2;
    let mut out: Vec<Line<'a>> = KEYS
        .iter()
        .map(|b| {
            Line::from(vec![
                Span::styled(text::fit(b.shown, key_w), theme.key()),
                Span::raw(text::truncate(b.help, width.saturating_sub(key_w))),
            ])
        })
        .collect();
    out.push(Line::raw(""));
    out.push(Line::styled("any key goes back to the list", theme.dim()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::picker::ItemKind;

    fn picker(id: &str, path: &str, lint_ok: bool) -> Picker {
        let item = PickerItem {
            id: id.into(),
            kind: ItemKind::Skill,
            path: path.into(),
            description: "d".into(),
            lint_ok,
        };
        Picker::new("./c".into(), vec![item])
    }

    #[test]
    fn the_description_goes_first_then_the_path_then_the_kind_and_ids_are_cut_last() {
        let p = picker("pdf-tools", "skills/pdf-tools", true);
        let wide = columns(&p, 80);
        assert_eq!((wide.id, wide.kind, wide.path), (9, 5, 16));
        assert!(wide.description > 0);
        let no_desc = columns(&p, 6 + 9 + 2 + 5 + 2 + 16 + 4);
        assert_eq!((no_desc.path, no_desc.description), (16, 0));
        let short_path = columns(&p, 6 + 9 + 2 + 5 + 2 + 8);
        assert_eq!((short_path.path, short_path.description), (8, 0));
        let id_only = columns(&p, 6 + 9 + 2);
        assert_eq!((id_only.id, id_only.kind, id_only.path), (9, 0, 0));
        assert_eq!(columns(&p, 10).id, 4);
    }

    #[test]
    fn the_lint_column_is_kept_when_a_pack_does_not_lint() {
        let p = picker("pdf-tools", "skills/pdf-tools", false);
        let cols = columns(&p, 60);
        assert!(cols.lint);
        let line = format!(
            "{}{}",
            text::fit("a", cols.id),
            tail_text(&cols, "skill", "p", "d")
        );
        assert!(text::width(&line) + 2 + LINT_W <= 60 - LEAD_W, "{line}");
    }
}
