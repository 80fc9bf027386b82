//! The command selected in the availability matrix (HCP.md §11.2: one row
//! per command of the selected pack, with whether it is executable and
//! why not); `x` runs it. The row stays among the pack's commands when the
//! pack is read again with fewer, and goes back to the first when another
//! pack is selected. `panes::matrix` draws it.

/// The selected command row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Matrix {
    selected: usize,
}

impl Matrix {
    /// The index of the selected command.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// Moves by `delta` rows among `len` commands, stopping at either end.
    pub fn move_by(&mut self, delta: isize, len: usize) {
        self.selected = match len {
            0 => 0,
            _ => (self.selected as isize)
                .saturating_add(delta)
                .clamp(0, len as isize - 1) as usize,
        };
    }

    /// Selects row `i` (a click).
    pub fn select(&mut self, i: usize) {
        self.selected = i;
    }

    /// Another pack is selected: its first command.
    pub fn reset(&mut self) {
        self.selected = 0;
    }

    /// The pack was read again with `len` commands: the row stays among
    /// them.
    pub fn fit(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_stop_at_either_end() {
        let mut m = Matrix::default();
        m.move_by(-1, 3);
        assert_eq!(m.selected(), 0);
        m.move_by(isize::MAX / 2, 3);
        assert_eq!(m.selected(), 2);
        m.move_by(1, 3);
        assert_eq!(m.selected(), 2);
        m.move_by(1, 0);
        assert_eq!(m.selected(), 0, "no commands: the first row");
    }

    #[test]
    fn fewer_commands_keep_the_row_among_them() {
        let mut m = Matrix::default();
        m.select(4);
        m.fit(2);
        assert_eq!(m.selected(), 1);
        m.fit(0);
        assert_eq!(m.selected(), 0);
        m.select(1);
        m.fit(5);
        assert_eq!(m.selected(), 1);
        m.reset();
        assert_eq!(m.selected(), 0);
    }
}
