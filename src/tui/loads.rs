//! Reading the store off the loop, one read of each kind at a time: the
//! snapshot of every pack (HCP.md §11.2 statuses, §11.6 catalogs), the
//! store's stamp, looked at now and then so a change another process made
//! (§11.5: concurrent runtimes share a store) shows, and the browser's
//! marks (`tui::marks`). A read asked for while one runs is queued, never
//! run twice at once.

use crate::engine::error::Error;
use crate::tui::job::{Job, Stamp};

/// How many ticks between two looks at the store (10 × 100 ms).
pub const STAMP_EVERY_TICKS: u64 = 10;

/// A read that runs one at a time: asked for while it runs, it runs once
/// more after.
#[derive(Debug, Clone, Copy, Default)]
struct OneAtATime {
    running: bool,
    queued: bool,
}

impl OneAtATime {
    /// Whether it starts now (else it is queued).
    fn ask(&mut self) -> bool {
        if self.running {
            self.queued = true;
            return false;
        }
        self.running = true;
        true
    }

    /// It finished.
    fn finish(&mut self) {
        self.running = false;
    }

    /// Whether it was asked for while it ran (once).
    fn take_queued(&mut self) -> bool {
        std::mem::take(&mut self.queued)
    }
}

/// What was read, what is being read, and what is queued.
#[derive(Debug, Default)]
pub struct Loads {
    /// Whether the first snapshot arrived.
    loaded: bool,
    /// The snapshot's reads.
    load: OneAtATime,
    /// `r` asked for the load running now: its result goes in the log.
    asked: bool,
    /// Why the last load failed, until one reads again.
    error: Option<Error>,
    /// The stamp of the store the last snapshot (or stage) read.
    stamp: Option<Stamp>,
    stamp_pending: bool,
    /// The marks' reads: a load that finishes while they are read asks
    /// for them again.
    marks: OneAtATime,
}

impl Loads {
    /// Whether the first snapshot arrived.
    pub fn loaded(&self) -> bool {
        self.loaded
    }

    /// Whether a snapshot is being read.
    pub fn loading(&self) -> bool {
        self.load.running
    }

    /// Why the last load failed, if the store does not read now.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// A load: started now, or queued behind the one running.
    pub fn request(&mut self) -> Vec<Job> {
        match self.load.ask() {
            true => vec![Job::Load],
            false => Vec::new(),
        }
    }

    /// `r`: a load whose result the log tells.
    pub fn ask(&mut self) -> Vec<Job> {
        self.asked = true;
        self.request()
    }

    /// The snapshot at `stamp` read; returns whether the store did not
    /// read before (it reads again).
    pub fn read(&mut self, stamp: Stamp) -> bool {
        self.finish(stamp);
        self.loaded = true;
        self.error.take().is_some()
    }

    /// The snapshot at `stamp` did not read.
    pub fn failed(&mut self, stamp: Stamp, error: Error) {
        self.finish(stamp);
        self.error = Some(error);
    }

    fn finish(&mut self, stamp: Stamp) {
        self.load.finish();
        self.stamp = Some(stamp);
    }

    /// Whether `r` asked for the load that finished (asked once).
    pub fn take_asked(&mut self) -> bool {
        std::mem::take(&mut self.asked)
    }

    /// The load queued while one ran, now that it finished.
    pub fn take_queued(&mut self) -> Vec<Job> {
        match self.load.take_queued() {
            true => self.request(),
            false => Vec::new(),
        }
    }

    /// The clock at `ticks`: now and then, a look at the store's stamp
    /// (never before the first snapshot, during a load, or twice at once).
    pub fn stamp_due(&mut self, ticks: u64) -> Vec<Job> {
        if ticks.is_multiple_of(STAMP_EVERY_TICKS)
            && self.loaded
            && !self.loading()
            && !self.stamp_pending
        {
            self.stamp_pending = true;
            return vec![Job::Stamp];
        }
        Vec::new()
    }

    /// The store's stamp read: a load when another process changed it.
    pub fn stamp_read(&mut self, stamp: Stamp) -> Vec<Job> {
        self.stamp_pending = false;
        if self.stamp.as_ref() != Some(&stamp) && !self.loading() {
            tracing::info!("the store changed on disk; reloading");
            return self.request();
        }
        Vec::new()
    }

    /// A stage changed the store to `stamp` itself: no reload for that.
    pub fn set_stamp(&mut self, stamp: Stamp) {
        self.stamp = Some(stamp);
    }

    /// A read of the marks: started now, or queued behind the one running.
    pub fn marks(&mut self) -> Vec<Job> {
        match self.marks.ask() {
            true => vec![Job::Marks],
            false => Vec::new(),
        }
    }

    /// The marks read; the read queued meanwhile, if any.
    pub fn marks_read(&mut self) -> Vec<Job> {
        self.marks.finish();
        match self.marks.take_queued() {
            true => self.marks(),
            false => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::error::ErrorCode;

    fn is_load(jobs: &[Job]) -> bool {
        matches!(jobs, [Job::Load])
    }

    #[test]
    fn a_load_asked_while_one_runs_is_queued_and_runs_after_it() {
        let mut loads = Loads::default();
        assert!(is_load(&loads.request()));
        assert!(loads.request().is_empty(), "one load at a time");
        assert!(!loads.read(Stamp::at(1)));
        assert!(loads.loaded());
        assert!(is_load(&loads.take_queued()));
        assert!(loads.take_queued().is_empty(), "queued once");
    }

    #[test]
    fn a_failed_load_is_kept_until_one_reads_again() {
        let mut loads = Loads::default();
        loads.ask();
        loads.failed(Stamp::at(1), Error::new(ErrorCode::Io, "no store"));
        assert!(!loads.loaded() && !loads.loading());
        assert!(loads.error().is_some());
        assert!(loads.take_asked());
        assert!(!loads.take_asked(), "said once");
        loads.request();
        assert!(loads.read(Stamp::at(1)), "the store reads again");
        assert!(loads.error().is_none());
    }

    #[test]
    fn the_stamp_is_looked_at_every_few_ticks_after_the_first_load() {
        let mut loads = Loads::default();
        assert!(loads.stamp_due(STAMP_EVERY_TICKS).is_empty(), "not loaded");
        loads.request();
        loads.read(Stamp::at(1));
        assert!(loads.stamp_due(STAMP_EVERY_TICKS + 1).is_empty());
        let jobs = loads.stamp_due(STAMP_EVERY_TICKS);
        assert!(matches!(jobs[..], [Job::Stamp]));
        assert!(
            loads.stamp_due(2 * STAMP_EVERY_TICKS).is_empty(),
            "one look at a time"
        );
        assert!(loads.stamp_read(Stamp::at(1)).is_empty(), "unchanged");
        assert!(!loads.stamp_due(3 * STAMP_EVERY_TICKS).is_empty());
        assert!(is_load(&loads.stamp_read(Stamp::at(2))), "changed: reload");
    }

    #[test]
    fn a_stage_own_change_is_no_reason_to_reload() {
        let mut loads = Loads::default();
        loads.request();
        loads.read(Stamp::at(1));
        loads.set_stamp(Stamp::at(2));
        loads.stamp_due(STAMP_EVERY_TICKS);
        assert!(loads.stamp_read(Stamp::at(2)).is_empty());
    }

    #[test]
    fn marks_asked_while_read_are_read_once_more() {
        let mut loads = Loads::default();
        assert!(matches!(loads.marks()[..], [Job::Marks]));
        assert!(loads.marks().is_empty());
        assert!(loads.marks().is_empty());
        assert!(matches!(loads.marks_read()[..], [Job::Marks]));
        assert!(loads.marks_read().is_empty());
    }
}
