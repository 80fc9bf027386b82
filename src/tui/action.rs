//! Everything that can happen to the TUI, as one enum: a key of the main
//! screen (its [`Cmd`] in the one key table, `tui::keys`), the keys of the
//! text inputs and overlays, the mouse, the clock, and what the workers
//! report back. `App::update` is the only place an [`Action`] changes
//! state.

use crate::tui::dialog::picker::PickerKey;
use crate::tui::job::JobResult;
use crate::tui::keys::Cmd;
use tokio::sync::oneshot;

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
    /// A key of the main screen: the command the key table binds it to.
    Key(Cmd),
    /// A chunk of what the running exec `run` printed (redacted).
    ExecOutput {
        run: u64,
        chunk: crate::engine::exec::live::Chunk,
    },
    Resize(u16, u16),
    /// The clock (every [`crate::tui::runner::TICK`]): spinner, store poll.
    Tick,

    // Overlays.
    /// Closes the help or error overlay, or the Harnesses view.
    CloseDialog,
    /// In the Harnesses view: move the selection by this many targets.
    HarnessMove(isize),
    /// In the Harnesses view: `Space` enables or disables the target.
    HarnessToggle,
    /// A key in the collection picker (`tui::dialog::picker`).
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
        items: Vec<crate::tui::dialog::picker::PickerItem>,
    },

    // Typing the filter (`/` in Packs).
    FilterChar(char),
    FilterBackspace,
    /// `Enter`: keep the filter and leave the input.
    FilterKeep,
    /// `Esc`: clear the filter.
    FilterClear,

    // Typing the search in a text pane (`/` there).
    SearchChar(char),
    SearchBackspace,
    /// `Enter`: keep the query, show the first match.
    SearchKeep,
    /// `Esc`: drop the search.
    SearchClear,

    // Typing the `:` command line.
    CmdLineChar(char),
    CmdLineBackspace,
    /// `Tab`: complete the last word.
    CmdLineComplete,
    CmdLineSubmit,
    CmdLineCancel,

    /// The answer to the uninstall or quit confirmation.
    Confirm(bool),

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
