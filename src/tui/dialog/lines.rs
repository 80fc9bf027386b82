//! What every overlay is written with: a paragraph wrapped to the width,
//! in one style.

use crate::tui::text;
use ratatui::style::Style;
use ratatui::text::Line;

pub fn wrap<'a>(s: &str, width: usize, style: Style) -> Vec<Line<'a>> {
    text::wrap(s, width)
        .into_iter()
        .map(|l| Line::styled(l, style))
        .collect()
}
