//! The collection picker: a modal multi-select over the packs of a
//! *collection* (HCP.md §13.1: a source that is not itself a pack, whose
//! packs — manifests and Skill packs, §2.6 — are every folder below it),
//! the TUI's counterpart of the CLI's interactive multi-select. It owns its
//! state (the items, the fuzzy filter, the marks, the highlighted row), its
//! keys ([`KEYS`], which the key bar and the picker's `?` page read) and
//! what a key does to it ([`Picker::press`]), and its drawing: the filter
//! and `N of M shown, K marked`, one row per shown pack — mark box, id (the
//! filter's characters highlighted), kind, path, description, `✗ lint` for
//! one that does not lint (greyed, it cannot be marked) — then the
//! highlighted pack in full and the keys. When the overlay is narrow the
//! description goes first, then the path, then the kind; ids are cut last.
//! `?` shows the picker's key table instead.
//!
//! The picker decides nothing about packs: the items, and whether each
//! lints, come from the engine's listing of the collection. What it hands
//! back is the ids chosen; installing them is the app's
//! (`Action::InstallChosen`).

use crate::engine::store::source::redact_url;
use crate::tui::config::Config;
use crate::tui::keys::Key;
use crate::tui::text;
use crossterm::event::KeyCode;
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// What a collection's entry is (§2.6): a pack with a manifest, or a
/// Skill pack (a `SKILL.md` and no manifest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    Pack,
    Skill,
}

impl ItemKind {
    /// The word of the JSON documents (`"kind": "pack"|"skill"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Pack => "pack",
            ItemKind::Skill => "skill",
        }
    }
}

/// One pack of a collection, as `hcpx install SOURCE --list` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerItem {
    pub id: String,
    pub kind: ItemKind,
    /// Its folder, relative to the collection (`.` for the source itself).
    pub path: String,
    pub description: String,
    /// Whether it lints; one that does not cannot be chosen.
    pub lint_ok: bool,
}

/// A key of the picker, as the app is told it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerKey {
    /// A character of the filter.
    Char(char),
    Backspace,
    /// `Ctrl-U`: clear the filter.
    ClearFilter,
    /// Move the highlight by this many rows.
    Move(isize),
    /// `Space`: mark or unmark the highlighted item.
    Mark,
    /// `Ctrl-A`: mark every shown item that lints (again: unmark them).
    MarkAll,
    /// `Enter`: the marked items, or the highlighted one.
    Confirm,
    /// `Esc`: close, choosing nothing.
    Cancel,
    /// `?`: the picker's keys (any key goes back).
    Help,
}

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pressed {
    /// The picker stays open.
    Stay,
    /// The key cannot act now: why, in words (the picker stays open).
    Refused(String),
    /// These ids were chosen; the picker closes.
    Chosen(Vec<String>),
    /// Closed, nothing chosen.
    Cancelled,
}

/// A line of the picker's key table: how it is written, the key bar's
/// word (`None`: the `?` page only), the `?` page's line.
#[derive(Debug, Clone, Copy)]
pub struct PickerBinding {
    pub shown: &'static str,
    pub bar: Option<&'static str>,
    pub help: &'static str,
}

const fn bind(shown: &'static str, bar: Option<&'static str>, help: &'static str) -> PickerBinding {
    PickerBinding { shown, bar, help }
}

/// The picker's keys, for the key bar (in this order) and its `?` page.
/// [`key_for`] is the same table read the other way.
pub const KEYS: &[PickerBinding] = &[
    bind("type", Some("filter"), "fuzzy filter of the ids"),
    bind("␣", Some("mark"), "mark or unmark (if it lints)"),
    bind(
        "^A",
        Some("all"),
        "mark every shown pack that lints; again: unmark",
    ),
    bind(
        "⏎",
        Some("install"),
        "install the marked, else the highlighted",
    ),
    bind("Esc", Some("cancel"), "close, installing nothing"),
    bind("↑↓ ^P ^N", Some("move"), "move the highlight"),
    bind("PgUp PgDn", None, "a page up / down"),
    bind("Bksp ^U", None, "edit / clear the filter"),
    bind("?", Some("keys"), "these keys"),
];

/// How many rows `PgUp`/`PgDn` move.
const PAGE: isize = 10;

/// What a key means in the picker (it takes every key while open).
pub fn key_for(key: &Key) -> Option<PickerKey> {
    let ctrl = |c| key.ctrl && !key.alt && key.code == KeyCode::Char(c);
    if ctrl('a') {
        return Some(PickerKey::MarkAll);
    }
    if ctrl('n') {
        return Some(PickerKey::Move(1));
    }
    if ctrl('p') {
        return Some(PickerKey::Move(-1));
    }
    if ctrl('u') {
        return Some(PickerKey::ClearFilter);
    }
    if key.ctrl || key.alt {
        return None;
    }
    Some(match key.code {
        KeyCode::Esc => PickerKey::Cancel,
        KeyCode::Enter => PickerKey::Confirm,
        KeyCode::Backspace => PickerKey::Backspace,
        KeyCode::Down => PickerKey::Move(1),
        KeyCode::Up => PickerKey::Move(-1),
        KeyCode::PageDown => PickerKey::Move(PAGE),
        KeyCode::PageUp => PickerKey::Move(-PAGE),
        KeyCode::Char(' ') => PickerKey::Mark,
        // No pack id has a `?` (§3.2): it is free for the keys page.
        KeyCode::Char('?') => PickerKey::Help,
        KeyCode::Char(c) => PickerKey::Char(c),
        _ => return None,
    })
}

/// The key bar while the picker is open.
pub fn bar() -> Vec<(&'static str, &'static str)> {
    KEYS.iter()
        .filter_map(|b| b.bar.map(|word| (b.shown, word)))
        .collect()
}

/// The picker's state.
#[derive(Debug, Clone)]
pub struct Picker {
    /// The source as given (it may hold a URL's credentials: never drawn).
    source: String,
    items: Vec<PickerItem>,
    query: String,
    /// Indexes into `items` the filter keeps, best match first.
    visible: Vec<usize>,
    /// The highlighted row, an index into `visible`.
    selected: usize,
    /// Indexes into `items`; kept while the filter hides them.
    marked: BTreeSet<usize>,
    /// The `?` page is shown instead of the list.
    help: bool,
}

impl Picker {
    /// A picker over `items` of `source`, in the listing's order.
    pub fn new(source: String, items: Vec<PickerItem>) -> Picker {
        let visible = (0..items.len()).collect();
        Picker {
            source,
            items,
            query: String::new(),
            visible,
            selected: 0,
            marked: BTreeSet::new(),
            help: false,
        }
    }

    /// The source as given, for the install.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The source as the screen may show it: no password, terminal-safe.
    pub fn shown_source(&self) -> String {
        shown_source(&self.source)
    }

    pub fn items(&self) -> &[PickerItem] {
        &self.items
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    /// The items the filter shows, best match first.
    pub fn shown(&self) -> impl Iterator<Item = &PickerItem> {
        self.visible.iter().map(|&i| &self.items[i])
    }

    /// How many items the filter shows.
    pub fn shown_count(&self) -> usize {
        self.visible.len()
    }

    /// The highlighted row (an index into [`Picker::shown`]).
    pub fn selected(&self) -> usize {
        self.selected
    }

    pub fn highlighted(&self) -> Option<&PickerItem> {
        self.visible.get(self.selected).map(|&i| &self.items[i])
    }

    /// The shown items, each with whether it is marked.
    pub fn rows(&self) -> impl Iterator<Item = (&PickerItem, bool)> {
        self.visible
            .iter()
            .map(|&i| (&self.items[i], self.marked.contains(&i)))
    }

    pub fn marked_count(&self) -> usize {
        self.marked.len()
    }

    /// Whether the `?` page is shown.
    pub fn showing_help(&self) -> bool {
        self.help
    }

    /// The character positions of `id` the filter matched.
    pub fn matched_indices(&self, id: &str) -> Vec<usize> {
        if self.query.is_empty() {
            return Vec::new();
        }
        SkimMatcherV2::default()
            .fuzzy_indices(id, &self.query)
            .map(|(_, idx)| idx)
            .unwrap_or_default()
    }

    /// What `key` does.
    pub fn press(&mut self, key: PickerKey) -> Pressed {
        if std::mem::take(&mut self.help) {
            // Any key leaves the keys page, and does nothing else.
            return Pressed::Stay;
        }
        match key {
            PickerKey::Char(c) => self.set_query(format!("{}{c}", self.query)),
            PickerKey::Backspace => {
                let mut query = self.query.clone();
                query.pop();
                self.set_query(query);
            }
            PickerKey::ClearFilter => self.set_query(String::new()),
            PickerKey::Move(delta) => self.move_by(delta),
            PickerKey::Mark => return self.mark(),
            PickerKey::MarkAll => return self.mark_all(),
            PickerKey::Confirm => return self.confirm(),
            PickerKey::Cancel => return Pressed::Cancelled,
            PickerKey::Help => self.help = true,
        }
        Pressed::Stay
    }

    fn set_query(&mut self, query: String) {
        self.query = query;
        self.visible = if self.query.is_empty() {
            (0..self.items.len()).collect()
        } else {
            let matcher = SkimMatcherV2::default();
            let mut scored: Vec<(i64, usize)> = (0..self.items.len())
                .filter_map(|i| {
                    matcher
                        .fuzzy_match(&self.items[i].id, &self.query)
                        .map(|score| (score, i))
                })
                .collect();
            // Best first; ties keep the listing's order.
            scored.sort_by_key(|&(score, i)| (Reverse(score), i));
            scored.into_iter().map(|(_, i)| i).collect()
        };
        self.selected = 0;
    }

    fn move_by(&mut self, delta: isize) {
        let last = self.visible.len().saturating_sub(1) as isize;
        self.selected = (self.selected as isize)
            .saturating_add(delta)
            .clamp(0, last) as usize;
    }

    fn mark(&mut self) -> Pressed {
        let Some(&i) = self.visible.get(self.selected) else {
            return Pressed::Refused(self.nothing_shown());
        };
        if !self.items[i].lint_ok {
            return Pressed::Refused(unlintable(&self.items[i]));
        }
        if !self.marked.remove(&i) {
            self.marked.insert(i);
        }
        // Marking moves on, as in a list of checkboxes.
        self.move_by(1);
        Pressed::Stay
    }

    fn mark_all(&mut self) -> Pressed {
        let lintable: Vec<usize> = self
            .visible
            .iter()
            .copied()
            .filter(|&i| self.items[i].lint_ok)
            .collect();
        if lintable.is_empty() {
            return Pressed::Refused(if self.visible.is_empty() {
                self.nothing_shown()
            } else {
                "no pack shown lints: none can be marked (their Lint says why)".into()
            });
        }
        if lintable.iter().all(|i| self.marked.contains(i)) {
            for i in &lintable {
                self.marked.remove(i);
            }
        } else {
            self.marked.extend(lintable);
        }
        Pressed::Stay
    }

    /// The marked ids in the listing's order, else the highlighted one.
    fn confirm(&mut self) -> Pressed {
        if !self.marked.is_empty() {
            let ids = self.marked.iter().map(|&i| self.items[i].id.clone());
            return Pressed::Chosen(ids.collect());
        }
        match self.highlighted() {
            None => Pressed::Refused(self.nothing_shown()),
            Some(item) if !item.lint_ok => Pressed::Refused(unlintable(item)),
            Some(item) => Pressed::Chosen(vec![item.id.clone()]),
        }
    }

    fn nothing_shown(&self) -> String {
        match self.items.is_empty() {
            true => "the collection holds no pack".into(),
            false => format!(
                "no pack id matches {}; Backspace edits the filter",
                text::safe(&self.query)
            ),
        }
    }
}

/// Why `item` cannot be marked.
fn unlintable(item: &PickerItem) -> String {
    format!(
        "{} does not lint, so it cannot be installed; hcpx lint {} says why",
        text::one_line(&item.id),
        text::one_line(&item.path)
    )
}

/// `source` as the screen and the log may show it: a URL's password (over
/// `http(s)`, its whole userinfo) removed, terminal-safe (§14.3, §14.5).
pub fn shown_source(source: &str) -> String {
    let redacted = match source.strip_prefix("git+") {
        Some(rest) => format!("git+{}", redact_url(rest)),
        None if source.contains("://") => redact_url(source),
        None => source.to_string(),
    };
    text::one_line(&redacted)
}

// Drawing.

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
pub fn lines<'a>(config: &Config, picker: &Picker, width: usize, room: usize) -> Vec<Line<'a>> {
    if picker.showing_help() {
        return help(config, width);
    }
    let theme = config.theme;
    let mut out = head(config, picker, width);
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
        .map(|(n, (item, marked))| row(config, picker, item, marked, n == selected, &cols))
        .collect();
    if shown.is_empty() {
        out.push(Line::styled("  no pack id matches the filter", theme.dim()));
    }
    out.extend(shown);
    out.push(Line::raw(""));
    if let Some(item) = picker.highlighted() {
        out.push(about(config, item, width));
    }
    out.push(keys_line(config, width));
    out
}

/// The filter as typed, and the counts (on their own line when both do
/// not fit on one).
fn head<'a>(config: &Config, picker: &Picker, width: usize) -> Vec<Line<'a>> {
    let theme = config.theme;
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
    config: &Config,
    picker: &Picker,
    item: &PickerItem,
    marked: bool,
    selected: bool,
    cols: &Columns,
) -> Line<'a> {
    let theme = config.theme;
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
    spans.extend(id_spans(config, picker, &item.id, cols.id, base));
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
fn id_spans<'a>(
    config: &Config,
    picker: &Picker,
    id: &str,
    w: usize,
    base: Style,
) -> Vec<Span<'a>> {
    let shown = text::fit(id, w);
    let matched = picker.matched_indices(id);
    let hl = base.patch(config.theme.matched());
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
fn about<'a>(config: &Config, item: &PickerItem, width: usize) -> Line<'a> {
    let theme = config.theme;
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
fn keys_line<'a>(config: &Config, width: usize) -> Line<'a> {
    let theme = config.theme;
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
fn help<'a>(config: &Config, width: usize) -> Vec<Line<'a>> {
    let theme = config.theme;
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

    fn item(id: &str, lint_ok: bool) -> PickerItem {
        PickerItem {
            id: id.into(),
            kind: ItemKind::Skill,
            path: format!("skills/{id}"),
            description: format!("about {id}"),
            lint_ok,
        }
    }

    fn picker() -> Picker {
        Picker::new(
            "./skills-repo".into(),
            vec![
                item("pdf-tools", true),
                item("docx", true),
                item("broken-one", false),
                item("pptx", true),
            ],
        )
    }

    fn typed(p: &mut Picker, s: &str) {
        for c in s.chars() {
            assert_eq!(p.press(PickerKey::Char(c)), Pressed::Stay);
        }
    }

    fn shown_ids(p: &Picker) -> Vec<&str> {
        p.shown().map(|i| i.id.as_str()).collect()
    }

    #[test]
    fn typing_filters_fuzzily_and_backspace_widens_again() {
        let mut p = picker();
        typed(&mut p, "ptx");
        assert_eq!(shown_ids(&p), ["pptx"]);
        assert_eq!(p.matched_indices("pptx").len(), 3);
        p.press(PickerKey::Backspace);
        p.press(PickerKey::Backspace);
        assert_eq!(shown_ids(&p), ["pdf-tools", "pptx"]);
        p.press(PickerKey::ClearFilter);
        assert_eq!(p.shown_count(), 4);
        assert!(p.matched_indices("pptx").is_empty());
    }

    #[test]
    fn space_marks_and_unmarks_and_moves_on() {
        let mut p = picker();
        assert_eq!(p.press(PickerKey::Mark), Pressed::Stay);
        assert_eq!(p.marked_count(), 1);
        assert_eq!(p.highlighted().map(|i| i.id.as_str()), Some("docx"));
        p.press(PickerKey::Move(-1));
        p.press(PickerKey::Mark);
        assert_eq!(p.marked_count(), 0);
    }

    #[test]
    fn a_pack_that_does_not_lint_cannot_be_marked_and_space_says_why() {
        let mut p = picker();
        p.press(PickerKey::Move(2));
        let Pressed::Refused(why) = p.press(PickerKey::Mark) else {
            panic!("marked a broken pack");
        };
        assert!(why.contains("broken-one does not lint"), "{why}");
        assert!(why.contains("hcpx lint skills/broken-one"), "{why}");
        assert_eq!(p.marked_count(), 0);
        // Enter on it, nothing marked, is refused the same way.
        assert!(matches!(p.press(PickerKey::Confirm), Pressed::Refused(_)));
    }

    #[test]
    fn ctrl_a_marks_every_shown_pack_that_lints_and_again_unmarks_them() {
        let mut p = picker();
        typed(&mut p, "p");
        assert_eq!(shown_ids(&p).len(), 2);
        p.press(PickerKey::MarkAll);
        assert_eq!(p.marked_count(), 2);
        p.press(PickerKey::ClearFilter);
        p.press(PickerKey::MarkAll);
        assert_eq!(p.marked_count(), 3, "the broken one stays unmarked");
        p.press(PickerKey::MarkAll);
        assert_eq!(p.marked_count(), 0);
    }

    #[test]
    fn enter_chooses_the_marked_in_listing_order_even_those_filtered_out() {
        let mut p = picker();
        p.press(PickerKey::Move(3));
        p.press(PickerKey::Mark);
        typed(&mut p, "pdf");
        p.press(PickerKey::Mark);
        assert_eq!(
            p.press(PickerKey::Confirm),
            Pressed::Chosen(vec!["pdf-tools".into(), "pptx".into()])
        );
    }

    #[test]
    fn enter_with_none_marked_chooses_the_highlighted_one() {
        let mut p = picker();
        p.press(PickerKey::Move(1));
        assert_eq!(
            p.press(PickerKey::Confirm),
            Pressed::Chosen(vec!["docx".into()])
        );
        let mut p = picker();
        typed(&mut p, "zzz");
        assert!(matches!(p.press(PickerKey::Confirm), Pressed::Refused(_)));
    }

    #[test]
    fn esc_cancels_and_the_help_page_takes_one_key() {
        let mut p = picker();
        assert_eq!(p.press(PickerKey::Help), Pressed::Stay);
        assert!(p.showing_help());
        assert_eq!(p.press(PickerKey::Cancel), Pressed::Stay);
        assert!(!p.showing_help());
        assert_eq!(p.press(PickerKey::Cancel), Pressed::Cancelled);
    }

    #[test]
    fn the_highlight_stays_in_the_list() {
        let mut p = picker();
        p.press(PickerKey::Move(-3));
        assert_eq!(p.selected(), 0);
        p.press(PickerKey::Move(99));
        assert_eq!(p.selected(), 3);
    }

    #[test]
    fn keys_map_to_the_picker_and_modified_letters_never_filter() {
        let plain = |code| Key {
            code,
            ctrl: false,
            alt: false,
        };
        let ctrl = |c| Key {
            code: KeyCode::Char(c),
            ctrl: true,
            alt: false,
        };
        assert_eq!(key_for(&ctrl('a')), Some(PickerKey::MarkAll));
        assert_eq!(key_for(&ctrl('n')), Some(PickerKey::Move(1)));
        assert_eq!(key_for(&ctrl('p')), Some(PickerKey::Move(-1)));
        assert_eq!(key_for(&ctrl('x')), None);
        assert_eq!(
            key_for(&plain(KeyCode::Char('j'))),
            Some(PickerKey::Char('j'))
        );
        assert_eq!(key_for(&plain(KeyCode::Char(' '))), Some(PickerKey::Mark));
        let alt = Key {
            code: KeyCode::Char('a'),
            ctrl: false,
            alt: true,
        };
        assert_eq!(key_for(&alt), None);
    }

    #[test]
    fn a_sources_password_never_shows() {
        let s = shown_source("git+https://ann:hunter2@example.com/r.git");
        assert!(!s.contains("hunter2") && !s.contains("ann"), "{s}");
        let s = shown_source("https://tok3n@github.com/o/r");
        assert!(!s.contains("tok3n"), "{s}");
        assert_eq!(shown_source("./a\u{1b}[2Jb"), "./a\u{fffd}[2Jb");
    }
}

#[cfg(test)]
mod drawing_tests {
    use super::*;

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
