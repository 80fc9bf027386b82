//! Everything that can happen to the TUI, as one enum: what keys and mouse
//! clicks mean (see `keymap`), the clock, and what the workers report back.
//! `App::update` is the only place an [`Action`] changes state.

use crate::tui::picker::PickerKey;
use crate::tui::worker::JobResult;
use tokio::sync::oneshot;

/// A pane of the main screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Browser,
    Matrix,
    Details,
    Lint,
    Output,
    /// The command log: every action of the session (lazygit).
    Log,
}

impl Pane {
    /// `Tab` order.
    pub const ORDER: [Pane; 6] = [
        Pane::Browser,
        Pane::Matrix,
        Pane::Details,
        Pane::Lint,
        Pane::Output,
        Pane::Log,
    ];

    /// The tabs of the lower-right area, left to right.
    pub const LOWER: [Pane; 4] = [Pane::Details, Pane::Lint, Pane::Output, Pane::Log];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Browser => "Packs",
            Pane::Matrix => "Availability",
            Pane::Details => "Details",
            Pane::Lint => "Lint",
            Pane::Output => "Output",
            Pane::Log => "Log",
        }
    }

    /// Whether the pane lives in the tabbed lower-right area.
    pub fn is_lower(self) -> bool {
        matches!(self, Pane::Details | Pane::Lint | Pane::Output | Pane::Log)
    }
}

/// A worker's request for a `secret` Binding's secret (HCP.md §8.5 step 4),
/// answered from the masked input. The engine asks for it only once the
/// pack is activated and the principal may connect it.
#[derive(Debug)]
pub struct SecretRequest {
    pub pack_id: String,
    /// The Binding's `secret.prompt`, else a default.
    pub prompt: String,
    /// The variable that will carry it (`secret.name`).
    pub name: String,
    /// The secret typed, or `None` when the user cancelled.
    pub reply: oneshot::Sender<Option<String>>,
}

/// One thing that happened.
#[derive(Debug)]
pub enum Action {
    Quit,
    /// `J`: the Output pane shows the next running exec.
    NextJob,
    /// A chunk of what the running exec `run` printed (redacted).
    ExecOutput {
        run: u64,
        chunk: crate::engine::exec::live::Chunk,
    },
    Resize(u16, u16),
    /// The clock (every [`crate::tui::runner::TICK`]): spinner, store poll.
    Tick,

    // Moving in the focused pane.
    Up,
    Down,
    PageUp,
    PageDown,
    HalfPageUp,
    HalfPageDown,
    Top,
    Bottom,
    NextPane,
    PrevPane,
    /// `←`: to the Packs pane.
    PaneLeft,
    /// `→`: Packs → Availability → the lower pane.
    PaneRight,
    /// `Enter`: on a pack, focus its commands; on a command, its run form.
    Open,
    /// `@`: show the command log.
    ShowLog,
    /// `w`: wrap long lines in the text panes, or cut them.
    ToggleWrap,
    /// `J`: the last report's `--json` document instead of its words.
    ToggleJson,
    /// `Ctrl-L`: draw the whole screen again.
    Redraw,

    // Overlays.
    Help,
    /// `Esc` on the main screen: clears the marks, then the filter.
    Escape,
    /// Closes the help or error overlay, or the Harnesses view.
    CloseDialog,
    /// `U`: upgrade the selected or marked packs (§13.7), after y/n.
    Upgrade,
    /// `o`: check for updates (`hcpx outdated`, §13.6).
    CheckUpdates,
    /// `P`: ask for the principal to act for (§9.1).
    AskPrincipal,
    /// `e`: ask for an unset variable of the selected `env` pack (§8.3).
    AskEnv,
    /// `H`: the Harnesses view (HCP.md §12.4–§12.8).
    ShowHarnesses,
    /// In the Harnesses view: move the selection by this many targets.
    HarnessMove(isize),
    /// In the Harnesses view: `Space` enables or disables the target.
    HarnessToggle,
    /// A key in the collection picker (`tui::picker`).
    Picker(PickerKey),
    /// Install these ids from the collection `source` (HCP.md §13.1), as
    /// `hcpx install SOURCE --skill ID...`: the picker's `Enter`.
    InstallChosen {
        source: String,
        ids: Vec<String>,
    },
    /// `:install SOURCE` found a collection of several packs: open the
    /// picker over its listing.
    PickFrom {
        source: String,
        items: Vec<crate::tui::picker::PickerItem>,
    },

    // The filter.
    FilterStart,
    FilterChar(char),
    FilterBackspace,
    /// `Enter`: keep the filter and leave the input.
    FilterKeep,
    /// `Esc`: clear the filter.
    FilterClear,

    // The search in a text pane (`/` there).
    SearchChar(char),
    SearchBackspace,
    /// `Enter`: keep the query, show the first match.
    SearchKeep,
    /// `Esc`: drop the search.
    SearchClear,
    /// `n` (true) / `N` (false): the next / previous match.
    SearchNext(bool),

    // The `:` command line.
    CmdLineStart,
    CmdLineChar(char),
    CmdLineBackspace,
    /// `Tab`: complete the last word.
    CmdLineComplete,
    CmdLineSubmit,
    CmdLineCancel,

    Mark,
    CycleSort,

    // Lifecycle (each calls the engine function its `hcpx` subcommand calls).
    Install,
    ToggleActivate,
    Connect,
    Exec,
    /// `.`: the last exec again, with the same args.
    Rerun,
    Lint,
    Uninstall,
    Reload,

    /// The answer to the uninstall or quit confirmation.
    Confirm(bool),
    /// `X`: end the running pack command (its whole process group).
    CancelRun,

    // Text input in the masked secret input and the exec form.
    Input(char),
    InputBackspace,
    InputSubmit,
    InputCancel,
    FieldNext,
    FieldPrev,
    /// `→`/`←` (and `Space`) on an `enum` or `boolean` field: the next or
    /// previous value.
    FieldCycle(bool),
    /// `Ctrl-U` in a text input: clear it.
    InputClear,

    // Mouse.
    Click {
        column: u16,
        row: u16,
    },
    Scroll {
        column: u16,
        row: u16,
        down: bool,
    },

    /// A worker finished.
    Done(JobResult),
    /// A connect worker waits for a secret.
    SecretNeeded(SecretRequest),
}
