//! The `:` command line: typing, completion, and running a line (see
//! `tui::cmdline`). Reports (`doctor`, `verify`, `why`, `show`,
//! `availability`, `catalog`, `sync`, `harness list|status|sync`; HCP.md
//! §11.2–§11.3, §12.4–§12.8, §13.2, §13.5, §13.8, §14.7) run in a worker
//! (`tui::query`) and show in the Output pane; `doctor --fix` and `sync`
//! ask y/n first; `upgrade ID...` goes through `U`'s diff (§13.7).

use super::*;
use crate::tui::query::{Answer, Query};

impl App {
    /// Typing in the `:` line; `Tab` completes.
    pub(super) fn edit_cmdline(&mut self, action: Action) {
        let line = &mut self.cmdline;
        match action {
            Action::CmdLineStart => {
                *line = CmdLine::default();
                line.editing = true;
            }
            Action::CmdLineChar(c) => line.input.push(c),
            Action::CmdLineBackspace => {
                line.input.pop();
            }
            Action::CmdLineCancel => *line = CmdLine::default(),
            _ => {
                let ids: Vec<&str> = self.packs.entries.iter().map(Row::id).collect();
                let entries = &self.packs.entries;
                let verbs = |id: &str| -> Vec<String> {
                    entries
                        .iter()
                        .find(|r| r.id() == id)
                        .map(|r| r.verbs.iter().map(|v| v.to_string()).collect())
                        .unwrap_or_default()
                };
                let (input, choices) = cmdline::complete(&self.cmdline.input, &ids, verbs);
                self.cmdline.input = input;
                self.cmdline.choices = choices;
            }
        }
    }

    /// `Enter` in the `:` line: the same engine call as `hcpx` with those
    /// words, or why not.
    pub(super) fn submit_cmdline(&mut self) -> Vec<Job> {
        let line = std::mem::take(&mut self.cmdline);
        let parsed = cmdline::split(&line.input).and_then(|w| cmdline::parse(&w));
        let parsed = match parsed {
            Ok(p) => p,
            Err(why) => {
                let text = format!(":{}: {why}", line.input.trim());
                self.say(Outcome::Refused, text, None);
                return Vec::new();
            }
        };
        if let Some(reason) = self.work.refusal() {
            self.say(Outcome::Refused, reason, None);
            return Vec::new();
        }
        match self.unknown_pack(&parsed) {
            Some(id) => self.refuse_unknown(&id),
            None => self.run_parsed(parsed),
        }
    }

    /// The first pack id of `parsed` in neither the store nor a catalog
    /// (`install` looks its ids up itself, in the catalogs).
    fn unknown_pack(&self, parsed: &Parsed) -> Option<String> {
        let ids = match parsed {
            Parsed::Stage(Stage::Install, _) => return None,
            Parsed::Stage(_, ids) | Parsed::Lint(ids) | Parsed::Upgrade(ids) => ids,
            _ => return None,
        };
        ids.iter()
            .find(|id| !self.packs.entries.iter().any(|r| r.id() == id.as_str()))
            .cloned()
    }

    /// A `:` line that parsed, its packs known: the work it starts.
    fn run_parsed(&mut self, parsed: Parsed) -> Vec<Job> {
        match parsed {
            Parsed::Stage(Stage::Uninstall, ids) => {
                self.dialog = Some(Dialog::ConfirmUninstall { ids });
                Vec::new()
            }
            Parsed::Stage(stage, ids) => self.start_stage(stage, ids),
            Parsed::Lint(ids) => {
                let rows: Vec<Row> = self
                    .packs
                    .entries
                    .iter()
                    .filter(|r| ids.iter().any(|id| id == r.id()))
                    .cloned()
                    .collect();
                self.start_lint(rows)
            }
            Parsed::Exec {
                pack_id,
                verb,
                words,
            } => self.run_exec(pack_id, verb, words),
            Parsed::Grant {
                principal,
                grant,
                revoke,
            } => self.grant(principal, grant, revoke),
            Parsed::List => self.lifecycle(Action::Reload),
            Parsed::HarnessView => self.show_harnesses(),
            Parsed::Harness { target, enable } => self.set_harness(target, enable),
            Parsed::Outdated => self.check_updates(),
            Parsed::Upgrade(ids) => self.upgrade_ids(ids),
            Parsed::Query(query) if query.asks() => {
                self.dialog = Some(Dialog::ConfirmQuery { query });
                Vec::new()
            }
            Parsed::Query(query) => self.run_query(query),
        }
    }

    /// `:grant` / `:revoke PRINCIPAL GRANT` (§9) in a worker.
    fn grant(&mut self, principal: String, grant: String, revoke: bool) -> Vec<Job> {
        let sub = if revoke { "revoke" } else { "grant" };
        let args = [sub.to_string(), principal.clone(), grant.clone()];
        self.last_command = Some(self.hcpx(&args, false));
        let job = Job::Grant {
            principal,
            grant,
            revoke,
        };
        self.work.start(job.label());
        vec![job]
    }

    /// Runs a report subcommand in a worker, said as its `hcpx` line.
    pub(super) fn run_query(&mut self, query: Query) -> Vec<Job> {
        if !self.not_busy() {
            return Vec::new();
        }
        self.last_command = Some(self.hcpx(&query.args(), false));
        let job = Job::Query(query);
        self.work.start(job.label());
        vec![job]
    }

    /// A report answered: its document in the Output pane, a line in the
    /// log; the browser read again when it may have changed the store.
    pub(super) fn query_done(&mut self, query: Query, result: Result<Answer, Error>) -> Vec<Job> {
        self.work.finish();
        let command = self.hcpx(&query.args(), false);
        let (outcome, text, body) = match result {
            Ok(answer) => {
                let body = match answer {
                    Answer::Json(doc) => doc,
                    Answer::Why(why) => self.why_text(&why),
                };
                let summary = format!("hcpx {}: see Output", query.args()[0]);
                (Outcome::Done, summary, body)
            }
            Err(err) => {
                let text = self.error_text(&err).text;
                (Outcome::Failed, text.clone(), text)
            }
        };
        self.say(outcome, text, Some(command.clone()));
        self.runs.show_report(Report {
            command,
            ok: outcome == Outcome::Done,
            text: text::safe(&body).to_string(),
        });
        self.focus.set(Pane::Output);
        self.text.output = 0;
        if query.changes() {
            return self.loads.request();
        }
        Vec::new()
    }

    /// `why` in words, with the command line that fixes each condition.
    fn why_text(&self, why: &crate::engine::policy::why::Explanation) -> String {
        let mut lines = Vec::new();
        if why.unmet.is_empty() {
            lines.push(why.explanation.clone());
        }
        for unmet in &why.unmet {
            lines.push(unmet.explanation.clone());
            if let Some(fix) = &unmet.fix {
                lines.push(format!("  fix: {}", self.fix_line(fix)));
            }
        }
        lines.join("\n")
    }

    pub(super) fn refuse_unknown(&mut self, id: &str) -> Vec<Job> {
        let text = format!("no pack `{}` in the store or a catalog", text::safe(id));
        self.say(Outcome::Refused, text, None);
        Vec::new()
    }
}
