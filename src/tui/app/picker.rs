//! The collection picker's actions (HCP.md §13.1): [`App::open_picker`]
//! opens it over a collection's listing; its keys go to
//! [`crate::tui::dialog::picker::Picker::press`]; `Enter` becomes
//! `Action::InstallChosen`, which installs the chosen ids in a worker, said
//! as `hcpx install SOURCE --skill ID...`; `Esc` is logged `cancelled`.

use super::*;
use crate::tui::dialog::picker::{Picker, PickerItem, PickerKey, Pressed, shown_source};

impl App {
    /// Opens the picker over the packs of the collection `source` (its
    /// listing, in order). A listing of no pack opens nothing and says so.
    pub fn open_picker(&mut self, source: String, items: Vec<PickerItem>) {
        if items.is_empty() {
            let text = format!(
                "{}: no folder below it holds pack.yaml, pack.json or SKILL.md",
                shown_source(&source)
            );
            self.say(Outcome::Failed, text, None);
            return;
        }
        self.listed = Some((source.clone(), items.clone()));
        self.dialog = Some(Dialog::Picker(Picker::new(source, items)));
    }

    /// A key in the picker.
    pub(super) fn picker_key(&mut self, key: PickerKey) -> Vec<Job> {
        let Some(Dialog::Picker(picker)) = &mut self.dialog else {
            return Vec::new();
        };
        let source = picker.source().to_string();
        match picker.press(key) {
            Pressed::Stay => Vec::new(),
            Pressed::Refused(why) => {
                self.say(Outcome::Refused, why, None);
                Vec::new()
            }
            Pressed::Cancelled => {
                self.dialog = None;
                let text = format!("install from {} cancelled", shown_source(&source));
                self.say(Outcome::Cancelled, text, None);
                Vec::new()
            }
            Pressed::Chosen(ids) => {
                if let Some(why) = self.work.refusal() {
                    // The picker stays, marks and all.
                    self.say(Outcome::Refused, why, None);
                    return Vec::new();
                }
                self.dialog = None;
                self.install_chosen(source, ids)
            }
        }
    }

    /// Installs `ids` from the collection `source` in a worker, as
    /// `hcpx install SOURCE --skill ID...`; only ids of the listing the
    /// picker showed are taken.
    pub(super) fn install_chosen(&mut self, source: String, ids: Vec<String>) -> Vec<Job> {
        if ids.is_empty() || !self.not_busy() {
            return Vec::new();
        }
        let listed = self.listed.as_ref().filter(|(s, _)| *s == source);
        let in_listing =
            |id: &str| listed.is_some_and(|(_, items)| items.iter().any(|i| i.id == id));
        if let Some(id) = ids.iter().find(|id| !in_listing(id)) {
            let text = format!(
                "{} is not in the listing of {}",
                text::safe(id),
                shown_source(&source)
            );
            self.say(Outcome::Refused, text, None);
            return Vec::new();
        }
        self.last_command = Some(self.chosen_command(&source, &ids));
        let job = Job::InstallChosen { source, ids };
        self.work.start(job.label());
        self.status.clear();
        vec![self.routed(self.scopes.adds_to(), job)]
    }

    /// `hcpx install SOURCE --skill ID...`, the source without a password.
    fn chosen_command(&self, source: &str, ids: &[String]) -> String {
        let mut args = vec!["install".to_string(), shown_source(source)];
        for id in ids {
            args.push("--skill".into());
            args.push(id.clone());
        }
        self.hcpx_in(self.scopes.adds_to(), &args, false)
    }

    /// The chosen packs installed: said as any install is, then the store
    /// read again (they are new rows of the browser).
    pub(super) fn chosen_done(&mut self, report: StageReport) -> Vec<Job> {
        let mut jobs = self.stage_done(report);
        jobs.extend(self.loads.request());
        jobs
    }
}
