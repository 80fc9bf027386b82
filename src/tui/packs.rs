//! The pack list behind the browser (HCP.md §11.2 statuses): every pack's
//! row, the sort, the fuzzy filter, the selection, the scroll offset and the
//! marks. It owns that state; the app tells it how many rows are in view.
//! A row is known by its [`RowKey`]: inside a project a user pack the
//! project shadows has a row of its own, with the same id (HCP.md §15.5).

use crate::tui::job::{Field, Row, RowKey};
use crate::tui::text;
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// The browser's order (key `s` cycles it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Id,
    Status,
    Version,
}

impl SortKey {
    pub fn next(self) -> SortKey {
        match self {
            SortKey::Id => SortKey::Status,
            SortKey::Status => SortKey::Version,
            SortKey::Version => SortKey::Id,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SortKey::Id => "id",
            SortKey::Status => "status",
            SortKey::Version => "version",
        }
    }
}

/// The fuzzy filter of the browser.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub query: String,
    /// Whether keys go to the query.
    pub editing: bool,
    /// The query `visible` was last ranked for.
    pub(crate) ranked_for: String,
}

/// The browser's packs and where it is in them.
pub struct PackList {
    matcher: SkimMatcherV2,
    /// Every pack, sorted by key (by id, as the engine's snapshot lists
    /// them; a shadowed user pack after the project's of its id).
    pub entries: Vec<Row>,
    pub sort: SortKey,
    /// Entry indices in sort order.
    order: Vec<usize>,
    /// Each entry's position in `order`.
    rank: Vec<u32>,
    /// Entry indices shown by the browser (filtered and ranked).
    pub visible: Vec<usize>,
    /// The field the filter matched, by entry index (while it filters).
    fields: Vec<Option<Field>>,
    pub filter: Filter,
    /// Index into `visible`.
    pub selected: usize,
    /// First visible row of the browser.
    pub offset: usize,
    pub marked: BTreeSet<RowKey>,
    /// The widest id and version of every pack, in columns: the browser's
    /// columns stay put while it scrolls.
    pub widest: (usize, usize),
    /// How many rows the browser shows (the app keeps it current).
    pub rows: usize,
}

impl Default for PackList {
    fn default() -> Self {
        PackList {
            matcher: SkimMatcherV2::default(),
            entries: Vec::new(),
            sort: SortKey::Id,
            order: Vec::new(),
            rank: Vec::new(),
            visible: Vec::new(),
            fields: Vec::new(),
            filter: Filter::default(),
            selected: 0,
            offset: 0,
            marked: BTreeSet::new(),
            widest: (0, 0),
            rows: 1,
        }
    }
}

impl PackList {
    /// The row under the cursor.
    pub fn selected_row(&self) -> Option<&Row> {
        self.visible
            .get(self.selected)
            .and_then(|&i| self.entries.get(i))
    }

    /// The packs an action applies to: the marked ones, else the selected.
    pub fn targets(&self) -> Vec<&Row> {
        if self.marked.is_empty() {
            return self.selected_row().into_iter().collect();
        }
        self.entries
            .iter()
            .filter(|e| self.marked.contains(&e.key()))
            .collect()
    }

    /// Whether `row` is marked.
    pub fn is_marked(&self, row: &Row) -> bool {
        !self.marked.is_empty() && self.marked.contains(&row.key())
    }

    /// Takes a new list of packs, keeping the selection and the marks of
    /// those still there.
    pub fn set_entries(&mut self, entries: Vec<Row>) {
        let keep = self.selected_row().map(Row::key);
        self.entries = entries;
        let known: BTreeSet<RowKey> = self.entries.iter().map(Row::key).collect();
        self.marked.retain(|key| known.contains(key));
        self.reorder(keep.as_ref());
    }

    /// Sorts and filters again, keeping `keep` selected.
    pub fn reorder(&mut self, keep: Option<&RowKey>) {
        self.resort();
        self.filter.ranked_for.clear();
        self.refilter();
        self.select_key(keep);
    }

    /// The index of the row of `key` in `entries`.
    fn index_of(&self, key: &RowKey) -> Option<usize> {
        self.entries
            .binary_search_by(|r| (r.id(), r.shadowed).cmp(&(&*key.0, key.1)))
            .ok()
    }

    /// Replaces one pack's row (read again).
    pub fn replace(&mut self, row: Row) {
        if let Some(i) = self.index_of(&row.key()) {
            self.entries[i] = row;
            self.measure();
        }
    }

    /// Drops the rows of packs that are gone.
    pub fn remove(&mut self, gone: &[RowKey]) {
        let keep = self.selected_row().map(Row::key);
        self.entries.retain(|r| !gone.iter().any(|key| r.is(key)));
        self.marked.retain(|key| !gone.contains(key));
        self.reorder(keep.as_ref());
    }

    /// `Space`: marks or unmarks the selected pack, then moves down.
    pub fn toggle_mark(&mut self) -> bool {
        let Some(key) = self.selected_row().map(Row::key) else {
            return false;
        };
        if !self.marked.remove(&key) {
            self.marked.insert(key);
        }
        self.move_by(1);
        true
    }

    /// `s`: the next sort order, keeping the selection.
    pub fn cycle_sort(&mut self) {
        self.sort = self.sort.next();
        let keep = self.selected_row().map(Row::key);
        self.reorder(keep.as_ref());
    }

    pub fn move_by(&mut self, delta: isize) {
        let len = self.visible.len();
        self.selected = if len == 0 {
            0
        } else {
            (self.selected as isize)
                .saturating_add(delta)
                .clamp(0, len as isize - 1) as usize
        };
        self.ensure_visible();
    }

    /// Measures the widest id and version (see [`PackList::widest`]).
    pub fn measure(&mut self) {
        let id = self.entries.iter().map(|r| text::width(r.id())).max();
        let version = self
            .entries
            .iter()
            .map(|r| text::width(r.version.as_deref().unwrap_or("-")));
        self.widest = (id.unwrap_or(2), version.max().unwrap_or(1));
    }

    pub fn resort(&mut self) {
        self.measure();
        let entries = &self.entries;
        let mut order: Vec<usize> = (0..entries.len()).collect();
        match self.sort {
            SortKey::Id => {}
            SortKey::Status => order.sort_by_key(|&i| {
                // Unavailable (needs attention) first, then the highest stage.
                let s = entries[i].status;
                let rank = match s {
                    crate::engine::policy::availability::Status::Unavailable => 0,
                    other => 6 - other as u8,
                };
                (rank, i)
            }),
            SortKey::Version => {
                let versions: Vec<Option<semver::Version>> = entries
                    .iter()
                    .map(|r| {
                        r.version
                            .as_deref()
                            .and_then(|v| semver::Version::parse(v).ok())
                    })
                    .collect();
                // Newest first; versions that do not parse last.
                order.sort_by(|&a, &b| match (&versions[a], &versions[b]) {
                    (Some(x), Some(y)) => y.cmp(x).then(a.cmp(&b)),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => a.cmp(&b),
                });
            }
        }
        let mut rank = vec![0u32; order.len()];
        for (pos, &i) in order.iter().enumerate() {
            rank[i] = pos as u32;
        }
        self.order = order;
        self.rank = rank;
    }

    pub fn set_query(&mut self, query: String) {
        self.filter.query = query;
        self.refilter();
        self.selected = 0;
        self.offset = 0;
    }

    /// Ranks the packs against the query: a fuzzy match of the id first
    /// (by score), then the name, the description, the commands and the
    /// Skill holding the query's words (ties keep the sort order). A query
    /// that extends the last one only searches its matches.
    pub fn refilter(&mut self) {
        let query = self.filter.query.clone();
        self.fields = vec![None; self.entries.len()];
        if query.is_empty() {
            self.visible = self.order.clone();
            self.filter.ranked_for.clear();
        } else {
            let narrowing =
                !self.filter.ranked_for.is_empty() && query.starts_with(&self.filter.ranked_for);
            let candidates = if narrowing {
                std::mem::take(&mut self.visible)
            } else {
                self.order.clone()
            };
            let needle = query.trim().to_lowercase();
            let mut scored: Vec<(Field, i64, u32, usize)> = candidates
                .into_iter()
                .filter_map(|i| {
                    let row = &self.entries[i];
                    let (field, score) = match self.matcher.fuzzy_match(row.id(), &query) {
                        Some(score) => (Field::Id, score),
                        None if needle.is_empty() => return None,
                        None => (row.haystack.find(&needle)?, 0),
                    };
                    Some((field, score, self.rank[i], i))
                })
                .collect();
            scored.sort_unstable_by_key(|&(field, score, rank, _)| (field, Reverse(score), rank));
            for &(field, _, _, i) in &scored {
                self.fields[i] = Some(field);
            }
            self.visible = scored.into_iter().map(|(_, _, _, i)| i).collect();
            self.filter.ranked_for = query;
        }
        self.selected = self.selected.min(self.visible.len().saturating_sub(1));
        self.ensure_visible();
    }

    /// The field other than the id the filter matched `id` in, while it
    /// filters (shown beside the row).
    pub fn matched_field(&self, key: &RowKey) -> Option<Field> {
        let i = self.index_of(key)?;
        self.fields
            .get(i)
            .copied()
            .flatten()
            .filter(|f| *f != Field::Id)
    }

    /// The character positions of `id` the filter matched (for highlighting).
    pub fn matched_indices(&self, id: &str) -> Vec<usize> {
        if self.filter.query.is_empty() {
            return Vec::new();
        }
        self.matcher
            .fuzzy_indices(id, &self.filter.query)
            .map(|(_, idx)| idx)
            .unwrap_or_default()
    }

    /// Selects the first row of `id` (the project's, inside a project).
    pub fn select_id(&mut self, id: Option<&str>) {
        self.select_key(id.map(|id| (id.into(), false)).as_ref());
    }

    /// Selects the row of `key`, if it is shown.
    pub fn select_key(&mut self, key: Option<&RowKey>) {
        self.selected = key
            .and_then(|key| self.visible.iter().position(|&i| self.entries[i].is(key)))
            .unwrap_or(self.selected)
            .min(self.visible.len().saturating_sub(1));
        self.ensure_visible();
    }

    /// Keeps the selected row inside the browser's visible rows.
    pub fn ensure_visible(&mut self) {
        let rows = self.rows.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + rows {
            self.offset = self.selected + 1 - rows;
        }
        let max_offset = self.visible.len().saturating_sub(rows);
        self.offset = self.offset.min(max_offset);
    }
}
