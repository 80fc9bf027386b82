//! What the overlays' answers do to the app (each overlay's state, keys
//! and drawing are in `tui::dialog`): closing one, `y`/`n` on a question,
//! typing into the masked input of a `secret` Binding (HCP.md §8.5) or the
//! run form of a command (§4) and sending it, and a worker asking for a
//! secret. Quitting while a pack's command runs asks first, and `y` ends
//! its process group (§14.6).

use super::*;

impl App {
    /// The keys of the overlays: `?`, closing one, `y`/`n`, typing in the
    /// masked input or the run form; and a worker asking for a secret.
    pub(super) fn dialog_key(&mut self, action: Action) -> Vec<Job> {
        match action {
            Action::CloseDialog => {
                if matches!(
                    self.dialog,
                    Some(Dialog::Help) | Some(Dialog::Error(_)) | Some(Dialog::Harnesses)
                ) {
                    self.dialog = None;
                }
            }
            Action::Confirm(yes) => return self.confirm(yes),
            Action::SecretNeeded(request) => self.ask_secret(request),
            _ => return self.input(action),
        }
        Vec::new()
    }

    /// `y` / `n` on a confirmation.
    fn confirm(&mut self, yes: bool) -> Vec<Job> {
        match self.dialog.take() {
            Some(Dialog::ConfirmUninstall { ids, mut stores }) => {
                if stores.is_empty() {
                    stores.push((Store::User, ids));
                }
                if yes {
                    return match stores.len() {
                        1 => {
                            let (store, ids) = stores.remove(0);
                            self.start_stage_in(Stage::Uninstall, ids, store)
                        }
                        _ => self.start_stage_split(Stage::Uninstall, stores),
                    };
                }
                let commands: Vec<String> = stores
                    .iter()
                    .map(|(store, ids)| {
                        self.requests_command(&Stage::Uninstall.requests(ids), *store)
                    })
                    .collect();
                self.say(
                    Outcome::Cancelled,
                    "uninstall cancelled".into(),
                    Some(commands.join("; ")),
                );
            }
            Some(Dialog::ConfirmDeactivate { ids, .. }) => {
                if yes {
                    return self.start_stage(Stage::Deactivate, ids);
                }
                let store = self.store_for(false, &ids).unwrap_or(Store::User);
                let command = self.requests_command(&Stage::Deactivate.requests(&ids), store);
                self.say(
                    Outcome::Cancelled,
                    format!("deactivate cancelled: {} stays connected", ids.join(", ")),
                    Some(command),
                );
            }
            Some(Dialog::ConfirmUpgrade { results }) => {
                return self.confirm_upgrade(results, yes);
            }
            Some(Dialog::ConfirmSync {
                query,
                store,
                results,
            }) => {
                return self.confirm_sync(query, store, &results, yes);
            }
            Some(Dialog::ConfirmQuery { query, store }) => {
                if yes {
                    return self.run_query(query, store);
                }
                let command = self.hcpx(&query.args(), false);
                let text = format!("{} cancelled", query.args()[0]);
                self.say(Outcome::Cancelled, text, Some(command));
            }
            Some(Dialog::ConfirmQuit { running }) => {
                if yes {
                    self.end_and_quit();
                } else {
                    self.status.info(format!("{running} goes on"));
                }
            }
            other => self.dialog = other,
        }
        Vec::new()
    }

    /// Keys in the masked input and the run form.
    fn input(&mut self, action: Action) -> Vec<Job> {
        if let Some(Dialog::Ask(_)) = &self.dialog {
            return self.ask_key(action);
        }
        if let Some(Dialog::Secret(p)) = &mut self.dialog {
            match action {
                Action::Input(c) => p.push(c),
                Action::InputBackspace => p.pop(),
                Action::InputClear => p.clear(),
                _ => {}
            }
        }
        if let Some(Dialog::ExecForm(form)) = &mut self.dialog {
            match action {
                Action::Input(c) => form.input(c),
                Action::InputBackspace => form.backspace(),
                Action::InputClear => form.clear(),
                Action::FieldNext => form.move_focus(true),
                Action::FieldPrev => form.move_focus(false),
                Action::FieldCycle(forward) => form.cycle(forward),
                _ => {}
            }
        }
        match action {
            Action::InputSubmit => self.submit(),
            Action::InputCancel => {
                match self.dialog.take() {
                    // The connect ends quietly, said once its job reports.
                    Some(Dialog::Secret(mut p)) => p.cancel(),
                    Some(Dialog::ExecForm(form)) => {
                        self.runs.remember(&form);
                        let text = format!("{} {}: run cancelled", form.pack_id, form.verb);
                        self.say(Outcome::Cancelled, text, None);
                    }
                    other => self.dialog = other,
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn submit(&mut self) -> Vec<Job> {
        match self.dialog.take() {
            Some(Dialog::Secret(mut p)) => {
                p.send();
                self.work.start(format!("connecting {}", p.pack_id));
                Vec::new()
            }
            Some(Dialog::ExecForm(mut form)) => {
                self.runs.remember(&form);
                if !form.check() {
                    // The form stays, with what was typed and the problem.
                    self.dialog = Some(Dialog::ExecForm(form));
                    return Vec::new();
                }
                self.start_exec(form)
            }
            other => {
                self.dialog = other;
                Vec::new()
            }
        }
    }

    /// `q` / Ctrl-C: quits at once when no pack command runs; otherwise asks
    /// (and a second Ctrl-C, or `y`, ends the command and quits).
    pub(super) fn ask_quit(&mut self) {
        match (&self.dialog, self.running()) {
            (Some(Dialog::ConfirmQuit { .. }), _) => self.end_and_quit(),
            // A connect waiting for its secret runs nothing yet; dropping
            // the prompt cancels it.
            (Some(Dialog::Secret(_)), _) | (_, None) => {
                self.dialog = None;
                self.quit = true;
            }
            (_, Some(running)) => {
                self.dialog = Some(Dialog::ConfirmQuit {
                    running: running.to_string(),
                });
            }
        }
    }

    /// Ends every command the engine started (their whole process groups)
    /// and lets no other start, then quits (§14.6).
    fn end_and_quit(&mut self) {
        let runs: usize = self.runs.lives().iter().map(|l| l.scope.end()).sum();
        let ended = self.scope.end() + runs;
        tracing::info!(groups = ended, "quit: ended the running commands");
        self.dialog = None;
        self.quit = true;
    }

    /// A worker needs a `secret` Binding's secret (§8.5): the masked
    /// input opens, and the job waits on it, no longer busy.
    fn ask_secret(&mut self, request: SecretRequest) {
        self.work.finish();
        self.dialog = Some(Dialog::Secret(SecretPrompt::new(request)));
    }
}
