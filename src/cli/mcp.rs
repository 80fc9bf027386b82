//! `hcpx mcp [--principal NAME]` and `hcpx mcp --print-config TARGET`
//! (HCP.md §16). Inside a project the server serves the project's store
//! and the user store (§15.5). The server (`src/mcp/`) is started through the launcher
//! the binary sets, so this module does not import it; `--print-config`
//! prints the command layer's entry (`command::mcp_config`), as text or,
//! with `--json`, as one document: the running binary's absolute path,
//! `$HCP_PRINCIPAL` (else `agent`) and `$HCP_HOME` (§16.7).

use crate::cli::context::Ctx;
use crate::command::workspace::Workspace;
use crate::engine::error::{Error, ErrorCode};
use std::path::Path;
use std::sync::Arc;

pub use crate::command::args::mcp::McpArgs;

pub fn run(args: &McpArgs, ctx: &Ctx) -> i32 {
    if let Some(target) = args.print_config {
        let home = std::env::var("HCP_HOME").ok().filter(|h| !h.is_empty());
        let program = match running_binary() {
            Ok(program) => program,
            Err(err) => return ctx.fail(&err),
        };
        // `--principal` is this command's; the entry names the agent's.
        let principal = std::env::var("HCP_PRINCIPAL")
            .ok()
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| crate::command::mcp_config::MCP_PRINCIPAL.to_string());
        // A name §9.1 refuses is no entry to paste.
        if let Err(err) = crate::engine::policy::grants::parse_principal(&principal) {
            return ctx.fail(&err);
        }
        let launch = crate::command::mcp_config::Launch {
            program: &program,
            principal: &principal,
            hcp_home: home.as_deref(),
        };
        let entry = crate::command::mcp_config::config(target, &launch);
        return ctx.success(entry, |entry| {
            eprintln!("add this to {}:", entry.file);
            print!("{entry}");
            if let Some(command) = &entry.command {
                eprintln!("or run: {command}");
            }
        });
    }
    if ctx.out.json {
        return ctx.fail(
            &Error::usage("hcpx mcp speaks MCP on stdout and prints no --json document")
                .hint("use --json with --print-config, or run `hcpx mcp` from an MCP client"),
        );
    }
    // stdout is the protocol's: waiting for the store lock is logged on stderr.
    let workspace = match workspace(ctx) {
        Ok(workspace) => workspace,
        Err(err) => return ctx.fail(&err),
    };
    let Some(launch) = MCP.get() else {
        return ctx.fail(&Error::usage(
            "this binary was built without the MCP server",
        ));
    };
    match launch(workspace) {
        Ok(()) => 0,
        Err(err) => ctx.fail(&Error::new(
            ErrorCode::Io,
            format!("the MCP server stopped: {err}"),
        )),
    }
}

/// The absolute path of the running binary, links resolved (§16.7): a
/// harness starts the server with it, whatever its `PATH`.
fn running_binary() -> crate::engine::error::Result<String> {
    let path = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot tell where hcpx is: {e}")))?;
    path.into_os_string().into_string().map_err(|p| {
        Error::new(
            ErrorCode::Io,
            format!(
                "hcpx's path {} is not UTF-8: a harness configuration cannot name it",
                p.to_string_lossy().escape_default()
            ),
        )
    })
}

/// The stores the server serves (§15.5, `Workspace::engines`), opened
/// now so that a store that cannot be opened is this command's error; a
/// project store that is not ours serves nothing, and that is said (§15.2).
fn workspace(ctx: &Ctx) -> crate::engine::error::Result<Workspace> {
    // stdout is the protocol's: waiting for the store lock is logged on stderr.
    let on_wait: crate::engine::store::LockObserver = Arc::new(|lock: &Path| {
        eprintln!(
            "hcpx mcp: waiting for the store lock {} (held by another hcpx)",
            lock.display()
        );
    });
    if ctx.store_refused().is_some() {
        ctx.warn_store_refused();
    }
    let workspace = ctx.workspace().waiting(on_wait);
    workspace.engines()?;
    Ok(workspace)
}

/// Runs the MCP server until its client closes stdin. The binary gives it
/// ([`set_launcher`]), so the CLI never imports the server.
pub type McpLauncher = fn(Workspace) -> std::io::Result<()>;

static MCP: std::sync::OnceLock<McpLauncher> = std::sync::OnceLock::new();

/// Sets how `hcpx mcp` starts the server (once, before `cli::main`).
pub fn set_launcher(launch: McpLauncher) {
    let _ = MCP.set(launch);
}
