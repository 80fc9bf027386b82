//! The lifecycle engine: everything hcpx knows about packs, with no terminal
//! or command-line code in it. The CLI (`crate::cli`) and the TUI
//! (`crate::tui`) call it; it never prints.
//!
//! The folders, from the bottom up (each uses only those above it):
//!
//! | folder | holds |
//! |---|---|
//! | `pack/` | the pack model: document tree with positions, grammars, checked ids, manifest, Skill, did-you-mean, terminal-safe text (§2–§5, §14.2, §14.5) |
//! | `lint/` | the linter — files, manifest, Skill and text rules — and its diagnostics (§10.4–§10.5) |
//! | `error` | the typed error, its spec code and exit code (§10) |
//! | `store/` | the store on disk: lock, atomic writes, the `Transaction` undo log, state and its grants, config, catalogs and their index, snapshots, sources, `hcp.lock`, digests, the one removal that never follows a link and the store's no-link paths (§11.3–§11.6, §13, §14.7, §15.6) |
//! | `project/` | project scope: finding the folder that holds an `hcp.yaml` of the user's own, whether its `.hcp/` is ours (its store id in `projects.json`), its paths, keeping `hcp.yaml` in step with each change of the project's store, and `hcp.yaml` itself, read with positions and edited in place (§15) |
//! | `harness/` | harness targets: where Claude Code, Codex, … read Skills, and placing them there; project targets reached through a link (§12.4–§12.8, §15.4) |
//! | `context/` | the context ledger: what each harness lists of the Skills in its folders at the start of a session and what it costs — Claude Code's rule, Codex's, the frontmatter read with a bound (§17) |
//! | `policy/` | the one refusal type, availability, grants, `why`, the capability diff: pure functions (§9, §11.2–§11.3, §13.7) |
//! | `exec/` | the adapters that run a command: args, process, http, and the redaction of the Binding's material in their output (§6, §14.3); git fetches (§13.1) |
//! | `ops/` | the lifecycle operations on one store, [`Engine`] (§11, §13): install, activate, connect, exec, uninstall, list, show, doctor, harness, bootstrap pack and its builtin ops, git fetches under the lock, verify, catalogs, outdated/upgrade, sync; the `--json` documents (`docs`) |

pub mod context;
pub mod error;
pub mod exec;
pub mod harness;
#[cfg(test)]
pub(crate) mod layering;
pub mod lint;
pub mod ops;
pub mod pack;
pub mod policy;
pub mod project;
pub mod store;

pub use ops::Engine;
