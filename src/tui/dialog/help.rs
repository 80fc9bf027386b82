//! `?`: the help, drawn from the one key table (`tui::keys`): what acts
//! (the key bar's keys) on the left, how to move on the right.

use crate::tui::config::Config;
use crate::tui::dialog::lines::wrap;
use crate::tui::keys::{Binding, KEYS, MOUSE_HELP};
use crate::tui::text;
use ratatui::text::{Line, Span};

/// The help, from the key table. The keys: what acts (the key bar's) left, how to move right; in one
/// column where two do not fit. When one column is taller than `room`
/// (80×24), two columns of half the keys each, so every key shows, and
/// the paragraph under them only if there is room. "any key closes" is
/// the frame's ([`CLOSES`]), so it takes no line.
pub fn lines<'a>(config: &Config, width: usize, room: usize) -> Vec<Line<'a>> {
    let theme = config.theme;
    let (acts, moves): (Vec<&Binding>, Vec<&Binding>) = KEYS.iter().partition(|b| b.bar.is_some());
    let entry = |b: &Binding| (b.shown, b.help);
    let mut left: Vec<(&str, &str)> = acts.into_iter().map(entry).collect();
    let mut right: Vec<(&str, &str)> = moves.into_iter().map(entry).collect();
    right.push(MOUSE_HELP);
    let key_w = KEYS.iter().map(|b| text::width(b.shown)).max().unwrap_or(4) + 1;
    let two = width >= 80 || left.len() + right.len() > room;
    if !two {
        left.append(&mut right);
    } else if left.len().max(right.len()) > room {
        // Too short for the two groups side by side: half the keys each.
        left.append(&mut right);
        right = left.split_off(left.len().div_ceil(2));
    }
    let col_w = if two { width / 2 } else { width };
    let cell = |(key, what): (&str, &str)| {
        vec![
            Span::styled(text::fit(key, key_w), theme.key()),
            Span::raw(text::fit(what, col_w.saturating_sub(key_w + 1))),
            Span::raw(" "),
        ]
    };
    let rows = left.len().max(right.len());
    let mut lines: Vec<Line<'a>> = (0..rows)
        .map(|i| {
            let mut spans = left
                .get(i)
                .map_or_else(|| vec![Span::raw(" ".repeat(col_w))], |e| cell(*e));
            if let Some(e) = right.get(i) {
                spans.extend(cell(*e));
            }
            Line::from(spans)
        })
        .collect();
    let about = wrap(
        "Every action calls the same engine function as the hcpx command shown in the Log (@). Greyed keys cannot run for the selection; pressed, they say why.",
        width,
        theme.dim(),
    );
    if rows + 1 + about.len() <= room {
        lines.push(Line::raw(""));
        lines.extend(about);
    } else if rows > room {
        // Smaller than 80×24: say that keys are left out, and keep the
        // way out in view.
        let hidden = lines.len() - room.saturating_sub(1).min(lines.len());
        lines.truncate(room.saturating_sub(1));
        lines.push(Line::styled(
            format!(
                "… {} — a larger window shows them",
                text::count(hidden, "more row")
            ),
            theme.dim(),
        ));
    }
    lines
}

/// The help's frame says how it closes, on its lower border.
pub const CLOSES: &str = " any key closes ";
