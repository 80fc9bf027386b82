//! Pure helpers of the transport (HCP.md §16.6):
//!
//! - [`id_from_start`]: the `id` of a message too big to read, from the
//!   start that was read, so that its error is answered with it (a client
//!   waiting on that id would otherwise wait for its whole timeout);
//! - [`Batches`]: the JSON-RPC batches being answered (accepted under
//!   protocol 2025-03-26, the one revision that has them): the answers of
//!   a batch's requests are held until the last one, then written as one
//!   array, as JSON-RPC 2.0 wants.

use rmcp::model::RequestId;
use serde_json::Value;
use std::collections::HashSet;

/// The protocol revision whose clients may send batches.
pub const BATCH_PROTOCOL: &str = "2025-03-26";

/// The top-level `"id"` of a JSON object whose text starts with `start`
/// (the rest unread), when that start holds it whole: a string or a
/// number. `None` when it is not there (yet), `null`, or anything else.
pub fn id_from_start(start: &[u8]) -> Option<Value> {
    let mut at = Scan {
        bytes: start,
        at: 0,
    };
    at.ws();
    if !at.eat(b'{') {
        return None;
    }
    loop {
        at.ws();
        let key = at.string()?;
        at.ws();
        if !at.eat(b':') {
            return None;
        }
        at.ws();
        if serde_json::from_slice::<String>(key).ok()? == "id" {
            return at.id();
        }
        at.skip_value()?;
        at.ws();
        if !at.eat(b',') {
            return None;
        }
    }
}

struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        if hit {
            self.at += 1;
        }
        hit
    }

    /// A whole string, quotes included.
    fn string(&mut self) -> Option<&'a [u8]> {
        let from = self.at;
        if !self.eat(b'"') {
            return None;
        }
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Some(&self.bytes[from..self.at]);
                }
                _ => self.at += 1,
            }
        }
    }

    /// The id's value: a string or a number, read whole.
    fn id(&mut self) -> Option<Value> {
        let text = if self.peek()? == b'"' {
            self.string()?
        } else {
            let from = self.at;
            while self
                .peek()
                .is_some_and(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
            {
                self.at += 1;
            }
            // The number must be followed by something: else it may go on.
            self.peek()?;
            &self.bytes[from..self.at]
        };
        match serde_json::from_slice(text).ok()? {
            v @ (Value::String(_) | Value::Number(_)) => Some(v),
            _ => None,
        }
    }

    /// Skips one value; `None` when the start ends inside it.
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string()?;
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    self.at += 1;
                }
                b',' | b'}' | b']' if depth == 0 => return Some(()),
                _ => self.at += 1,
            }
            if depth == 0 && matches!(self.peek(), Some(b',' | b'}')) {
                return Some(());
            }
        }
    }
}

/// One batch: the requests not answered yet, the answers so far.
struct Batch {
    waiting: HashSet<RequestId>,
    answers: Vec<Value>,
}

/// The batches being answered.
#[derive(Default)]
pub struct Batches {
    open: Vec<Batch>,
}

impl Batches {
    /// A batch of `requests` (their ids) with the `answers` the transport
    /// gave itself (its elements that were no valid message). Returns the
    /// array to write now when nothing is left to wait for (`None` when
    /// there is nothing to write at all).
    pub fn open(&mut self, requests: HashSet<RequestId>, answers: Vec<Value>) -> Option<Value> {
        if requests.is_empty() {
            return (!answers.is_empty()).then_some(Value::Array(answers));
        }
        self.open.push(Batch {
            waiting: requests,
            answers,
        });
        None
    }

    /// Whether `id` is a request of an open batch.
    pub fn holds(&self, id: &RequestId) -> bool {
        self.open.iter().any(|b| b.waiting.contains(id))
    }

    /// Request `id` of a batch is answered (`answer`), or will never be
    /// (`None`: cancelled). Returns the batch's array when it was the last.
    pub fn answered(&mut self, id: &RequestId, answer: Option<Value>) -> Option<Value> {
        let at = self.open.iter().position(|b| b.waiting.contains(id))?;
        let batch = &mut self.open[at];
        batch.waiting.remove(id);
        batch.answers.extend(answer);
        if !batch.waiting.is_empty() {
            return None;
        }
        let batch = self.open.remove(at);
        (!batch.answers.is_empty()).then_some(Value::Array(batch.answers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_id_is_read_from_the_start_of_a_message() {
        let cases: &[(&str, Option<Value>)] = &[
            (
                r#"{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"#,
                Some(json!(7)),
            ),
            (r#"{"id":"a\"b","params":"#, Some(json!("a\"b"))),
            (
                r#"{"params": {"id": 3, "x": [1, {"y": "}"}]}, "id": -4, "#,
                Some(json!(-4)),
            ),
            (r#"{"jsonrpc": "2.0", "params": {"s": "aaaa"#, None),
            (r#"{"id": 12"#, None),
            (r#"{"id": null, "#, None),
            (r#"[{"id": 1}"#, None),
        ];
        for (start, want) in cases {
            assert_eq!(&id_from_start(start.as_bytes()), want, "{start}");
        }
    }
}
