//! Which pane has the keys, and which pane the lower-right area shows
//! (Details, Lint, Output or Log, one at a time, as tabs). Keys and the
//! mouse move the focus; a finished action or a `:` line shows its pane
//! (an exec's Output, §6.7; an install's Lint, §10.4) and leaves the keys
//! where the user put them (lazygit's and k9s' rule: what the focus marker
//! shows is what the keys act on).

use crate::tui::pane::Pane;

/// The focused pane, the lower pane shown, and whether the Output pane
/// holds output the user has not focused yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Focus {
    pane: Pane,
    lower: Pane,
    new_output: bool,
}

impl Default for Focus {
    fn default() -> Self {
        Focus {
            pane: Pane::Browser,
            lower: Pane::Details,
            new_output: false,
        }
    }
}

impl Focus {
    /// The pane that has the keys.
    pub fn pane(&self) -> Pane {
        self.pane
    }

    /// The pane shown in the lower-right area.
    pub fn lower(&self) -> Pane {
        self.lower
    }

    /// Gives `pane` the keys; a lower pane shows too. Focusing Output
    /// sees its new output.
    pub fn set(&mut self, pane: Pane) {
        self.pane = pane;
        if pane == Pane::Output {
            self.new_output = false;
        }
        if pane.is_lower() {
            self.lower = pane;
        }
    }

    /// Shows `pane` in the lower-right area, leaving the keys where they
    /// are: in Packs or Availability they stay there; in the lower area
    /// they go with it, so the focus marker is never on a pane not shown.
    pub fn show(&mut self, pane: Pane) {
        if !pane.is_lower() {
            return;
        }
        if self.pane.is_lower() && self.pane != pane {
            self.set(pane);
        }
        self.lower = pane;
    }

    /// A command finished: the Output pane shows, the keys stay where the
    /// user put them, and until Output is focused its tab says so.
    pub fn output_arrived(&mut self) {
        self.show(Pane::Output);
        self.new_output = self.pane != Pane::Output;
    }

    /// Whether Output holds output not focused since it came.
    pub fn new_output(&self) -> bool {
        self.new_output
    }

    /// `Tab` (`step` 1) and `Shift-Tab` (`step` one less than the panes):
    /// the next pane in [`Pane::ORDER`], round.
    pub fn cycle(&mut self, step: usize) {
        let at = Pane::ORDER
            .iter()
            .position(|p| *p == self.pane)
            .unwrap_or(0);
        self.set(Pane::ORDER[(at + step) % Pane::ORDER.len()]);
    }

    /// `→`: Packs → Availability → the lower pane.
    pub fn right(&mut self) {
        match self.pane {
            Pane::Browser => self.set(Pane::Matrix),
            Pane::Matrix => self.set(self.lower),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A step, the pane it is given, and (focused, lower) after it.
    type Step = (fn(&mut Focus, Pane), Pane, (Pane, Pane));

    #[test]
    fn a_lower_pane_focused_shows_and_one_shown_leaves_the_keys_alone() {
        let steps: [Step; 5] = [
            (Focus::set, Pane::Log, (Pane::Log, Pane::Log)),
            (Focus::set, Pane::Matrix, (Pane::Matrix, Pane::Log)),
            (Focus::show, Pane::Lint, (Pane::Matrix, Pane::Lint)),
            // Not a lower pane: nothing changes.
            (Focus::show, Pane::Browser, (Pane::Matrix, Pane::Lint)),
            (Focus::set, Pane::Browser, (Pane::Browser, Pane::Lint)),
        ];
        let mut focus = Focus::default();
        for (i, (step, pane, want)) in steps.into_iter().enumerate() {
            step(&mut focus, pane);
            assert_eq!((focus.pane(), focus.lower()), want, "step {i}");
        }
    }

    #[test]
    fn new_output_leaves_the_keys_alone_until_output_is_focused() {
        let mut focus = Focus::default();
        focus.set(Pane::Matrix);
        focus.output_arrived();
        assert_eq!((focus.pane(), focus.lower()), (Pane::Matrix, Pane::Output));
        assert!(focus.new_output());
        focus.set(Pane::Browser);
        assert!(focus.new_output(), "not seen yet");
        focus.set(Pane::Output);
        assert!(!focus.new_output());
        focus.output_arrived();
        assert!(!focus.new_output(), "it came while Output had the keys");
    }

    #[test]
    fn the_keys_in_the_lower_area_go_with_the_pane_shown_there() {
        let mut focus = Focus::default();
        focus.set(Pane::Details);
        focus.output_arrived();
        assert_eq!((focus.pane(), focus.lower()), (Pane::Output, Pane::Output));
        assert!(!focus.new_output(), "the keys are on it: seen");
    }

    #[test]
    fn tab_goes_round_every_pane_and_back() {
        let mut focus = Focus::default();
        let mut seen = Vec::new();
        for _ in 0..Pane::ORDER.len() {
            focus.cycle(1);
            seen.push(focus.pane());
        }
        assert_eq!(seen.last(), Some(&Pane::Browser));
        assert_eq!(seen.len(), Pane::ORDER.len());
        focus.cycle(Pane::ORDER.len() - 1);
        assert_eq!(focus.pane(), Pane::Log, "Shift-Tab goes back");
    }

    #[test]
    fn right_goes_to_the_lower_pane_shown() {
        let mut focus = Focus::default();
        focus.show(Pane::Output);
        focus.right();
        assert_eq!(focus.pane(), Pane::Matrix);
        focus.right();
        assert_eq!(focus.pane(), Pane::Output);
        focus.right();
        assert_eq!(focus.pane(), Pane::Output, "the last pane to the right");
    }
}
