//! The `:` command line: typing, completion, and running a line (see
//! `tui::cmdline`, which parses it with the clap tree of `hcpx`). A
//! request of the command layer — the reports (`doctor`, `verify`, `why`,
//! `show`, `availability`, `list`, `catalog list|update`, `harness
//! list|status`, `outdated`; HCP.md §11.2–§11.3, §12.4–§12.8, §13.2,
//! §13.5–§13.6, §14.7) and the changes no key makes (`install
//! --list|--skill|--all|--force`, `upgrade` with flags, `sync`, `init`,
//! `add`, `remove`, `catalog add|remove`, `harness enable --detected`,
//! `harness sync`; §11.1, §11.6, §12.5–§12.6, §13.2, §13.7–§13.8, §15.3) —
//! runs in a worker with the default `Interaction` (nothing prompts) and
//! shows its words in the Output pane, `J` (or `--json`) its document; the
//! browser is read again after a change. `doctor --fix`, `sync` and
//! `remove` ask y/n first (the dialog keeps the store they run on);
//! `upgrade ID...` goes through `U`'s diff (§13.7). Inside a project a
//! request runs on the store the CLI would pick (§15.1): the line's `-g`
//! or `--project`, the store holding its packs, the user store for the
//! catalogs, else the project's. A line's `--principal` and `--catalog`
//! hold for the work it starts; `:principal NAME` switches the TUI's
//! principal.

use super::*;
use crate::fixline::FixFlags;
use crate::tui::query::{Answer, Query};
use crate::tui::scope::Store;

impl App {
    /// Typing in the `:` line; `Tab` completes.
    /// `:` opens the line, empty.
    pub(super) fn start_cmdline(&mut self) {
        self.cmdline = CmdLine::default();
        self.cmdline.editing = true;
    }

    pub(super) fn edit_cmdline(&mut self, action: Action) {
        let line = &mut self.cmdline;
        match action {
            Action::CmdLineChar(c) => line.input.push(c),
            Action::CmdLineBackspace => {
                line.input.pop();
            }
            Action::CmdLineCancel => *line = CmdLine::default(),
            _ => {
                let ids: Vec<&str> = self.packs.entries.iter().map(Row::id).collect();
                let entries = &self.packs.entries;
                let verbs = |id: &str| -> Vec<String> {
                    entries
                        .iter()
                        .find(|r| r.id() == id)
                        .map(|r| r.verbs.iter().map(|v| v.to_string()).collect())
                        .unwrap_or_default()
                };
                let (input, choices) = cmdline::complete(&self.cmdline.input, &ids, verbs);
                self.cmdline.input = input;
                self.cmdline.choices = choices;
            }
        }
    }

    /// `Enter` in the `:` line: the same engine call as `hcpx` with those
    /// words (parsed with its clap tree), or why not.
    pub(super) fn submit_cmdline(&mut self) -> Vec<Job> {
        let typed = std::mem::take(&mut self.cmdline);
        let line = match cmdline::split(&typed.input).and_then(|w| cmdline::parse(&w)) {
            Ok(line) => line,
            Err(why) => {
                let text = format!(":{}: {}", typed.input.trim(), text::safe(&why));
                self.say(Outcome::Refused, text, None);
                return Vec::new();
            }
        };
        match line.parsed {
            Parsed::Help(help) => return self.show_help_text(&typed.input, help),
            Parsed::Principal(principal) => return self.set_principal(principal),
            _ => {}
        }
        if let Some(reason) = self.work.refusal() {
            self.say(Outcome::Refused, reason, None);
            return Vec::new();
        }
        if let Some(why) = self.scope_refusal(&line) {
            self.say(Outcome::Refused, why.into(), None);
            return Vec::new();
        }
        let scoped = line.principal.is_some() || !line.catalogs.is_empty();
        if scoped && asks_first(&line.parsed) {
            let text = "--principal and --catalog are not taken by a command that asks first; switch with :principal NAME, or run it in a shell";
            self.say(Outcome::Refused, text.into(), None);
            return Vec::new();
        }
        if line.catalogs.is_empty()
            && let Some(id) = self.unknown_pack(&line.parsed)
        {
            return self.refuse_unknown(&id);
        }
        let (principal, catalogs) = (line.principal.clone(), line.catalogs.clone());
        self.line_flags = cmdline::LineFlags::of(&line);
        let jobs = self.run_parsed(line.parsed, line.json);
        self.line_flags = cmdline::LineFlags::default();
        if !scoped {
            return jobs;
        }
        jobs.into_iter()
            .map(|job| Job::Scoped {
                principal: principal.clone(),
                catalogs: catalogs.clone(),
                job: Box::new(job),
            })
            .collect()
    }

    /// Why a line's `-g` or `--project` cannot be taken (HCP.md §15.1):
    /// `--project` outside a project.
    fn scope_refusal(&self, line: &cmdline::Line) -> Option<&'static str> {
        use crate::engine::project::ScopeFlag;
        match line.scope {
            ScopeFlag::Project if self.scopes.project().is_none() => {
                Some("--project: the TUI is not in a project (hcpx init makes one)")
            }
            _ => None,
        }
    }

    /// `--help` or `--version` on the `:` line: clap's text in the Output
    /// pane.
    fn show_help_text(&mut self, input: &str, help: String) -> Vec<Job> {
        let command = format!("hcpx {}", input.trim());
        self.runs.show_report(Report {
            command: text::safe(&command).to_string(),
            ok: true,
            text: text::safe(&help).to_string(),
            json: None,
            show_json: false,
            also: Vec::new(),
        });
        // Shown, the keys left where they were (lazygit's command log):
        // a key after it acts on what the focus marker shows.
        self.focus.output_arrived();
        self.text.output = 0;
        Vec::new()
    }

    /// The first pack id of `parsed` in neither the store nor a catalog
    /// (`install` looks its ids up itself, in the catalogs).
    fn unknown_pack(&self, parsed: &Parsed) -> Option<String> {
        let ids = match parsed {
            Parsed::Stage(Stage::Install, _) => return None,
            Parsed::Stage(_, ids) | Parsed::Lint(ids) | Parsed::Upgrade(ids) => ids,
            _ => return None,
        };
        ids.iter()
            .find(|id| !self.packs.entries.iter().any(|r| r.id() == id.as_str()))
            .cloned()
    }

    /// A `:` line that parsed, its packs known: the work it starts.
    fn run_parsed(&mut self, parsed: Parsed, json: bool) -> Vec<Job> {
        match parsed {
            Parsed::Stage(Stage::Uninstall, ids) => {
                self.ask_uninstall_of(ids);
                Vec::new()
            }
            Parsed::Stage(Stage::Deactivate, ids) => self.deactivate_of(ids),
            Parsed::Stage(stage, ids) => self.start_stage(stage, ids),
            Parsed::Lint(ids) => {
                let rows: Vec<Row> = self
                    .packs
                    .entries
                    .iter()
                    .filter(|r| ids.iter().any(|id| id == r.id()))
                    .cloned()
                    .collect();
                self.start_lint(rows)
            }
            Parsed::Exec {
                pack_id,
                verb,
                words,
            } => self.run_exec(pack_id, verb, words),
            Parsed::HarnessView => self.show_harnesses(),
            Parsed::Harness { target, enable } => {
                // As hcpx in the project: the line's store, else the project's.
                let store = self.line_store().unwrap_or(Store::Project);
                self.set_harness(target, enable, store)
            }
            Parsed::Upgrade(ids) => self.upgrade_ids(ids),
            Parsed::Report(request) => {
                let store = match self.request_store(&request) {
                    Ok(store) => store,
                    Err(why) => {
                        self.say(Outcome::Refused, why, None);
                        return Vec::new();
                    }
                };
                let flags = self.fix_flags();
                self.ask_or_run(
                    Query {
                        request,
                        flags,
                        json,
                    },
                    store,
                )
            }
            Parsed::Principal(principal) => self.set_principal(principal),
            Parsed::Help(_) => Vec::new(),
        }
    }

    /// A query that asks y/n first opens its dialog (which keeps the store
    /// it runs on); any other runs.
    fn ask_or_run(&mut self, query: Query, store: Option<Store>) -> Vec<Job> {
        if query.asks() {
            self.dialog = Some(Dialog::ConfirmQuery { query, store });
            return Vec::new();
        }
        self.run_query(query, store)
    }

    /// The store a request runs on inside a project (HCP.md §15.1), as
    /// the CLI picks it: the line's `-g` or `--project`; the user store for
    /// the catalogs (they are the user's); for a request on packs, the
    /// store holding them (the project's first); `None`, the project's,
    /// for any other. `init` opens no store, and outside a project there
    /// is one.
    fn request_store(&self, request: &Request) -> Result<Option<Store>, String> {
        if self.scopes.project().is_none() || matches!(request, Request::Init { .. }) {
            return Ok(None);
        }
        if let Some(store) = self.line_store() {
            return Ok(Some(store));
        }
        // A report of every pack, or a change of packs of both stores: the
        // worker runs it on both, as the CLI does (`command::both`).
        let project_store = self
            .scopes
            .project()
            .and_then(|root| crate::engine::project::Project::at(root).ok())
            .map(|p| p.store_dir());
        if project_store.is_some_and(|store| crate::command::both::runs_on_both(request, &store)) {
            return Ok(None);
        }
        let packs: Vec<String> = match request {
            Request::CatalogAdd { .. } | Request::CatalogRemove { .. } => {
                return Ok(Some(Store::User));
            }
            Request::Show { pack }
            | Request::Why { pack, .. }
            | Request::Connect { pack }
            | Request::Exec { pack, .. }
            | Request::Availability { pack: Some(pack) }
            | Request::HarnessStatus { pack: Some(pack) } => vec![pack.as_str().to_string()],
            Request::Activate { packs }
            | Request::Deactivate { packs }
            | Request::Uninstall { packs }
            | Request::Remove { packs }
            | Request::Upgrade { packs, .. } => {
                packs.iter().map(|p| p.as_str().to_string()).collect()
            }
            _ => return Ok(None),
        };
        if packs.is_empty() {
            return Ok(None);
        }
        self.store_for(false, &packs).map(Some)
    }

    /// The `--principal` and `--catalog` fix lines repeat: this line's,
    /// else the TUI's.
    pub(super) fn fix_flags(&self) -> FixFlags {
        FixFlags {
            principal: self
                .line_flags
                .principal
                .clone()
                .or_else(|| self.config.principal_arg.clone()),
            catalogs: self
                .config
                .catalog_args
                .iter()
                .chain(&self.line_flags.catalogs)
                .cloned()
                .collect(),
            global: false,
        }
    }

    /// Runs a request in a worker, on `store` inside a project (see
    /// [`App::request_store`]), said as its `hcpx` line.
    pub(super) fn run_query(&mut self, query: Query, store: Option<Store>) -> Vec<Job> {
        if !self.not_busy() {
            return Vec::new();
        }
        let command = self.line_command(&query.args());
        self.last_command = Some(match store {
            Some(store) => self.in_store(store, command),
            None => command,
        });
        let job = Job::Query(query);
        self.work.start(job.label());
        match store {
            Some(store) => vec![self.routed(store, job)],
            None => vec![job],
        }
    }

    /// A report answered: its words (or with `J`, its document) in the
    /// Output pane, a line in the log; the browser read again when it may
    /// have changed the store.
    pub(super) fn query_done(&mut self, query: Query, result: Result<Answer, Error>) -> Vec<Job> {
        self.work.finish();
        let approval = result.as_ref().ok().and_then(needs_approval);
        let command = self
            .last_command
            .clone()
            .unwrap_or_else(|| self.hcpx(&query.args(), false));
        let show_json = query.json;
        let installed = match &result {
            Ok(Answer::One { outcome, .. }) => {
                super::results::installed_ids(std::slice::from_ref(&**outcome))
            }
            _ => Vec::new(),
        };
        let (outcome, summary, body, json) = match result {
            Ok(answer) => {
                let ok = answer.exit_code() == 0;
                let (words, doc) = crate::tui::query::answer_texts(&answer);
                // A one-line answer (`grant`) is said as it is.
                let summary = crate::tui::query::summary(&words, &query.args());
                let outcome = if ok { Outcome::Done } else { Outcome::Failed };
                (outcome, summary, words, Some(doc))
            }
            Err(err) => {
                let text = self.error_text(&err).text;
                let doc = crate::tui::query::error_document(&err, &query.flags);
                (Outcome::Failed, text.clone(), text, Some(doc))
            }
        };
        self.say(outcome, summary, Some(command.clone()));
        self.runs.show_report(Report {
            command,
            ok: outcome == Outcome::Done,
            text: text::safe(&body).to_string(),
            json: json.map(|d| text::safe(&d).to_string()),
            show_json,
            also: Vec::new(),
        });
        // Shown, the keys left where they were (lazygit's command log):
        // a key after it acts on what the focus marker shows.
        self.focus.output_arrived();
        self.text.output = 0;
        if !installed.is_empty() {
            // The cursor goes to what it installed (Lint shows it; the
            // words stay in Output).
            self.show_installed(&installed);
            self.focus.show(Pane::Output);
        }
        if let Some(results) = approval {
            // The sync's diff, and y to approve it (§15.6).
            let store = self.request_store(&query.request).ok().flatten();
            self.dialog = Some(Dialog::ConfirmSync {
                query,
                store,
                results,
            });
            return Vec::new();
        }
        if query.changes() {
            return self.loads.request();
        }
        Vec::new()
    }

    /// `y` / `n` on a sync's approval: `y` runs it again with `--yes`,
    /// expecting the digests shown (§15.6).
    pub(super) fn confirm_sync(
        &mut self,
        mut query: Query,
        store: Option<Store>,
        results: &[crate::engine::ops::sync::SyncResult],
        yes: bool,
    ) -> Vec<Job> {
        let Request::Sync {
            yes: approved,
            expect,
            ..
        } = &mut query.request
        else {
            return Vec::new();
        };
        *approved = true;
        *expect = crate::tui::dialog::approval::expected(results);
        if !yes {
            let command = self.hcpx(&["sync".to_string(), "--yes".to_string()], false);
            self.say(
                Outcome::Cancelled,
                "sync cancelled: nothing was installed".into(),
                Some(command),
            );
            return Vec::new();
        }
        self.last_command = None;
        self.run_query(query, store)
    }

    /// `hcpx ARGS` with this line's `--catalog` and `--principal` when it
    /// gave them, else the TUI's.
    fn line_command(&self, args: &[String]) -> String {
        if self.line_flags.principal.is_none() && self.line_flags.catalogs.is_empty() {
            return self.hcpx(args, false);
        }
        let mut words = args.to_vec();
        for dir in &self.line_flags.catalogs {
            words.extend(["--catalog".to_string(), dir.clone()]);
        }
        let principal = self.line_flags.principal.clone();
        if let Some(p) = principal.or_else(|| self.config.principal_arg.clone()) {
            words.extend(["--principal".to_string(), p]);
        }
        let mut line = String::from("hcpx");
        for word in &words {
            line.push(' ');
            line.push_str(&crate::fixline::shell_quote(word));
        }
        line
    }

    pub(super) fn refuse_unknown(&mut self, id: &str) -> Vec<Job> {
        let text = format!("no pack `{}` in the store or a catalog", text::safe(id));
        self.say(Outcome::Refused, text, None);
        Vec::new()
    }
}

/// Whether the work a line starts asks y/n (or shows a diff) first.
fn asks_first(parsed: &Parsed) -> bool {
    match parsed {
        Parsed::Stage(Stage::Uninstall, _) | Parsed::Upgrade(_) => true,
        Parsed::Report(request) => crate::tui::query::asks(request),
        _ => false,
    }
}

/// The results of a sync refused for want of approval (§15.6): those its
/// y/n dialog shows.
fn needs_approval(answer: &Answer) -> Option<Vec<crate::engine::ops::sync::SyncResult>> {
    let Answer::One { outcome, .. } = answer else {
        return None;
    };
    match outcome.as_ref() {
        crate::command::Outcome::Synced {
            results,
            error: Some(err),
        } if err.code == crate::engine::error::ErrorCode::ConfirmationRequired
            && !crate::tui::dialog::approval::shown(results).is_empty() =>
        {
            Some(results.clone())
        }
        _ => None,
    }
}
