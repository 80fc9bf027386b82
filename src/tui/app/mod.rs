//! The TUI's state, and (in `update`) the one function that changes it.
//! `update` takes an [`Action`] and returns the [`Job`]s to run off the
//! loop; drawing only reads this state (`ui::draw`), and this file, the
//! state, neither draws nor updates. Nothing here decides a lifecycle
//! fact: statuses, availability (HCP.md §11.2), lint reports (§10.4) and
//! errors (§10) all come from the engine through the workers.
//!
//! `App` holds components that own their state: the browser's
//! [`PackList`], the matrix's [`Matrix`], the [`Focus`], the [`TextPanes`]
//! and their [`Search`], the [`CmdLine`], the [`StatusLine`] and the
//! [`CommandLog`], the reads of the store ([`Loads`]), the job in flight
//! ([`Work`]), the runs and the Output pane's content ([`Runs`]), the
//! marks, the Harnesses view and the overlay open ([`Dialog`]). The
//! `impl App` is split by what the keys do: `update` (every action to its
//! part), `command` (one arm per key of the key table), `navigate`
//! (moving, panes, filter and search), `lifecycle` (the stages, lint,
//! exec, cancel), `dialog` (the overlays' answers), `colon` (the `:`
//! line), `harness`, `picker` (installing what the picker chose),
//! `upgrade`, `session` (`P`, `e`), `scope` (`S`, and which store a key
//! acts on inside a project, HCP.md §15.1), `refuse` (what each key can
//! do now) and `results` (what the workers report back).

mod colon;
mod command;
mod dialog;
mod harness;
mod lifecycle;
mod navigate;
mod picker;
mod refuse;
mod results;
mod scope;
mod session;
mod update;
mod upgrade;

use crate::command::Request;
use crate::engine::error::Error;
use crate::engine::exec::process::Scope;
use crate::engine::harness::TargetName;
use crate::engine::ops::ExecResult;
use crate::engine::ops::upgrade::OutdatedPack;
use crate::engine::store::snapshot::BOOTSTRAP_ID;
use crate::fixline::shell_quote;
use crate::tui::action::{Action, SecretRequest};
use crate::tui::cmdline::{self, CmdLine, Parsed};
pub use crate::tui::config::Config;
use crate::tui::dialog::harnesses::HarnessView;
pub use crate::tui::dialog::run_form::{ExecForm, FormField};
pub use crate::tui::dialog::{Dialog, SecretPrompt};
use crate::tui::focus::Focus;
use crate::tui::job::{
    Entry, Inspected, Inspection, Job, JobResult, Row, SkillText, Stage, StageReport, Stamp,
};
use crate::tui::keys::{Cmd, CommandInfo};
use crate::tui::loads::Loads;
pub use crate::tui::loads::STAMP_EVERY_TICKS;
use crate::tui::log::{CommandLog, LogEntry, Outcome};
use crate::tui::marks::Marks;
use crate::tui::matrix::Matrix;
pub use crate::tui::packs::{Filter, PackList, SortKey};
use crate::tui::pane::Pane;
pub use crate::tui::runs::{ExecOutput, Report, Runs};
use crate::tui::scope::{Scopes, Store};
use crate::tui::search::Search;
pub use crate::tui::status::{NOTICE_TICKS, Notice, StatusLine};
use crate::tui::targets::HarnessRow;
use crate::tui::text;
use crate::tui::textpanes::TextPanes;
use crate::tui::theme::Theme;
use crate::tui::work::Work;
use std::collections::BTreeSet;

/// The whole TUI state: components, each with the state it owns.
pub struct App {
    pub(crate) config: Config,
    /// The terminal size, columns × rows.
    pub(crate) size: (u16, u16),
    /// The snapshot, stamp and marks reads of the store.
    pub(crate) loads: Loads,
    /// The job in flight, and the pack command it may run.
    pub(crate) work: Work,
    /// The browser's packs: rows, sort, filter, selection, marks.
    pub(crate) packs: PackList,
    /// The command row selected in the availability matrix.
    pub(crate) matrix: Matrix,
    /// The focused pane and the lower pane shown.
    pub(crate) focus: Focus,
    /// The text panes' scroll offsets and wrapping.
    pub(crate) text: TextPanes,
    /// `/` in a text pane.
    pub(crate) search: Search,
    /// The `:` command line.
    pub(crate) cmdline: CmdLine,
    /// The status line's message.
    pub(crate) status: StatusLine,
    /// Every action of the session, as commands (`@`).
    pub(crate) log: CommandLog,
    /// The browser's marks (`!` verify, `≠` harness, `↑` outdated).
    pub(crate) marks: Marks,
    /// The Harnesses view's targets and selection (`H`).
    pub(crate) harnesses: HarnessView,
    /// The rerun form, remembered form values, the Output pane's content.
    pub(crate) runs: Runs,
    /// The last collection listing the picker showed (its source and
    /// packs): where each chosen id's folder is.
    pub(crate) listed: Option<(String, Vec<crate::tui::dialog::picker::PickerItem>)>,
    /// The selected pack read in full (view, availability, Skill).
    pub(crate) inspected: Option<Inspection>,
    /// Reads of packs in full (`Job::Inspect`) started and not reported.
    pub(crate) reading: usize,
    /// The `hcpx` command equivalent to the last action.
    pub(crate) last_command: Option<String>,
    /// A pack just installed that has no row yet (`:install PATH`, a git
    /// source): the cursor goes to it once the store is read again.
    pub(crate) select_next_load: Option<String>,
    /// The `:` line's own `--principal` and `--catalog` while the work it
    /// asks for is started.
    pub(crate) line_flags: cmdline::LineFlags,
    pub(crate) dialog: Option<Dialog>,
    /// The commands the app's jobs start (the runner runs them in it).
    pub(crate) scope: Scope,
    /// The principal, `env` values and catalogs of this session.
    pub(crate) session: crate::tui::session::Session,
    /// The project the TUI runs in, if any, and where installs go.
    pub(crate) scopes: Scopes,
    /// The store the upgrade asked for (`U`, `:upgrade`) acts on, from its
    /// dry run to its `y`.
    pub(crate) upgrading_in: Store,
    /// `Ctrl-L`: the runner clears the terminal before the next frame.
    pub(crate) redraw: bool,
    pub(crate) ticks: u64,
    pub(crate) quit: bool,
    /// A worker panicked: the message printed after the terminal is restored.
    pub(crate) fatal: Option<String>,
}

impl App {
    pub fn new(config: Config) -> App {
        App {
            config,
            size: (80, 24),
            loads: Loads::default(),
            work: Work::default(),
            packs: PackList::default(),
            matrix: Matrix::default(),
            focus: Focus::default(),
            text: TextPanes::default(),
            search: Search::default(),
            cmdline: CmdLine::default(),
            status: StatusLine::default(),
            log: CommandLog::default(),
            marks: Marks::default(),
            harnesses: HarnessView::default(),
            runs: Runs::default(),
            listed: None,
            inspected: None,
            reading: 0,
            last_command: None,
            select_next_load: None,
            line_flags: cmdline::LineFlags::default(),
            dialog: None,
            scope: Scope::new(),
            session: Default::default(),
            scopes: Scopes::default(),
            upgrading_in: Store::User,
            redraw: false,
            ticks: 0,
            quit: false,
            fatal: None,
        }
    }

    /// The jobs to start with: load the snapshot (the first frame shows
    /// "loading…" until it arrives).
    pub fn init(&mut self) -> Vec<Job> {
        self.loads.request()
    }

    /// A `--catalog` folder that does not exist is a warning, not an
    /// error: the other catalogs and the store still show.
    pub fn warn_missing_catalogs(&mut self, catalogs: &[std::path::PathBuf]) {
        for dir in catalogs.iter().filter(|d| !d.is_dir()) {
            let text = format!(
                "warning: catalog {} is not a folder; it shows no packs",
                text::one_line(&dir.display().to_string())
            );
            self.say(Outcome::Warning, text, None);
        }
    }

    /// Whether the browser has nothing but the bootstrap pack (no catalog,
    /// nothing installed): it then says how to add packs.
    pub fn only_bootstrap(&self) -> bool {
        self.loads.loaded() && self.packs.entries.iter().all(|r| r.id() == BOOTSTRAP_ID)
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
        self.selected_inspection().map(|i| &i.entry)
    }

    /// The selected pack's Skill, once read.
    pub fn selected_skill(&self) -> Option<&SkillText> {
        self.selected_inspection().map(|i| &i.skill)
    }

    /// The selected pack read in full, once read (from the store of its
    /// row: a shadowed user pack is not the project's).
    pub fn selected_inspection(&self) -> Option<&Inspection> {
        let row = self.selected_row()?;
        self.inspected
            .as_ref()
            .filter(|i| i.entry.id() == row.id() && i.shadowed == row.shadowed)
    }

    /// The project the TUI runs in, if any, and where installs go.
    pub fn scopes(&self) -> &Scopes {
        &self.scopes
    }

    /// The packs an action applies to: the marked ones, else the selected.
    pub fn targets(&self) -> Vec<&Row> {
        self.packs.targets()
    }

    /// The ids of [`App::targets`]: the packs a key acts on now.
    pub fn keyed(&self) -> Vec<&str> {
        self.packs.targets().into_iter().map(Row::id).collect()
    }

    /// `fix` as the key that does it (when it acts on that pack) and the
    /// command line.
    pub fn fix_line(&self, fix: &crate::engine::error::Fix) -> String {
        let keyed = if self.fix_key_works(fix) {
            self.keyed()
        } else {
            Vec::new()
        };
        let line = crate::tui::fix::fix_line(fix, &self.config, &keyed);
        self.fix_in_store(fix, line)
    }

    /// Whether the key that does `fix` works now (it is not greyed): a
    /// fix names only keys that do. Work running greys every key for a
    /// moment only, so it does not count.
    fn fix_key_works(&self, fix: &crate::engine::error::Fix) -> bool {
        match crate::tui::fix::key_cmd(fix) {
            Some(cmd) => self.work.refusal().is_some() || self.refusal(cmd).is_none(),
            None => true,
        }
    }

    /// An error's hint: its fix (as [`App::fix_line`]), else its words.
    pub fn hint(&self, err: &Error) -> Option<String> {
        match &err.context.fix {
            Some(fix) => Some(self.fix_line(fix)),
            None => crate::tui::fix::hint(err, &self.config, &self.keyed()),
        }
    }

    /// An engine error as one line: `code: message — hint: ...`, its fix
    /// as [`App::fix_line`] says it.
    pub fn error_text(&self, err: &Error) -> Notice {
        let mut text = format!("{}: {}", err.code.as_str(), err.message);
        if let Some(hint) = &self.hint(err) {
            text.push_str(" — hint: ");
            text.push_str(hint);
        }
        Notice::error(text)
    }

    /// Whether the spinner turns (something runs).
    pub fn is_animating(&self) -> bool {
        self.loads.loading() || self.work.busy().is_some()
    }

    /// Whether a worker waits on the user (the masked input is open).
    pub fn awaits_input(&self) -> bool {
        matches!(self.dialog, Some(Dialog::Secret(_)))
    }

    /// Whether the selected pack's full read is pending: what it shows in
    /// Availability, Details and Lint is not there yet.
    pub fn reading_selected(&self) -> bool {
        self.reading > 0 && self.selected_row().is_some() && self.selected_view().is_none()
    }

    /// Says how an action ended: the status line for a few seconds, a line
    /// in the command log, and for a refusal a line in the log file.
    fn say(&mut self, outcome: Outcome, text: String, command: Option<String>) {
        if matches!(outcome, Outcome::Refused) {
            // Every refusal reaches the log file too (scripts driving the
            // TUI check that none happened).
            tracing::info!(reason = %text, "refused");
        }
        self.status.say(Notice {
            text: text.clone(),
            error: outcome.is_error(),
        });
        self.log.push(LogEntry {
            command,
            outcome,
            text,
        });
    }

    /// `hcpx ARGS`, as [`Config::hcpx`] writes it.
    pub fn hcpx(&self, args: &[String], catalogs: bool) -> String {
        self.config.hcpx(args, catalogs)
    }

    /// [`App::hcpx`] of a command acting on `store`: with `-g` for the
    /// user store inside a project (HCP.md §15.1).
    pub fn hcpx_in(&self, store: Store, args: &[String], catalogs: bool) -> String {
        self.in_store(store, self.config.hcpx(args, catalogs))
    }

    /// The character positions of `id` the filter matched (for highlighting).
    pub fn matched_indices(&self, id: &str) -> Vec<usize> {
        self.packs.matched_indices(id)
    }

    /// Whether the first snapshot arrived.
    pub fn loaded(&self) -> bool {
        self.loads.loaded()
    }

    /// What the running job is doing, if one runs.
    pub fn busy(&self) -> Option<&str> {
        self.work.busy()
    }

    /// The pack command that may be running (quitting asks first): the
    /// exec the Output pane shows, else a connect's probe.
    pub fn running(&self) -> Option<&str> {
        self.runs
            .live()
            .map(|l| l.what.as_str())
            .or_else(|| self.work.running())
    }

    /// The browser's packs.
    pub fn packs(&self) -> &PackList {
        &self.packs
    }

    /// The pane that has the keys.
    pub fn focus(&self) -> Pane {
        self.focus.pane()
    }

    /// The command row selected in the availability matrix.
    pub fn matrix_row(&self) -> usize {
        self.matrix.selected()
    }

    /// The pane shown in the lower-right area.
    pub fn lower(&self) -> Pane {
        self.focus.lower()
    }

    /// The overlay shown, if any.
    pub fn dialog(&self) -> Option<&Dialog> {
        self.dialog.as_ref()
    }

    /// The session's command log.
    pub fn log(&self) -> &CommandLog {
        &self.log
    }

    /// The `:` line.
    pub fn cmdline(&self) -> &CmdLine {
        &self.cmdline
    }

    /// The text panes' scroll offsets and wrapping.
    pub fn text(&self) -> &TextPanes {
        &self.text
    }

    /// The search in a text pane.
    pub fn search(&self) -> &Search {
        &self.search
    }

    /// The principal the TUI acts for now (§9.1).
    pub fn principal(&self) -> &str {
        &self.config.principal
    }

    /// The session's principal, `env` values and catalogs.
    pub fn session(&self) -> &crate::tui::session::Session {
        &self.session
    }

    /// The Harnesses view.
    pub fn harnesses(&self) -> &HarnessView {
        &self.harnesses
    }

    /// The last exec's result, unless a report came after it.
    pub fn output(&self) -> Option<&ExecOutput> {
        self.runs.output()
    }

    /// The last `:` report, unless an exec came after it.
    pub fn report(&self) -> Option<&Report> {
        self.runs.report()
    }

    /// Whether the app has quit (the loop ends).
    pub fn has_quit(&self) -> bool {
        self.quit
    }
}
