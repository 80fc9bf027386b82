//! What a key of the main screen does: one arm for every [`Cmd`] of the
//! key table (`tui::keys`), so a command added there does not compile
//! until it does something here. A lifecycle key (HCP.md §11) the
//! selection cannot take is refused at once, with availability's reason
//! (§11.2).

use super::*;

impl App {
    /// Runs the command `cmd`; returns the work to start.
    pub(super) fn command(&mut self, cmd: Cmd) -> Vec<Job> {
        match cmd {
            Cmd::Quit => self.ask_quit(),
            Cmd::Help => self.dialog = Some(Dialog::Help),
            Cmd::Redraw => self.redraw = true,
            Cmd::NextJob => {
                self.runs.show_next();
                self.text.output = 0;
            }
            Cmd::Cancel => self.cancel_run(),
            Cmd::Open => return self.open(),
            Cmd::Up => self.move_by(-1),
            Cmd::Down => self.move_by(1),
            Cmd::HalfUp => self.move_by(-(self.page().div_ceil(2) as isize)),
            Cmd::HalfDown => self.move_by(self.page().div_ceil(2) as isize),
            Cmd::PageUp => self.move_by(-(self.page() as isize)),
            Cmd::PageDown => self.move_by(self.page() as isize),
            Cmd::Top => self.move_by(isize::MIN / 2),
            Cmd::Bottom => self.bottom(),
            Cmd::NextPane => self.focus.cycle(1),
            Cmd::PrevPane => self.focus.cycle(Pane::ORDER.len() - 1),
            Cmd::PaneLeft => self.focus.set(Pane::Browser),
            Cmd::PaneRight => self.focus.right(),
            Cmd::Log => self.show_log(),
            Cmd::Wrap => self.toggle_wrap(),
            Cmd::Json => self.runs.toggle_json(),
            Cmd::Escape => self.escape(),
            Cmd::Mark => self.mark(),
            Cmd::Sort => self.cycle_sort(),
            Cmd::Filter => self.filter_start(),
            Cmd::NextMatch => self.find(true),
            Cmd::PrevMatch => self.find(false),
            Cmd::CommandLine => self.start_cmdline(),
            Cmd::Harnesses => return self.show_harnesses(),
            Cmd::Outdated => return self.check_updates(),
            Cmd::Upgrade => return self.upgrade(),
            Cmd::Principal => self.ask_principal(),
            Cmd::Scope => self.toggle_scope(),
            Cmd::SetEnv => self.set_env(),
            _ if is_lifecycle(cmd) && self.refused(cmd) => {}
            Cmd::Install => return self.stage(Stage::Install, |r| r.catalog_dir.is_some()),
            Cmd::Activate => return self.toggle_activate(),
            Cmd::Connect => return self.stage(Stage::Connect, |r| r.activated),
            Cmd::Uninstall => self.ask_uninstall(),
            Cmd::Lint => return self.lint(),
            Cmd::Exec => return self.open_exec(),
            Cmd::Rerun => return self.rerun(),
            Cmd::Reload => return self.reload(),
        }
        Vec::new()
    }
}

/// The lifecycle keys, and `x` and `.`: refused at once when they cannot
/// succeed.
fn is_lifecycle(cmd: Cmd) -> bool {
    matches!(
        cmd,
        Cmd::Install
            | Cmd::Activate
            | Cmd::Connect
            | Cmd::Uninstall
            | Cmd::Lint
            | Cmd::Exec
            | Cmd::Rerun
            | Cmd::Reload
    )
}
