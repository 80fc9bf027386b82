//! `hcpx mcp`: the Model Context Protocol server (HCP.md §16), a third
//! front-end beside the CLI and the TUI. It uses the engine and the
//! command layer, never `src/cli` or `src/tui`; the binary hands the CLI
//! [`serve`] as the launcher of `hcpx mcp`.
//!
//! - `tools`: executable commands → MCP tools (names, schemas,
//!   annotations), pure;
//! - `call`: a call's JSON arguments → the exec path's args, its result or
//!   refusal → the tool result, pure;
//! - `listing`: the tools and Skills of one read of the store;
//! - `pages`: `tools/list` in pages of 500 with `nextCursor`, pure;
//! - `stamp`: the stamp of the files the answers depend on, which the
//!   watcher takes when woken, and the folders they are in;
//! - `wake`: what wakes the watcher: inotify on those folders, not polling
//!   (§16.6);
//! - `reads`: what a read took from each pack before (view, Skill), kept
//!   while the pack's files are unchanged;
//! - `skills`: Skills and their bundled files as resources;
//! - `reaper`: every process the commands started, also one in a session
//!   of its own, ended at end of input (§16.6);
//! - `frames`: the id at the start of an over-size message, the batches
//!   being answered (§16.6), pure;
//! - `transport`: newline-delimited JSON-RPC on stdio under rmcp, with the
//!   bad-input errors and bounds of §16.6;
//! - `server`: rmcp's `ServerHandler`, the calls' scopes and the watcher.
//!
//! The protocol itself (framing, `initialize` and version negotiation,
//! request ids, cancellation) is rmcp's, the MCP organisation's Rust SDK.

pub mod call;
pub mod frames;
pub mod listing;
pub mod pages;
pub mod reads;
pub mod reaper;
pub mod server;
pub mod skills;
pub mod stamp;
pub mod tools;
pub mod transport;
pub mod wake;

use crate::command::workspace::Workspace;
use rmcp::ServiceExt;

/// Serves MCP on stdin/stdout for the workspace's principal until stdin
/// ends; then every command it started is ended (§16.6). The stores
/// served are `workspace`'s engines, in the order a pack id is looked up:
/// inside a project the project's, then the user store (§15.5); else the
/// user store alone. The fixes it shows repeat the `--principal` given.
pub fn serve(workspace: Workspace) -> std::io::Result<()> {
    // An orphan of a command is handed to the server, not to init (§16.6).
    reaper::adopt_orphans();
    reaper::reap_on_exit();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(run(workspace));
    // A command still running (a call the client did not wait for) ends now.
    end_everything();
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    result
}

/// Ends every process group the commands started, then every process
/// still below the server (one that made its own session included).
fn end_everything() {
    crate::engine::exec::process::end_all();
    reaper::end_descendants();
}

async fn run(workspace: Workspace) -> std::io::Result<()> {
    let server = server::Server::new(&workspace)
        .map_err(|err| std::io::Error::other(err.message.clone()))?;
    let on_end = end_everything;
    let transport = transport::LineTransport::new(tokio::io::stdin(), tokio::io::stdout(), on_end);
    let running = match server.clone().serve(transport).await {
        Ok(running) => running,
        // The client left (or never said `initialize`): nothing to serve.
        Err(err) => {
            tracing::info!("mcp: no session: {err}");
            return Ok(());
        }
    };
    let watcher = tokio::spawn(server.watch(running.peer().clone()));
    let _ = running.waiting().await;
    watcher.abort();
    Ok(())
}
