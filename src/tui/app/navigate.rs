//! Moving about: the keys and the mouse that move a selection, scroll a
//! text pane, change the focus, filter the packs, search a text pane,
//! mark, sort and wrap. They change no store and start no work (but
//! reading the pack selected next, which `update` starts). Pane text is
//! terminal-safe before it is searched or shown (HCP.md §14.5).

use super::*;
use crate::tui::layout;
use crate::tui::ui;

impl App {
    /// The mouse, and the terminal's new size.
    pub(super) fn navigate(&mut self, action: Action) {
        match action {
            Action::Resize(w, h) => {
                self.size = (w, h);
                self.fit_browser();
            }
            Action::Click { column, row } => self.click(column, row),
            Action::Scroll { column, row, down } => self.wheel(column, row, down),
            _ => {}
        }
    }

    /// `@`: the command log, at its end.
    pub(super) fn show_log(&mut self) {
        self.focus.set(Pane::Log);
        self.text.log = u16::MAX;
    }

    /// `/`: the search of the focused text pane, else the packs' filter.
    pub(super) fn filter_start(&mut self) {
        if self.focus.pane().is_lower() {
            self.search.start(self.focus.pane())
        } else {
            self.packs.filter.editing = true;
            self.focus.set(Pane::Browser);
        }
    }

    /// `/` and the keys while typing a filter or a search.
    pub(super) fn filter_or_search(&mut self, action: Action) {
        match action {
            Action::SearchChar(c) => self.search.query.push(c),
            Action::SearchBackspace => {
                self.search.query.pop();
            }
            Action::SearchKeep => {
                self.search.editing = false;
                self.search.current = None;
                self.find(true);
            }
            Action::SearchClear => self.search.clear(),
            Action::FilterChar(c) => {
                let mut q = self.packs.filter.query.clone();
                q.push(c);
                self.packs.set_query(q);
            }
            Action::FilterBackspace => {
                let mut q = self.packs.filter.query.clone();
                q.pop();
                self.packs.set_query(q);
            }
            Action::FilterKeep => self.packs.filter.editing = false,
            Action::FilterClear => {
                self.packs.filter.editing = false;
                self.packs.set_query(String::new());
            }
            _ => {}
        }
    }

    /// `w`: wrap long lines in the text panes, or cut them at the edge.
    pub(super) fn toggle_wrap(&mut self) {
        self.text.wrap = !self.text.wrap;
        let how = if self.text.wrap {
            "wrapped"
        } else {
            "cut at the pane's edge"
        };
        self.status
            .info(format!("long lines are {how} (w switches)"));
    }

    /// The wheel scrolls the pane under the pointer, focused or not.
    fn wheel(&mut self, column: u16, row: u16, down: bool) {
        if self.dialog.is_none()
            && let Some(pane) = layout::pane_at(self, column, row)
        {
            self.move_in(pane, if down { 3 } else { -3 });
        }
    }

    /// `Esc`: drops the search of the focused text pane; else clears the
    /// marks, then the filter, and goes back to Packs (where that shows).
    pub(super) fn escape(&mut self) {
        if self.search.active_in(self.focus.pane()).is_some() {
            self.search.clear();
            return;
        }
        if !self.packs.marked.is_empty() {
            self.packs.marked.clear();
        } else if !self.packs.filter.query.is_empty() {
            self.packs.set_query(String::new());
        }
        self.focus.set(Pane::Browser);
    }

    pub(super) fn mark(&mut self) {
        self.fit_browser();
        if self.packs.toggle_mark() {
            self.focus.set(Pane::Browser);
        }
    }

    pub(super) fn cycle_sort(&mut self) {
        self.fit_browser();
        self.packs.cycle_sort();
        self.status
            .info(format!("sorted by {}", self.packs.sort.as_str()));
    }

    /// `Enter`: on a pack, its commands; on a command, its run form.
    pub(super) fn open(&mut self) -> Vec<Job> {
        match self.focus.pane() {
            Pane::Browser => {
                self.focus.set(Pane::Matrix);
                Vec::new()
            }
            Pane::Matrix => self.command(Cmd::Exec),
            _ => Vec::new(),
        }
    }

    /// Shows the next (or previous) line that matches the search, and
    /// says which match it is.
    pub(super) fn find(&mut self, forward: bool) {
        let Some(pane) = self.search.pane.filter(|_| !self.search.query.is_empty()) else {
            self.status
                .error("no search: / in a text pane starts one".into());
            return;
        };
        let lines = ui::text_strings(self, pane);
        let matches = self.search.matches(&lines);
        let query = text::safe(&self.search.query);
        let at = match (self.search.current, forward) {
            (Some(c), true) => c + 1,
            (Some(c), false) => c,
            (None, _) => self.scroll_of(pane) as usize,
        };
        let Some(line) = Search::next(&matches, at, forward) else {
            self.status.error(format!("no line matches `{query}`"));
            return;
        };
        self.search.current = Some(line);
        self.focus.set(pane);
        if pane == Pane::Output {
            self.text.follow = false;
        }
        let last = self.last_page(pane);
        *self.scroll_mut(pane) = (line.min(u16::MAX as usize) as u16).min(last);
        let nth = matches.iter().position(|&m| m == line).unwrap_or(0) + 1;
        self.status.info(format!(
            "`{query}`: match {nth} of {} (n next, N previous)",
            matches.len()
        ));
    }

    /// `G`: the last row, or in a text pane the last full page.
    pub(super) fn bottom(&mut self) {
        match self.focus.pane() {
            Pane::Browser | Pane::Matrix => self.move_by(isize::MAX / 2),
            pane => {
                *self.scroll_mut(pane) = self.last_page(pane);
                if pane == Pane::Output {
                    self.text.follow = true;
                }
            }
        }
    }

    /// Whether the Output pane follows a running command's tail (like
    /// `less +F`): while one runs, until the user scrolls up.
    pub fn following(&self) -> bool {
        self.text.follow && self.runs.live().is_some()
    }

    pub(super) fn page(&self) -> usize {
        match self.focus.pane() {
            Pane::Browser => layout::browser_rows(self).max(1),
            Pane::Matrix => layout::matrix_window(self).0.max(1),
            _ => layout::text_rows(self).max(1),
        }
    }

    pub(super) fn move_by(&mut self, delta: isize) {
        self.move_in(self.focus.pane(), delta);
    }

    /// Moves `delta` rows in `pane`: the selection of a table, the scroll
    /// of a text pane.
    fn move_in(&mut self, pane: Pane, delta: isize) {
        match pane {
            Pane::Browser => {
                self.fit_browser();
                self.packs.move_by(delta);
            }
            Pane::Matrix => {
                let n = self.selected_view().map_or(0, |e| e.avail.commands.len());
                self.matrix.move_by(delta, n);
            }
            pane => {
                let last = self.last_page(pane);
                let follow = pane == Pane::Output && self.following();
                let at = self.scroll_mut(pane);
                // Following, the pane shows the last page whatever the
                // offset says: a move starts from there.
                let from = if follow { last } else { (*at).min(last) };
                *at = scroll(from, delta).min(last);
                let at_end = *at >= last;
                if pane == Pane::Output {
                    // Up leaves the tail; down to the end follows it again.
                    self.text.follow = at_end;
                }
            }
        }
    }

    /// The scroll offset of a text pane that shows its last full page.
    fn last_page(&self, pane: Pane) -> u16 {
        let total = ui::text_lines(self, pane);
        total
            .saturating_sub(layout::text_rows(self))
            .min(u16::MAX as usize) as u16
    }

    /// A text pane's scroll offset.
    pub fn scroll_of(&self, pane: Pane) -> u16 {
        self.text.scroll(pane)
    }

    fn scroll_mut(&mut self, pane: Pane) -> &mut u16 {
        self.text.scroll_mut(pane)
    }

    pub(super) fn click(&mut self, column: u16, row: u16) {
        if self.dialog.is_some() {
            if matches!(self.dialog, Some(Dialog::Help) | Some(Dialog::Error(_))) {
                self.dialog = None;
            }
            return;
        }
        if let Some(tab) = layout::lower_tab_at(self, column, row) {
            self.focus.set(tab);
            return;
        }
        let Some(pane) = layout::pane_at(self, column, row) else {
            return;
        };
        self.focus.set(pane);
        match pane {
            Pane::Browser => {
                if let Some(i) = layout::browser_row_at(self, row) {
                    self.packs.selected = i;
                    self.fit_browser();
                }
            }
            Pane::Matrix => {
                if let Some(i) = layout::matrix_row_at(self, row) {
                    self.matrix.select(i);
                }
            }
            _ => {}
        }
    }
}

fn scroll(v: u16, delta: isize) -> u16 {
    (v as isize)
        .saturating_add(delta)
        .clamp(0, u16::MAX as isize) as u16
}
