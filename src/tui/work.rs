//! The lifecycle work in flight: the one job that may run at a time (a
//! stage of HCP.md §11, a lint, a report, a grant, an upgrade), the pack
//! command it may start (quitting asks first and `X` ends it, §14.6), the
//! packs read again after a stage, and the execs of §6 running (several
//! may run at once, each its own job). A key that would start more work
//! while one runs is refused, in the same words everywhere
//! ([`Work::refusal`]); another exec is not ([`Work::exec_refusal`]).

use std::collections::BTreeSet;

/// What runs now, and what it leaves to do.
#[derive(Debug, Clone, Default)]
pub struct Work {
    /// What the running job is doing, if one runs.
    busy: Option<String>,
    /// The pack command the running job may start (an exec, a connect's
    /// probe), if one runs.
    running: Option<String>,
    /// The packs a finished stage touched, until they are read again.
    refreshing: Vec<String>,
    /// `X` ended the running command; its result says so.
    cancelled: bool,
    /// `y` on the upgrade's diff: the upgrade runs unless the diff changed.
    upgrade_asked: bool,
    /// The execs running: their run id and what the spinner says.
    execs: Vec<(u64, String)>,
}

impl Work {
    /// What the running job is doing, if one runs (else the last exec
    /// started).
    pub fn busy(&self) -> Option<&str> {
        self.busy
            .as_deref()
            .or_else(|| self.execs.last().map(|(_, label)| label.as_str()))
    }

    /// The pack command that may be running (a connect's probe), if any.
    pub fn running(&self) -> Option<&str> {
        self.running.as_deref()
    }

    /// Whether the packs a finished stage touched are still being read
    /// again.
    pub fn refreshing(&self) -> bool {
        !self.refreshing.is_empty()
    }

    /// Why a key that starts work is refused now, if it is: a job or an
    /// exec runs.
    pub fn refusal(&self) -> Option<String> {
        self.busy()
            .map(|what| format!("busy: wait until {what} finishes"))
    }

    /// Why an exec is refused now, if it is: a job that is not an exec
    /// runs (execs run side by side).
    pub fn exec_refusal(&self) -> Option<String> {
        self.busy
            .as_ref()
            .map(|what| format!("busy: wait until {what} finishes"))
    }

    /// Exec `run` starts, said as `label`.
    pub fn start_exec(&mut self, run: u64, label: String) {
        self.execs.push((run, label));
    }

    /// Exec `run` finished.
    pub fn finish_exec(&mut self, run: u64) {
        self.execs.retain(|(id, _)| *id != run);
    }

    /// A job starts, said as `label` (the spinner's words).
    pub fn start(&mut self, label: String) {
        self.busy = Some(label);
    }

    /// A job that may start a pack command starts: quitting now asks.
    pub fn start_running(&mut self, label: String, running: String) {
        self.busy = Some(label);
        self.running = Some(running);
    }

    /// The job finished (or waits on the user, no longer working).
    pub fn finish(&mut self) {
        self.busy = None;
    }

    /// The job that could start a pack command finished; returns whether
    /// `X` ended it.
    pub fn finish_run(&mut self) -> bool {
        self.busy = None;
        self.running = None;
        std::mem::take(&mut self.cancelled)
    }

    /// `X` ended `groups` process groups: the result says "cancelled"
    /// when there was one.
    pub fn cancel(&mut self, groups: usize) {
        self.cancelled = groups > 0;
    }

    /// A stage changed `touched`: busy until `rows` (those of them the
    /// browser shows) are read again, since a key pressed meanwhile would
    /// be judged on the rows before the stage.
    pub fn refresh(&mut self, rows: Vec<String>, touched: &[String]) {
        self.busy = Some(format!("reading {}", touched.join(", ")));
        self.refreshing = rows;
    }

    /// Packs were read again (`read`: their ids, `None` when the read
    /// failed); the work is over when they include every pack a stage
    /// touched, or when `lint` asked for them.
    pub fn read_again(&mut self, read: Option<BTreeSet<&str>>, lint: bool) {
        let refreshed =
            read.is_none_or(|ids| self.refreshing.iter().all(|id| ids.contains(id.as_str())));
        if lint || (!self.refreshing.is_empty() && refreshed) {
            self.refreshing.clear();
            self.busy = None;
        }
    }

    /// `y` on the upgrade's diff: the upgrade starts.
    pub fn ask_upgrade(&mut self, label: String) {
        self.busy = Some(label);
        self.upgrade_asked = true;
    }

    /// Whether a `y` on the diff is pending (and no longer is).
    pub fn take_upgrade_asked(&mut self) -> bool {
        std::mem::take(&mut self.upgrade_asked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_refuses_more_work_in_its_words() {
        let mut work = Work::default();
        assert_eq!(work.refusal(), None);
        work.start("linting acme.notes".into());
        assert_eq!(
            work.refusal().as_deref(),
            Some("busy: wait until linting acme.notes finishes")
        );
        work.finish();
        assert_eq!(work.refusal(), None);
    }

    #[test]
    fn execs_run_side_by_side_but_hold_off_other_work() {
        let mut work = Work::default();
        work.start_exec(1, "running a.one wait".into());
        work.start_exec(2, "running a.two go".into());
        assert_eq!(work.exec_refusal(), None, "another exec may start");
        assert_eq!(
            work.refusal().as_deref(),
            Some("busy: wait until running a.two go finishes")
        );
        work.finish_exec(2);
        assert_eq!(work.busy(), Some("running a.one wait"));
        work.finish_exec(1);
        assert_eq!(work.refusal(), None);
        work.start("linting a.one".into());
        assert!(work.exec_refusal().is_some(), "a lint holds off an exec");
    }

    #[test]
    fn a_cancelled_run_says_so_once() {
        let mut work = Work::default();
        work.start_running("exec acme.notes list".into(), "acme.notes list".into());
        assert_eq!(work.running(), Some("acme.notes list"));
        work.cancel(1);
        assert!(work.finish_run());
        assert_eq!((work.busy(), work.running()), (None, None));
        work.start_running("exec".into(), "acme.notes list".into());
        work.cancel(0);
        assert!(!work.finish_run(), "nothing was ended");
    }

    #[test]
    fn busy_until_every_touched_pack_is_read_again() {
        let mut work = Work::default();
        let ids = vec!["a.one".to_string(), "a.two".to_string()];
        work.refresh(ids.clone(), &ids);
        assert_eq!(work.busy(), Some("reading a.one, a.two"));
        work.read_again(Some(BTreeSet::from(["a.one"])), false);
        assert!(work.busy().is_some(), "a.two is not read yet");
        work.read_again(Some(BTreeSet::from(["a.one", "a.two"])), false);
        assert_eq!(work.busy(), None);
    }

    #[test]
    fn a_failed_read_or_a_lint_ends_the_wait() {
        let mut work = Work::default();
        work.refresh(vec!["a.one".into()], &["a.one".into(), "gone".into()]);
        assert_eq!(work.busy(), Some("reading a.one, gone"));
        work.read_again(None, false);
        assert_eq!(work.busy(), None);
        work.start("linting a.one".into());
        work.read_again(Some(BTreeSet::new()), true);
        assert_eq!(work.busy(), None);
    }

    #[test]
    fn an_inspection_without_a_stage_leaves_other_work_alone() {
        let mut work = Work::default();
        work.start("connecting a.one".into());
        work.read_again(Some(BTreeSet::from(["a.one"])), false);
        assert_eq!(work.busy(), Some("connecting a.one"));
    }

    #[test]
    fn the_upgrade_asked_is_taken_once() {
        let mut work = Work::default();
        work.ask_upgrade("upgrading a.one".into());
        assert!(work.take_upgrade_asked());
        assert!(!work.take_upgrade_asked());
    }
}
