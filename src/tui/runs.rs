//! The pack commands run from the TUI (HCP.md §6 exec) and the `:` line's
//! reports: the last exec (from the run form or `:exec`), for `.` (rerun); what was typed in each
//! command's form, for the next time it opens; and what the Output pane
//! shows: the running exec's output as it comes (redacted by the engine as
//! the result is, §14.3, and bounded by the same cap), else the last exec's
//! result (§6.7, redacted by the engine, §14.3) or the last report,
//! whichever came last.

use crate::engine::error::Error;
use crate::engine::exec::live::{Chunk, Stream};
use crate::engine::ops::ExecResult;
use crate::tui::dialog::run_form::ExecForm;
use std::collections::HashMap;

/// The last exec's result, for the output pane.
#[derive(Debug, Clone)]
pub struct ExecOutput {
    pub pack_id: String,
    pub verb: String,
    /// The equivalent `hcpx exec` command.
    pub command: String,
    pub result: Result<ExecResult, Error>,
}

/// The last `:` report (doctor, show, why…) for the Output pane.
#[derive(Debug, Clone)]
pub struct Report {
    /// The equivalent `hcpx` command.
    pub command: String,
    pub ok: bool,
    /// Its words (or its error), terminal-safe.
    pub text: String,
    /// Its `--json` document, terminal-safe, when it has one.
    pub json: Option<String>,
    /// Whether the Output pane shows the document (`J`, or `--json`).
    pub show_json: bool,
    /// The answers of the same key on the other store, each under its own
    /// command line (a change of packs of both stores, HCP.md §15.5);
    /// `J` shows their documents too.
    pub also: Vec<Report>,
}

impl Report {
    /// What the Output pane shows: the words, or with `J` the document.
    pub fn shown(&self) -> &str {
        self.shown_as(self.show_json)
    }

    /// The words, or (`json`) the document.
    pub fn shown_as(&self, json: bool) -> &str {
        match (&self.json, json) {
            (Some(doc), true) => doc,
            _ => &self.text,
        }
    }
}

/// An exec that ran, as `.` runs it again: `hcpx exec PACK VERB -- WORDS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastRun {
    pub pack_id: String,
    pub verb: String,
    /// The `k=v` words, as the form or the `:exec` line gave them.
    pub words: Vec<String>,
}

/// The exec running now: what it printed so far.
#[derive(Debug, Clone)]
pub struct LiveRun {
    /// Which run (chunks of an earlier one are not shown).
    pub id: u64,
    /// `PACK VERB`.
    pub what: String,
    /// The equivalent `hcpx exec` command.
    pub command: String,
    pub started: std::time::Instant,
    pub stdout: String,
    pub stderr: String,
    /// The commands it starts (`X` ends them, and only them).
    pub scope: crate::engine::exec::process::Scope,
    /// `X` ended its process group: its result says "cancelled".
    pub cancelled: bool,
}

impl LiveRun {
    /// Adds a chunk, keeping each stream within the capture cap.
    fn push(&mut self, chunk: &Chunk) {
        let stream = match chunk.stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        };
        let room = crate::engine::exec::OUTPUT_LIMIT.saturating_sub(stream.len());
        let mut end = chunk.text.len().min(room);
        while !chunk.text.is_char_boundary(end) {
            end -= 1;
        }
        stream.push_str(&chunk.text[..end]);
    }
}

/// Runs and their results.
#[derive(Debug, Default)]
pub struct Runs {
    /// The execs running now, oldest first.
    live: Vec<LiveRun>,
    /// Which of them the Output pane shows and `X` cancels.
    shown: usize,
    /// The id the next run gets.
    next_id: u64,
    /// The last exec, for `.` (rerun).
    last: Option<LastRun>,
    /// What was typed in each command's form, by (pack, verb).
    remembered: HashMap<(String, String), Vec<String>>,
    output: Option<ExecOutput>,
    /// The last `:` report, shown in the Output pane instead of `output`.
    report: Option<Report>,
}

impl Runs {
    /// Keeps what was typed in `form` for the next time it opens.
    pub fn remember(&mut self, form: &ExecForm) {
        self.remembered
            .insert((form.pack_id.clone(), form.verb.clone()), form.values());
    }

    /// What was last typed in the form of `pack_id`'s `verb`.
    pub fn remembered(&self, pack_id: &str, verb: &str) -> Option<&[String]> {
        self.remembered
            .get(&(pack_id.to_string(), verb.to_string()))
            .map(Vec::as_slice)
    }

    /// An exec started: `.` runs it again.
    pub fn ran(&mut self, run: LastRun) {
        self.last = Some(run);
    }

    /// The exec `.` runs again, if one ran.
    pub fn last(&self) -> Option<&LastRun> {
        self.last.as_ref()
    }

    /// An exec starts: the Output pane shows what it prints, and not the
    /// previous result. Returns its id (for its chunks) and the scope its
    /// commands run in.
    pub fn start_live(
        &mut self,
        what: String,
        command: String,
    ) -> (u64, crate::engine::exec::process::Scope) {
        self.next_id += 1;
        let scope = crate::engine::exec::process::Scope::new();
        self.live.push(LiveRun {
            id: self.next_id,
            what,
            command,
            started: std::time::Instant::now(),
            stdout: String::new(),
            stderr: String::new(),
            scope,
            cancelled: false,
        });
        self.shown = self.live.len() - 1;
        (self.next_id, scope)
    }

    /// A chunk of run `id`'s output.
    pub fn live_chunk(&mut self, id: u64, chunk: &Chunk) {
        if let Some(live) = self.live.iter_mut().find(|l| l.id == id) {
            live.push(chunk);
        }
    }

    /// The exec the Output pane shows, with what it printed so far.
    pub fn live(&self) -> Option<&LiveRun> {
        self.live.get(self.shown)
    }

    /// [`Runs::live`], to cancel it.
    pub fn live_mut(&mut self) -> Option<&mut LiveRun> {
        self.live.get_mut(self.shown)
    }

    /// Every exec running, oldest first.
    pub fn lives(&self) -> &[LiveRun] {
        &self.live
    }

    /// Which of [`Runs::lives`] is shown.
    pub fn shown(&self) -> usize {
        self.shown
    }

    /// `J`: show (and let `X` cancel) the next running exec.
    pub fn show_next(&mut self) {
        if !self.live.is_empty() {
            self.shown = (self.shown + 1) % self.live.len();
        }
    }

    /// Run `id` ended: it leaves the running ones.
    pub fn end_live(&mut self, id: u64) -> Option<LiveRun> {
        let at = self.live.iter().position(|l| l.id == id)?;
        let run = self.live.remove(at);
        if self.shown > at || self.shown >= self.live.len() {
            self.shown = self.shown.saturating_sub(1);
        }
        Some(run)
    }

    /// An exec finished: the Output pane shows its result.
    pub fn show_exec(&mut self, output: ExecOutput) {
        self.report = None;
        self.output = Some(output);
    }

    /// A report answered: the Output pane shows it.
    pub fn show_report(&mut self, report: Report) {
        self.output = None;
        self.report = Some(report);
    }

    /// Another store's answer to the same key, under the report shown
    /// ([`Report::also`]); shown alone when there is none.
    pub fn add_report(&mut self, report: Report) {
        match &mut self.report {
            Some(shown) if self.output.is_none() => shown.also.push(report),
            _ => self.show_report(report),
        }
    }

    /// `J`: the last report's document instead of its words, or back.
    pub fn toggle_json(&mut self) {
        if let Some(report) = &mut self.report {
            report.show_json = !report.show_json;
        }
    }

    /// The last exec's result, unless a report came after it.
    pub fn output(&self) -> Option<&ExecOutput> {
        self.output.as_ref()
    }

    /// The last report, unless an exec came after it.
    pub fn report(&self) -> Option<&Report> {
        self.report.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::dialog::run_form::FormField;

    fn form(verb: &str, value: &str) -> ExecForm {
        ExecForm {
            pack_id: "acme.notes".into(),
            verb: verb.into(),
            summary: String::new(),
            effect: "read",
            fields: vec![FormField {
                arg: crate::engine::pack::manifest::Arg {
                    name: "q".into(),
                    ..Default::default()
                },
                value: value.into(),
            }],
            focus: 0,
            error: None,
        }
    }

    #[test]
    fn each_command_remembers_its_own_values() {
        let mut runs = Runs::default();
        runs.remember(&form("search", "todo"));
        runs.remember(&form("list", "all"));
        runs.remember(&form("search", "done"));
        assert_eq!(
            runs.remembered("acme.notes", "search"),
            Some(&["done".to_string()][..])
        );
        assert_eq!(
            runs.remembered("acme.notes", "list"),
            Some(&["all".to_string()][..])
        );
        assert_eq!(runs.remembered("acme.other", "list"), None);
    }

    #[test]
    fn rerun_is_the_last_form_run() {
        let mut runs = Runs::default();
        assert!(runs.last().is_none());
        let run = |verb: &str| LastRun {
            pack_id: "acme.notes".into(),
            verb: verb.into(),
            words: vec!["q=a".into()],
        };
        runs.ran(run("search"));
        runs.ran(run("list"));
        assert_eq!(runs.last().map(|r| r.verb.as_str()), Some("list"));
    }

    #[test]
    fn the_output_pane_shows_whichever_came_last() {
        let mut runs = Runs::default();
        let output = ExecOutput {
            pack_id: "acme.notes".into(),
            verb: "list".into(),
            command: "hcpx exec acme.notes list".into(),
            result: Err(Error::new(
                crate::engine::error::ErrorCode::Usage,
                "no such verb",
            )),
        };
        runs.show_exec(output.clone());
        assert!(runs.output().is_some() && runs.report().is_none());
        runs.show_report(Report {
            command: "hcpx doctor".into(),
            ok: true,
            text: "{}".into(),
            json: None,
            show_json: false,
            also: Vec::new(),
        });
        assert!(runs.output().is_none());
        assert_eq!(runs.report().map(|r| r.ok), Some(true));
        runs.show_exec(output);
        assert!(runs.output().is_some() && runs.report().is_none());
    }
}
