//! The command log (lazygit's): every action and exec of the session, with
//! the headless `hcpx` command line that does the same and what came of it,
//! oldest first (HCP.md §11.1: every TUI action is an `hcpx` command).
//! The status line shows the latest outcome for a few
//! seconds; the log keeps the full text. Secrets never get here: a
//! connect's secret is read in the masked input and never part of a line.

/// How an action ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It did what was asked.
    Done,
    /// The engine, or the command, failed.
    Failed,
    /// The TUI refused it at once: it could not succeed (the reason is
    /// availability's).
    Refused,
    /// The user stopped it (a `n`, an `Esc`, an `X`).
    Cancelled,
    /// Something to know that stops nothing (a `--catalog` folder that
    /// does not exist).
    Warning,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::Failed => "failed",
            Outcome::Refused => "refused",
            Outcome::Cancelled => "cancelled",
            Outcome::Warning => "warning",
        }
    }

    pub fn is_error(self) -> bool {
        matches!(self, Outcome::Failed | Outcome::Refused | Outcome::Warning)
    }
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// The equivalent `hcpx` command, when there is one.
    pub command: Option<String>,
    pub outcome: Outcome,
    /// What happened, in words.
    pub text: String,
}

/// The log of one session; the oldest entries go past [`CommandLog::MAX`].
#[derive(Debug, Clone, Default)]
pub struct CommandLog {
    pub entries: Vec<LogEntry>,
}

impl CommandLog {
    pub const MAX: usize = 1000;

    pub fn push(&mut self, entry: LogEntry) {
        if self.entries.len() == Self::MAX {
            self.entries.remove(0);
        }
        self.entries.push(entry);
    }
}
