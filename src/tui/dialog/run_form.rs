//! The run form `x` opens for a command's args (HCP.md §4 args, §6.2): one
//! field per arg, checked against its type before anything runs (a required
//! arg without a default, `integer`, `number`, `boolean`, `enum` values), so
//! a mistake is said in the form's words, next to the field, and what was
//! typed stays. `enum` values cycle with `←`/`→` or `Space`, `boolean` with
//! `Space` (or `t`/`f`, `y`/`n`). The engine checks the words again (§6.2);
//! the form only spares a round trip. Its keys are every text input's
//! (`dialog::input_action`); its key bar and drawing are here.

use crate::engine::pack::manifest::{Arg, ArgType, Command};
use crate::tui::config::Config;
use crate::tui::dialog::lines::wrap;
use crate::tui::text;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// One field of the form.
#[derive(Debug, Clone)]
pub struct FormField {
    pub arg: Arg,
    pub value: String,
}

impl FormField {
    /// The values `Space` and `←`/`→` step through, if the field has a
    /// fixed set: `""` (the default) first unless the arg is required
    /// without a default.
    fn choices(&self) -> Option<Vec<String>> {
        let mut values: Vec<String> = match self.arg.kind {
            ArgType::Enum if !self.arg.values.is_empty() => self.arg.values.clone(),
            ArgType::Boolean => vec!["true".into(), "false".into()],
            _ => return None,
        };
        if !(self.arg.required && self.arg.default.is_none()) {
            values.insert(0, String::new());
        }
        Some(values)
    }

    /// Whether `Space` steps the value instead of typing a space.
    pub fn cycles(&self) -> bool {
        self.choices().is_some()
    }

    fn cycle(&mut self, forward: bool) {
        let Some(values) = self.choices() else { return };
        let n = values.len();
        let at = values.iter().position(|v| *v == self.value);
        let next = match (at, forward) {
            (Some(i), true) => (i + 1) % n,
            (Some(i), false) => (i + n - 1) % n,
            (None, true) => 0,
            (None, false) => n - 1,
        };
        self.value = values[next].clone();
    }

    /// What is wrong with the value, in the form's words.
    fn problem(&self) -> Option<String> {
        let (name, v) = (&self.arg.name, self.value.as_str());
        if v.is_empty() {
            return (self.arg.required && self.arg.default.is_none())
                .then(|| format!("{name} is required"));
        }
        match self.arg.kind {
            ArgType::String => None,
            ArgType::Integer => v
                .parse::<i64>()
                .is_err()
                .then(|| format!("{name} takes a whole number (integer), not `{v}`")),
            ArgType::Number => v
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .is_none()
                .then(|| format!("{name} takes a number, not `{v}`")),
            ArgType::Boolean => (!matches!(v, "true" | "false"))
                .then(|| format!("{name} is true or false (Space switches), not `{v}`")),
            ArgType::Enum => (!self.arg.values.iter().any(|x| x == v)).then(|| {
                format!(
                    "{name} is one of {} (← → choose), not `{v}`",
                    self.arg.values.join(", ")
                )
            }),
        }
    }
}

/// The form `x` opens for a command's args.
#[derive(Debug, Clone)]
pub struct ExecForm {
    pub pack_id: String,
    pub verb: String,
    pub summary: String,
    pub effect: &'static str,
    pub fields: Vec<FormField>,
    pub focus: usize,
    /// The last check's complaint, shown under the focused field.
    pub error: Option<String>,
}

impl ExecForm {
    /// A form for `command`, with `remembered` values (what was typed the
    /// last time this command ran or was checked), else empty fields.
    pub fn new(pack_id: &str, command: &Command, remembered: Option<&[String]>) -> ExecForm {
        let fields = command
            .args
            .iter()
            .enumerate()
            .map(|(i, arg)| FormField {
                arg: arg.clone(),
                value: remembered
                    .and_then(|r| r.get(i))
                    .cloned()
                    .unwrap_or_default(),
            })
            .collect();
        ExecForm {
            pack_id: pack_id.to_string(),
            verb: command.key.clone(),
            summary: command.summary.clone(),
            effect: command.effect.as_str(),
            fields,
            focus: 0,
            error: None,
        }
    }

    /// The `k=v` words: one per field with a value.
    pub fn words(&self) -> Vec<String> {
        self.fields
            .iter()
            .filter(|f| !f.value.is_empty())
            .map(|f| format!("{}={}", f.arg.name, f.value))
            .collect()
    }

    /// Every field's value, in order (what the form remembers).
    pub fn values(&self) -> Vec<String> {
        self.fields.iter().map(|f| f.value.clone()).collect()
    }

    /// Checks every field; on the first problem, focuses its field and
    /// keeps the complaint. `true` when the form can run.
    pub fn check(&mut self) -> bool {
        let problem = self
            .fields
            .iter()
            .enumerate()
            .find_map(|(i, f)| f.problem().map(|p| (i, p)));
        match problem {
            Some((i, p)) => {
                self.focus = i;
                self.error = Some(p);
                false
            }
            None => {
                self.error = None;
                true
            }
        }
    }

    /// Whether the focused field steps through values (`←` `→` `Space`).
    pub fn focus_cycles(&self) -> bool {
        self.fields.get(self.focus).is_some_and(FormField::cycles)
    }

    fn focused(&mut self) -> Option<&mut FormField> {
        self.fields.get_mut(self.focus)
    }

    /// A typed character: a space steps an `enum`/`boolean` field; a
    /// `boolean` takes `t`/`y`/`1` as true and `f`/`n`/`0` as false and
    /// no other letter (typing `true` or `false` out gives the same).
    pub fn input(&mut self, c: char) {
        self.error = None;
        if let Some(f) = self.focused() {
            if c == ' ' && f.cycles() {
                f.cycle(true);
            } else if f.arg.kind == ArgType::Boolean {
                match c.to_ascii_lowercase() {
                    't' | 'y' | '1' => f.value = "true".into(),
                    'f' | 'n' | '0' => f.value = "false".into(),
                    _ => {}
                }
            } else {
                f.value.push(c);
            }
        }
    }

    pub fn backspace(&mut self) {
        self.error = None;
        if let Some(f) = self.focused() {
            f.value.pop();
        }
    }

    pub fn clear(&mut self) {
        self.error = None;
        if let Some(f) = self.focused() {
            f.value.clear();
        }
    }

    pub fn cycle(&mut self, forward: bool) {
        self.error = None;
        if let Some(f) = self.focused() {
            f.cycle(forward);
        }
    }

    pub fn move_focus(&mut self, forward: bool) {
        let n = self.fields.len();
        if n > 0 {
            self.focus = (self.focus + if forward { 1 } else { n - 1 }) % n;
        }
    }
}

/// A description of an arg for the exec form: type, required, default,
/// values.
pub fn arg_summary(arg: &Arg) -> String {
    let mut parts = vec![arg.kind.as_str().to_string()];
    if arg.required {
        parts.push("required".into());
    }
    if let Some(default) = &arg.default {
        parts.push(format!(
            "default {}",
            crate::engine::exec::value_text(default)
        ));
    }
    if arg.kind == ArgType::Enum && !arg.values.is_empty() {
        parts.push(format!("one of {}", arg.values.join("|")));
    }
    parts.join(", ")
}

/// The form's key bar (its keys are every text input's): `←` `→`
/// `Space` only where the focused field is an enum or a boolean.
pub fn bar(form: &ExecForm) -> Vec<(&'static str, &'static str)> {
    const KEYS: &[(&str, &str)] = &[
        ("Enter", "run"),
        ("Tab ↑↓", "field"),
        ("← → ␣", "choose"),
        ("Ctrl-U", "clear"),
        ("Esc", "cancel"),
    ];
    let choosing = form.focus_cycles();
    KEYS.iter()
        .filter(|(_, what)| choosing || *what != "choose")
        .copied()
        .collect()
}

// Drawing.

/// The run form: the command's summary, one field per arg with what it
/// takes, the check's complaint under its field; scrolled so the focused
/// field shows when the fields do not all fit in `room` lines.
pub fn lines<'a>(config: &Config, form: &ExecForm, width: usize, room: usize) -> Vec<Line<'a>> {
    let theme = config.theme;
    let mut head = wrap(
        &format!("{} (effect {})", form.summary, form.effect),
        width,
        theme.dim(),
    );
    head.push(Line::raw(""));
    let name_w = form
        .fields
        .iter()
        .map(|f| text::width(&f.arg.name))
        .max()
        .unwrap_or(4)
        .min(width / 3);
    let fields: Vec<Vec<Line<'a>>> = form
        .fields
        .iter()
        .enumerate()
        .map(|(i, field)| form_field(config, form, i, field, name_w, width))
        .collect();
    let mut keys = vec![
        Span::styled("Enter", theme.key()),
        Span::raw(" run  "),
        Span::styled("Tab ↑↓", theme.key()),
        Span::raw(" field  "),
    ];
    // `←` `→` `Space` only step an enum's or a boolean's values.
    if form.focus_cycles() {
        keys.push(Span::styled("← → ␣", theme.key()));
        keys.push(Span::raw(" choose  "));
    }
    keys.extend([
        Span::styled("Esc", theme.key()),
        Span::raw(" cancel  "),
        Span::styled("empty", theme.key()),
        Span::raw(" = default"),
    ]);
    let foot = vec![Line::raw(""), Line::from(keys)];
    // The fields from `first` on, as many as fit; `first` keeps the
    // focused one in view.
    let budget = room.saturating_sub(head.len() + foot.len() + 2).max(1);
    let mut first = 0;
    while first < form.focus
        && fields[first..=form.focus]
            .iter()
            .map(Vec::len)
            .sum::<usize>()
            > budget
    {
        first += 1;
    }
    let mut lines = head;
    if first > 0 {
        lines.push(Line::styled(
            format!("↑ {}", text::count(first, "more field")),
            theme.dim(),
        ));
    }
    let mut used = 0;
    let mut shown = first;
    for block in &fields[first..] {
        if used + block.len() > budget && shown > form.focus {
            break;
        }
        used += block.len();
        shown += 1;
        lines.extend(block.iter().cloned());
    }
    if shown < fields.len() {
        lines.push(Line::styled(
            format!("↓ {}", text::count(fields.len() - shown, "more field")),
            theme.dim(),
        ));
    }
    lines.extend(foot);
    lines
}

fn form_field<'a>(
    config: &Config,
    form: &ExecForm,
    i: usize,
    field: &FormField,
    name_w: usize,
    width: usize,
) -> Vec<Line<'a>> {
    let theme = config.theme;
    let focused = i == form.focus;
    let cursor = if focused { "▏" } else { "" };
    let value_w = width.saturating_sub(name_w + 4);
    let mut lines = vec![Line::from(vec![
        Span::styled(if focused { "▶ " } else { "  " }, theme.key()),
        Span::styled(text::fit(&field.arg.name, name_w), theme.bold()),
        Span::raw(" "),
        Span::styled(
            text::truncate(&format!("{}{cursor}", field.value), value_w),
            if focused {
                theme.selected()
            } else {
                Style::new()
            },
        ),
    ])];
    let mut about = arg_summary(&field.arg);
    if let Some(d) = &field.arg.description {
        about.push_str(" — ");
        about.push_str(d);
    }
    lines.extend(wrap(
        &format!("{}{about}", " ".repeat(name_w + 3)),
        width,
        theme.dim(),
    ));
    if let Some(error) = form.error.as_ref().filter(|_| focused) {
        lines.extend(wrap(
            &format!("{}✗ {error}", " ".repeat(name_w + 3)),
            width,
            theme.bad(),
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(name: &str, kind: ArgType, required: bool, values: &[&str]) -> Arg {
        Arg {
            name: name.into(),
            kind,
            required,
            default: None,
            values: values.iter().map(|v| v.to_string()).collect(),
            description: None,
        }
    }

    fn form(args: Vec<Arg>) -> ExecForm {
        ExecForm {
            pack_id: "acme.x".into(),
            verb: "run".into(),
            summary: String::new(),
            effect: "read",
            fields: args
                .into_iter()
                .map(|arg| FormField {
                    arg,
                    value: String::new(),
                })
                .collect(),
            focus: 0,
            error: None,
        }
    }

    #[test]
    fn checks_required_fields_and_types_in_its_own_words() {
        let mut f = form(vec![
            arg("text", ArgType::String, false, &[]),
            arg("count", ArgType::Integer, true, &[]),
        ]);
        assert!(!f.check());
        assert_eq!(f.focus, 1);
        assert_eq!(f.error.as_deref(), Some("count is required"));
        f.input('x');
        assert!(!f.check());
        assert_eq!(
            f.error.as_deref(),
            Some("count takes a whole number (integer), not `x`")
        );
        f.backspace();
        f.input('4');
        assert!(f.check());
        assert_eq!(f.words(), ["count=4"]);
    }

    #[test]
    fn enum_and_boolean_fields_cycle() {
        let mut f = form(vec![
            arg("level", ArgType::Enum, true, &["low", "high"]),
            arg("dry", ArgType::Boolean, false, &[]),
        ]);
        f.input(' ');
        assert_eq!(f.fields[0].value, "low");
        f.cycle(true);
        assert_eq!(f.fields[0].value, "high");
        f.cycle(true);
        assert_eq!(f.fields[0].value, "low");
        f.cycle(false);
        assert_eq!(f.fields[0].value, "high");
        f.move_focus(true);
        f.input(' ');
        assert_eq!(f.fields[1].value, "true");
        f.input(' ');
        assert_eq!(f.fields[1].value, "false");
        f.input(' ');
        assert_eq!(f.fields[1].value, "", "back to the default");
        assert!(f.check());
        // Typed: the word's first letter decides, the rest is ignored.
        for c in "false".chars() {
            f.input(c);
        }
        assert_eq!(f.fields[1].value, "false");
        for c in "yes".chars() {
            f.input(c);
        }
        assert_eq!(f.fields[1].value, "true");
        assert!(f.check());
    }
}
