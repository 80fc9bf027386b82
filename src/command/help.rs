//! The words of `--help` and of the man page that clap does not derive: the
//! examples under each subcommand (as gh prints them), the environment
//! variables and the exit status (HCP.md §10.2–§10.3, §9.1, §11.5). One
//! source for both, so `hcpx man` never drifts from `hcpx --help`.

/// Under `hcpx --help`: the environment and where to read more.
pub const ROOT: &str = "\
Environment:
  HCP_HOME              the store folder (default: ~/.hcp)
  HCP_PRINCIPAL         the principal when --principal is not given (default: user)
  HCPX_LOG              the file the terminal UI logs to
  HCPX_LOG_LEVEL        how much it logs: error, warn, info (default), debug, trace
  HCPX_LOCK_TIMEOUT_MS  how long a change waits for the store lock (default: 30000)
  HCPX_FETCH_MAX_BYTES  the most one git fetch may write (default: 1073741824)
  NO_COLOR              set to print no colours

Exit status: 0 success, 1 the operation failed, 2 usage error, 3 a precondition
is not met, 4 a grant is missing, 5 pack, verb or path not found. `hcpx exec`
exits with the command's own code, or 124 timeout, 125 runtime or usage error,
126 refused, 127 pack or verb not found.

Examples:
  hcpx install demo.clock --catalog assets/packs
  hcpx activate demo.clock
  hcpx exec demo.clock now -- tz=Europe/Berlin
  hcpx show demo.clock";

/// The environment variables, as `(name, meaning)`.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    ("HCP_HOME", "The store folder. Default: ~/.hcp."),
    (
        "HCP_PRINCIPAL",
        "The principal hcpx acts for when --principal is not given. Default: user.",
    ),
    (
        "HCPX_LOG",
        "The file the terminal UI writes its log to (it never logs to the screen).",
    ),
    (
        "HCPX_LOG_LEVEL",
        "How much the terminal UI logs: error, warn, info, debug or trace. Default: info.",
    ),
    (
        "HCPX_LOCK_TIMEOUT_MS",
        "How long a change waits for the store lock, in milliseconds. Default: 30000.",
    ),
    (
        "HCPX_FETCH_MAX_BYTES",
        "The most one git fetch may write, in bytes; past it the fetch fails and nothing is kept. Default: 1073741824 (1 GiB).",
    ),
    ("NO_COLOR", "When set, hcpx prints no colours."),
];

/// The exit codes of every subcommand but exec, as `(code, meaning)`.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    (
        "1",
        "The operation failed: lint errors, probe failed, I/O, store corrupt.",
    ),
    ("2", "Usage error."),
    (
        "3",
        "A precondition is not met: not installed, not activated, not connected, bootstrap protected.",
    ),
    ("4", "A grant is missing."),
    ("5", "Pack, verb or path not found."),
];

/// The exit codes of `hcpx exec`, as `(code, meaning)`.
pub const EXEC_EXIT_STATUS: &[(&str, &str)] = &[
    ("N", "The command ran and exited with N."),
    ("124", "The command timed out."),
    (
        "125",
        "The runtime failed, or a usage error of hcpx exec's own command line.",
    ),
    (
        "126",
        "Refused: a precondition, a grant, an adapter that cannot run here, sense_only.",
    ),
    ("127", "Pack or verb not found."),
];

pub const LINT: &str = "\
Examples:
  hcpx lint ./my-pack
  hcpx lint assets/packs/* --deny-warnings
  hcpx lint ./my-pack --json";

pub const INSTALL: &str = "\
Examples:
  hcpx install ./my-pack
  hcpx install demo.clock --catalog assets/packs
  hcpx install anthropics/skills --list
  hcpx install anthropics/skills --skill pdf --skill docx
  hcpx install https://github.com/OWNER/REPO/tree/main/skills --all
  hcpx install ./my-pack ./other-pack --force
  hcpx i ./my-pack    # i is short for install";

pub const ACTIVATE: &str = "\
Examples:
  hcpx activate demo.clock
  hcpx activate demo.clock demo.notes";

pub const DEACTIVATE: &str = "\
Examples:
  hcpx deactivate demo.clock";

pub const CONNECT: &str = "\
Examples:
  hcpx connect demo.weather-api
  printf %s \"$TOKEN\" | hcpx connect acme.github --secret-stdin";

pub const EXEC: &str = "\
Examples:
  hcpx exec demo.clock now -- tz=Europe/Berlin format=human
  hcpx exec demo.clock now --help
  hcpx exec demo.clock now --json -- tz=UTC";

pub const UNINSTALL: &str = "\
Examples:
  hcpx uninstall demo.clock
  hcpx uninstall demo.clock demo.notes";

pub const LIST: &str = "\
Examples:
  hcpx list
  hcpx list --catalog assets/packs
  hcpx list --json";

pub const SEARCH: &str = "\
Examples:
  hcpx search clock
  hcpx search git status --catalog assets/packs
  hcpx search time --json";

pub const SHOW: &str = "\
Examples:
  hcpx show demo.clock
  hcpx show demo.clock --json";

pub const AVAILABILITY: &str = "\
Examples:
  hcpx availability
  hcpx availability demo.clock --principal agent --json";

pub const VERIFY: &str = "\
Examples:
  hcpx verify
  hcpx verify demo.clock --json";

pub const CATALOG: &str = "\
Examples:
  hcpx catalog add ~/packs
  hcpx catalog add github:acme/hcp-packs#v2
  hcpx catalog list --json
  hcpx catalog update";

pub const OUTDATED: &str = "\
Examples:
  hcpx outdated
  hcpx outdated --offline
  hcpx outdated --json";

pub const UPGRADE: &str = "\
Examples:
  hcpx upgrade --dry-run
  hcpx upgrade --dry-run --offline
  hcpx upgrade demo.clock
  hcpx upgrade demo.clock --yes
  hcpx upgrade demo.clock --yes --expect demo.clock=sha256:<digest shown by --dry-run>";

pub const SYNC: &str = "\
Examples:
  hcpx sync                        # in a project: match hcp.yaml and hcp.lock
  hcpx sync --frozen               # in CI: fail if hcp.lock is stale
  hcpx sync other-machine/hcp.lock
  hcpx sync hcp.lock --frozen --prune
  hcpx -g sync team.lock --yes     # inside a project: the user store";

pub const INIT: &str = "\
Examples:
  hcpx init
  hcpx init path/to/repo";

pub const ADD: &str = "\
Examples:
  hcpx add anthropics/skills --skill pdf
  hcpx add ./tools/notes
  hcpx -g add demo.clock           # the user store, also inside a project";

pub const REMOVE: &str = "\
Examples:
  hcpx remove pdf
  hcpx remove acme.notes pdf";

pub const WHY: &str = "\
Examples:
  hcpx why demo.clock
  hcpx why demo.clock now --principal agent";

pub const GRANT: &str = "\
Examples:
  hcpx grant agent verb.exec.read
  hcpx grant agent verb.exec.write:demo.notes
  hcpx grant ops '*'";

pub const REVOKE: &str = "\
Examples:
  hcpx revoke agent verb.exec.write:demo.notes";

pub const TUI: &str = "\
Examples:
  hcpx tui
  hcpx tui --catalog assets/packs --principal agent";

pub const MCP: &str = "\
Examples:
  hcpx mcp --principal agent                 # what an MCP client starts
  hcpx mcp --print-config claude-code        # the .mcp.json entry that starts it
  hcpx mcp --print-config codex --json

At most 64 commands run at once (HCPX_MCP_MAX_CALLS in the server's
environment changes it); further calls wait, in order.";

pub const DOCTOR: &str = "\
Examples:
  hcpx doctor
  hcpx doctor --fix";

pub const HARNESS: &str = "\
Examples:
  hcpx harness list
  hcpx harness enable --detected
  hcpx harness enable claude-code codex
  hcpx harness status demo.clock --json
  hcpx harness sync
  hcpx harness disable cursor";

pub const CONTEXT: &str = "\
Examples:
  hcpx context
  hcpx context --harness claude-code --json
  hcpx context --context-tokens 1000000
  hcpx context --max-percent 80           # in CI: exit 1 past 80% of a budget

A harness lists every Skill in its folders (name and description) at the
start of each session, within a budget; past it, descriptions are cut or
dropped and the model stops finding those Skills.";

pub const COMPLETIONS: &str = "\
Examples:
  hcpx completions bash > ~/.local/share/bash-completion/completions/hcpx
  hcpx completions zsh > ~/.zfunc/_hcpx
  hcpx completions fish > ~/.config/fish/completions/hcpx.fish";

pub const MAN: &str = "\
Examples:
  hcpx man > hcpx.1 && man ./hcpx.1
  hcpx man exec > hcpx-exec.1 && man ./hcpx-exec.1
  hcpx man catalog add";

/// The example command lines of an `after_help` text (its lines after
/// `Examples:`).
pub fn examples(after_help: &str) -> Vec<&str> {
    after_help
        .lines()
        .skip_while(|line| *line != "Examples:")
        .skip(1)
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect()
}
