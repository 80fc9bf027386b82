//! The stdio transport under rmcp (HCP.md §16.1, §16.6): newline-delimited
//! JSON-RPC 2.0, read with bounds, answering bad input itself.
//!
//! rmcp's own stdio transport reads a line of any length and drops a line
//! that is not JSON without a word; §16.6 wants an error for each and a
//! bound on memory, so this one reads the lines and hands rmcp only
//! messages it can take:
//!
//! - a line that is not JSON: `-32700` (id `null`);
//! - JSON that is not a JSON-RPC 2.0 message (a scalar, no
//!   `"jsonrpc": "2.0"`, no method, a method that is not a string): `-32600`,
//!   with the request's id when it has one;
//! - a batch (an array): under protocol 2025-03-26, the one revision that
//!   has batches, its messages are handed to rmcp one by one and their
//!   answers written as one array once the last is in (`frames::Batches`);
//!   under any other, `-32600`;
//! - a request rmcp cannot read (a known method with bad params): `-32602`
//!   naming the method; an unknown method reaches the server, which answers
//!   `-32601`; a notification rmcp cannot read is dropped, as the MCP SDKs do;
//! - a message over [`MAX_MESSAGE`] bytes: its bytes are skipped up to the
//!   next newline (never held past its first [`MAX_MESSAGE`]), then
//!   `-32600` saying so, with the id its start holds (`frames::id_from_start`).
//!
//! In every case the server goes on reading. Before the client's
//! `initialize`, a notification or a response is dropped (rmcp would end
//! the session on one).
//!
//! **Backpressure.** However many calls run or wait for a slot, input is
//! read, so that `ping` and `notifications/cancelled` are answered or
//! applied at once (§16.3). What bounds memory: at most [`MAX_QUEUED`]
//! messages wait to be written, past which the next line is not read until
//! one is written (a client that never reads stdout stops being read); and
//! past [`MAX_IN_FLIGHT`] requests being answered, a new request is
//! answered at once by the transport (`ping` with its empty result, any
//! other with `-32000` saying the server is busy) instead of being taken —
//! a request of a batch too, in the batch's array.
//!
//! **End of input** calls the `on_end` hook first (the server ends every
//! command it started), then tells rmcp the stream closed.

use super::frames::{BATCH_PROTOCOL, Batches, id_from_start};
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, RequestId, ServerJsonRpcMessage,
    ServerResult,
};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

/// The largest message read (§16.6).
pub const MAX_MESSAGE: usize = 4 * 1024 * 1024;
/// Requests being answered (running or waiting) past which a new one is
/// answered `-32000` (busy) at once.
pub const MAX_IN_FLIGHT: usize = 4096;
/// Messages waiting to be written before reading stops.
pub const MAX_QUEUED: usize = 64;

/// The client requests MCP defines (up to the revision served).
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// The writing half, shared by every send.
struct Writer<W> {
    out: tokio::sync::Mutex<W>,
    /// Messages handed to [`Transport::send`] and not written yet.
    queued: AtomicUsize,
    /// Requests read and not answered yet.
    in_flight: Mutex<HashSet<RequestId>>,
    /// Woken when a message was written or a request answered.
    room: Notify,
    /// The negotiated protocol allows batches (2025-03-26, §16.6).
    batch_ok: std::sync::atomic::AtomicBool,
    /// The batches being answered.
    batches: Mutex<Batches>,
}

impl<W: AsyncWrite + Unpin + Send> Writer<W> {
    /// Writes one of our own error responses, on a task of its own: the
    /// read that found the error may be dropped (rmcp's loop selects over
    /// it) before the write is done.
    fn reply_error(self: &Arc<Self>, id: Value, code: i64, message: String)
    where
        W: 'static,
    {
        let doc = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        self.reply_doc(&doc);
    }

    fn reply_doc(self: &Arc<Self>, doc: &Value)
    where
        W: 'static,
    {
        let mut line = doc.to_string().into_bytes();
        line.push(b'\n');
        self.queued.fetch_add(1, Ordering::SeqCst);
        let writer = self.clone();
        tokio::spawn(async move {
            let _ = writer.write_line(line).await;
        });
    }

    /// Writes a line counted in `queued`; it is uncounted when written or
    /// when the write is dropped.
    async fn write_line(&self, line: Vec<u8>) -> std::io::Result<()> {
        struct Done<'a, W>(&'a Writer<W>);
        impl<W> Drop for Done<'_, W> {
            fn drop(&mut self) {
                self.0.queued.fetch_sub(1, Ordering::SeqCst);
                self.0.room.notify_waiters();
            }
        }
        let _done = Done(self);
        let mut out = self.out.lock().await;
        out.write_all(&line).await?;
        out.flush().await
    }

    fn in_flight(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn batches(&self) -> std::sync::MutexGuard<'_, Batches> {
        self.batches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn answered(&self, id: &RequestId) {
        self.in_flight().remove(id);
        self.room.notify_waiters();
    }

    /// Too many messages wait to be written: reading waits.
    fn full(&self) -> bool {
        self.queued.load(Ordering::SeqCst) >= MAX_QUEUED
    }

    /// Too many requests are being answered: a new one is turned away.
    fn busy(&self) -> bool {
        self.in_flight().len() >= MAX_IN_FLIGHT
    }
}

/// The answer to a request turned away past [`MAX_IN_FLIGHT`]: `ping`'s
/// empty result, else `-32000` saying the server is busy.
fn turned_away(r: &rmcp::model::JsonRpcRequest<ClientRequest>) -> Value {
    let id = serde_json::to_value(&r.id).unwrap_or(Value::Null);
    if matches!(r.request, ClientRequest::PingRequest(_)) {
        return json!({"jsonrpc": "2.0", "id": id, "result": {}});
    }
    let message =
        format!("server busy: {MAX_IN_FLIGHT} requests are being answered; send it again later");
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": message}})
}

/// The transport: lines in from `R`, lines out to `W`.
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// The rest of an over-long line is being skipped.
    skipping: bool,
    /// The id read from the start of the line being skipped.
    skipped_id: Option<Value>,
    /// The messages of a batch not handed to rmcp yet.
    pending: std::collections::VecDeque<ClientJsonRpcMessage>,
    initialized: bool,
    writer: Arc<Writer<W>>,
    on_end: Option<Box<dyn FnOnce() + Send + Sync>>,
}

impl<R: AsyncRead + Unpin + Send, W: AsyncWrite + Unpin + Send + 'static> LineTransport<R, W> {
    pub fn new(read: R, write: W, on_end: impl FnOnce() + Send + Sync + 'static) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: false,
            skipped_id: None,
            pending: std::collections::VecDeque::new(),
            initialized: false,
            writer: Arc::new(Writer {
                out: tokio::sync::Mutex::new(write),
                queued: AtomicUsize::new(0),
                in_flight: Mutex::new(HashSet::new()),
                room: Notify::new(),
                batch_ok: std::sync::atomic::AtomicBool::new(false),
                batches: Mutex::new(Batches::default()),
            }),
            on_end: Some(Box::new(on_end)),
        }
    }

    /// The next whole line (without its newline), `Err(id)` for one that
    /// was over [`MAX_MESSAGE`] (with the id its start holds), `None` at
    /// the end of input. Cancel-safe: what was read stays in `self`.
    async fn next_line(&mut self) -> Option<Result<Vec<u8>, Option<Value>>> {
        loop {
            let buf = match self.read.fill_buf().await {
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return None,
            };
            if buf.is_empty() {
                // A last line without a newline is a line.
                if self.skipping || self.line.is_empty() {
                    return None;
                }
                return Some(Ok(std::mem::take(&mut self.line)));
            }
            let (chunk, ends) = match buf.iter().position(|b| *b == b'\n') {
                Some(at) => (&buf[..at], Some(at + 1)),
                None => (buf, None),
            };
            if !self.skipping {
                if self.line.len() + chunk.len() > MAX_MESSAGE {
                    self.skipping = true;
                    // The start (MAX_MESSAGE bytes at most) may name the id.
                    let room = MAX_MESSAGE.saturating_sub(self.line.len());
                    self.line.extend_from_slice(&chunk[..room.min(chunk.len())]);
                    self.skipped_id = id_from_start(&self.line);
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            let used = ends.unwrap_or(buf.len());
            self.read.consume(used);
            if ends.is_some() {
                if std::mem::replace(&mut self.skipping, false) {
                    return Some(Err(self.skipped_id.take()));
                }
                return Some(Ok(std::mem::take(&mut self.line)));
            }
        }
    }

    /// What one line is: a message for rmcp, or an error we answer.
    fn classify(&mut self, line: &[u8]) -> Classified {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Classified::Skip;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => return Classified::Error(Value::Null, -32700, format!("parse error: {e}")),
        };
        match value {
            Value::Array(items) if self.writer.batch_ok.load(Ordering::SeqCst) => self.batch(items),
            Value::Array(_) => Classified::Error(
                Value::Null,
                -32600,
                format!(
                    "invalid request: a batch is taken under protocol {BATCH_PROTOCOL} only; \
                     send one JSON-RPC object a line"
                ),
            ),
            value => self.classify_value(value),
        }
    }

    /// The messages of a batch (§16.6) queued for rmcp; the answers are
    /// written as one array once all are in. An element that is no valid
    /// message is answered in the array; an empty batch is `-32600`.
    fn batch(&mut self, items: Vec<Value>) -> Classified {
        if items.is_empty() {
            return Classified::Error(
                Value::Null,
                -32600,
                "invalid request: an empty batch".into(),
            );
        }
        let mut requests = HashSet::new();
        let mut answers = Vec::new();
        for item in items {
            match self.classify_value(item) {
                Classified::Skip => {}
                Classified::Error(id, code, message) => answers.push(
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
                ),
                Classified::Message(message) => {
                    if let ClientJsonRpcMessage::Request(r) = message.as_ref() {
                        requests.insert(r.id.clone());
                    }
                    self.pending.push_back(*message);
                }
            }
        }
        if let Some(now) = self.writer.batches().open(requests, answers) {
            self.writer.reply_doc(&now);
        }
        Classified::Skip
    }

    /// What one JSON value is: a message for rmcp, or an error we answer.
    fn classify_value(&mut self, value: Value) -> Classified {
        let Some(object) = value.as_object() else {
            return Classified::Error(
                Value::Null,
                -32600,
                "invalid request: a message is a JSON-RPC object".into(),
            );
        };
        let id = object.get("id").cloned();
        let reply_id = id.clone().unwrap_or(Value::Null);
        if object.get("jsonrpc") != Some(&json!("2.0")) {
            return Classified::Error(
                reply_id,
                -32600,
                "invalid request: no \"jsonrpc\": \"2.0\"".into(),
            );
        }
        let method = object.get("method");
        let is_response = object.contains_key("result") || object.contains_key("error");
        match method {
            None if is_response => {}
            Some(Value::String(_)) => {}
            _ => {
                return Classified::Error(
                    reply_id,
                    -32600,
                    "invalid request: \"method\" must be a string".into(),
                );
            }
        }
        let method = method
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if !self.initialized {
            if method == "initialize" {
                self.initialized = true;
            } else if id.is_none() || is_response {
                return Classified::Skip;
            }
        }
        match serde_json::from_value::<ClientJsonRpcMessage>(value) {
            // rmcp reads a known method with bad params as a custom one.
            Ok(ClientJsonRpcMessage::Request(r))
                if matches!(r.request, ClientRequest::CustomRequest(_))
                    && KNOWN_METHODS.contains(&method.as_str()) =>
            {
                Classified::Error(reply_id, -32602, format!("invalid params for {method}"))
            }
            Ok(message) => Classified::Message(Box::new(message)),
            Err(_) if id.is_none() || is_response => Classified::Skip,
            Err(e) => Classified::Error(
                reply_id,
                -32602,
                format!("invalid params for {method}: {e}"),
            ),
        }
    }
}

enum Classified {
    Message(Box<ClientJsonRpcMessage>),
    Error(Value, i64, String),
    Skip,
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.writer.clone();
        let answered = match &item {
            ServerJsonRpcMessage::Response(r) => Some(r.id.clone()),
            ServerJsonRpcMessage::Error(e) => e.id.clone(),
            _ => None,
        };
        if let ServerJsonRpcMessage::Response(r) = &item
            && let ServerResult::InitializeResult(init) = &r.result
        {
            let batches = init.protocol_version.to_string() == BATCH_PROTOCOL;
            writer.batch_ok.store(batches, Ordering::SeqCst);
        }
        // An answer within a batch waits for the batch's last one.
        let in_batch = answered
            .as_ref()
            .filter(|id| writer.batches().holds(id))
            .cloned();
        if let Some(id) = in_batch {
            let answer = serde_json::to_value(&item).ok();
            let whole = writer.batches().answered(&id, answer);
            writer.answered(&id);
            if let Some(whole) = whole {
                writer.reply_doc(&whole);
            }
            return futures::future::Either::Left(std::future::ready(Ok(())));
        }
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        writer.queued.fetch_add(1, Ordering::SeqCst);
        futures::future::Either::Right(async move {
            if let Some(id) = &answered {
                writer.answered(id);
            }
            match line {
                Ok(line) => writer.write_line(line).await,
                Err(e) => {
                    writer.queued.fetch_sub(1, Ordering::SeqCst);
                    writer.room.notify_waiters();
                    Err(std::io::Error::other(e))
                }
            }
        })
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if let Some(message) = self.pending.pop_front() {
                if let ClientJsonRpcMessage::Request(r) = &message {
                    // A batch's requests count toward the bound as well:
                    // one turned away is answered in the batch's array.
                    if self.writer.busy() {
                        let whole = self.writer.batches().answered(&r.id, Some(turned_away(r)));
                        if let Some(whole) = whole {
                            self.writer.reply_doc(&whole);
                        }
                        continue;
                    }
                    self.writer.in_flight().insert(r.id.clone());
                }
                return Some(message);
            }
            while self.writer.full() {
                let room = self.writer.room.notified();
                if !self.writer.full() {
                    break;
                }
                room.await;
            }
            let line = match self.next_line().await {
                Some(line) => line,
                None => {
                    if let Some(on_end) = self.on_end.take() {
                        on_end();
                    }
                    return None;
                }
            };
            let line = match line {
                Ok(line) => line,
                Err(id) => {
                    let message = format!("invalid request: a message over {MAX_MESSAGE} bytes");
                    self.writer
                        .reply_error(id.unwrap_or(Value::Null), -32600, message);
                    continue;
                }
            };
            match self.classify(&line) {
                Classified::Skip => {}
                Classified::Error(id, code, message) => self.writer.reply_error(id, code, message),
                Classified::Message(message) => {
                    match message.as_ref() {
                        ClientJsonRpcMessage::Request(r) if self.writer.busy() => {
                            self.writer.reply_doc(&turned_away(r));
                            continue;
                        }
                        ClientJsonRpcMessage::Request(r) => {
                            self.writer.in_flight().insert(r.id.clone());
                        }
                        ClientJsonRpcMessage::Notification(n) => {
                            if let ClientNotification::CancelledNotification(c) = &n.notification
                                && let Some(id) = &c.params.request_id
                            {
                                // rmcp drops the answer of a cancelled request.
                                self.writer.answered(id);
                                let whole = self.writer.batches().answered(id, None);
                                if let Some(whole) = whole {
                                    self.writer.reply_doc(&whole);
                                }
                            }
                        }
                        _ => {}
                    }
                    return Some(*message);
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut out = self.writer.out.lock().await;
        out.flush().await
    }
}
