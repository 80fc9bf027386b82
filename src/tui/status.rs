//! The status line's message: what the last action came to, for a few
//! seconds ([`NOTICE_TICKS`]); the command log (`tui::log`) keeps it for
//! good. Engine errors show in the words of HCP.md §10 (`code: message`,
//! then the hint); the text is the workers' and already terminal-safe
//! (§14.5).

/// How many ticks the status line keeps a message (5 s); the command log
/// keeps it for good.
pub const NOTICE_TICKS: u64 = 50;

/// A one-line message in the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

impl Notice {
    /// A message in the "good" colour.
    pub fn info(text: String) -> Notice {
        Notice { text, error: false }
    }

    /// A message in the "bad" colour.
    pub fn error(text: String) -> Notice {
        Notice { text, error: true }
    }
}

/// The message shown, and the clock that expires it.
#[derive(Debug, Clone, Default)]
pub struct StatusLine {
    notice: Option<Notice>,
    /// The notice the clock last saw, and since when.
    seen: Option<Notice>,
    since: u64,
}

impl StatusLine {
    /// The message shown now, if any.
    pub fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    /// Shows `notice`. The same message shown again keeps its clock.
    pub fn set(&mut self, notice: Notice) {
        self.notice = Some(notice);
    }

    pub fn info(&mut self, text: String) {
        self.set(Notice::info(text));
    }

    pub fn error(&mut self, text: String) {
        self.set(Notice::error(text));
    }

    /// Shows `notice` for a full [`NOTICE_TICKS`], even when the same
    /// message shows already (an outcome said again).
    pub fn say(&mut self, notice: Notice) {
        self.notice = Some(notice);
        self.seen = None;
    }

    pub fn clear(&mut self) {
        self.notice = None;
    }

    /// The clock at `ticks`: a message shown for [`NOTICE_TICKS`] goes.
    pub fn tick(&mut self, ticks: u64) {
        if self.notice != self.seen {
            self.seen = self.notice.clone();
            self.since = ticks;
        } else if self.notice.is_some() && ticks - self.since >= NOTICE_TICKS {
            self.notice = None;
            self.seen = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(status: &StatusLine) -> Option<&str> {
        status.notice().map(|n| n.text.as_str())
    }

    #[test]
    fn a_message_goes_after_notice_ticks() {
        let mut status = StatusLine::default();
        status.info("sorted by name".into());
        for t in 1..=NOTICE_TICKS {
            status.tick(t);
            assert_eq!(shown(&status), Some("sorted by name"), "tick {t}");
        }
        status.tick(NOTICE_TICKS + 1);
        assert_eq!(shown(&status), None);
    }

    #[test]
    fn the_clock_starts_again_for_a_new_message_or_one_said_again() {
        let mut status = StatusLine::default();
        status.info("one".into());
        status.tick(1);
        status.info("one".into());
        status.tick(NOTICE_TICKS + 1);
        assert_eq!(shown(&status), None, "set again: the clock ran on");

        status.info("one".into());
        status.tick(100);
        status.error("two".into());
        status.tick(101);
        status.tick(100 + NOTICE_TICKS);
        let notice = status.notice().expect("a new message: a new clock");
        assert_eq!((notice.text.as_str(), notice.error), ("two", true));

        status.say(Notice::error("two".into()));
        status.tick(160);
        status.tick(160 + NOTICE_TICKS - 1);
        assert_eq!(shown(&status), Some("two"), "said again: a new clock");
    }

    #[test]
    fn cleared_shows_nothing() {
        let mut status = StatusLine::default();
        status.error("x".into());
        status.clear();
        assert_eq!(shown(&status), None);
    }
}
