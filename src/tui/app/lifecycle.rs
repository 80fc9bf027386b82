//! The lifecycle keys (HCP.md §11: install, activate/deactivate,
//! connect, uninstall, lint, reload) and running a pack's command (§6):
//! refused at once, with availability's reason (§11.2), when they cannot
//! succeed; else the job to run in a worker, said as the `hcpx` command
//! that does the same: a stage is the command layer's requests the CLI
//! makes for it (`Stage::requests`), which the worker runs. Inside a
//! project, marked packs of both stores are one stage per store
//! (`Job::PerStore`), each said as its own command line (§15.5). `X` ends
//! a running command's process group (§14.6).

use super::*;

impl App {
    /// `a`: activates the targets when one is not active, else
    /// deactivates them, asking first when that drops a connection.
    pub(super) fn toggle_activate(&mut self) -> Vec<Job> {
        let any_inactive = self.targets().iter().any(|r| r.installed && !r.activated);
        if any_inactive {
            return self.stage(Stage::Activate, |r| r.installed);
        }
        let ids: Vec<String> = self
            .targets()
            .iter()
            .filter(|r| r.installed)
            .map(|r| r.id().to_string())
            .collect();
        self.deactivate_of(ids)
    }

    /// Deactivates `ids` (`a`, `:deactivate`); when one is connected
    /// through its Binding, deactivating drops that connection (HCP.md
    /// §11.2), so it asks first, as uninstall does.
    pub(super) fn deactivate_of(&mut self, ids: Vec<String>) -> Vec<Job> {
        let connected: Vec<String> = self
            .packs
            .entries
            .iter()
            .filter(|r| r.bound && ids.iter().any(|id| id == r.id()))
            .map(|r| r.id().to_string())
            .collect();
        if connected.is_empty() || ids.is_empty() {
            return self.start_stage(Stage::Deactivate, ids);
        }
        self.dialog = Some(Dialog::ConfirmDeactivate { ids, connected });
        Vec::new()
    }

    /// `u`: asks first.
    pub(super) fn ask_uninstall(&mut self) {
        let ids = self.installed_targets();
        self.ask_uninstall_of(ids);
    }

    /// Asks whether to uninstall `ids` (`u`, `:uninstall`), naming the
    /// store inside a project (both, for marked packs of both: each
    /// uninstalls the packs it holds).
    pub(super) fn ask_uninstall_of(&mut self, ids: Vec<String>) {
        let stores = match self.scopes.project() {
            Some(_) => self.stores_for(false, &ids),
            None => Vec::new(),
        };
        self.dialog = Some(Dialog::ConfirmUninstall { ids, stores });
    }

    /// `.`: the last exec again, with the same words.
    pub(super) fn rerun(&mut self) -> Vec<Job> {
        match self.runs.last().cloned() {
            Some(run) if self.may_exec() => self.run_exec(run.pack_id, run.verb, run.words),
            _ => Vec::new(),
        }
    }

    /// `r`: the store and catalogs read again.
    pub(super) fn reload(&mut self) -> Vec<Job> {
        self.last_command = Some(self.hcpx(&["list".into()], false));
        self.loads.ask()
    }

    /// `X`: ends the running command's process group; the job then reports
    /// the command as cancelled.
    pub(super) fn cancel_run(&mut self) {
        if let Some(live) = self.runs.live_mut() {
            // The exec shown: its own process groups, no other's.
            let ended = live.scope.cancel();
            live.cancelled |= ended > 0;
            let what = live.what.clone();
            tracing::info!(groups = ended, "cancel: ended the running command");
            self.status.set(if ended > 0 {
                Notice::info(format!("cancelling {what}"))
            } else {
                Notice::error(format!("{what} has not started a process yet; try again"))
            });
            return;
        }
        let Some(running) = self.work.running().map(str::to_string) else {
            self.say(Outcome::Refused, "no command is running".into(), None);
            return;
        };
        let ended = self.scope.cancel();
        tracing::info!(groups = ended, "cancel: ended the running command");
        self.work.cancel(ended);
        self.status.set(if ended > 0 {
            Notice::info(format!("cancelling {running}"))
        } else {
            Notice::error(format!(
                "{running} has not started a process yet; try again"
            ))
        });
    }

    /// Whether work may start now; if not, the status line says why.
    pub(super) fn not_busy(&mut self) -> bool {
        let Some(why) = self.work.refusal() else {
            return true;
        };
        if let Some(what) = self.work.busy() {
            tracing::info!(busy = %what, "refused: busy");
        }
        self.status.error(why);
        false
    }

    /// Whether an exec may start now (others may be running); if not, the
    /// status line says why.
    pub(super) fn may_exec(&mut self) -> bool {
        let Some(why) = self.work.exec_refusal() else {
            return true;
        };
        self.status.error(why);
        false
    }

    pub(super) fn stage(&mut self, stage: Stage, keep: impl Fn(&Row) -> bool) -> Vec<Job> {
        let ids: Vec<String> = self
            .targets()
            .into_iter()
            .filter(|e| keep(e))
            .map(|e| e.id().to_string())
            .collect();
        if ids.is_empty() {
            return Vec::new();
        }
        self.start_stage(stage, ids)
    }

    /// A stage of `ids` on the store holding them; marked packs of both
    /// stores: on each store for the packs it holds, as the CLI splits
    /// them (an install goes where `S` says).
    pub(super) fn start_stage(&mut self, stage: Stage, ids: Vec<String>) -> Vec<Job> {
        let mut split = self.stores_for(stage == Stage::Install, &ids);
        match split.len() {
            0 => Vec::new(),
            1 => {
                let (store, ids) = split.remove(0);
                self.start_stage_in(stage, ids, store)
            }
            _ => self.start_stage_split(stage, split),
        }
    }

    /// A stage of packs of both stores (`Job::PerStore`): each store's
    /// requests on its engine, said as their own command lines.
    pub(super) fn start_stage_split(
        &mut self,
        stage: Stage,
        split: Vec<(Store, Vec<String>)>,
    ) -> Vec<Job> {
        if !self.not_busy() {
            return Vec::new();
        }
        let commands: Vec<String> = split
            .iter()
            .map(|(store, ids)| self.requests_command(&stage.requests(ids), *store))
            .collect();
        self.last_command = Some(commands.join("; "));
        let split_ids: Vec<String> = split.iter().flat_map(|(_, ids)| ids.clone()).collect();
        let jobs: Vec<Job> = split
            .into_iter()
            .map(|(store, ids)| {
                let job = Job::Stage {
                    stage,
                    requests: stage.requests(&ids),
                    ids,
                    flags: self.fix_flags(),
                };
                self.routed(store, job)
            })
            .collect();
        let job = Job::PerStore(jobs);
        match stage {
            Stage::Connect => {
                let all: Vec<&str> = split_ids.iter().map(String::as_str).collect();
                let running = format!("connect {}", all.join(", "));
                self.work.start_running(job.label(), running);
            }
            _ => self.work.start(job.label()),
        }
        self.status.clear();
        vec![job]
    }

    /// A stage of `ids` on `store` (see [`App::store_for`]): the requests
    /// the CLI makes for it ([`Stage::requests`]), said as their `hcpx`
    /// command lines.
    pub(super) fn start_stage_in(
        &mut self,
        stage: Stage,
        ids: Vec<String>,
        store: Store,
    ) -> Vec<Job> {
        if !self.not_busy() {
            return Vec::new();
        }
        let requests = stage.requests(&ids);
        self.last_command = Some(self.requests_command(&requests, store));
        let running = (stage == Stage::Connect).then(|| format!("connect {}", ids.join(", ")));
        let job = Job::Stage {
            stage,
            ids,
            requests,
            flags: self.fix_flags(),
        };
        match running {
            Some(running) => self.work.start_running(job.label(), running),
            None => self.work.start(job.label()),
        }
        self.status.clear();
        vec![self.routed(store, job)]
    }

    /// The `hcpx` command lines of `requests` on `store`, joined with
    /// `&&`: each request's words and flags, the TUI's `--principal`, and
    /// its `--catalog` for an install that names a pack id.
    pub(super) fn requests_command(&self, requests: &[Request], store: Store) -> String {
        requests
            .iter()
            .map(|request| {
                let catalogs = match request {
                    Request::Install { sources, .. } => sources.iter().any(|s| {
                        matches!(s.source, Ok(crate::engine::ops::InstallSource::Catalog(_)))
                    }),
                    _ => false,
                };
                self.hcpx_in(store, &crate::tui::query::args(request), catalogs)
            })
            .collect::<Vec<_>>()
            .join(" && ")
    }

    pub(super) fn lint(&mut self) -> Vec<Job> {
        let rows: Vec<Row> = self.targets().into_iter().cloned().collect();
        if rows.is_empty() || !self.not_busy() {
            return Vec::new();
        }
        self.start_lint(rows)
    }

    /// Lints `rows` in a worker (`l`, or `:lint ID...`); the Lint tab
    /// shows.
    pub(super) fn start_lint(&mut self, rows: Vec<Row>) -> Vec<Job> {
        let job = Job::Inspect { rows, lint: true };
        self.work.start(job.label());
        self.focus.show(Pane::Lint);
        vec![job]
    }

    /// `x`: the run form of the selected command (refusals are already
    /// said by [`App::refusal`]); a command without args runs at once.
    pub(super) fn open_exec(&mut self) -> Vec<Job> {
        let Some(entry) = self.selected_view() else {
            return Vec::new();
        };
        let Some(command) = entry
            .view
            .manifest()
            .and_then(|m| m.commands.get(self.matrix.selected()))
        else {
            return Vec::new();
        };
        let remembered = self.runs.remembered(entry.id(), &command.key);
        let form = ExecForm::new(entry.id(), command, remembered);
        if form.fields.is_empty() {
            return self.start_exec(form);
        }
        self.dialog = Some(Dialog::ExecForm(form));
        Vec::new()
    }

    pub(super) fn start_exec(&mut self, form: ExecForm) -> Vec<Job> {
        if !self.may_exec() {
            return Vec::new();
        }
        let words = form.words();
        self.run_exec(form.pack_id, form.verb, words)
    }

    /// `hcpx exec PACK VERB -- WORDS`, shown as that command.
    pub(super) fn run_exec(
        &mut self,
        pack_id: String,
        verb: String,
        words: Vec<String>,
    ) -> Vec<Job> {
        let store = match self.store_for(false, std::slice::from_ref(&pack_id)) {
            Ok(store) => store,
            Err(why) => {
                self.say(Outcome::Refused, why, None);
                return Vec::new();
            }
        };
        let mut parts = vec!["exec".to_string(), pack_id.clone(), verb.clone()];
        if !words.is_empty() {
            parts.push("--".into());
            parts.extend(words.iter().cloned());
        }
        // Global flags go before `--`, where hcpx still reads them.
        let command = match words.is_empty() {
            true => self.hcpx_in(store, &parts, false),
            false => {
                let head = self.hcpx_in(store, &parts[..3], false);
                let tail: Vec<String> = parts[3..].iter().map(|w| shell_quote(w)).collect();
                format!("{head} {}", tail.join(" "))
            }
        };
        // The engine takes the args as (name, value) pairs (the form's
        // fields, or the `:exec` line's k=v words), never as text to parse.
        let mut args = Vec::with_capacity(words.len());
        for word in &words {
            match word.split_once('=') {
                Some((name, value)) => args.push((name.to_string(), value.to_string())),
                None => {
                    let text = format!(
                        "`{}` is not a k=v argument",
                        crate::engine::pack::text::terminal_safe(word)
                    );
                    self.say(Outcome::Refused, text, Some(command));
                    return Vec::new();
                }
            }
        }
        self.last_command = Some(command);
        // `.` runs it again, whether the form or the `:` line started it.
        self.runs.ran(crate::tui::runs::LastRun {
            pack_id: pack_id.clone(),
            verb: verb.clone(),
            words,
        });
        let running = format!("{pack_id} {verb}");
        // The Output tab says what runs and how to cancel it, and shows
        // what it prints as it comes.
        self.focus.show(Pane::Output);
        let command = self.last_command.clone().unwrap_or_default();
        let (run, scope) = self.runs.start_live(running, command);
        self.text.output = 0;
        self.text.follow = true;
        let job = Job::Exec {
            run,
            scope,
            pack_id,
            verb,
            args,
        };
        self.work.start_exec(run, job.label());
        vec![self.routed(store, job)]
    }
}
