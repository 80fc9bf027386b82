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
                text::one_line(id),
                shown_source(&source)
            );
            self.say(Outcome::Refused, text, None);
            return Vec::new();
        }
        let request = chosen_request(&source, &ids);
        let store = self.scopes.adds_to();
        self.last_command = Some(self.requests_command(std::slice::from_ref(&request), store));
        let job = Job::InstallChosen {
            source,
            ids,
            request,
            flags: self.fix_flags(),
        };
        self.work.start(job.label());
        self.status.clear();
        vec![self.routed(store, job)]
    }

    /// The chosen packs installed: said as any install is, then the store
    /// read again (they are new rows of the browser).
    pub(super) fn chosen_done(&mut self, report: StageReport) -> Vec<Job> {
        let mut jobs = self.stage_done(report);
        jobs.extend(self.loads.request());
        jobs
    }
}

/// `install SOURCE --skill ID...` (§13.1): the request the CLI makes for
/// the picker's choice.
fn chosen_request(source: &str, ids: &[String]) -> Request {
    Request::Install {
        sources: vec![crate::command::request::SourceArg::parse(source)],
        selection: crate::engine::ops::sources::Selection::Skills(ids.to_vec()),
        force: false,
        yes: false,
    }
}
