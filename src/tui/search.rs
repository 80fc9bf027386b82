//! `/` in a text pane (Details, Lint, Output, Log): find text in it, less
//! style; `n` and `N` go to the next and previous line that matches. The
//! pack filter is `/` in the Packs and Availability panes. Pane text is
//! terminal-safe before it is searched or shown (HCP.md §14.5).

use crate::tui::pane::Pane;

/// A search in one text pane.
#[derive(Debug, Clone, Default)]
pub struct Search {
    pub query: String,
    /// Whether keys go to the query.
    pub editing: bool,
    /// The pane searched.
    pub pane: Option<Pane>,
    /// The line of the match shown last.
    pub current: Option<usize>,
}

impl Search {
    pub fn start(&mut self, pane: Pane) {
        self.query.clear();
        self.editing = true;
        self.pane = Some(pane);
    }

    pub fn clear(&mut self) {
        *self = Search::default();
    }

    /// The query in effect for `pane`, if any.
    pub fn active_in(&self, pane: Pane) -> Option<&str> {
        (self.pane == Some(pane) && !self.query.is_empty()).then_some(self.query.as_str())
    }

    /// The line numbers of `lines` that match (case-insensitive).
    pub fn matches(&self, lines: &[String]) -> Vec<usize> {
        let needle = self.query.to_lowercase();
        if needle.is_empty() {
            return Vec::new();
        }
        lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.to_lowercase().contains(&needle))
            .map(|(i, _)| i)
            .collect()
    }

    /// The match to show from line `at`: the first at or after it (`n`),
    /// or the last before it (`N`), wrapping around.
    pub fn next(matches: &[usize], at: usize, forward: bool) -> Option<usize> {
        if forward {
            matches
                .iter()
                .copied()
                .find(|&m| m >= at)
                .or(matches.first().copied())
        } else {
            matches
                .iter()
                .rev()
                .copied()
                .find(|&m| m < at)
                .or(matches.last().copied())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_lines_and_wraps_around() {
        let mut s = Search::default();
        s.start(Pane::Output);
        s.query = "Err".into();
        let lines: Vec<String> = ["ok", "error one", "fine", "ERROR two"]
            .iter()
            .map(|l| l.to_string())
            .collect();
        let m = s.matches(&lines);
        assert_eq!(m, [1, 3]);
        assert_eq!(Search::next(&m, 0, true), Some(1));
        assert_eq!(Search::next(&m, 2, true), Some(3));
        assert_eq!(Search::next(&m, 4, true), Some(1));
        assert_eq!(Search::next(&m, 3, false), Some(1));
        assert_eq!(Search::next(&m, 1, false), Some(3));
        assert_eq!(s.active_in(Pane::Output), Some("Err"));
        assert_eq!(s.active_in(Pane::Lint), None);
    }
}
