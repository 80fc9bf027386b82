//! What each key can do now (HCP.md §11.2 availability): the key bar greys
//! what cannot run, and the key says why at once.

use super::*;
use crate::engine::error::Fix;

impl App {
    /// Whether `cmd` applies now and can run, and if not, why (the key bar
    /// greys it; the key says the reason).
    pub fn command_info(&self, cmd: Cmd) -> CommandInfo {
        let available = match cmd {
            Cmd::Cancel => self.running().is_some(),
            Cmd::Rerun => self.runs.last().is_some(),
            Cmd::NextJob => self.runs.lives().len() > 1,
            Cmd::Open => matches!(self.focus.pane(), Pane::Browser | Pane::Matrix),
            // In the bar only for an `env` pack.
            Cmd::SetEnv => self.env_names().is_some(),
            Cmd::NextMatch | Cmd::PrevMatch => {
                self.search.pane.is_some() && !self.search.query.is_empty()
            }
            _ => true,
        };
        CommandInfo {
            available,
            enabled: self.refusal(cmd).map_or(Ok(()), Err),
        }
    }

    /// Whether `cmd` is refused now; if so, the status line and the log
    /// say why.
    pub(super) fn refused(&mut self, cmd: Cmd) -> bool {
        let Err(reason) = self.command_info(cmd).enabled else {
            return false;
        };
        self.say(Outcome::Refused, reason, None);
        true
    }

    /// The installed packs an action applies to, but the bootstrap pack,
    /// which is neither uninstalled nor upgraded (§11.4).
    pub(super) fn installed_targets(&self) -> Vec<String> {
        self.targets()
            .iter()
            .filter(|r| r.installed && r.id() != BOOTSTRAP_ID)
            .map(|r| r.id().to_string())
            .collect()
    }

    pub(super) fn refusal(&self, cmd: Cmd) -> Option<String> {
        let busy = || self.work.refusal();
        // Execs run side by side: only other work holds one off.
        let exec_busy = || self.work.exec_refusal();
        let targets = self.targets();
        let names = || {
            let ids: Vec<&str> = targets.iter().map(|r| r.id()).collect();
            ids.join(", ")
        };
        let none_selected = || targets.is_empty().then(|| "no pack selected".to_string());
        // Said as every other fix: the key, and the command line.
        let unmet = |what: &str, key: &str, fix: fn(String) -> Fix| match targets.as_slice() {
            [one] => format!(
                "{} is not {what} — fix: {}",
                one.id(),
                self.fix_line(&fix(one.id().to_string()))
            ),
            _ => format!("{} are not {what} — fix: press {key}", names()),
        };
        let not_installed = || unmet("installed", "i", |pack| Fix::Install { pack, force: false });
        // `pack.install` unscoped guards install, uninstall and upgrade (§9.2).
        let no_install = || self.lacks_install();
        match cmd {
            Cmd::SetEnv => none_selected().or_else(|| self.env_refusal()),
            Cmd::Install => none_selected().or_else(busy).or_else(no_install).or_else(|| {
                (!targets.iter().any(|r| r.catalog_dir.is_some())).then(|| {
                    format!(
                        "{} is in no catalog; install a folder with hcpx install DIR",
                        names()
                    )
                })
            }),
            Cmd::Activate => none_selected()
                .or_else(busy)
                .or_else(|| (!targets.iter().any(|r| r.installed)).then(not_installed)),
            Cmd::Connect => none_selected()
                .or_else(busy)
                .or_else(|| (!targets.iter().any(|r| r.installed)).then(not_installed))
                .or_else(|| {
                    (!targets.iter().any(|r| r.activated))
                        .then(|| unmet("activated", "a", |pack| Fix::Activate { pack }))
                })
                .or_else(|| self.env_missing()),
            Cmd::Uninstall => none_selected()
                .or_else(busy)
                .or_else(no_install)
                .or_else(|| (!targets.iter().any(|r| r.installed)).then(|| {
                    format!("{} is not installed; there is nothing to uninstall", names())
                }))
                .or_else(|| {
                    (!targets.iter().any(|r| r.installed && r.id() != BOOTSTRAP_ID)).then(|| {
                        format!(
                            "bootstrap_protected: {BOOTSTRAP_ID} cannot be uninstalled; deactivate it instead"
                        )
                    })
                }),
            Cmd::Lint => none_selected().or_else(busy),
            Cmd::Outdated => busy(),
            Cmd::Upgrade => none_selected()
                .or_else(busy)
                .or_else(no_install)
                .or_else(|| (!targets.iter().any(|r| r.installed)).then(not_installed))
                .or_else(|| {
                    (!targets.iter().any(|r| r.installed && r.id() != BOOTSTRAP_ID)).then(|| {
                        format!("{BOOTSTRAP_ID} is built into hcpx; it upgrades with hcpx")
                    })
                }),
            Cmd::Exec => exec_busy().or_else(|| self.exec_refusal()),
            Cmd::Rerun => exec_busy().or_else(|| {
                self.runs
                    .last()
                    .is_none()
                    .then(|| "nothing run yet; x runs the selected command".to_string())
            }),
            Cmd::Cancel => self
                .running()
                .is_none()
                .then(|| "no command is running".to_string()),
            _ => None,
        }
    }

    /// Why the selected command cannot run, from its availability (§11.2).
    pub(super) fn exec_refusal(&self) -> Option<String> {
        let Some(row) = self.selected_row() else {
            return Some("no pack selected".into());
        };
        if !row.installed {
            let fix = Fix::Install {
                pack: row.id().to_string(),
                force: false,
            };
            return Some(format!(
                "{} is not installed — fix: {}",
                row.id(),
                self.fix_line(&fix)
            ));
        }
        let Some(entry) = self.selected_view() else {
            return Some(format!("still reading {}; try again", row.id()));
        };
        let Some(manifest) = entry.view.manifest() else {
            return Some(format!("{} has no readable manifest; l lints it", row.id()));
        };
        let Some(cmd) = entry.avail.commands.get(self.matrix.selected()) else {
            return (manifest.commands.is_empty()).then(|| format!("{} has no commands", row.id()));
        };
        if cmd.executable {
            return None;
        }
        // Every unmet condition, each with its fix: fixing the first alone
        // would leave the command refused on the next.
        let said: Vec<String> = cmd
            .reasons
            .iter()
            .map(|reason| {
                let (words, fix) = crate::engine::policy::why::describe(
                    reason,
                    entry.id(),
                    &cmd.verb_key,
                    Some(manifest),
                    &self.config.principal,
                );
                match fix {
                    Some(fix) => format!("{words} — fix: {}", self.fix_line(&fix)),
                    None => words,
                }
            })
            .collect();
        Some(format!(
            "cannot run {} {}: {}",
            entry.id(),
            cmd.verb_key,
            said.join("; ")
        ))
    }

    /// Why the principal may not install, uninstall or upgrade, if so.
    fn lacks_install(&self) -> Option<String> {
        if self.config.powers.install {
            return None;
        }
        let principal = &self.config.principal;
        let fix = Fix::Grant {
            principal: principal.clone(),
            grant: "pack.install".into(),
        };
        Some(format!(
            "principal `{principal}` does not hold `pack.install` (unscoped), which installing, uninstalling and upgrading need — fix: {}",
            self.fix_line(&fix)
        ))
    }

    /// Why `e` does nothing for the selection: no `env` Binding.
    fn env_refusal(&self) -> Option<String> {
        let row = self.selected_row()?;
        if self.env_names().is_some() {
            return None;
        }
        Some(match self.selected_view() {
            None => format!("still reading {}; try again", row.id()),
            Some(_) => format!(
                "{} has no env binding; e sets the variables an env pack reads",
                row.id()
            ),
        })
    }

    /// For an `env` Binding (§8.5): the variables the environment lacks,
    /// and how to set them.
    pub(super) fn env_missing(&self) -> Option<String> {
        let entry = self.selected_view()?;
        let m = entry.view.manifest()?;
        if m.binding.kind != crate::engine::pack::manifest::BindingKind::Env {
            return None;
        }
        let missing = self.env_unset(entry.id(), &m.binding.env);
        if missing.is_empty() {
            return None;
        }
        let them = if missing.len() == 1 { "it" } else { "them" };
        Some(format!(
            "{} needs {} set: press e to set {them} for this session, or export {them} before hcpx tui",
            entry.id(),
            missing.join(", "),
        ))
    }
}
