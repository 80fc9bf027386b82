//! A running command's output as it comes (for a front-end that shows it
//! live, HCP.md §6.7): a [`Tap`] is called with each [`Chunk`] of stdout
//! or stderr the exec engine reads, redacted as the final result is
//! (§14.3) and bounded by the same cap ([`super::Limits::output_bytes`]:
//! the tap sees only what is kept). The engine knows nothing of who
//! listens: the tap is a plain callback.
//!
//! Where the spec is silent:
//! - **A value split across reads.** The end of what was read that could
//!   begin some form of a value is held back until the next read shows
//!   whether it is one. When the stream ends with such a tail it is
//!   replaced by `********`: a command cancelled (or ended) in the middle
//!   of printing a value must not show its first part, and the live view
//!   cannot know whether the rest would have come. An incomplete UTF-8
//!   character is held back too.
//! - Only a `process` command's streams are tapped; an `http` body reaches
//!   the result only.

use super::redact::{MARKER, Redactor};
use std::sync::Arc;

/// Which stream a chunk was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// A piece of a running command's output, redacted, as UTF-8 (invalid
/// bytes replaced). It may end in the middle of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub stream: Stream,
    pub text: String,
}

/// The callback a caller passes to see output live; called from the
/// engine's reader threads.
#[derive(Clone)]
pub struct Tap(Arc<dyn Fn(Chunk) + Send + Sync>);

impl Tap {
    pub fn new(f: impl Fn(Chunk) + Send + Sync + 'static) -> Tap {
        Tap(Arc::new(f))
    }
}

impl std::fmt::Debug for Tap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tap")
    }
}

/// One stream on its way to a [`Tap`]: what was read, less what is held
/// back (see the module docs).
pub(crate) struct Live {
    tap: Tap,
    stream: Stream,
    redactor: Redactor,
    pending: Vec<u8>,
}

impl Live {
    pub(crate) fn new(tap: Tap, stream: Stream, redactor: Redactor) -> Live {
        Live {
            tap,
            stream,
            redactor,
            pending: Vec::new(),
        }
    }

    /// Bytes read: passes on what can no longer be part of a value.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        self.redactor.replace_bytes(&mut self.pending);
        let keep = self.redactor.held_back(&self.pending);
        let ready = complete_utf8(&self.pending[..self.pending.len() - keep]);
        if ready > 0 {
            let rest = self.pending.split_off(ready);
            let text = String::from_utf8_lossy(&self.pending).into_owned();
            self.pending = rest;
            (self.tap.0)(Chunk {
                stream: self.stream,
                text,
            });
        }
    }

    /// The stream ended (`cut`: at the cap): what was held back goes, a
    /// tail that begins a value as `********`.
    pub(crate) fn finish(mut self, cut: bool) {
        let mut rest = std::mem::take(&mut self.pending);
        let keep = self.redactor.held_back(&rest);
        if keep > 0 {
            rest.truncate(rest.len() - keep);
            rest.extend_from_slice(MARKER.as_bytes());
        }
        if cut {
            // An incomplete character at the cap is dropped, as in the
            // result.
            rest.truncate(complete_utf8(&rest));
        }
        if !rest.is_empty() {
            (self.tap.0)(Chunk {
                stream: self.stream,
                text: String::from_utf8_lossy(&rest).into_owned(),
            });
        }
    }
}

/// The length of `bytes` without an incomplete UTF-8 character at its end.
fn complete_utf8(bytes: &[u8]) -> usize {
    super::complete_utf8_len(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Feeds `reads` to a live stream hiding `secret`; returns what the
    /// tap saw, chunk by chunk.
    fn seen(secret: &str, reads: &[&[u8]], cut: bool) -> Vec<String> {
        let got = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&got);
        let tap = Tap::new(move |c: Chunk| sink.lock().unwrap().push(c.text));
        let mut live = Live::new(tap, Stream::Stdout, Redactor::new([secret]));
        for read in reads {
            live.push(read);
        }
        live.finish(cut);
        let seen = got.lock().unwrap();
        seen.clone()
    }

    #[test]
    fn a_secret_split_across_reads_never_shows() {
        let chunks = seen(
            "hunter2-Tok",
            &[b"token=hun", b"ter2-", b"Tok done\n"],
            false,
        );
        let all = chunks.concat();
        assert_eq!(all, "token=******** done\n");
        assert!(chunks.iter().all(|c| !c.contains("hun")), "{chunks:?}");
    }

    #[test]
    fn text_that_cannot_begin_a_value_is_passed_on_at_once() {
        let chunks = seen("hunter2", &[b"waiting for the file\n"], false);
        assert_eq!(chunks, ["waiting for the file\n"]);
    }

    #[test]
    fn a_tail_that_begins_a_value_is_held_then_passed_or_hidden() {
        // Not a value after all: passed on once more comes.
        let chunks = seen("hunter2", &[b"a hunt", b"ing\n"], false);
        assert_eq!(chunks.concat(), "a hunting\n");
        // The stream ends there (killed, or cut at the cap): it may be
        // the value's start.
        for cut in [false, true] {
            let chunks = seen("hunter2", &[b"a hunt"], cut);
            assert_eq!(chunks.concat(), "a ********");
        }
    }

    #[test]
    fn a_character_split_across_reads_arrives_whole() {
        let chunks = seen(
            "x-secret",
            &["é".as_bytes()[..1].as_ref(), &"é".as_bytes()[1..]],
            false,
        );
        assert_eq!(chunks, ["é"]);
    }
}
