//! The Harnesses view's actions (HCP.md §12.4–§12.8): `H` opens it and
//! reads the targets in a worker (inside a project, the project's and the
//! user store's, as `hcpx harness status` there, §15.5); `Space` enables
//! or disables the selected target in a worker, on its row's store: the
//! command layer runs the request of `hcpx harness enable|disable TARGET`
//! (`hcpx -g …` for the user store's), and its answer is said in the
//! CLI's words.

use super::*;
use crate::engine::ops::upgrade::UpdateReason;

impl App {
    /// `H`: opens the view and reads the targets again (off the loop).
    pub(super) fn show_harnesses(&mut self) -> Vec<Job> {
        self.dialog = Some(Dialog::Harnesses);
        if self.harnesses.loading {
            return Vec::new();
        }
        self.harnesses.loading = true;
        vec![Job::Harnesses]
    }

    /// Why `Space` cannot toggle the selected target now, if it cannot.
    pub(super) fn harness_refusal(&self) -> Option<String> {
        if let Some(busy) = self.work.refusal() {
            return Some(busy);
        }
        if let Some(err) = &self.harnesses.error {
            return Some(format!("the harness targets do not read: {err}"));
        }
        if self.harnesses.selected_row().is_none() {
            return Some("still reading the harness targets; try again".into());
        }
        None
    }

    /// `Space` in the view: enables a disabled target, disables an enabled
    /// one.
    pub(super) fn toggle_harness(&mut self) -> Vec<Job> {
        if let Some(reason) = self.harness_refusal() {
            self.say(Outcome::Refused, reason, None);
            return Vec::new();
        }
        let Some(row) = self.harnesses.selected_row() else {
            return Vec::new();
        };
        let (target, enable, store) = (row.name, !row.enabled, row.store);
        self.set_harness(target, enable, store)
    }

    /// Enables or disables `target` of `store` in a worker (`Space` in the
    /// view: the row's store; `:harness enable|disable TARGET`): the
    /// request `hcpx harness enable|disable TARGET` makes, on that store's
    /// engine (with `-g` for the user store inside a project).
    pub(super) fn set_harness(
        &mut self,
        target: TargetName,
        enable: bool,
        store: Store,
    ) -> Vec<Job> {
        let request = crate::tui::job::harness_request(target, enable);
        self.last_command = Some(self.hcpx_in(store, &crate::tui::query::args(&request), false));
        let job = Job::HarnessToggle {
            request,
            flags: self.fix_flags(),
        };
        self.work.start(job.label());
        self.status.clear();
        vec![self.routed(store, job)]
    }

    /// The targets, read.
    pub(super) fn harnesses_read(&mut self, rows: Result<Vec<HarnessRow>, Error>) {
        self.harnesses.loading = false;
        match rows {
            Ok(rows) => {
                self.harnesses.rows = rows;
                self.harnesses.error = None;
                let last = self.harnesses.rows.len().saturating_sub(1);
                self.harnesses.selected = self.harnesses.selected.min(last);
            }
            Err(err) => {
                self.harnesses.error = Some(self.error_text(&err).text);
            }
        }
    }

    /// A toggle finished: its answer said in the CLI's words (the Output
    /// pane, `J` its document; the status line and the log in one line),
    /// under its command; the view shows the targets read again.
    pub(super) fn harness_toggled(
        &mut self,
        (request, store): (&Request, Store),
        answer: &Result<Box<crate::command::Outcome>, Error>,
        flags: &crate::fixline::FixFlags,
        rows: Result<Vec<HarnessRow>, Error>,
    ) -> Vec<Job> {
        self.work.finish();
        let command = self.hcpx_in(store, &crate::tui::query::args(request), false);
        self.say_answer(command, answer, flags);
        self.harnesses_read(rows);
        // Availability's `harnesses` (§12.8) may have changed.
        self.loads.request()
    }
}

impl App {
    /// `o`: `hcpx outdated` in a worker (a git source asks the network, so
    /// only on demand).
    pub(super) fn check_updates(&mut self) -> Vec<Job> {
        if self.refused(Cmd::Outdated) {
            return Vec::new();
        }
        self.last_command = Some(self.hcpx(&["outdated".into()], false));
        let job = Job::Outdated;
        self.work.start(job.label());
        self.status.clear();
        vec![job]
    }

    /// `hcpx outdated` answered: the `↑` marks, and a line in the log.
    pub(super) fn outdated_done(&mut self, result: Result<Vec<OutdatedPack>, Error>) {
        self.work.finish();
        let command = Some(self.hcpx(&["outdated".into()], false));
        match result {
            Ok(packs) => {
                self.marks.outdated = packs
                    .iter()
                    .filter(|p| p.reason.is_update())
                    .map(|p| (p.pack_id.clone(), crate::tui::marks::update_words(p)))
                    .collect();
                let text = match packs.len() {
                    0 => "every pack is up to date".to_string(),
                    _ => {
                        let list: Vec<String> = packs
                            .iter()
                            .map(|p| match p.reason {
                                UpdateReason::Version => format!(
                                    "{} {} → {}",
                                    p.pack_id,
                                    text::one_line(&p.installed),
                                    text::one_line(&p.latest)
                                ),
                                UpdateReason::Content => format!(
                                    "{} {} new content",
                                    p.pack_id,
                                    text::one_line(&p.installed)
                                ),
                                _ => {
                                    format!("{} {}", p.pack_id, crate::tui::marks::update_words(p))
                                }
                            })
                            .collect();
                        format!("updates: {} (U upgrades)", list.join(", "))
                    }
                };
                self.say(Outcome::Done, text, command);
            }
            Err(err) => {
                let text = self.error_text(&err).text;
                self.say(Outcome::Failed, text, command);
            }
        }
    }
}
