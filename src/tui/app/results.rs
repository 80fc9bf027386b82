//! What the workers report back: loads, stages, execs, lint, grants; each
//! outcome said once, in the status line and the command log. A stage (a
//! lifecycle key, its `:` line, the picker's choice), the Harnesses view's
//! toggle and `U`'s confirmed upgrade are said in the CLI's words: the
//! Output pane shows their outcomes' words, `J` their `--json` documents
//! (a stage of both stores' packs: each store's under its own command).

use super::*;

impl App {
    pub(super) fn done(&mut self, result: JobResult) -> Vec<Job> {
        match result {
            JobResult::Loaded { stamp, result } => self.loaded_done(stamp, result),
            JobResult::Stamp(stamp) => self.loads.stamp_read(stamp),
            JobResult::Inspected { lint, result } => {
                self.inspected_done(lint, result);
                Vec::new()
            }
            JobResult::Stage(report) => self.stage_done(report),
            JobResult::Stages(reports) => self.stages_done(reports),
            JobResult::InstalledChosen(report) => self.chosen_done(report),
            JobResult::Marks(marks) => self.marks_done(marks),
            JobResult::Upgraded {
                ids,
                yes,
                answer,
                flags,
            } => self.upgrade_done(ids, yes, answer, &flags),
            JobResult::Outdated(result) => {
                self.outdated_done(result);
                Vec::new()
            }
            JobResult::Harnesses(rows) => {
                self.harnesses_read(rows);
                Vec::new()
            }
            JobResult::HarnessToggled {
                request,
                answer,
                flags,
                rows,
                store,
            } => self.harness_toggled((&request, store), &answer, &flags, rows),
            JobResult::Executed {
                run,
                pack_id,
                verb,
                args: _,
                result,
            } => {
                self.exec_done(run, pack_id, verb, result);
                Vec::new()
            }
            JobResult::Queried { query, result } => self.query_done(query, result),
            JobResult::Panicked(message) => {
                self.fatal = Some(message);
                self.quit = true;
                Vec::new()
            }
        }
    }

    /// The store's packs read (or not); a reload asked for with `r` says
    /// how it went.
    fn loaded_done(
        &mut self,
        stamp: Stamp,
        result: Result<crate::tui::job::Loaded, Error>,
    ) -> Vec<Job> {
        let mut jobs = match result {
            Ok(loaded) => {
                if self.loads.read(stamp) {
                    self.status.info("the store reads again".into());
                }
                // The jobs after it look packs up in these catalogs.
                self.session.set_catalogs(loaded.catalogs);
                self.config.powers = loaded.powers;
                if std::mem::take(&mut self.config.announce_powers) {
                    let words = loaded.powers.words(&self.config.principal);
                    self.status.info(words);
                }
                self.packs.set_entries(loaded.rows);
                if let Some(id) = self.select_next_load.take() {
                    self.select_installed(Some(&id));
                }
                let mut jobs = self.inspect_job();
                jobs.extend(self.loads.marks());
                jobs
            }
            Err(err) => {
                tracing::warn!(code = err.code.as_str(), "loading the store failed");
                self.status.set(self.error_text(&err));
                self.loads.failed(stamp, err);
                Vec::new()
            }
        };
        if self.loads.take_asked() {
            self.say_reloaded();
        }
        jobs.extend(self.loads.take_queued());
        jobs
    }

    /// How the reload `r` asked for went, in the log.
    fn say_reloaded(&mut self) {
        let command = self.hcpx(&["list".into()], false);
        match self.loads.error() {
            Some(err) => {
                let text = self.error_text(err).text;
                self.say(Outcome::Failed, text, Some(command));
            }
            None => {
                let n = self.packs.entries.len();
                let text = format!("reloaded: {}", crate::tui::text::count(n, "pack"));
                self.say(Outcome::Done, text, Some(command));
            }
        }
    }

    /// The selected packs inspected (or linted, with `lint`).
    fn inspected_done(&mut self, lint: bool, result: Result<Inspected, Error>) {
        let read = result.as_ref().ok().map(|list| {
            list.found
                .iter()
                .map(|i| i.entry.id())
                .chain(list.gone.iter().map(|key| &*key.0))
                .collect::<BTreeSet<&str>>()
        });
        self.work.read_again(read, lint);
        match result {
            Ok(list) => self.inspected(lint, list),
            Err(err) if lint => {
                let command = self.last_command.clone();
                self.say(Outcome::Failed, self.error_text(&err).text, command);
                self.fail(err);
            }
            Err(err) => self.status.set(self.error_text(&err)),
        }
    }

    /// The browser's marks; asks again if more were queued meanwhile.
    fn marks_done(&mut self, marks: Marks) -> Vec<Job> {
        let outdated = std::mem::take(&mut self.marks.outdated);
        self.marks = Marks { outdated, ..marks };
        self.loads.marks_read()
    }

    /// After an install, the Lint pane of an installed pack: the one
    /// selected, else (`:install ID` of another pack) the first of them,
    /// so the pane never shows the lint of a pack that was not installed.
    pub(super) fn show_installed(&mut self, ids: &[String]) {
        let acted_on = |app: &App| {
            app.selected_row()
                .is_some_and(|r| ids.iter().any(|id| id == r.id()))
        };
        if !acted_on(self) {
            self.select_installed(ids.first().map(String::as_str));
        }
        if acted_on(self) {
            self.focus.show(Pane::Lint);
        } else {
            // No row yet: the cursor goes there once it is read.
            self.select_next_load = ids.first().cloned();
        }
    }

    /// The cursor to `id`, just installed; a filter that hides it goes.
    fn select_installed(&mut self, id: Option<&str>) {
        let Some(id) = id else {
            return;
        };
        let hidden = !self
            .packs
            .visible
            .iter()
            .any(|&i| self.packs.entries[i].id() == id);
        let known = self.packs.entries.iter().any(|r| r.id() == id);
        if hidden && known && !self.packs.filter.query.is_empty() {
            self.packs.set_query(String::new());
        }
        self.packs.select_id(Some(id));
    }

    pub(super) fn stage_done(&mut self, report: StageReport) -> Vec<Job> {
        self.work.finish_run();
        self.say_stage(&report, false);
        if report.stage == Stage::Install && report.error.is_none() {
            // The packs it installed (a path or a git source names none).
            let mut ids = installed_ids(&report.outcomes);
            if ids.is_empty() {
                ids.clone_from(&report.ids);
            }
            self.show_installed(&ids);
        }
        self.after_stage(
            report.stage,
            &report.ids,
            report.error.is_none(),
            report.stamp,
        )
    }

    /// The stages of a key on packs of both stores (`Job::PerStore`):
    /// each said under its own command line, the project's first; then
    /// the packs of both read again.
    pub(super) fn stages_done(&mut self, reports: Vec<StageReport>) -> Vec<Job> {
        self.work.finish_run();
        let mut said = Vec::new();
        for (i, report) in reports.iter().enumerate() {
            said.push(self.say_stage(report, i > 0));
        }
        let commands: Vec<String> = reports
            .iter()
            .filter(|r| !r.ran.is_empty())
            .map(|r| self.requests_command(&r.ran, r.store))
            .collect();
        self.last_command = Some(commands.join("; "));
        // Every store's done: the status line says both.
        if let Some(said) = said.into_iter().collect::<Option<Vec<String>>>() {
            self.status.info(said.join("; "));
        }
        let Some(last) = reports.last() else {
            return Vec::new();
        };
        let (stage, stamp) = (last.stage, last.stamp.clone());
        let ok = reports.iter().all(|r| r.error.is_none());
        let mut ids: Vec<String> = Vec::new();
        for id in reports.iter().flat_map(|r| &r.ids) {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        self.after_stage(stage, &ids, ok, stamp)
    }

    /// After a stage of `ids` (`ok`: nothing failed): the marks go after
    /// an uninstall, and the packs it touched are read again.
    fn after_stage(&mut self, stage: Stage, ids: &[String], ok: bool, stamp: Stamp) -> Vec<Job> {
        if stage == Stage::Uninstall && ok {
            self.packs.marked.clear();
        }
        // Read the packs it touched again; a stage changes no other
        // pack's availability. Anything else another process changes
        // shows up through the stamp.
        self.loads.set_stamp(stamp);
        let rows: Vec<Row> = self
            .packs
            .entries
            .iter()
            .filter(|r| ids.iter().any(|id| id == r.id()))
            .cloned()
            .collect();
        // Busy until the rows are read again: a key pressed meanwhile
        // would be judged on the rows before the stage.
        // A source no row is (`:install PATH`, a git URL): the new pack
        // has no row yet, so the whole snapshot is read again.
        // Inside a project a stage may show or hide a shadowed row: the
        // snapshot of both stores is read again too (HCP.md §15.5).
        let unknown = rows.len() < ids.len() || self.scopes.project().is_some();
        if !rows.is_empty() {
            let read = rows.iter().map(|r| r.id().to_string()).collect();
            self.work.refresh(read, ids);
        }
        let mut jobs = vec![Job::Inspect { rows, lint: false }];
        if unknown {
            jobs.extend(self.loads.request());
        }
        jobs
    }

    /// Says what a stage did, in the CLI's words: the Output pane shows
    /// the words of its outcomes (and the error that stopped it), `J`
    /// their `--json` documents, under the command lines of the requests
    /// that ran; the status line and the log say it in one line. `Esc` in
    /// the masked input ends it quietly: logged `cancelled`, no dialog.
    /// `also`: under the answer shown, the other store's of the same key
    /// ([`Report::also`]). Returns the status line's words when it went
    /// well.
    fn say_stage(&mut self, report: &StageReport, also: bool) -> Option<String> {
        let command = match report.ran.as_slice() {
            [] => self.last_command.clone().unwrap_or_default(),
            ran => self.requests_command(ran, report.store),
        };
        self.last_command = Some(command.clone());
        let (mut words, mut docs) = (String::new(), Vec::new());
        for outcome in &report.outcomes {
            let (said, doc) = crate::tui::query::texts(outcome);
            words.push_str(&said);
            docs.push(doc);
        }
        let done = match report.outcomes.as_slice() {
            _ if words.trim().is_empty() => None,
            // A collection's listing (a table) went to the picker: it is
            // in the Output pane.
            [crate::command::Outcome::Listed(_)] => {
                let args = report.ran.first().map(crate::tui::query::args);
                Some(crate::tui::query::summary(
                    &words,
                    &args.unwrap_or_default(),
                ))
            }
            _ => Some(crate::tui::query::change_summary(&words)),
        };
        let Some(err) = &report.error else {
            let done = done.unwrap_or_default();
            self.show_answer(command.clone(), (true, also), words, docs);
            self.say(Outcome::Done, done.clone(), Some(command.clone()));
            // The status line: what happened, then the command that does
            // the same.
            let line = format!("{done} · $ {command}");
            self.status.info(line.clone());
            return Some(line);
        };
        if let Some(done) = done {
            self.say(Outcome::Done, done, None);
        }
        if report.cancelled {
            if !report.outcomes.is_empty() {
                self.show_answer(command.clone(), (true, also), words, docs);
            }
            self.say(Outcome::Cancelled, err.message.clone(), Some(command));
            return None;
        }
        let said = self.error_text(err).text;
        // A request that answered no outcome: its error is its answer.
        if report.outcomes.len() < report.ran.len() {
            docs.push(crate::tui::query::error_document(err, &report.flags));
        }
        words.push_str(&said);
        words.push('\n');
        self.show_answer(command.clone(), (false, also), words, docs);
        self.say(Outcome::Failed, said, Some(command));
        tracing::info!(code = err.code.as_str(), "action failed");
        self.dialog = Some(Dialog::Error(err.clone()));
        None
    }

    /// Says one answer of the command layer that is no stage's (the
    /// Harnesses view's toggle, `U`'s confirmed upgrade) in the CLI's
    /// words, as [`App::say_stage`] says a stage's: the Output pane shows
    /// its words (and the error that stopped it), `J` its `--json`
    /// document, under `command`; the status line and the log say it in
    /// one line. No dialog: the view it came from stays open.
    pub(super) fn say_answer(
        &mut self,
        command: String,
        answer: &Result<Box<crate::command::Outcome>, Error>,
        flags: &crate::fixline::FixFlags,
    ) {
        self.last_command = Some(command.clone());
        let (mut words, doc, err) = match answer {
            Ok(outcome) => {
                let (words, doc) = crate::tui::query::texts(outcome);
                (words, doc, outcome.failure())
            }
            Err(err) => (
                String::new(),
                crate::tui::query::error_document(err, flags),
                Some(err.clone()),
            ),
        };
        let done = crate::tui::query::change_summary(&words);
        let Some(err) = err else {
            self.show_answer(command.clone(), (true, false), words, vec![doc]);
            self.say(Outcome::Done, done.clone(), Some(command.clone()));
            self.status.info(format!("{done} · $ {command}"));
            return;
        };
        if !done.is_empty() {
            self.say(Outcome::Done, done, None);
        }
        let said = self.error_text(&err).text;
        words.push_str(&said);
        words.push('\n');
        self.show_answer(command.clone(), (false, false), words, vec![doc]);
        self.say(Outcome::Failed, said, Some(command));
        tracing::info!(code = err.code.as_str(), "action failed");
    }

    /// The Output pane shows an answer of the command layer, the keys
    /// staying where they are: `words` (terminal-safe), and with `J` the
    /// `--json` documents, one after the other as `hcpx --json` prints
    /// them; `also`: under the answer shown, as the other store's
    /// ([`Report::also`]).
    fn show_answer(
        &mut self,
        command: String,
        (ok, also): (bool, bool),
        words: String,
        docs: Vec<String>,
    ) {
        let json = (!docs.is_empty()).then(|| text::safe(&docs.join("\n")).to_string());
        let report = Report {
            command,
            ok,
            text: text::safe(&words).to_string(),
            json,
            show_json: false,
            also: Vec::new(),
        };
        match also {
            true => self.runs.add_report(report),
            false => self.runs.show_report(report),
        }
        self.focus.output_arrived();
        self.text.output = 0;
    }

    pub(super) fn exec_done(
        &mut self,
        run: u64,
        pack_id: String,
        verb: String,
        result: Result<ExecResult, Error>,
    ) {
        self.work.finish_exec(run);
        let live = self.runs.end_live(run);
        let cancelled = live.as_ref().is_some_and(|l| l.cancelled);
        let (outcome, text) = match &result {
            _ if cancelled => (
                Outcome::Cancelled,
                format!("{pack_id} {verb}: cancelled; its process group was ended"),
            ),
            Ok(r) if r.exit_code == 0 => (Outcome::Done, format!("{pack_id} {verb}: exit 0")),
            Ok(r) => (
                Outcome::Failed,
                format!("{pack_id} {verb}: exit {}", r.exit_code),
            ),
            Err(e) => (Outcome::Failed, self.error_text(e).text),
        };
        // Its own command line: another exec may have started since.
        let command = live
            .map(|l| l.command)
            .or_else(|| self.last_command.clone())
            .unwrap_or_default();
        self.say(outcome, text, Some(command.clone()));
        if cancelled {
            // A cancel is said in red: the command did not finish.
            let said = self.log.entries.last().map(|e| e.text.clone());
            self.status.error(said.unwrap_or_default());
        }
        self.runs.show_exec(ExecOutput {
            pack_id,
            verb,
            command,
            result,
        });
        // The keys stay where the user put them (Output's tab says
        // "new output" until it is focused).
        self.focus.output_arrived();
        self.text.output = 0;
    }

    /// Takes packs read again: keeps their rows' badges in step, shows the
    /// selected one, and for `l` sums up the lint results.
    pub(super) fn inspected(&mut self, lint: bool, list: Inspected) {
        let (mut errors, mut warnings) = (0, 0);
        let mut commands = Vec::new();
        if !list.gone.is_empty() {
            // Uninstalled and in no catalog: the row goes.
            self.fit_browser();
            self.packs.remove(&list.gone);
        }
        for inspection in list.found {
            let entry = &inspection.entry;
            if let Some(report) = entry.view.report() {
                errors += report.errors();
                warnings += report.warnings();
            }
            if let Some(dir) = entry.view.dir() {
                commands.push(self.hcpx(&["lint".into(), dir.display().to_string()], false));
            }
            self.packs.replace(inspection.row());
            if self.selected_row().map(Row::key) == Some(inspection.key()) {
                self.matrix.fit(entry.avail.commands.len());
                self.inspected = Some(inspection);
            }
        }
        if lint {
            let command = commands.join(" && ");
            self.last_command = Some(command.clone());
            let outcome = if errors > 0 {
                Outcome::Failed
            } else {
                Outcome::Done
            };
            let counts = crate::engine::lint::FindingCounts { errors, warnings };
            let text = format!("lint: {counts}");
            self.say(outcome, text, Some(command));
            self.focus.show(Pane::Lint);
            self.text.lint = 0;
        }
    }

    /// Shows an engine error in a dialog, in the words of §10.
    pub(super) fn fail(&mut self, err: Error) {
        tracing::info!(code = err.code.as_str(), "action failed");
        self.status.set(self.error_text(&err));
        self.dialog = Some(Dialog::Error(err));
    }
}

/// The ids of the packs `outcomes` installed, in order.
pub(super) fn installed_ids(outcomes: &[crate::command::Outcome]) -> Vec<String> {
    use crate::command::Outcome as Answered;
    use crate::engine::ops::sources::{PackResult, SourceRun};
    let mut ids = Vec::new();
    for outcome in outcomes {
        match outcome {
            Answered::Installed(o) => ids.push(o.pack_id.clone()),
            Answered::InstalledSeveral { runs, .. } => {
                for run in runs {
                    if let SourceRun::Done(results) = run {
                        ids.extend(results.iter().filter_map(|r| match r {
                            PackResult::Installed(done) => Some(done.outcome.pack_id.clone()),
                            PackResult::Failed(_) => None,
                        }));
                    }
                }
            }
            _ => {}
        }
    }
    ids
}
