//! The panes of the main screen, their `Tab` order and titles: plain data
//! the state, the keys and the drawing all name.

/// A pane of the main screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Browser,
    Matrix,
    Details,
    Lint,
    Output,
    /// The command log: every action of the session (lazygit).
    Log,
}

impl Pane {
    /// `Tab` order.
    pub const ORDER: [Pane; 6] = [
        Pane::Browser,
        Pane::Matrix,
        Pane::Details,
        Pane::Lint,
        Pane::Output,
        Pane::Log,
    ];

    /// The tabs of the lower-right area, left to right.
    pub const LOWER: [Pane; 4] = [Pane::Details, Pane::Lint, Pane::Output, Pane::Log];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Browser => "Packs",
            Pane::Matrix => "Availability",
            Pane::Details => "Details",
            Pane::Lint => "Lint",
            Pane::Output => "Output",
            Pane::Log => "Log",
        }
    }

    /// Whether the pane lives in the tabbed lower-right area.
    pub fn is_lower(self) -> bool {
        matches!(self, Pane::Details | Pane::Lint | Pane::Output | Pane::Log)
    }
}
