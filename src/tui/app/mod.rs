//! The TUI's state and its one `update` function. `update` takes an
//! [`Action`] and returns the [`Job`]s to run off the loop; drawing only
//! reads this state (`ui::draw`). Nothing here decides a lifecycle fact:
//! statuses, availability, lint reports and errors all come from the
//! engine through the workers.

mod colon;
mod harness;
mod refuse;
mod results;
mod upgrade;

use crate::engine::error::{Error, ErrorCode};
use crate::engine::exec::process::Scope;
use crate::engine::harness::TargetName;
use crate::engine::ops::ExecResult;
use crate::engine::ops::upgrade::OutdatedPack;
use crate::engine::pack::manifest::{Arg, ArgType};
use crate::engine::store::snapshot::BOOTSTRAP_ID;
use crate::tui::action::{Action, Pane, SecretRequest};
use crate::tui::cmdline::{self, CmdLine, Parsed};
pub use crate::tui::form::{ExecForm, FormField};
use crate::tui::harnesses::{HarnessRow, HarnessView};
use crate::tui::keymap::{Cmd, CommandInfo};
use crate::tui::log::{CommandLog, LogEntry, Outcome};
use crate::tui::marks::Marks;
pub use crate::tui::packs::{Filter, PackList, SortKey};
use crate::tui::search::Search;
use crate::tui::text::{self, shell_quote};
use crate::tui::textpanes::TextPanes;
use crate::tui::theme::Theme;
use crate::tui::ui;
use crate::tui::worker::{
    Entry, Inspected, Inspection, Job, JobResult, Row, SkillText, Stage, StageReport, Stamp,
};
use std::collections::{BTreeSet, HashMap};
use tokio::sync::oneshot;

/// How many ticks between two looks at the store (10 × 100 ms).
pub const STAMP_EVERY_TICKS: u64 = 10;
/// How many ticks the status line keeps a message (5 s); the command log
/// keeps it for good.
pub const NOTICE_TICKS: u64 = 50;

/// Settings fixed for one run.
#[derive(Debug, Clone)]
pub struct Config {
    /// The principal the engine acts for (§9.1).
    pub principal: String,
    /// `--principal` as given, repeated in the equivalent commands.
    pub principal_arg: Option<String>,
    /// `--catalog` folders as given, repeated where a command needs them.
    pub catalog_args: Vec<String>,
    pub theme: Theme,
    /// Show durations (off in snapshot tests, where they would vary).
    pub show_timings: bool,
}

impl Config {
    pub fn new(principal: impl Into<String>) -> Config {
        Config {
            principal: principal.into(),
            principal_arg: None,
            catalog_args: Vec::new(),
            theme: Theme::COLOR,
            show_timings: true,
        }
    }
}

/// The masked input of a `secret` Binding. The typed text is private: the
/// screen only ever sees its length, and it leaves this struct when sent.
#[derive(Debug)]
pub struct SecretPrompt {
    pub pack_id: String,
    pub prompt: String,
    pub name: String,
    input: String,
    reply: Option<oneshot::Sender<Result<String, Error>>>,
}

impl SecretPrompt {
    /// How many characters were typed (shown as bullets).
    pub fn typed(&self) -> usize {
        self.input.chars().count()
    }

    fn answer(&mut self, answer: Result<String, Error>) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(answer);
        }
    }

    fn cancel(&mut self) {
        self.input.clear();
        let error = Error::new(
            ErrorCode::Usage,
            format!(
                "connecting {} was cancelled; nothing was recorded",
                self.pack_id
            ),
        )
        .pack(self.pack_id.clone());
        self.answer(Err(error));
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
}

/// The last exec's result, for the output pane.
#[derive(Debug, Clone)]
pub struct ExecOutput {
    pub pack_id: String,
    pub verb: String,
    /// The equivalent `hcpx exec` command.
    pub command: String,
    pub result: Result<ExecResult, Error>,
}

/// The last `:` report (doctor, show, why…) for the Output pane.
#[derive(Debug, Clone)]
pub struct Report {
    /// The equivalent `hcpx` command.
    pub command: String,
    pub ok: bool,
    /// Its document or words, terminal-safe.
    pub text: String,
}

/// A one-line message in the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

/// The whole TUI state.
pub struct App {
    pub config: Config,
    /// The terminal size, columns × rows.
    pub size: (u16, u16),
    /// Whether the first snapshot arrived.
    pub loaded: bool,
    pub loading: bool,
    reload_queued: bool,
    /// `r` asked for the load running now: its result goes in the log.
    reload_asked: bool,
    pub load_error: Option<Error>,
    stamp: Option<Stamp>,
    stamp_pending: bool,
    /// The browser's packs: rows, sort, filter, selection, marks.
    pub packs: PackList,
    /// `/` in a text pane.
    pub search: Search,
    /// The `:` command line.
    pub cmdline: CmdLine,
    pub focus: Pane,
    /// The pane shown in the lower-right area (Details, Lint or Output).
    pub lower: Pane,
    /// Command row selected in the availability matrix.
    pub matrix_selected: usize,
    /// The text panes' scroll offsets and wrapping.
    pub text: TextPanes,
    /// `Ctrl-L`: the runner clears the terminal before the next frame.
    pub redraw: bool,
    /// Every action of the session, as commands (`@`).
    pub log: CommandLog,
    /// The browser's marks (`!` verify, `≠` harness, `↑` outdated).
    pub marks: Marks,
    marks_pending: bool,
    /// A load finished while the marks were being read: read them again.
    marks_queued: bool,
    /// `y` on the upgrade's diff: the upgrade runs unless the diff changed.
    upgrade_asked: bool,
    /// The Harnesses view's targets and selection (`H`).
    pub harnesses: HarnessView,
    /// The last exec's form, for `.` (rerun).
    last_exec: Option<ExecForm>,
    /// What was typed in each command's form (pack, verb), kept for the
    /// next time it opens.
    remembered: HashMap<(String, String), Vec<String>>,
    /// The notice the clock last saw, and since when (for [`NOTICE_TICKS`]).
    notice_seen: Option<Notice>,
    notice_since: u64,
    /// The selected pack read in full (view, availability, Skill).
    pub inspected: Option<Inspection>,
    pub output: Option<ExecOutput>,
    /// The last `:` report, shown in the Output pane instead of `output`.
    pub report: Option<Report>,
    /// The `hcpx` command equivalent to the last action.
    pub last_command: Option<String>,
    pub notice: Option<Notice>,
    pub dialog: Option<Dialog>,
    /// What the running lifecycle job is doing, if one runs.
    pub busy: Option<String>,
    /// The pack command the running job may start (an exec, a connect's
    /// probe), if one runs: quitting asks first, and `X` cancels it.
    pub running: Option<String>,
    /// The packs a finished stage touched, until they are read again.
    refreshing: Vec<String>,
    /// `X` ended the running command; its result says so.
    cancelled: bool,
    /// The commands the app's jobs start (the runner runs them in it).
    pub scope: Scope,
    pub ticks: u64,
    pub quit: bool,
    /// A worker panicked: the message printed after the terminal is restored.
    pub fatal: Option<String>,
}

impl App {
    pub fn new(config: Config) -> App {
        App {
            config,
            size: (80, 24),
            loaded: false,
            loading: false,
            reload_queued: false,
            reload_asked: false,
            load_error: None,
            stamp: None,
            stamp_pending: false,
            packs: PackList::default(),
            search: Search::default(),
            cmdline: CmdLine::default(),
            focus: Pane::Browser,
            lower: Pane::Details,
            matrix_selected: 0,
            text: TextPanes::default(),
            redraw: false,
            log: CommandLog::default(),
            harnesses: HarnessView::default(),
            marks: Marks::default(),
            marks_pending: false,
            marks_queued: false,
            upgrade_asked: false,
            last_exec: None,
            remembered: HashMap::new(),
            notice_seen: None,
            notice_since: 0,
            inspected: None,
            output: None,
            report: None,
            last_command: None,
            notice: None,
            dialog: None,
            busy: None,
            running: None,
            cancelled: false,
            refreshing: Vec::new(),
            scope: Scope::new(),
            ticks: 0,
            quit: false,
            fatal: None,
        }
    }

    /// The jobs to start with: load the snapshot (the first frame shows
    /// "loading…" until it arrives).
    pub fn init(&mut self) -> Vec<Job> {
        self.request_load()
    }

    /// A `--catalog` folder that does not exist is a warning, not an
    /// error: the other catalogs and the store still show.
    pub fn warn_missing_catalogs(&mut self, catalogs: &[std::path::PathBuf]) {
        for dir in catalogs.iter().filter(|d| !d.is_dir()) {
            let text = format!(
                "warning: catalog {} is not a folder; it shows no packs",
                text::safe(&dir.display().to_string())
            );
            self.say(Outcome::Warning, text, None);
        }
    }

    /// Whether the browser has nothing but the bootstrap pack (no catalog,
    /// nothing installed): it then says how to add packs.
    pub fn only_bootstrap(&self) -> bool {
        self.loaded && self.packs.entries.iter().all(|r| r.id() == BOOTSTRAP_ID)
    }

    pub fn theme(&self) -> Theme {
        self.config.theme
    }

    /// The row under the cursor.
    pub fn selected_row(&self) -> Option<&Row> {
        self.packs.selected_row()
    }

    /// The selected pack in full, once read.
    pub fn selected_view(&self) -> Option<&Entry> {
        let id = self.selected_row()?.id();
        self.inspected
            .as_ref()
            .map(|i| &i.entry)
            .filter(|e| e.id() == id)
    }

    /// The selected pack's Skill, once read.
    pub fn selected_skill(&self) -> Option<&SkillText> {
        let id = self.selected_row()?.id();
        self.inspected
            .as_ref()
            .filter(|i| i.entry.id() == id)
            .map(|i| &i.skill)
    }

    /// The packs an action applies to: the marked ones, else the selected.
    pub fn targets(&self) -> Vec<&Row> {
        self.packs.targets()
    }

    /// Whether the spinner turns (something runs).
    pub fn is_animating(&self) -> bool {
        self.loading || self.busy.is_some()
    }

    /// Whether a worker waits on the user (the masked input is open).
    pub fn awaits_input(&self) -> bool {
        matches!(self.dialog, Some(Dialog::Secret(_)))
    }

    /// Changes the state; returns the work to start.
    pub fn update(&mut self, action: Action) -> Vec<Job> {
        let before = self.selected_row().map(|e| e.id().to_string());
        self.packs.rows = ui::browser_rows(self).max(1);
        let mut jobs = self.apply(action);
        self.fit_browser();
        let after = self.selected_row().map(|e| e.id().to_string());
        if before != after {
            self.matrix_selected = 0;
            self.text.details = 0;
            self.text.lint = 0;
            jobs.extend(self.inspect_job());
        }
        jobs
    }

    fn apply(&mut self, action: Action) -> Vec<Job> {
        match action {
            Action::Quit => self.ask_quit(),
            Action::CancelRun => self.cancel_run(),
            Action::Resize(w, h) => {
                self.size = (w, h);
                self.fit_browser();
            }
            Action::Tick => return self.tick(),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::HalfPageUp => self.move_by(-(self.page().div_ceil(2) as isize)),
            Action::HalfPageDown => self.move_by(self.page().div_ceil(2) as isize),
            Action::PageUp => self.move_by(-(self.page() as isize)),
            Action::PageDown => self.move_by(self.page() as isize),
            Action::Top => self.move_by(isize::MIN / 2),
            Action::Bottom => self.bottom(),
            Action::NextPane => self.cycle_pane(1),
            Action::PrevPane => self.cycle_pane(Pane::ORDER.len() - 1),
            Action::PaneLeft => self.focus_pane(Pane::Browser),
            Action::PaneRight => self.pane_right(),
            Action::Open => return self.open(),
            Action::ShowLog => {
                self.focus_pane(Pane::Log);
                self.text.log = u16::MAX;
            }
            Action::ToggleWrap => self.toggle_wrap(),
            Action::Redraw => self.redraw = true,
            Action::Help => self.dialog = Some(Dialog::Help),
            Action::CloseDialog => {
                if matches!(
                    self.dialog,
                    Some(Dialog::Help) | Some(Dialog::Error(_)) | Some(Dialog::Harnesses)
                ) {
                    self.dialog = None;
                }
            }
            Action::ShowHarnesses => return self.show_harnesses(),
            Action::HarnessMove(delta) => self.harnesses.move_by(delta),
            Action::HarnessToggle => return self.toggle_harness(),
            Action::CheckUpdates => return self.check_updates(),
            Action::Upgrade => return self.upgrade(),
            Action::Escape => self.escape(),
            Action::FilterStart
            | Action::FilterChar(_)
            | Action::FilterBackspace
            | Action::FilterKeep
            | Action::FilterClear
            | Action::SearchChar(_)
            | Action::SearchBackspace
            | Action::SearchKeep
            | Action::SearchClear
            | Action::SearchNext(_) => self.filter_or_search(action),
            Action::CmdLineStart
            | Action::CmdLineChar(_)
            | Action::CmdLineBackspace
            | Action::CmdLineComplete
            | Action::CmdLineCancel => self.edit_cmdline(action),
            Action::CmdLineSubmit => return self.submit_cmdline(),
            Action::Mark => self.mark(),
            Action::CycleSort => self.cycle_sort(),
            Action::Install
            | Action::ToggleActivate
            | Action::Connect
            | Action::Exec
            | Action::Rerun
            | Action::Lint
            | Action::Uninstall
            | Action::Reload => return self.lifecycle(action),
            Action::Confirm(yes) => return self.confirm(yes),
            Action::Input(_)
            | Action::InputBackspace
            | Action::InputClear
            | Action::FieldNext
            | Action::FieldPrev
            | Action::FieldCycle(_)
            | Action::InputSubmit
            | Action::InputCancel => return self.input(action),
            Action::Click { column, row } => self.click(column, row),
            Action::Scroll { column, row, down } => self.wheel(column, row, down),
            Action::Done(result) => return self.done(result),
            Action::SecretNeeded(request) => self.ask_secret(request),
        }
        Vec::new()
    }

    /// `/` and the keys while typing a filter or a search.
    fn filter_or_search(&mut self, action: Action) {
        match action {
            Action::FilterStart if self.focus.is_lower() => self.search.start(self.focus),
            Action::FilterStart => {
                self.packs.filter.editing = true;
                self.focus = Pane::Browser;
            }
            Action::SearchChar(c) => self.search.query.push(c),
            Action::SearchBackspace => {
                self.search.query.pop();
            }
            Action::SearchKeep => {
                self.search.editing = false;
                self.search.current = None;
                self.find(true);
            }
            Action::SearchClear => self.search.clear(),
            Action::SearchNext(forward) => self.find(forward),
            Action::FilterChar(c) => {
                let mut q = self.packs.filter.query.clone();
                q.push(c);
                self.packs.set_query(q);
            }
            Action::FilterBackspace => {
                let mut q = self.packs.filter.query.clone();
                q.pop();
                self.packs.set_query(q);
            }
            Action::FilterKeep => self.packs.filter.editing = false,
            Action::FilterClear => {
                self.packs.filter.editing = false;
                self.packs.set_query(String::new());
            }
            _ => {}
        }
    }

    /// `→`: Packs → Availability → the lower pane.
    fn pane_right(&mut self) {
        match self.focus {
            Pane::Browser => self.focus_pane(Pane::Matrix),
            Pane::Matrix => self.focus_pane(self.lower),
            _ => {}
        }
    }

    /// `w`: wrap long lines in the text panes, or cut them at the edge.
    fn toggle_wrap(&mut self) {
        self.text.wrap = !self.text.wrap;
        let how = if self.text.wrap {
            "wrapped"
        } else {
            "cut at the pane's edge"
        };
        self.notice = Some(info(format!("long lines are {how} (w switches)")));
    }

    /// The wheel scrolls the pane under the pointer, focused or not.
    fn wheel(&mut self, column: u16, row: u16, down: bool) {
        if self.dialog.is_none()
            && let Some(pane) = ui::pane_at(self, column, row)
        {
            let focus = self.focus;
            self.focus = pane;
            self.move_by(if down { 3 } else { -3 });
            self.focus = focus;
        }
    }

    /// The clock: expires the status line's message, and now and then
    /// looks at the store.
    fn tick(&mut self) -> Vec<Job> {
        self.ticks += 1;
        if self.notice != self.notice_seen {
            self.notice_seen = self.notice.clone();
            self.notice_since = self.ticks;
        } else if self.notice.is_some() && self.ticks - self.notice_since >= NOTICE_TICKS {
            self.notice = None;
            self.notice_seen = None;
        }
        if self.ticks.is_multiple_of(STAMP_EVERY_TICKS)
            && self.loaded
            && !self.loading
            && !self.stamp_pending
        {
            self.stamp_pending = true;
            return vec![Job::Stamp];
        }
        Vec::new()
    }

    /// `Esc`: drops the search of the focused text pane; else clears the
    /// marks, then the filter, and goes back to Packs (where that shows).
    fn escape(&mut self) {
        if self.search.active_in(self.focus).is_some() {
            self.search.clear();
            return;
        }
        if !self.packs.marked.is_empty() {
            self.packs.marked.clear();
        } else if !self.packs.filter.query.is_empty() {
            self.packs.set_query(String::new());
        }
        self.focus_pane(Pane::Browser);
    }

    fn mark(&mut self) {
        self.fit_browser();
        if self.packs.toggle_mark() {
            self.focus = Pane::Browser;
        }
    }

    fn cycle_sort(&mut self) {
        self.fit_browser();
        self.packs.cycle_sort();
        self.notice = Some(info(format!("sorted by {}", self.packs.sort.as_str())));
    }

    /// `Enter`: on a pack, its commands; on a command, its run form.
    fn open(&mut self) -> Vec<Job> {
        match self.focus {
            Pane::Browser => {
                self.focus_pane(Pane::Matrix);
                Vec::new()
            }
            Pane::Matrix => self.lifecycle(Action::Exec),
            _ => Vec::new(),
        }
    }

    /// Shows the next (or previous) line that matches the search, and
    /// says which match it is.
    fn find(&mut self, forward: bool) {
        let Some(pane) = self.search.pane.filter(|_| !self.search.query.is_empty()) else {
            self.notice = Some(error_notice(
                "no search: / in a text pane starts one".into(),
            ));
            return;
        };
        let lines = ui::text_strings(self, pane);
        let matches = self.search.matches(&lines);
        let query = text::safe(&self.search.query);
        let at = match (self.search.current, forward) {
            (Some(c), true) => c + 1,
            (Some(c), false) => c,
            (None, _) => self.scroll_of(pane) as usize,
        };
        let Some(line) = Search::next(&matches, at, forward) else {
            self.notice = Some(error_notice(format!("no line matches `{query}`")));
            return;
        };
        self.search.current = Some(line);
        self.focus_pane(pane);
        let last = self.last_page(pane);
        *self.scroll_mut(pane) = (line.min(u16::MAX as usize) as u16).min(last);
        let nth = matches.iter().position(|&m| m == line).unwrap_or(0) + 1;
        self.notice = Some(info(format!(
            "`{query}`: match {nth} of {} (n next, N previous)",
            matches.len()
        )));
    }

    /// `G`: the last row, or in a text pane the last full page.
    fn bottom(&mut self) {
        match self.focus {
            Pane::Browser | Pane::Matrix => self.move_by(isize::MAX / 2),
            pane => *self.scroll_mut(pane) = self.last_page(pane),
        }
    }

    /// A lifecycle key: refused at once, with availability's reason, when
    /// it cannot succeed; else the work to start.
    fn lifecycle(&mut self, action: Action) -> Vec<Job> {
        let cmd = match action {
            Action::Install => Cmd::Install,
            Action::ToggleActivate => Cmd::Activate,
            Action::Connect => Cmd::Connect,
            Action::Exec => Cmd::Exec,
            Action::Rerun => Cmd::Rerun,
            Action::Lint => Cmd::Lint,
            Action::Uninstall => Cmd::Uninstall,
            _ => Cmd::Reload,
        };
        if let Err(reason) = self.command_info(cmd).enabled {
            self.say(Outcome::Refused, reason, None);
            return Vec::new();
        }
        match cmd {
            Cmd::Install => self.stage(Stage::Install, |r| r.catalog_dir.is_some()),
            Cmd::Activate => {
                let any_inactive = self.targets().iter().any(|r| r.installed && !r.activated);
                let stage = if any_inactive {
                    Stage::Activate
                } else {
                    Stage::Deactivate
                };
                self.stage(stage, |r| r.installed)
            }
            Cmd::Connect => self.stage(Stage::Connect, |r| r.activated),
            Cmd::Uninstall => {
                let ids: Vec<String> = self
                    .targets()
                    .iter()
                    .filter(|r| r.installed && r.id() != BOOTSTRAP_ID)
                    .map(|e| e.id().to_string())
                    .collect();
                self.dialog = Some(Dialog::ConfirmUninstall { ids });
                Vec::new()
            }
            Cmd::Lint => self.lint(),
            Cmd::Exec => self.open_exec(),
            Cmd::Rerun => match self.last_exec.clone() {
                Some(form) => self.start_exec(form),
                None => Vec::new(),
            },
            _ => {
                self.last_command = Some(self.hcpx(&["list".into()], false));
                self.reload_asked = true;
                self.request_load()
            }
        }
    }

    /// Says how an action ended: the status line for a few seconds, and a
    /// line in the command log.
    fn say(&mut self, outcome: Outcome, text: String, command: Option<String>) {
        self.notice = Some(Notice {
            text: text.clone(),
            error: outcome.is_error(),
        });
        self.notice_seen = None;
        self.log.push(LogEntry {
            command,
            outcome,
            text,
        });
    }

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
                    self.notice = Some(info(format!("{running} goes on")));
                }
            }
            other => self.dialog = other,
        }
        Vec::new()
    }

    /// Keys in the masked input and the run form.
    fn input(&mut self, action: Action) -> Vec<Job> {
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
                    Some(Dialog::Secret(mut p)) => p.cancel(),
                    Some(Dialog::ExecForm(form)) => {
                        self.remember(&form);
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
                p.answer(Ok(secret));
                self.busy = Some(format!("connecting {}", p.pack_id));
                Vec::new()
            }
            Some(Dialog::ExecForm(mut form)) => {
                self.remember(&form);
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

    fn remember(&mut self, form: &ExecForm) {
        self.remembered
            .insert((form.pack_id.clone(), form.verb.clone()), form.values());
    }

    /// `q` / Ctrl-C: quits at once when no pack command runs; otherwise asks
    /// (and a second Ctrl-C, or `y`, ends the command and quits).
    fn ask_quit(&mut self) {
        match (&self.dialog, &self.running) {
            (Some(Dialog::ConfirmQuit { .. }), _) => self.end_and_quit(),
            // A connect waiting for its secret runs nothing yet; dropping
            // the prompt cancels it.
            (Some(Dialog::Secret(_)), _) | (_, None) => {
                self.dialog = None;
                self.quit = true;
            }
            (_, Some(running)) => {
                self.dialog = Some(Dialog::ConfirmQuit {
                    running: running.clone(),
                });
            }
        }
    }

    /// Ends every command the engine started (their whole process groups)
    /// and lets no other start, then quits (§14.6).
    fn end_and_quit(&mut self) {
        let ended = self.scope.end();
        tracing::info!(groups = ended, "quit: ended the running commands");
        self.dialog = None;
        self.quit = true;
    }

    /// `X`: ends the running command's process group; the job then reports
    /// the command as cancelled.
    fn cancel_run(&mut self) {
        let Some(running) = self.running.clone() else {
            self.say(Outcome::Refused, "no command is running".into(), None);
            return;
        };
        let ended = self.scope.cancel();
        tracing::info!(groups = ended, "cancel: ended the running command");
        self.cancelled = ended > 0;
        self.notice = Some(if ended > 0 {
            info(format!("cancelling {running}"))
        } else {
            error_notice(format!(
                "{running} has not started a process yet; try again"
            ))
        });
    }

    fn not_busy(&mut self) -> bool {
        match &self.busy {
            Some(what) => {
                tracing::info!(busy = %what, "refused: busy");
                self.notice = Some(Notice {
                    text: format!("busy: wait until {what} finishes"),
                    error: true,
                });
                false
            }
            None => true,
        }
    }

    fn stage(&mut self, stage: Stage, keep: impl Fn(&Row) -> bool) -> Vec<Job> {
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

    fn start_stage(&mut self, stage: Stage, ids: Vec<String>) -> Vec<Job> {
        if !self.not_busy() {
            return Vec::new();
        }
        self.last_command = Some(self.stage_command(stage, &ids));
        let job = Job::Stage { stage, ids };
        self.busy = Some(job.label());
        if let Job::Stage {
            stage: Stage::Connect,
            ids,
        } = &job
        {
            self.running = Some(format!("connect {}", ids.join(", ")));
        }
        self.notice = None;
        vec![job]
    }

    /// The `hcpx` command(s) a stage is equivalent to.
    fn stage_command(&self, stage: Stage, ids: &[String]) -> String {
        match stage {
            // These take several ids at once.
            Stage::Activate | Stage::Deactivate => {
                let mut parts = vec![stage.subcommand().to_string()];
                parts.extend(ids.iter().cloned());
                self.hcpx(&parts, false)
            }
            // One id per command.
            Stage::Install | Stage::Connect | Stage::Uninstall => ids
                .iter()
                .map(|id| {
                    self.hcpx(
                        &[stage.subcommand().to_string(), id.clone()],
                        stage == Stage::Install,
                    )
                })
                .collect::<Vec<_>>()
                .join(" && "),
        }
    }

    /// `hcpx ARGS`, with `--principal` when one was given and the catalogs
    /// when the command looks packs up by id in them.
    pub fn hcpx(&self, args: &[String], catalogs: bool) -> String {
        let mut line = String::from("hcpx");
        for arg in args {
            line.push(' ');
            line.push_str(&shell_quote(arg));
        }
        if catalogs {
            for dir in &self.config.catalog_args {
                line.push_str(" --catalog ");
                line.push_str(&shell_quote(dir));
            }
        }
        if let Some(p) = &self.config.principal_arg {
            line.push_str(" --principal ");
            line.push_str(&shell_quote(p));
        }
        line
    }

    fn lint(&mut self) -> Vec<Job> {
        let rows: Vec<Row> = self.targets().into_iter().cloned().collect();
        if rows.is_empty() || !self.not_busy() {
            return Vec::new();
        }
        let job = Job::Inspect { rows, lint: true };
        self.busy = Some(job.label());
        self.lower = Pane::Lint;
        vec![job]
    }

    /// `x`: the run form of the selected command (refusals are already
    /// said by [`App::refusal`]); a command without args runs at once.
    fn open_exec(&mut self) -> Vec<Job> {
        let Some(entry) = self.selected_view() else {
            return Vec::new();
        };
        let Some(command) = entry
            .view
            .manifest()
            .and_then(|m| m.commands.get(self.matrix_selected))
        else {
            return Vec::new();
        };
        let key = (entry.id().to_string(), command.key.clone());
        let remembered = self.remembered.get(&key).map(Vec::as_slice);
        let form = ExecForm::new(entry.id(), command, remembered);
        if form.fields.is_empty() {
            return self.start_exec(form);
        }
        self.dialog = Some(Dialog::ExecForm(form));
        Vec::new()
    }

    fn start_exec(&mut self, form: ExecForm) -> Vec<Job> {
        if !self.not_busy() {
            return Vec::new();
        }
        let words = form.words();
        self.last_exec = Some(form.clone());
        self.run_exec(form.pack_id, form.verb, words)
    }

    /// `hcpx exec PACK VERB -- WORDS`, shown as that command.
    fn run_exec(&mut self, pack_id: String, verb: String, words: Vec<String>) -> Vec<Job> {
        let mut parts = vec!["exec".to_string(), pack_id.clone(), verb.clone()];
        if !words.is_empty() {
            parts.push("--".into());
            parts.extend(words.iter().cloned());
        }
        // Global flags go before `--`, where hcpx still reads them.
        let command = match words.is_empty() {
            true => self.hcpx(&parts, false),
            false => {
                let head = self.hcpx(&parts[..3], false);
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
        self.running = Some(format!("{pack_id} {verb}"));
        // The Output tab says what runs and how to cancel it.
        self.lower = Pane::Output;
        let job = Job::Exec {
            pack_id,
            verb,
            args,
        };
        self.busy = Some(job.label());
        vec![job]
    }

    fn ask_secret(&mut self, request: SecretRequest) {
        let SecretRequest {
            pack_id,
            prompt,
            name,
            reply,
        } = request;
        self.busy = None;
        self.dialog = Some(Dialog::Secret(SecretPrompt {
            pack_id,
            prompt,
            name,
            input: String::with_capacity(128),
            reply: Some(reply),
        }));
    }

    fn request_load(&mut self) -> Vec<Job> {
        if self.loading {
            self.reload_queued = true;
            return Vec::new();
        }
        self.loading = true;
        vec![Job::Load]
    }

    /// Reads the selected pack in full (off the loop).
    fn inspect_job(&mut self) -> Vec<Job> {
        match self.selected_row() {
            Some(row) => vec![Job::Inspect {
                rows: vec![row.clone()],
                lint: false,
            }],
            None => {
                self.inspected = None;
                Vec::new()
            }
        }
    }

    /// Tells the pack list how many rows are in view, and keeps the
    /// selection among them.
    fn fit_browser(&mut self) {
        self.packs.rows = ui::browser_rows(self).max(1);
        self.packs.ensure_visible();
    }

    /// The character positions of `id` the filter matched (for highlighting).
    pub fn matched_indices(&self, id: &str) -> Vec<usize> {
        self.packs.matched_indices(id)
    }

    fn page(&self) -> usize {
        match self.focus {
            Pane::Browser => ui::browser_rows(self).max(1),
            Pane::Matrix => ui::matrix_window(self).0.max(1),
            _ => ui::text_rows(self).max(1),
        }
    }

    fn move_by(&mut self, delta: isize) {
        let step = |v: usize, len: usize| -> usize {
            if len == 0 {
                return 0;
            }
            (v as isize)
                .saturating_add(delta)
                .clamp(0, len as isize - 1) as usize
        };
        match self.focus {
            Pane::Browser => {
                self.fit_browser();
                self.packs.move_by(delta);
            }
            Pane::Matrix => {
                let n = self.selected_view().map_or(0, |e| e.avail.commands.len());
                self.matrix_selected = step(self.matrix_selected, n);
            }
            pane => {
                let last = self.last_page(pane);
                let at = self.scroll_mut(pane);
                *at = scroll((*at).min(last), delta).min(last);
            }
        }
    }

    /// The scroll offset of a text pane that shows its last full page.
    fn last_page(&self, pane: Pane) -> u16 {
        let total = ui::text_lines(self, pane);
        total
            .saturating_sub(ui::text_rows(self))
            .min(u16::MAX as usize) as u16
    }

    /// A text pane's scroll offset.
    pub fn scroll_of(&self, pane: Pane) -> u16 {
        self.text.scroll(pane)
    }

    fn scroll_mut(&mut self, pane: Pane) -> &mut u16 {
        self.text.scroll_mut(pane)
    }

    fn cycle_pane(&mut self, step: usize) {
        let at = Pane::ORDER
            .iter()
            .position(|p| *p == self.focus)
            .unwrap_or(0);
        self.focus_pane(Pane::ORDER[(at + step) % Pane::ORDER.len()]);
    }

    fn focus_pane(&mut self, pane: Pane) {
        self.focus = pane;
        if pane.is_lower() {
            self.lower = pane;
        }
    }

    fn click(&mut self, column: u16, row: u16) {
        if self.dialog.is_some() {
            if matches!(self.dialog, Some(Dialog::Help) | Some(Dialog::Error(_))) {
                self.dialog = None;
            }
            return;
        }
        if let Some(tab) = ui::lower_tab_at(self, column, row) {
            self.focus_pane(tab);
            return;
        }
        let Some(pane) = ui::pane_at(self, column, row) else {
            return;
        };
        self.focus_pane(pane);
        match pane {
            Pane::Browser => {
                if let Some(i) = ui::browser_row_at(self, row) {
                    self.packs.selected = i;
                    self.fit_browser();
                }
            }
            Pane::Matrix => {
                if let Some(i) = ui::matrix_row_at(self, row) {
                    self.matrix_selected = i;
                }
            }
            _ => {}
        }
    }
}

fn scroll(v: u16, delta: isize) -> u16 {
    (v as isize)
        .saturating_add(delta)
        .clamp(0, u16::MAX as isize) as u16
}

fn info(text: String) -> Notice {
    Notice { text, error: false }
}

fn error_notice(text: String) -> Notice {
    Notice { text, error: true }
}

/// An engine error as one line: `code: message (hint: ...)`.
pub fn error_text(err: &Error, config: &Config) -> Notice {
    let mut text = format!("{}: {}", err.code.as_str(), err.message);
    if let Some(hint) = &crate::tui::fix::hint(err, config) {
        text.push_str(" — hint: ");
        text.push_str(hint);
    }
    error_notice(text)
}

/// A description of an arg for the exec form: type, required, default,
/// values.
pub fn arg_summary(arg: &Arg) -> String {
    let mut parts = vec![arg.kind.as_str().to_string()];
    if arg.required {
        parts.push("required".into());
    }
    if let Some(default) = &arg.default {
        parts.push(format!(
            "default {}",
            crate::engine::exec::value_text(default)
        ));
    }
    if arg.kind == ArgType::Enum && !arg.values.is_empty() {
        parts.push(format!("one of {}", arg.values.join("|")));
    }
    parts.join(", ")
}
