//! Redaction of the Binding's material in what a command printed (HCP.md
//! §8.3, §14.3, §6.7): every value of the material (a `secret` Binding's
//! secret, an `env` Binding's variables) is replaced by `********` in
//! captured stdout and stderr, in `data`, in error messages and in a streamed
//! `http` response body.
//!
//! Where the spec is silent:
//! - **Escaped forms.** A command that prints JSON shows a secret escaped: a
//!   `"` as `\"`, a `\` as `\\`, a control character as `\n` or `\u001b`,
//!   and (Python's default, PHP's) non-ASCII as `\u00e9` and `/` as `\/`.
//!   Text is searched for the raw value and for each of these forms. `data`
//!   is redacted after parsing (in its strings and object keys), so no
//!   escaping hides a value there; and when stdout still holds a value once
//!   parsed (an escape this list does not know), stdout is replaced by the
//!   redacted `data` printed as JSON. A number whose digits hold a value
//!   becomes the string `"********"` in `data`.
//! - **The capture cap.** A stream cut at the cap may end with the first
//!   part of a value; such a tail (the longest end of the text that begins
//!   some form of a value) is replaced by `********` too.
//! - Values are redacted whatever their length (an `env` value `1` hides
//!   every `1`): what a Binding declares as material is treated as secret.

use crate::engine::error::Error;
use serde_json::Value;
use std::io::{self, Write};

/// What every redacted value is replaced by (§14.3).
pub const MARKER: &str = "********";

/// The values to hide, in every text form they may take.
#[derive(Clone, Default)]
pub struct Redactor {
    /// The raw values, for parsed JSON.
    values: Vec<String>,
    /// The raw values and their escaped forms, longest first.
    forms: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} values)", self.values.len())
    }
}

impl Redactor {
    /// A redactor for these values (empty ones are ignored).
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        let mut values: Vec<String> = values
            .into_iter()
            .filter(|v| !v.is_empty())
            .map(str::to_string)
            .collect();
        values.sort();
        values.dedup();
        let mut forms: Vec<String> = values.iter().flat_map(|v| text_forms(v)).collect();
        forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        forms.dedup();
        Redactor { values, forms }
    }

    /// A redactor for a Binding's material, `(NAME, value)` pairs (§8.3).
    pub fn for_material(material: &[(String, String)]) -> Self {
        Redactor::new(material.iter().map(|(_, v)| v.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every form of every value replaced by [`MARKER`].
    pub fn text(&self, text: &mut String) {
        for form in &self.forms {
            if text.contains(form.as_str()) {
                *text = text.replace(form.as_str(), MARKER);
            }
        }
    }

    /// [`Redactor::text`] for a stream cut at the capture cap: also a tail
    /// that begins some form of a value.
    pub fn cut_text(&self, text: &mut String) {
        self.text(text);
        let longest = self
            .forms
            .iter()
            .filter_map(|form| {
                form.char_indices()
                    .map(|(i, _)| i)
                    .skip(1)
                    .filter(|&i| text.ends_with(&form[..i]))
                    .max()
            })
            .max();
        if let Some(len) = longest {
            text.truncate(text.len() - len);
            text.push_str(MARKER);
        }
    }

    /// Redacts the strings and object keys of a JSON value, and numbers
    /// whose text holds a value (they become strings). Returns whether
    /// anything was replaced.
    pub fn value(&self, value: &mut Value) -> bool {
        if self.is_empty() {
            return false;
        }
        match value {
            Value::String(s) => self.raw(s),
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, item| self.value(item) | changed),
            Value::Object(members) => {
                let mut changed = false;
                let old = std::mem::take(members);
                for (mut key, mut member) in old {
                    changed |= self.raw(&mut key);
                    changed |= self.value(&mut member);
                    members.insert(key, member);
                }
                changed
            }
            Value::Number(n) => {
                // A value made of digits may be printed as a number.
                let mut text = n.to_string();
                let changed = self.raw(&mut text);
                if changed {
                    *value = Value::String(text);
                }
                changed
            }
            Value::Null | Value::Bool(_) => false,
        }
    }

    /// Whether parsing `text` as JSON shows a value in any string.
    pub fn leaks_through_json(&self, text: &str) -> bool {
        serde_json::from_str::<Value>(text).is_ok_and(|mut v| self.value(&mut v))
    }

    /// Replaces the raw values only (decoded text, such as parsed JSON).
    fn raw(&self, text: &mut String) -> bool {
        let mut changed = false;
        for value in &self.values {
            if text.contains(value.as_str()) {
                *text = text.replace(value.as_str(), MARKER);
                changed = true;
            }
        }
        changed
    }

    /// An error with its message, hint and path redacted.
    pub fn error(&self, mut err: Error) -> Error {
        if self.is_empty() {
            return err;
        }
        self.text(&mut err.message);
        if let Some(hint) = err.context.hint.as_mut() {
            hint.map_words(|words| {
                self.text(words);
            });
        }
        if let Some(path) = err.context.path.as_mut() {
            self.text(path);
        }
        err
    }

    /// A writer that passes bytes on to `inner` with every form of every
    /// value replaced. Call [`RedactingWriter::finish`] at the end.
    pub fn writer<'w>(&self, inner: &'w mut dyn Write) -> RedactingWriter<'_, 'w> {
        RedactingWriter {
            redactor: self,
            inner,
            pending: Vec::new(),
        }
    }

    /// Replaces every form of every value in `bytes` by [`MARKER`].
    pub(crate) fn replace_bytes(&self, bytes: &mut Vec<u8>) {
        for form in &self.forms {
            replace_bytes(bytes, form.as_bytes(), MARKER.as_bytes());
        }
    }

    /// How many bytes at the end of `bytes` begin some form of a value
    /// (the longest such tail; 0 when none does).
    pub(crate) fn held_back(&self, bytes: &[u8]) -> usize {
        self.forms
            .iter()
            .filter_map(|form| {
                let form = form.as_bytes();
                (1..form.len().min(bytes.len() + 1))
                    .rev()
                    .find(|&n| bytes.ends_with(&form[..n]))
            })
            .max()
            .unwrap_or(0)
    }

    fn longest_form(&self) -> usize {
        self.forms.first().map_or(0, String::len)
    }
}

/// The forms a value takes in text: as is, and JSON-escaped (minimal,
/// ASCII-only with lower- and upper-case hex, each with `/` as `\/` too).
fn text_forms(value: &str) -> Vec<String> {
    let minimal = serde_json::to_string(value).unwrap_or_default();
    let minimal = minimal
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or_default()
        .to_string();
    let ascii = |upper: bool| {
        let mut out = String::new();
        for c in minimal.chars() {
            if c.is_ascii() {
                out.push(c);
                continue;
            }
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                if upper {
                    out.push_str(&format!("\\u{unit:04X}"));
                } else {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
        out
    };
    let mut forms = vec![value.to_string(), ascii(false), ascii(true)];
    forms.push(minimal);
    let slashed: Vec<String> = forms[1..].iter().map(|f| f.replace('/', "\\/")).collect();
    forms.extend(slashed);
    forms.retain(|f| !f.is_empty());
    forms
}

/// See [`Redactor::writer`]. Holds back the last bytes that could begin a
/// value until more arrive or the stream ends.
pub struct RedactingWriter<'r, 'w> {
    redactor: &'r Redactor,
    inner: &'w mut dyn Write,
    pending: Vec<u8>,
}

impl RedactingWriter<'_, '_> {
    /// Writes what is held back, then flushes.
    pub fn finish(mut self) -> io::Result<()> {
        let rest = std::mem::take(&mut self.pending);
        self.inner.write_all(&rest)?;
        self.inner.flush()
    }
}

impl Write for RedactingWriter<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.redactor.is_empty() {
            return self.inner.write(buf);
        }
        self.pending.extend_from_slice(buf);
        for form in &self.redactor.forms {
            replace_bytes(&mut self.pending, form.as_bytes(), MARKER.as_bytes());
        }
        // A value that starts in what is written now ends within `pending`,
        // so it has been replaced; what may begin one is kept back.
        let keep = self.redactor.longest_form().saturating_sub(1);
        let ready = self.pending.len().saturating_sub(keep);
        if ready > 0 {
            self.inner.write_all(&self.pending[..ready])?;
            self.pending.drain(..ready);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Replaces every occurrence of `from` (non-empty) in `bytes` by `to`.
fn replace_bytes(bytes: &mut Vec<u8>, from: &[u8], to: &[u8]) {
    if from.is_empty() || bytes.len() < from.len() {
        return;
    }
    let Some(first) = bytes.windows(from.len()).position(|w| w == from) else {
        return;
    };
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..first]);
    let mut i = first;
    while i < bytes.len() {
        if bytes[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    *bytes = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn raw_and_escaped_forms_are_hidden() {
        let r = Redactor::new(["tok\"/é\\x", "plain-123", ""]);
        let mut text = String::from(
            "a tok\"/é\\x b \"tok\\\"/é\\\\x\" c tok\\\"\\/\\u00e9\\\\x d tok\\\"/\\u00E9\\\\x e plain-123",
        );
        r.text(&mut text);
        assert_eq!(
            text,
            "a ******** b \"********\" c ******** d ******** e ********"
        );
        let mut nothing = String::from("nothing here");
        Redactor::new([""]).text(&mut nothing);
        assert_eq!(nothing, "nothing here");
    }

    #[test]
    fn a_value_cut_at_the_cap_is_hidden() {
        let r = Redactor::new(["hunter2-long"]);
        let mut text = String::from("start hunter2-long middle hunter2-lo");
        r.cut_text(&mut text);
        assert_eq!(text, "start ******** middle ********");
        let mut text = String::from("ends with h");
        r.cut_text(&mut text);
        assert_eq!(text, "ends with ********");
        let mut text = String::from("ends clean");
        r.cut_text(&mut text);
        assert_eq!(text, "ends clean");
    }

    #[test]
    fn json_values_and_keys_are_hidden() {
        let r = Redactor::new(["s3cr\"t"]);
        let mut v = json!({"echo": "Bearer s3cr\"t", "s3cr\"t": [1, "s3cr\"t"], "n": 5});
        assert!(r.value(&mut v));
        assert_eq!(
            v,
            json!({"echo": "Bearer ********", "********": [1, "********"], "n": 5})
        );
        assert!(!r.value(&mut json!({"a": "b"})));
        let digits = Redactor::new(["4242"]);
        let mut v = json!({"pin": 4242, "other": 7});
        assert!(digits.value(&mut v));
        assert_eq!(v, json!({"pin": "********", "other": 7}));
        assert!(r.leaks_through_json(r#"{"a": "s3cr\u0022t"}"#));
        assert!(!r.leaks_through_json(r#"{"a": "********"}"#));
    }

    #[test]
    fn errors_are_redacted() {
        let r = Redactor::new(["zq9"]);
        let e = r.error(
            Error::new(crate::engine::error::ErrorCode::Io, "saw zq9")
                .hint("zq9 again")
                .path("/zq9"),
        );
        let shown = serde_json::to_string(&e).unwrap_or_default();
        assert!(!shown.contains("zq9"), "{shown}");
        assert!(shown.contains(MARKER), "{shown}");
    }

    #[test]
    fn streamed_bytes_are_redacted_across_writes() -> io::Result<()> {
        let r = Redactor::new(["abcdef"]);
        let mut out = Vec::new();
        let mut w = r.writer(&mut out);
        for chunk in [&b"xxab"[..], b"c", b"def yy abc", b"de", b"f", b" zz ab"] {
            w.write_all(chunk)?;
        }
        w.finish()?;
        assert_eq!(
            String::from_utf8_lossy(&out),
            "xx******** yy ******** zz ab"
        );
        let empty = Redactor::default();
        let mut out = Vec::new();
        let mut w = empty.writer(&mut out);
        w.write_all(b"as is")?;
        w.finish()?;
        assert_eq!(out, b"as is");
        Ok(())
    }
}
