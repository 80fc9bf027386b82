//! The overlays (help, an engine error in the words of HCP.md §10, the
//! y/n confirmations, the masked input of a `secret` Binding, §8.5, and
//! the run form of a command, §4) and their keys. Quitting while a pack's
//! command runs asks first, and `y` ends its process group (§14.6).

use super::*;
use tokio::sync::oneshot;

/// The masked input of a `secret` Binding. The typed text is private: the
/// screen only ever sees its length, and it leaves this struct when sent.
/// Its `Debug` shows the length too, never the text (§14.3).
pub struct SecretPrompt {
    pub pack_id: String,
    pub prompt: String,
    pub name: String,
    input: String,
    reply: Option<oneshot::Sender<Option<String>>>,
}

impl SecretPrompt {
    /// How many characters were typed (shown as bullets).
    pub fn typed(&self) -> usize {
        self.input.chars().count()
    }

    fn answer(&mut self, answer: Option<String>) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(answer);
        }
    }

    /// `Esc`, or the prompt closed: the connect ends, recording nothing.
    fn cancel(&mut self) {
        self.input.clear();
        self.answer(None);
    }
}

impl std::fmt::Debug for SecretPrompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretPrompt")
            .field("pack_id", &self.pack_id)
            .field("prompt", &self.prompt)
            .field("name", &self.name)
            .field("typed", &self.typed())
            .field("waiting", &self.reply.is_some())
            .finish()
    }
}

impl Drop for SecretPrompt {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// A modal overlay.
#[derive(Debug)]
pub enum Dialog {
    Help,
    /// An engine error, in the words of §10: code, message, hint.
    Error(Error),
    ConfirmUninstall {
        ids: Vec<String>,
    },
    /// `P` or `e`: a principal's name, or an `env` variable's value.
    Ask(crate::tui::ask::AskPrompt),
    /// `:doctor --fix` or `:sync LOCKFILE`: `y` runs it.
    ConfirmQuery {
        query: crate::tui::query::Query,
    },
    Secret(SecretPrompt),
    ExecForm(ExecForm),
    /// Quit while a pack's command runs (§14.6): `y` ends it and quits.
    ConfirmQuit {
        running: String,
    },
    /// `H`: the harness targets ([`App::harnesses`]); `Space` toggles one.
    Harnesses,
    /// `U`: the capability diff of the upgrade (§13.7), `y` runs it.
    ConfirmUpgrade {
        results: Vec<crate::engine::ops::upgrade::UpgradeResult>,
    },
    /// The packs of a collection to choose from (§13.1): `Enter` installs
    /// the marked ones ([`App::open_picker`]).
    Picker(crate::tui::picker::Picker),
}

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
            Some(Dialog::ConfirmUninstall { ids }) => {
                if yes {
                    return self.start_stage(Stage::Uninstall, ids);
                }
                let command = self.stage_command(Stage::Uninstall, &ids);
                self.say(
                    Outcome::Cancelled,
                    "uninstall cancelled".into(),
                    Some(command),
                );
            }
            Some(Dialog::ConfirmUpgrade { results }) => {
                return self.confirm_upgrade(results, yes);
            }
            Some(Dialog::ConfirmQuery { query }) => {
                if yes {
                    return self.run_query(query);
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
                Action::Input(c) => p.input.push(c),
                Action::InputBackspace => {
                    p.input.pop();
                }
                Action::InputClear => p.input.clear(),
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
                let secret = std::mem::take(&mut p.input);
                p.answer(Some(secret));
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
        let SecretRequest {
            pack_id,
            prompt,
            name,
            reply,
        } = request;
        self.work.finish();
        self.dialog = Some(Dialog::Secret(SecretPrompt {
            pack_id,
            prompt,
            name,
            input: String::with_capacity(128),
            reply: Some(reply),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typed_secret_never_shows_in_debug_output() {
        let prompt = SecretPrompt {
            pack_id: "acme.notes".into(),
            prompt: "API token".into(),
            name: "token".into(),
            input: "hunter2-s3cret".into(),
            reply: None,
        };
        let shown = format!("{:?}", Some(Dialog::Secret(prompt)));
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("typed: 14"), "{shown}");
    }
}
