//! `U` upgrades the selected or marked packs (HCP.md §13.7): a dry run in a
//! worker computes the capability diff, a y/n dialog shows it with the
//! escalations highlighted, and `y` runs the upgrade with `--yes` semantics
//! expecting the new versions shown (their digests): the command layer's
//! request of `hcpx upgrade ID... --yes --expect ID=DIGEST...`, said as
//! `hcpx upgrade ID... --yes` in the CLI's words.

use super::*;
use crate::engine::ops::upgrade::UpgradeResult;

impl App {
    /// `U`: the dry run of the upgrade of the installed targets.
    pub(super) fn upgrade(&mut self) -> Vec<Job> {
        if self.refused(Cmd::Upgrade) {
            return Vec::new();
        }
        let ids = self.installed_targets();
        self.upgrade_ids(ids)
    }

    /// The dry run of the upgrade of `ids` (`U`, or `:upgrade ID...`).
    pub(super) fn upgrade_ids(&mut self, ids: Vec<String>) -> Vec<Job> {
        let store = match self.store_for(false, &ids) {
            Ok(store) => store,
            Err(why) => {
                self.say(Outcome::Refused, why, None);
                return Vec::new();
            }
        };
        self.upgrading_in = store;
        self.last_command = Some(self.upgrade_command(&ids, "--dry-run"));
        let job = Job::Upgrade {
            ids,
            yes: false,
            confirmed: Vec::new(),
            flags: self.fix_flags(),
        };
        self.work.start(job.label());
        self.status.clear();
        vec![self.routed(store, job)]
    }

    /// `hcpx upgrade ID... FLAG`, with `-g` for the user store's packs
    /// inside a project.
    pub(super) fn upgrade_command(&self, ids: &[String], flag: &str) -> String {
        let mut parts = vec!["upgrade".to_string()];
        parts.extend(ids.iter().cloned());
        parts.push(flag.to_string());
        let store = self.upgrading_in;
        self.hcpx_in(store, &parts, false)
    }

    /// The dry run or the upgrade answered (the command layer's
    /// `Outcome::Upgraded`, or the error of a request that answered none).
    pub(super) fn upgrade_done(
        &mut self,
        ids: Vec<String>,
        yes: bool,
        answer: Result<Box<crate::command::Outcome>, Error>,
        flags: &crate::fixline::FixFlags,
    ) -> Vec<Job> {
        self.work.finish();
        if yes {
            // The `y` is answered.
            self.work.take_upgrade_asked();
            return self.upgraded(&ids, answer, flags);
        }
        let command = self.upgrade_command(&ids, "--dry-run");
        match answer.as_deref() {
            Ok(crate::command::Outcome::Upgraded {
                results,
                error: None,
                ..
            }) if !results.is_empty() => {
                self.dialog = Some(Dialog::ConfirmUpgrade {
                    results: results.clone(),
                });
            }
            // Nothing to upgrade, or an error: said as `hcpx upgrade ID...
            // --dry-run` says it.
            _ => self.say_answer(command, &answer, flags),
        }
        Vec::new()
    }

    /// The confirmed upgrade answered: said in the CLI's words, those of
    /// `hcpx upgrade ID... --yes` (the Output pane, `J` its document).
    /// When the new versions are not those of the diff shown (the source
    /// moved on meanwhile), nothing was installed: the new diff is shown
    /// again.
    fn upgraded(
        &mut self,
        ids: &[String],
        answer: Result<Box<crate::command::Outcome>, Error>,
        flags: &crate::fixline::FixFlags,
    ) -> Vec<Job> {
        let command = self.upgrade_command(ids, "--yes");
        if let Ok(outcome) = &answer
            && let crate::command::Outcome::Upgraded {
                results,
                error: Some(err),
                ..
            } = outcome.as_ref()
            && err.code == crate::engine::error::ErrorCode::ConfirmationRequired
            && !results.is_empty()
            && results.iter().all(|r| !r.applied)
        {
            self.say(
                Outcome::Warning,
                "the new version changed since its diff was shown; nothing was installed: review it again".into(),
                Some(command),
            );
            self.dialog = Some(Dialog::ConfirmUpgrade {
                results: results.clone(),
            });
            return Vec::new();
        }
        self.say_answer(command, &answer, flags);
        if let Ok(outcome) = &answer
            && let crate::command::Outcome::Upgraded { results, .. } = outcome.as_ref()
        {
            for r in results.iter().filter(|r| r.applied) {
                self.marks.upgraded(&r.pack_id);
            }
        }
        self.loads.request()
    }

    /// `y` / `n` on the upgrade's diff.
    pub(super) fn confirm_upgrade(&mut self, results: Vec<UpgradeResult>, yes: bool) -> Vec<Job> {
        let ids: Vec<String> = results.iter().map(|r| r.pack_id.clone()).collect();
        if !yes {
            let command = self.upgrade_command(&ids, "--yes");
            self.say(
                Outcome::Cancelled,
                "upgrade cancelled".into(),
                Some(command),
            );
            return Vec::new();
        }
        if !self.not_busy() {
            return Vec::new();
        }
        self.last_command = Some(self.upgrade_command(&ids, "--yes"));
        let store = self.upgrading_in;
        let job = Job::Upgrade {
            ids,
            yes: true,
            confirmed: results,
            flags: self.fix_flags(),
        };
        self.work.ask_upgrade(job.label());
        vec![self.routed(store, job)]
    }
}
