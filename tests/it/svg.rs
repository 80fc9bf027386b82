//! Renders a ratatui [`Buffer`] as an SVG picture of the terminal: one
//! background rectangle per run of cells with the same background, one text
//! run per run of cells with the same style. Used to make the screenshots in
//! `screenshots/` from the TUI's own frames, so they stay true as the UI
//! changes (`tests/it/screenshots.rs`).

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use std::fmt::Write;

/// Cell size in SVG units (a 15px monospace font, whose box-drawing
/// characters then join up between rows).
const CELL_W: f32 = 9.0;
const CELL_H: f32 = 18.0;
const FONT_SIZE: f32 = 15.0;
const PAD: f32 = 12.0;

/// The terminal's default colours and its 16-colour palette (a dark theme).
const DEFAULT_FG: &str = "#d4d4d4";
const DEFAULT_BG: &str = "#1e1e1e";
const PALETTE: [&str; 16] = [
    "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
];

fn color(c: Color, default: &str) -> String {
    let named = |i: usize| PALETTE[i].to_string();
    match c {
        Color::Reset => default.to_string(),
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => named(8),
        Color::LightRed => named(9),
        Color::LightGreen => named(10),
        Color::LightYellow => named(11),
        Color::LightBlue => named(12),
        Color::LightMagenta => named(13),
        Color::LightCyan => named(14),
        Color::White => named(15),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(i) => indexed(i),
    }
}

/// The xterm 256-colour palette.
fn indexed(i: u8) -> String {
    match i {
        0..=15 => PALETTE[usize::from(i)].to_string(),
        16..=231 => {
            let i = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            format!(
                "#{:02x}{:02x}{:02x}",
                level(i / 36),
                level((i / 6) % 6),
                level(i % 6)
            )
        }
        232..=255 => {
            let v = 8 + (i - 232) * 10;
            format!("#{v:02x}{v:02x}{v:02x}")
        }
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The look of one cell, resolved to colours.
#[derive(PartialEq, Eq, Clone)]
struct Look {
    fg: String,
    bg: String,
    bold: bool,
    italic: bool,
    underline: bool,
    dim: bool,
}

fn look(cell: &ratatui::buffer::Cell) -> Look {
    let m = cell.modifier;
    let (mut fg, mut bg) = (color(cell.fg, DEFAULT_FG), color(cell.bg, DEFAULT_BG));
    if m.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    Look {
        fg,
        bg,
        bold: m.contains(Modifier::BOLD),
        italic: m.contains(Modifier::ITALIC),
        underline: m.contains(Modifier::UNDERLINED),
        dim: m.contains(Modifier::DIM),
    }
}

/// The SVG of `buffer`, titled `title` (for screen readers and tooltips).
pub fn render(buffer: &Buffer, title: &str) -> String {
    let area = buffer.area;
    let width = f32::from(area.width) * CELL_W + 2.0 * PAD;
    let height = f32::from(area.height) * CELL_H + 2.0 * PAD;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">"#
    );
    let _ = writeln!(svg, "<title>{}</title>", escape(title));
    let _ = writeln!(
        svg,
        r#"<rect width="100%" height="100%" rx="6" fill="{DEFAULT_BG}"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<g font-family="'DejaVu Sans Mono', 'Menlo', 'Consolas', monospace" font-size="{FONT_SIZE}">"#
    );
    for y in 0..area.height {
        let row: Vec<(&str, Look)> = (0..area.width)
            .map(|x| {
                let cell = &buffer[(area.x + x, area.y + y)];
                (cell.symbol(), look(cell))
            })
            .collect();
        let top = PAD + f32::from(y) * CELL_H;
        backgrounds(&mut svg, &row, top);
        texts(&mut svg, &row, top);
    }
    svg.push_str("</g>\n</svg>\n");
    svg
}

/// One row's backgrounds that differ from the terminal's, a rect per run.
fn backgrounds(svg: &mut String, row: &[(&str, Look)], top: f32) {
    let mut x = 0;
    while x < row.len() {
        let bg = &row[x].1.bg;
        let start = x;
        while x < row.len() && &row[x].1.bg == bg {
            x += 1;
        }
        if bg != DEFAULT_BG {
            let _ = writeln!(
                svg,
                r#"<rect x="{:.1}" y="{top:.1}" width="{:.1}" height="{CELL_H}" fill="{bg}"/>"#,
                PAD + start as f32 * CELL_W,
                (x - start) as f32 * CELL_W
            );
        }
    }
}

/// One row's text, one run per style; each run is stretched to its cells so
/// glyphs from fallback fonts cannot shift the columns.
fn texts(svg: &mut String, row: &[(&str, Look)], top: f32) {
    let mut x = 0;
    while x < row.len() {
        let style = row[x].1.clone();
        let start = x;
        let mut text = String::new();
        while x < row.len() && row[x].1 == style {
            text.push_str(row[x].0);
            x += 1;
        }
        if text.trim().is_empty() {
            continue;
        }
        let attrs = attrs(&style);
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" textLength="{:.1}" lengthAdjust="spacingAndGlyphs" xml:space="preserve"{attrs}>{}</text>"#,
            PAD + start as f32 * CELL_W,
            top + CELL_H * 0.75,
            (x - start) as f32 * CELL_W,
            escape(&text)
        );
    }
}

/// The SVG attributes of a text run's style.
fn attrs(style: &Look) -> String {
    let mut attrs = format!(r#" fill="{}""#, style.fg);
    if style.bold {
        attrs.push_str(r#" font-weight="bold""#);
    }
    if style.italic {
        attrs.push_str(r#" font-style="italic""#);
    }
    if style.underline {
        attrs.push_str(r#" text-decoration="underline""#);
    }
    if style.dim {
        attrs.push_str(r#" opacity="0.6""#);
    }
    attrs
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn draws_text_runs_and_backgrounds() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 10, 2));
        buffer.set_string(0, 0, "a<b", Style::default().fg(Color::Green));
        buffer.set_string(
            0,
            1,
            "ok",
            Style::default()
                .bg(Color::Blue)
                .add_modifier(Modifier::BOLD),
        );
        let svg = render(&buffer, "t");
        assert!(svg.contains(r##"fill="#0dbc79">a&lt;b</text>"##), "{svg}");
        assert!(
            svg.contains(r##"<rect x="12.0" y="30.0" width="18.0" height="18" fill="#2472c8"/>"##),
            "{svg}"
        );
        assert!(svg.contains(r#"font-weight="bold""#));
    }

    #[test]
    fn indexed_colours_follow_xterm() {
        assert_eq!(indexed(196), "#ff0000");
        assert_eq!(indexed(232), "#080808");
        assert_eq!(indexed(4), PALETTE[4]);
    }
}
