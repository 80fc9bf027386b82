//! The integration tests, as one test binary (`cargo test --test it`): one
//! crate linking the library once instead of one crate per file. Run one
//! suite with `cargo test --test it cli_exec`, one test by a part of its
//! name, e.g. `cargo test --test it tour_replays`.

mod common;
mod lintkit;
mod tmuxkit;
mod tuikit;

mod builtin_docs;
mod catalogs;
mod cli_complete;
mod cli_docs;
mod cli_exec;
mod cli_lifecycle;
mod cli_lint;
mod cli_list;
mod cli_picker;
mod cli_show;
mod collections;
mod command_layer;
mod concurrency;
mod content_updates;
mod demo_recording;
mod example_catalog;
mod exec_adapters;
mod lint_cache;
mod lint_hostile;
mod lint_rules;
mod mcp_attack;
mod mcp_python;
mod mcp_scope;
mod mcp_server;
mod project_scope;
mod project_sync;
mod screenshots;
mod skill_packs;
mod tui_colon_changes;
mod tui_colon_reports;
mod tui_flow;
mod tui_harnesses;
mod tui_keys;
mod tui_loop;
mod tui_marks;
mod tui_picker;
mod tui_project;
mod tui_session;
mod tui_snapshots;
mod tui_tmux;
mod tui_tmux_cancel;
mod tui_tmux_flow;
mod tui_upgrade;
mod tui_ux;
mod upgrade;
mod why_fixes;

mod atomic_safety;
mod attack_lock;
mod attack_reach;
mod attack_round3;
mod attack_sources;
mod attack_upgrade;
mod execout_safety;
mod grants_safety;
mod harness_folders;
mod harness_targets;
mod ids_safety;
mod json_hints;
mod lintext_safety;
mod lock_safety;
mod perf_safety;
mod safety3_git;
mod safety3_grants;
mod safety3_principal;
mod signals_safety;
mod sources;
mod sync;
