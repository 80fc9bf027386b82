//! The MCP server (HCP.md §16): rmcp's `ServerHandler` over the engine.
//!
//! - `tools/list` reads the store ([`Listing::read`]; the last read again
//!   while the store's stamp is unchanged), answers it in pages of 500
//!   (`pages`, §16.2) and remembers what it answered: the listing the
//!   client holds. A server's first page, before any read, is made from
//!   the first packs alone ([`Listing::read_first`]) and the whole store
//!   read after it: a large store does not delay a session's start.
//! - `tools/call` finds the tool in that listing (else in the last one
//!   read, else among every command of an activated pack, which the exec
//!   path then refuses naming what is missing, §16.3; a name in none is
//!   `-32602`), refuses a tool whose pack is now
//!   at another version with another schema (§16.4), then runs the command
//!   through the exec path of `hcpx exec --json` (`Engine::exec_named`),
//!   which checks every §6.1 condition again and the args (§6.2), redacts,
//!   caps and times out. It runs off the loop, inside a process-group
//!   [`Scope`] of its own, so that `notifications/cancelled` kills its
//!   group (and only its group) at once. At most [`MAX_RUNNING`] commands
//!   (`HCPX_MCP_MAX_CALLS`, §16.3) run at a time; the other calls wait
//!   their turn, in the order they came, and one cancelled while it waits
//!   never starts. A call with `_meta.progressToken` gets
//!   `notifications/progress` a second while it runs, with the newest line
//!   of its output (redacted by the exec path's tap, control characters
//!   replaced).
//! - `resources/list` and `resources/read` serve the Skills (§16.5).
//! - The watcher ([`watch`]), woken by inotify (`wake`; a look once a
//!   second where there is none), takes the store's stamp and sends
//!   `notifications/tools/list_changed` (and `resources/list_changed`)
//!   when what a `tools/list` would answer changed (§16.4).

use super::call;
use super::listing::Listing;
use super::skills;
use super::stamp::Stamp;
use super::tools::{self, ToolEntry, Which};
use crate::command::workspace::Workspace;
use crate::engine::error::Error;
use crate::engine::exec::process::Scope;
use crate::engine::ops::Engine;
use crate::engine::pack::manifest::{Command, Manifest};
use crate::fixline::FixFlags;
use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Commands run at once unless `HCPX_MCP_MAX_CALLS` says otherwise
/// (§16.3); further calls wait, in order.
pub const MAX_RUNNING: usize = 64;
/// The variable that changes [`MAX_RUNNING`].
pub const MAX_CALLS_VAR: &str = "HCPX_MCP_MAX_CALLS";
/// How often the watcher looks at the store where there are no file
/// notifications (§16.6: at most once a second; §16.4 wants 2 s at most).
pub const POLL: Duration = Duration::from_secs(1);

/// The newest protocol revision served: the newest with an `initialize`
/// handshake (the client's own is taken when it is an older one).
pub const PROTOCOL: ProtocolVersion = ProtocolVersion::LATEST_WITH_INITIALIZE;

#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    /// The stores served, in the order a pack id is looked up (inside a
    /// project the project's, then the user store, §15.5).
    engines: Vec<Engine>,
    flags: FixFlags,
    state: Mutex<Known>,
    /// What the reads took from each pack before.
    reads: super::reads::ReadCache,
    /// Held by the read of the store under way: a second waits for it,
    /// then finds the store as that one read it.
    reading: tokio::sync::Mutex<()>,
    /// Told once the whole store was first read after a first page.
    first_read: tokio::sync::Notify,
    /// A first page was made from the first packs ([`Server::read_first`]).
    first_taken: std::sync::atomic::AtomicBool,
    /// A slot per command allowed to run at once; tokio's semaphore
    /// hands them out first come, first served (§16.3).
    running: Arc<Semaphore>,
}

/// What the server knows of the store and of the client.
#[derive(Default)]
struct Known {
    /// The last listing read.
    current: Arc<Listing>,
    /// The tools the client was last sent (`tools/list`).
    listed: Arc<Listing>,
    /// The store's stamp when `current` was read (`None`: not read yet).
    stamp: Option<Stamp>,
}

impl Server {
    /// A server acting for `workspace`'s principal on its stores (see
    /// [`Inner::engines`]); a fix's command line repeats the
    /// `--principal` given.
    pub fn new(workspace: &Workspace) -> crate::engine::error::Result<Server> {
        let engines = workspace.engines()?.into_iter().cloned().collect();
        let flags = FixFlags {
            principal: workspace.fix_flags().principal.clone(),
            catalogs: Vec::new(),
            global: false,
        };
        Ok(Server::of(engines, flags))
    }

    /// A server on `engines`, `flags` what a fix's command line repeats.
    fn of(mut engines: Vec<Engine>, flags: FixFlags) -> Server {
        // Catalog packs are never executable: none is read.
        for engine in &mut engines {
            engine.set_catalogs(Vec::new());
        }
        Server {
            inner: Arc::new(Inner {
                engines,
                flags,
                state: Mutex::new(Known::default()),
                reads: super::reads::ReadCache::default(),
                reading: tokio::sync::Mutex::new(()),
                first_read: tokio::sync::Notify::new(),
                first_taken: std::sync::atomic::AtomicBool::new(false),
                running: Arc::new(Semaphore::new(max_calls())),
            }),
        }
    }

    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the store off the loop; while the stamp of the files whose
    /// change can change the listing is the one of the last read, that
    /// read is the answer.
    async fn read_listing(&self) -> Result<Arc<Listing>, ErrorData> {
        let _one = self.inner.reading.lock().await;
        let inner = Arc::clone(&self.inner);
        let last = {
            let known = self.known();
            known.stamp.clone().map(|s| (s, known.current.clone()))
        };
        let read = tokio::task::spawn_blocking(move || {
            // The stamp is taken first: a change during the read is seen
            // by the next one.
            let stamp = Stamp::take(&inner.engines);
            match last {
                Some((was, listing)) if was == stamp => Ok((stamp, listing)),
                _ => Listing::read(&inner.engines, &inner.reads, &stamp)
                    .map(|l| (stamp, Arc::new(l))),
            }
        })
        .await;
        match read {
            Ok(Ok((stamp, listing))) => {
                let mut known = self.known();
                known.current = Arc::clone(&listing);
                known.stamp = Some(stamp);
                Ok(listing)
            }
            Ok(Err(err)) => Err(internal(&err)),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }

    /// The first tools, for the first page of a server that has not read
    /// the store yet (`Listing::read_first`: only the packs they come
    /// from are read). The whole store is read next, off the request;
    /// should its first tools not be these (the store changed meanwhile),
    /// the client is told to list again (§16.4).
    async fn read_first(&self, peer: Peer<RoleServer>) -> Result<Arc<Listing>, ErrorData> {
        let inner = Arc::clone(&self.inner);
        let read = tokio::task::spawn_blocking(move || {
            Listing::read_first(&inner.engines, &inner.reads, super::pages::PAGE)
        })
        .await;
        let first = match read {
            Ok(Ok(first)) => Arc::new(first),
            Ok(Err(err)) => return Err(internal(&err)),
            Err(e) => return Err(ErrorData::internal_error(e.to_string(), None)),
        };
        let server = self.clone();
        let sent = Arc::clone(&first);
        tokio::spawn(async move {
            let read = server.read_listing().await;
            server.inner.first_read.notify_one();
            let Ok(whole) = read else {
                return;
            };
            let stale = if sent.prefix {
                !whole.starts_with(&sent)
            } else {
                whole.tools_differ(&sent)
            };
            if stale {
                let _ = peer.notify_tool_list_changed().await;
            }
        });
        Ok(first)
    }

    /// The tool `name` among every command of an activated pack of the
    /// stores served, named as a listing of them all would name it.
    async fn existing(&self, name: &str) -> Result<Option<ToolEntry>, ErrorData> {
        let inner = Arc::clone(&self.inner);
        let name = name.to_string();
        let read = tokio::task::spawn_blocking(move || {
            let stamp = Stamp::take(&inner.engines);
            Listing::read_of(&inner.engines, &inner.reads, &stamp, Which::Activated)
                .map(|l| l.tool(&name).cloned())
        })
        .await;
        match read {
            Ok(Ok(found)) => Ok(found),
            Ok(Err(err)) => Err(internal(&err)),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }

    /// The tool the client calls `name`: as it was listed, else as last
    /// read.
    fn find(&self, name: &str) -> Option<ToolEntry> {
        let known = self.known();
        known
            .listed
            .tool(name)
            .or_else(|| known.current.tool(name))
            .cloned()
    }

    /// Runs the call off the loop in its own scope, once a slot is free
    /// (calls wait in the order they came, §16.3); the slot is held until
    /// the command is over. A call cancelled while it waits never starts;
    /// one cancelled while it runs has its process group killed.
    async fn run(
        &self,
        slot: SlotWait,
        entry: ToolEntry,
        arguments: Option<rmcp::model::JsonObject>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let slot = tokio::select! {
            // A cancellation that came first wins over a free slot.
            biased;
            () = context.ct.cancelled() => return cancelled(),
            slot = slot => slot,
        };
        let Ok(slot) = slot else {
            return call::stale(entry.name(), "cannot run: the server is stopping");
        };
        let scope = Scope::new();
        let engine = self.inner.engines.get(entry.store).cloned();
        // A user-store pack served inside a project: its fixes say `-g`.
        let mut flags = self.inner.flags.clone();
        flags.global |= self.inner.engines.len() > 1
            && engine
                .as_ref()
                .is_some_and(|e| e.scope() == crate::engine::project::Scope::User);
        // With a progress token, the output is watched as it comes (§16.3).
        let progress = context.meta.get_progress_token().map(|token| {
            let newest = Arc::new(Mutex::new(call::NewestLine::default()));
            let seen = Arc::clone(&newest);
            let tap = crate::engine::exec::live::Tap::new(move |chunk| {
                seen.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take(&chunk.text);
            });
            (token, newest, tap)
        });
        let tap = progress.as_ref().map(|(_, _, tap)| tap.clone());
        let job = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            // An orphan the command leaves is reaped when it exits, by
            // the reaper's thread (§16.6).
            scope.run(|| match &engine {
                Some(engine) => {
                    call_blocking(engine, &flags, &entry, arguments.as_ref(), tap.as_ref())
                }
                None => call::stale(entry.name(), "names no store of this server"),
            })
        });
        let progress = progress.map(|(token, newest, _)| (token, newest));
        wait_for(job, scope, context, progress).await
    }

    /// A place in the line for a slot: tokio's semaphore queues a waiter
    /// when it is first polled, which is done here, at once.
    async fn place_in_line(&self) -> SlotWait {
        use std::task::Poll;
        let mut wait: SlotWait = Box::pin(Arc::clone(&self.inner.running).acquire_owned());
        let first = std::future::poll_fn(|cx| Poll::Ready(wait.as_mut().poll(cx))).await;
        match first {
            Poll::Ready(got) => Box::pin(std::future::ready(got)),
            Poll::Pending => wait,
        }
    }

    /// The watcher: woken by the file notifications of the folders the
    /// answers depend on (`wake`; a look once a second where there are
    /// none), it takes the stamp and tells the client when the tools or the
    /// Skills changed (§16.4). An idle server does no work (§16.6). Ends
    /// when the client is gone.
    pub async fn watch(self, peer: Peer<RoleServer>) {
        let engines = self.inner.engines.clone();
        // The first page comes first: the watches of a large store are
        // added once the store was read (or after a second).
        let first = self.inner.first_read.notified();
        let _ = tokio::time::timeout(Duration::from_secs(1), first).await;
        let mut wake = super::wake::Wake::new();
        let (mut last, mut covered) = look(&engines, wake.as_ref()).await;
        // What the client was sent was read at a stamp of its own: a
        // change since, before the watches were added, is told now.
        let read_at = self.known().stamp.clone();
        if read_at.is_some_and(|was| was != last) && !self.tell_changes(&peer).await {
            return;
        }
        loop {
            match wake.as_mut() {
                Some(w) if covered => {
                    if !w.changed().await {
                        wake = None;
                    }
                }
                _ => tokio::time::sleep(POLL).await,
            }
            super::wake::note_wake();
            if peer.is_transport_closed() {
                return;
            }
            let (now, all) = look(&engines, wake.as_ref()).await;
            covered = all;
            if now == last {
                continue;
            }
            last = now;
            if !self.tell_changes(&peer).await {
                return;
            }
        }
    }

    /// Reads the store and tells the client when the tools or the Skills
    /// differ from the last read (§16.4); `false` when the client is gone.
    async fn tell_changes(&self, peer: &Peer<RoleServer>) -> bool {
        let before = self.known().current.clone();
        let Ok(after) = self.read_listing().await else {
            return true;
        };
        if after.tools_differ(&before) && peer.notify_tool_list_changed().await.is_err() {
            return false;
        }
        if after.skills_differ(&before) {
            let _ = peer.notify_resource_list_changed().await;
        }
        true
    }
}

/// Waits for a running call: its result; or, when the client cancels it,
/// its process group killed; with a progress token, a
/// `notifications/progress` a second while it runs (§16.3: seconds so far,
/// the newest line of its output).
async fn wait_for(
    job: tokio::task::JoinHandle<CallToolResult>,
    scope: Scope,
    context: &RequestContext<RoleServer>,
    progress: Option<(rmcp::model::ProgressToken, Arc<Mutex<call::NewestLine>>)>,
) -> CallToolResult {
    let started = tokio::time::Instant::now();
    let second = Duration::from_secs(1);
    let mut ticks = tokio::time::interval_at(started + second, second);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(job);
    loop {
        tokio::select! {
            done = &mut job => {
                return done.unwrap_or_else(|e| call::refused(&Error::new(crate::engine::error::ErrorCode::Io, e.to_string()), &FixFlags::default()));
            }
            () = context.ct.cancelled() => {
                scope.cancel();
                return cancelled();
            }
            _ = ticks.tick(), if progress.is_some() => {
                let Some((token, newest)) = &progress else { continue };
                let mut note = ProgressNotificationParam::new(
                    token.clone(),
                    started.elapsed().as_secs() as f64,
                );
                note.message = newest.lock().unwrap_or_else(PoisonError::into_inner).newest();
                let _ = context.peer.notify_progress(note).await;
            }
        }
    }
}

/// A call waiting for its slot (see [`Server::place_in_line`]).
type SlotWait = std::pin::Pin<
    Box<
        dyn std::future::Future<
                Output = Result<tokio::sync::OwnedSemaphorePermit, tokio::sync::AcquireError>,
            > + Send,
    >,
>;

/// The answer to a cancelled call (rmcp sends none: the client gave up).
fn cancelled() -> CallToolResult {
    call::refused(
        &Error::new(
            crate::engine::error::ErrorCode::Io,
            "cancelled by the client",
        ),
        &FixFlags::default(),
    )
}

/// How many commands may run at once: `HCPX_MCP_MAX_CALLS` when it is a
/// whole number from 1, else [`MAX_RUNNING`] (another value is named on
/// stderr, which is not the protocol's).
pub fn max_calls() -> usize {
    let Some(value) = std::env::var_os(MAX_CALLS_VAR) else {
        return MAX_RUNNING;
    };
    match value.to_str().and_then(|v| v.trim().parse::<usize>().ok()) {
        Some(n) if n >= 1 => n.min(Semaphore::MAX_PERMITS),
        _ => {
            eprintln!(
                "hcpx mcp: {MAX_CALLS_VAR}={} is not a whole number from 1: {MAX_RUNNING} calls run at once",
                value.to_string_lossy().escape_default()
            );
            MAX_RUNNING
        }
    }
}

/// The stamp now, the watches added again first (so that a change after
/// the stamp wakes the watcher); and whether every folder is watched.
async fn look(engines: &[Engine], wake: Option<&super::wake::Wake>) -> (Stamp, bool) {
    let engines = engines.to_vec();
    let watching = wake.is_some();
    let folders = tokio::task::spawn_blocking({
        let engines = engines.clone();
        move || watching.then(|| super::stamp::folders(&engines))
    })
    .await
    .ok()
    .flatten();
    let covered = match (wake, folders) {
        (Some(w), Some(folders)) => w.watch(&folders),
        _ => false,
    };
    let stamp = tokio::task::spawn_blocking(move || Stamp::take(&engines))
        .await
        .unwrap_or_default();
    (stamp, covered)
}

/// One call, blocking: the args typed and the listing's contract checked
/// against the very read of the pack that runs (§16.4, see
/// [`Engine::exec_prepared`]), the command run by the exec path.
fn call_blocking(
    engine: &Engine,
    flags: &FixFlags,
    entry: &ToolEntry,
    arguments: Option<&rmcp::model::JsonObject>,
    tap: Option<&crate::engine::exec::live::Tap>,
) -> CallToolResult {
    let pack_id = match engine.pack_id(&entry.pack_id) {
        Ok(pack_id) => pack_id,
        Err(err) => return call::refused(&err, flags),
    };
    // The timeout of the command that runs, for a timeout's words.
    let timeout_ms = std::cell::Cell::new(None);
    let prepare = |manifest: &Manifest, command: &Command| {
        timeout_ms.set(Some(command.timeout_ms));
        if manifest.version != entry.version
            && tools::input_schema(command) != *entry.tool.input_schema
        {
            let why = format!(
                "was listed for {} {}, which is now {} with other arguments",
                entry.pack_id, entry.version, manifest.version
            );
            return Err(call::stale_error(entry.name(), &why));
        }
        call::named_args(command, arguments).map_err(|e| e.pack(&entry.pack_id))
    };
    match engine.exec_prepared_live(&pack_id, &entry.verb_key, &prepare, tap) {
        Ok(result) => call::ran(&result),
        Err(err) => match timeout_ms.get() {
            Some(ms) if err.code == crate::engine::error::ErrorCode::Timeout => {
                call::timed_out(&err, ms, flags)
            }
            _ => call::refused(&err, flags),
        },
    }
}

/// The `instructions` of `initialize` (§16.1, §9.3): the principal, where
/// its grants come from in each store served, and under the defaults that
/// only read commands are offered until the user grants more.
fn instructions(engines: &[Engine]) -> String {
    use crate::command::text::grant::source_words;
    use crate::engine::policy::grants::{DEFAULT_PRINCIPAL, GrantsFrom};
    let principal = engines.first().map(Engine::principal).unwrap_or_default();
    let froms: Vec<GrantsFrom> = engines
        .iter()
        .filter_map(|e| {
            let state = e.store().read_state().ok()?;
            e.grants_in_force(&state).ok().map(|g| g.from())
        })
        .collect();
    let mut text = format!(
        "The tools are the commands of the HCP packs that principal `{principal}` may run now; \
         the resources are those packs' Skills (hcp://skills/NAME/SKILL.md): read a pack's \
         Skill before using its tools."
    );
    let mut distinct = froms.clone();
    // Two stores at most (a project's, the user's).
    distinct.dedup();
    for from in &distinct {
        text.push_str(&format!(
            " Principal `{principal}`'s grants: {} (grants_from: {}).",
            source_words(principal, *from),
            from.as_str()
        ));
    }
    if principal != DEFAULT_PRINCIPAL && froms.contains(&GrantsFrom::Default) {
        text.push_str(&format!(
            " Under the default grants only read commands are offered; a write command needs \
             the user's grant: ask the user to run `hcpx grant {principal} verb.exec.write:PACK_ID`."
        ));
    }
    text
}

fn internal(err: &Error) -> ErrorData {
    ErrorData::internal_error(
        format!("{}: {}", err.code.as_str(), err.message),
        serde_json::to_value(err).ok(),
    )
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .build();
        ServerConfig::new(capabilities)
            .with_protocol_version(PROTOCOL)
            .with_server_info(Implementation::new(
                "hcpx",
                crate::engine::ops::RUNTIME_VERSION,
            ))
            .with_instructions(instructions(&self.inner.engines))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&PROTOCOL))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        // Only the server's first list is made from the first packs; any
        // other waits for a whole read (one at a time, not a thread each).
        let unread = self.known().stamp.is_none()
            && !self
                .inner
                .first_taken
                .swap(true, std::sync::atomic::Ordering::SeqCst);
        let listing = match cursor {
            None if unread => self.read_first(context.peer.clone()).await?,
            _ => self.read_listing().await?,
        };
        let page = super::pages::page(&listing.tools, cursor.as_deref(), super::pages::PAGE)
            .map_err(|why| ErrorData::invalid_params(why, None))?;
        self.known().listed = Arc::clone(&listing);
        let mut result =
            ListToolsResult::with_all_items(page.items.iter().map(|t| t.tool.clone()).collect());
        result.next_cursor = page.next;
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The call's place in the line is taken now, before anything
        // waits, so that calls start in the order they came (§16.3).
        let slot = self.place_in_line().await;
        let name = request.name.to_string();
        let entry = match self.find(&name) {
            Some(entry) => entry,
            // Not listed yet: maybe new since the last read.
            None => match self.read_listing().await?.tool(&name) {
                Some(entry) => entry.clone(),
                // A command that exists but is not executable for the
                // principal: the exec path refuses it, naming what is
                // missing (§16.3).
                None => match self.existing(&name).await? {
                    Some(entry) => entry,
                    None => {
                        return Err(ErrorData::invalid_params(
                            format!("unknown tool `{}`", name.escape_default()),
                            None,
                        ));
                    }
                },
            },
        };
        Ok(self
            .run(slot, entry, request.arguments, &context)
            .await
            .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let listing = self.read_listing().await?;
        let mut resources = Vec::new();
        for skill in &listing.skills {
            for file in &skill.files {
                let mut r = Resource::new(skill.uri(file), format!("{}/{file}", skill.name))
                    .with_mime_type(skills::mime_type(file));
                if file == "SKILL.md" {
                    let description = crate::engine::pack::text::terminal_safe(&skill.description);
                    r = r
                        .with_title(format!("Skill {} ({})", skill.name, skill.pack_id))
                        .with_description(description.into_owned());
                }
                resources.push(r);
            }
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let listing = self.read_listing().await?;
        let uri = request.uri;
        let found = listing
            .skills
            .iter()
            .find_map(|s| s.file_for(&uri).map(|f| (s.dir.clone(), f.to_string())));
        let Some((dir, file)) = found else {
            return Err(ErrorData::resource_not_found(
                format!("no resource `{}`", uri.escape_default()),
                None,
            ));
        };
        let read = tokio::task::spawn_blocking({
            let file = file.clone();
            move || skills::read_file(&dir, &file)
        })
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let contents = match read {
            Ok(Ok(text)) => {
                ResourceContents::text(text, uri).with_mime_type(skills::mime_type(&file))
            }
            Ok(Err(bytes)) => {
                let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
                ResourceContents::blob(blob, uri).with_mime_type("application/octet-stream")
            }
            Err(e) => {
                return Err(ErrorData::internal_error(
                    format!("cannot read {file}: {e}"),
                    None,
                ));
            }
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}
