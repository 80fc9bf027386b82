//! The session's settings: `P` (or `:principal NAME`) switches the
//! principal the TUI acts for (HCP.md §9.1), and `e` sets an `env`
//! Binding's variable for the session from a masked input (§8.3), so `c`
//! and `x` on an `env` pack work without quitting to export it.

use super::*;
use crate::engine::pack::manifest::BindingKind;
use crate::engine::policy::grants::Principal;
use crate::tui::dialog::ask::{AskPrompt, Asked};

impl App {
    /// `P` opens the principal prompt.
    pub(super) fn ask_principal(&mut self) {
        self.dialog = Some(Dialog::Ask(AskPrompt::new(Asked::Principal)));
    }

    /// `e`: the masked input of the first unset variable of the selected
    /// `env` pack, unless refused.
    pub(super) fn set_env(&mut self) {
        if !self.refused(Cmd::SetEnv) {
            self.ask_env();
        }
    }

    /// The masked input for the selected pack's first unset variable (or
    /// its first variable, to set it again, when all are set).
    fn ask_env(&mut self) {
        let Some((pack_id, names)) = self.env_names() else {
            return;
        };
        let unset = self.env_unset(&pack_id, &names);
        let Some(name) = unset.first().or(names.first()) else {
            return;
        };
        self.dialog = Some(Dialog::Ask(AskPrompt::new(Asked::Env {
            pack_id,
            name: name.clone(),
        })));
    }

    /// The selected pack's id and `env` Binding variables, if it has one.
    pub(super) fn env_names(&self) -> Option<(String, Vec<String>)> {
        let entry = self.selected_view()?;
        let m = entry.view.manifest()?;
        (m.binding.kind == BindingKind::Env && !m.binding.env.is_empty())
            .then(|| (entry.id().to_string(), m.binding.env.clone()))
    }

    /// Those of `pack_id`'s `names` set neither in the session nor the
    /// environment.
    pub fn env_unset(&self, pack_id: &str, names: &[String]) -> Vec<String> {
        let env = self.session.env();
        names
            .iter()
            .filter(|n| env.value(pack_id, n).is_none())
            .cloned()
            .collect()
    }

    /// Keys in the prompt.
    pub(super) fn ask_key(&mut self, action: Action) -> Vec<Job> {
        let Some(Dialog::Ask(prompt)) = &mut self.dialog else {
            return Vec::new();
        };
        match action {
            Action::Input(c) => prompt.push(c),
            Action::InputBackspace => prompt.pop(),
            Action::InputClear => prompt.clear(),
            Action::InputSubmit => return self.ask_submit(),
            Action::InputCancel => {
                self.dialog = None;
                self.say(Outcome::Cancelled, "nothing was changed".into(), None);
            }
            _ => {}
        }
        Vec::new()
    }

    fn ask_submit(&mut self) -> Vec<Job> {
        let Some(Dialog::Ask(mut prompt)) = self.dialog.take() else {
            return Vec::new();
        };
        let text = prompt.take();
        match prompt.asked {
            Asked::Principal => match Principal::parse(text.trim()) {
                Ok(principal) => return self.set_principal(principal),
                Err(err) => {
                    let text = self.error_text(&err).text;
                    self.say(Outcome::Refused, text, None);
                }
            },
            Asked::Env { pack_id, name } => self.env_set(&pack_id, &name, &text),
        }
        Vec::new()
    }

    /// Sets `name` for the session; the value is never said nor logged.
    fn env_set(&mut self, pack_id: &str, name: &str, value: &str) {
        if value.is_empty() || value.contains('\0') {
            let why = format!("{name} was not set: give a non-empty value without NUL bytes");
            self.say(Outcome::Refused, why, None);
            return;
        }
        self.session.set_env(pack_id, name, value);
        let text = format!("{name} set for {pack_id} for this session (never stored)");
        self.say(Outcome::Done, text, None);
        let unset = self
            .env_names()
            .filter(|(id, _)| id == pack_id)
            .map(|(id, names)| self.env_unset(&id, &names))
            .unwrap_or_default();
        if let Some(next) = unset.first() {
            self.dialog = Some(Dialog::Ask(AskPrompt::new(Asked::Env {
                pack_id: pack_id.to_string(),
                name: next.clone(),
            })));
        }
    }

    /// `Enter` in the `:` line: `:principal NAME` switches the principal;
    /// any other line is an `hcpx` command.
    pub(super) fn submit_line(&mut self) -> Vec<Job> {
        let words = cmdline::split(&self.cmdline.input).unwrap_or_default();
        let Some(name) = cmdline::principal_words(&words) else {
            return self.submit_cmdline();
        };
        self.cmdline = CmdLine::default();
        let parsed = name.and_then(|n| Principal::parse(&n).map_err(|e| e.message));
        match parsed {
            Ok(principal) => self.set_principal(principal),
            Err(why) => {
                self.say(Outcome::Refused, format!(":principal: {why}"), None);
                Vec::new()
            }
        }
    }

    /// Acts for `principal` from now on: the title, the matrix, every fix
    /// and greyed key follow it once the packs are read again for it (off
    /// the loop). `P` and `:principal NAME` both end here.
    pub fn set_principal(&mut self, principal: Principal) -> Vec<Job> {
        let name = principal.as_str().to_string();
        self.config.principal = name.clone();
        self.config.principal_arg = Some(name.clone());
        self.session.set_principal(principal);
        self.config.announce_powers = true;
        let command = self.hcpx(&["availability".into()], false);
        let text = format!("acting as principal {name}; availability read again for it");
        self.say(Outcome::Done, text, Some(command));
        self.loads.request()
    }
}
