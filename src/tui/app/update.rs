//! `update`: the one place an [`Action`] changes the state. It sends a
//! key of the main screen to its command (`command`), every other action
//! to the part of `App` it is for, then keeps the browser's selection in
//! view (the layout is `ui`'s) and reads the pack selected next.

use super::*;
use crate::tui::layout;

impl App {
    /// Changes the state; returns the work to start.
    pub fn update(&mut self, action: Action) -> Vec<Job> {
        if matches!(action, Action::Done(JobResult::Inspected { .. })) {
            self.reading = self.reading.saturating_sub(1);
        }
        let jobs = self.update_state(action);
        self.reading += jobs
            .iter()
            .filter(|j| matches!(j, Job::Inspect { .. }))
            .count();
        jobs
    }

    fn update_state(&mut self, action: Action) -> Vec<Job> {
        let before = self.selected_row().map(Row::key);
        self.packs.rows = layout::browser_rows(self).max(1);
        let mut jobs = self.apply(action);
        self.fit_browser();
        let after = self.selected_row().map(Row::key);
        if before != after {
            self.matrix.reset();
            self.text.details = 0;
            self.text.lint = 0;
            jobs.extend(self.inspect_job());
        }
        jobs
    }

    fn apply(&mut self, action: Action) -> Vec<Job> {
        match action {
            Action::Key(cmd) => return self.command(cmd),
            Action::ExecOutput { run, chunk } => self.runs.live_chunk(run, &chunk),
            Action::Tick => return self.tick(),
            Action::Resize(..) | Action::Click { .. } | Action::Scroll { .. } => {
                self.navigate(action)
            }
            Action::FilterChar(_)
            | Action::FilterBackspace
            | Action::FilterKeep
            | Action::FilterClear
            | Action::SearchChar(_)
            | Action::SearchBackspace
            | Action::SearchKeep
            | Action::SearchClear => self.filter_or_search(action),
            Action::CmdLineChar(_)
            | Action::CmdLineBackspace
            | Action::CmdLineComplete
            | Action::CmdLineCancel => self.edit_cmdline(action),
            Action::CmdLineSubmit => return self.submit_line(),
            Action::HarnessMove(delta) => self.harnesses.move_by(delta),
            Action::HarnessToggle => return self.toggle_harness(),
            Action::Picker(key) => return self.picker_key(key),
            Action::InstallChosen { source, ids } => return self.install_chosen(source, ids),
            Action::PickFrom { source, items } => self.open_picker(source, items),
            Action::CloseDialog
            | Action::Confirm(_)
            | Action::Input(_)
            | Action::InputBackspace
            | Action::InputClear
            | Action::FieldNext
            | Action::FieldPrev
            | Action::FieldCycle(_)
            | Action::InputSubmit
            | Action::InputCancel
            | Action::SecretNeeded(_) => return self.dialog_key(action),
            Action::Done(result) => return self.done(result),
        }
        Vec::new()
    }

    /// The clock: expires the status line's message, and now and then
    /// looks at the store.
    fn tick(&mut self) -> Vec<Job> {
        self.ticks += 1;
        self.status.tick(self.ticks);
        self.loads.stamp_due(self.ticks)
    }

    /// Reads the selected pack in full (off the loop).
    pub(super) fn inspect_job(&mut self) -> Vec<Job> {
        match self.selected_row() {
            Some(row) => vec![Job::Inspect {
                rows: vec![row.clone()],
                lint: false,
            }],
            None => {
                self.inspected = None;
                Vec::new()
            }
        }
    }

    /// Tells the pack list how many rows are in view, and keeps the
    /// selection among them.
    pub(super) fn fit_browser(&mut self) {
        self.packs.rows = layout::browser_rows(self).max(1);
        self.packs.ensure_visible();
    }
}
