//! Claude Code's Skill listing rule (HCP.md §17.2), as Claude Code 2.1.332
//! computes it: the budget, each entry `- NAME: TEXT`, the cap on TEXT,
//! display widths, and how many descriptions must go for the listing to
//! fit. Pure functions: the files are read by `context::read`.

use super::read::Front;
use unicode_width::UnicodeWidthStr;

/// The context window assumed unless `--context-tokens` (§17.2).
pub const DEFAULT_CONTEXT_TOKENS: u64 = 200_000;
/// Characters a token, unless `--chars-per-token` (4 for the Claude 3.x,
/// Opus 4.0–4.6, Sonnet 4.0–4.6 and Haiku 4.5 models; 3 for others).
pub const DEFAULT_CHARS_PER_TOKEN: u64 = 4;
/// The share of the context the listing may take, unless
/// `skillListingBudgetFraction`.
pub const DEFAULT_FRACTION: f64 = 0.01;
/// The longest TEXT, in UTF-16 units, unless `skillListingMaxDescChars`.
pub const DEFAULT_CAP: usize = 1_536;
/// The longest body line that stands for a missing description.
pub const BODY_LINE_MAX: usize = 100;
/// The environment variable whose non-zero number is the budget.
pub const BUDGET_VAR: &str = "SLASH_COMMAND_TOOL_CHAR_BUDGET";
/// What shares the budget and is not counted.
pub const NOT_COUNTED: [&str; 2] = ["plugins", "bundled"];

/// The two settings Claude Code's listing reads, merged over its settings
/// files (`~/.claude/settings.json`, then the project's
/// `.claude/settings.json` and `.claude/settings.local.json`, later
/// winning).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Settings {
    pub budget_fraction: Option<f64>,
    pub max_desc_chars: Option<usize>,
}

impl Settings {
    /// `files` merged in order, a later one's key winning; a key that is
    /// not a positive number is ignored.
    pub fn merge<'a>(files: impl IntoIterator<Item = &'a serde_json::Value>) -> Settings {
        let mut merged = Settings::default();
        for file in files {
            let number = |key: &str| {
                file.get(key)
                    .and_then(serde_json::Value::as_f64)
                    .filter(|n| n.is_finite() && *n > 0.0)
            };
            if let Some(fraction) = number("skillListingBudgetFraction") {
                merged.budget_fraction = Some(fraction);
            }
            if let Some(cap) = number("skillListingMaxDescChars") {
                merged.max_desc_chars = Some(cap.floor() as usize).filter(|c| *c > 0);
            }
        }
        merged
    }

    /// The cap on TEXT.
    pub fn cap(&self) -> usize {
        self.max_desc_chars.unwrap_or(DEFAULT_CAP)
    }
}

/// The budget in characters: `SLASH_COMMAND_TOOL_CHAR_BUDGET` when it is
/// a non-zero number (⌊value⌋), else max(1, ⌊tokens × chars a token ×
/// fraction⌋), the fraction from the settings or 0.01.
pub fn budget(tokens: u64, chars_per_token: u64, settings: &Settings, env: Option<&str>) -> u64 {
    if let Some(value) = env
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 1.0)
    {
        return value.floor() as u64;
    }
    let fraction = settings.budget_fraction.unwrap_or(DEFAULT_FRACTION);
    let chars = (tokens as f64 * chars_per_token as f64 * fraction).floor();
    (chars as u64).max(1)
}

/// NAME: the folder's name, `FOLDER (NAME)` when the frontmatter's `name`
/// differs.
pub fn entry_name(folder: &str, front: &Front) -> String {
    match front.name.as_deref().map(str::trim) {
        Some(name) if !name.is_empty() && name != folder => format!("{folder} ({name})"),
        _ => folder.to_string(),
    }
}

/// TEXT before the cap: the description (and ` - ` and `when_to_use`),
/// else the first non-empty line of the body (at most 100 UTF-16 units);
/// trimmed, each run of control characters one space, `<`/`>` escaped.
pub fn text(front: &Front) -> String {
    let description = front.description.as_deref().map(str::trim).unwrap_or("");
    let raw = if description.is_empty() {
        let line = front.first_body_line.as_deref().unwrap_or("");
        utf16_prefix(line, BODY_LINE_MAX).0
    } else {
        match front.when_to_use.as_deref().map(str::trim) {
            Some(when) if !when.is_empty() => format!("{description} - {when}"),
            _ => description.to_string(),
        }
    };
    let mut out = String::with_capacity(raw.len());
    let mut in_control = false;
    for c in raw.trim().chars() {
        if c.is_control() {
            if !in_control {
                out.push(' ');
            }
            in_control = true;
            continue;
        }
        in_control = false;
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// The first `units` UTF-16 code units of `s`, and whether a character
/// was split there (JavaScript's `slice` keeps the lone half, which the
/// width counts as one).
fn utf16_prefix(s: &str, units: usize) -> (String, bool) {
    let mut taken = 0;
    let mut out = String::new();
    for c in s.chars() {
        let n = c.len_utf16();
        if taken + n > units {
            return (out, taken < units);
        }
        taken += n;
        out.push(c);
    }
    (out, false)
}

/// The display width Claude Code measures (`Bun.stringWidth`): East Asian
/// wide characters and emoji 2, combining marks 0, others 1.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// What one entry costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryCost {
    /// width(TEXT) before the cap.
    pub description_chars: usize,
    /// width(NAME) + 4 + width(TEXT after the cut).
    pub cost_chars: usize,
    /// Listed by name only: width(NAME) + 2.
    pub name_only: usize,
    /// TEXT was over the cap (in UTF-16 units) and cut.
    pub cut: bool,
}

/// The cost of the entry `- NAME: TEXT` with TEXT cut at `cap`: cap − 1
/// UTF-16 units and `…`.
pub fn entry_cost(name: &str, text: &str, cap: usize) -> EntryCost {
    let name_width = width(name);
    let description_chars = width(text);
    let cut = text.encode_utf16().count() > cap;
    let shown = if cut {
        let (prefix, split) = utf16_prefix(text, cap.saturating_sub(1));
        width(&prefix) + usize::from(split) + 1
    } else {
        description_chars
    };
    EntryCost {
        description_chars,
        cost_chars: name_width + 4 + shown,
        name_only: name_width + 2,
        cut,
    }
}

/// The listing's cost: its entries and a newline between two.
pub fn listing_cost(costs: impl IntoIterator<Item = usize>) -> u64 {
    let (sum, n) = costs
        .into_iter()
        .fold((0u64, 0u64), |(s, n), c| (s + c as u64, n + 1));
    sum + n.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front(description: &str) -> Front {
        Front {
            description: Some(description.into()),
            ..Front::default()
        }
    }

    /// 200,000 × 4 × 0.01 = 8,000; 3 a token: 6,000; a fraction of 0.02
    /// in the settings: 16,000; the variable wins over all of these.
    #[test]
    fn the_budget_and_each_override() {
        let none = Settings::default();
        assert_eq!(budget(200_000, 4, &none, None), 8_000);
        assert_eq!(budget(200_000, 3, &none, None), 6_000);
        assert_eq!(budget(1_000_000, 4, &none, None), 40_000);
        assert_eq!(budget(10, 4, &none, None), 1, "max(1, ⌊0.4⌋)");
        let user = serde_json::json!({"skillListingBudgetFraction": 0.05});
        let project = serde_json::json!({"skillListingBudgetFraction": 0.02});
        let local = serde_json::json!({"skillListingMaxDescChars": 200});
        let merged = Settings::merge([&user, &project, &local]);
        assert_eq!(merged.budget_fraction, Some(0.02), "later wins");
        assert_eq!(merged.cap(), 200);
        assert_eq!(budget(200_000, 4, &merged, None), 16_000);
        assert_eq!(budget(200_000, 4, &merged, Some("12345.9")), 12_345);
        assert_eq!(
            budget(200_000, 4, &merged, Some("0")),
            16_000,
            "zero: unset"
        );
        assert_eq!(budget(200_000, 4, &merged, Some("lots")), 16_000);
        assert_eq!(Settings::default().cap(), 1_536);
    }

    #[test]
    fn name_is_the_folder_and_the_frontmatter_name_when_it_differs() {
        let named = |n: &str| Front {
            name: Some(n.into()),
            ..Front::default()
        };
        assert_eq!(entry_name("pdf", &named("pdf")), "pdf");
        assert_eq!(entry_name("pdf", &named("pdf-tools")), "pdf (pdf-tools)");
        assert_eq!(entry_name("pdf", &Front::default()), "pdf");
    }

    /// `  Reads <PDF>\n\nfiles ` → `Reads &lt;PDF&gt; files`: trimmed,
    /// the two newlines one space, the brackets escaped (23 wide); with
    /// `when_to_use`, ` - ` and it follow.
    #[test]
    fn text_is_processed_as_claude_code_does() {
        let t = text(&front("  Reads <PDF>\n\nfiles "));
        assert_eq!(t, "Reads &lt;PDF&gt; files");
        assert_eq!(width(&t), 23);
        let with = Front {
            when_to_use: Some("a .pdf is named".into()),
            ..front("Reads PDFs")
        };
        assert_eq!(text(&with), "Reads PDFs - a .pdf is named");
        let body = Front {
            first_body_line: Some("b".repeat(150)),
            ..Front::default()
        };
        assert_eq!(text(&body), "b".repeat(100));
        assert_eq!(text(&Front::default()), "");
    }

    /// Wide characters and emoji count 2, combining marks 0.
    #[test]
    fn widths_are_display_widths() {
        assert_eq!(width("日本語"), 6);
        assert_eq!(width("🙂"), 2);
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(width("é"), 1);
        // `- pdf: 日本語` = 3 + 4 + 6.
        let cost = entry_cost("pdf", "日本語", DEFAULT_CAP);
        assert_eq!(cost.cost_chars, 13);
        assert_eq!(cost.description_chars, 6);
        assert_eq!(cost.name_only, 5);
    }

    /// 1,536 units fit; 1,537 are cut to 1,535 and `…`: 1,536 wide. 800
    /// `日` are 800 units and 1,600 wide: not over the cap.
    #[test]
    fn the_cap_is_in_utf16_units() {
        let fits = entry_cost("a", &"x".repeat(1_536), DEFAULT_CAP);
        assert_eq!((fits.cut, fits.cost_chars), (false, 1 + 4 + 1_536));
        let over = entry_cost("a", &"x".repeat(1_537), DEFAULT_CAP);
        assert_eq!(over.description_chars, 1_537);
        assert_eq!((over.cut, over.cost_chars), (true, 1 + 4 + 1_535 + 1));
        let wide = entry_cost("a", &"日".repeat(800), DEFAULT_CAP);
        assert_eq!((wide.cut, wide.cost_chars), (false, 5 + 1_600));
        let wide = entry_cost("a", &"日".repeat(1_600), DEFAULT_CAP);
        assert_eq!((wide.cut, wide.cost_chars), (true, 5 + 2 * 1_535 + 1));
        // An emoji is two units: 1,536 of them are cut after 767.
        let emoji = entry_cost("a", &"🙂".repeat(1_536), DEFAULT_CAP);
        assert_eq!(emoji.cost_chars, 5 + 767 * 2 + 1 + 1);
        let capped = entry_cost("a", &"x".repeat(201), 200);
        assert_eq!(capped.cost_chars, 5 + 200);
    }

    /// Entries 105, 55 and 25 wide (names 1 wide, `- a` 3 by name only):
    /// 187 with the two newlines. At 150 the longest goes (187 − 102 =
    /// 85); at 84 two go (85 − 52 = 33); names alone are 3 × 3 + 2 = 11,
    /// so at 11 all three go, and at 10 (not even names fit) all three.
    #[test]
    fn names_only_at_least_takes_the_longest_first() {
        let e = |text: usize| entry_cost("a", &"x".repeat(text), DEFAULT_CAP);
        let entries = [e(100), e(50), e(20)];
        assert_eq!(listing_cost(entries.iter().map(|e| e.cost_chars)), 187);
        let pairs: Vec<(u64, u64)> = entries
            .iter()
            .map(|e| (e.cost_chars as u64, e.name_only as u64))
            .collect();
        let at = |budget| super::super::names_only_at_least(&pairs, budget, 1);
        assert_eq!(at(187), 0);
        assert_eq!(at(150), 1);
        assert_eq!(at(84), 2);
        assert_eq!(at(11), 3);
        assert_eq!(at(10), 3);
    }
}
