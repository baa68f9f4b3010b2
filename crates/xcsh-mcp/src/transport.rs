//! The JSON-RPC framing of `xcsh mcp`: one message per line, and an answer
//! for every request, including the ones `rmcp` would drop.
//!
//! rmcp's own line transport drops an over-large line and unparsable input
//! without a word (the client then waits forever for its response) and
//! answers a request sent before `initialize` with a complaint about missing
//! `_meta` fields. This transport reads the lines itself and answers, as
//! JSON-RPC 2.0 says:
//!
//! - a line over [`MAX_MESSAGE_BYTES`]: Invalid Request (-32600),
//!   [`TOO_LARGE`], with the request's `id` when its first bytes name one;
//! - text that is not JSON: Parse error (-32700) with `id: null`;
//! - JSON that is not a valid message: Invalid Request (-32600), with the
//!   `id` when one can be read, else `null` (a notification, which never
//!   gets an answer, is ignored as before);
//! - a request other than `initialize`, `ping` or `server/discover` before
//!   the session has begun: Invalid Request (-32600), [`NOT_INITIALIZED`]
//!   (a 2026-07-28 request that carries its protocol version in `_meta` is
//!   a session of its own and goes through); notifications and responses
//!   before then are ignored instead of ending the server.
//!
//! - `ping` from a 2026-07-28 request (its `_meta` names that revision,
//!   which removed the method): Method not found (-32601), as for any
//!   method the revision does not have.
//!
//! Everything else that parses goes to rmcp unchanged. Each message written is
//! one line, written by a task of its own so that a cancelled caller never
//! leaves half a line on the wire.

use std::fmt;
use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, GetMeta as _, ProtocolVersion,
    RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::Mutex;

/// The largest message read, as rmcp's own limit: a longer line is skipped
/// (streamed past, never held) and answered with [`TOO_LARGE`].
pub const MAX_MESSAGE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// How much of an over-large line is kept to find its `id`.
const ID_PREFIX_BYTES: usize = 4096;

/// The message of the answer to an over-large line.
pub const TOO_LARGE: &str = "Message too large: over 16 MiB; skipped";

/// The message of the answer to a request before `initialize`.
pub const NOT_INITIALIZED: &str =
    "Server not initialized: the first request must be \"initialize\"";

/// rmcp's stdio framing with an answer for every bad line.
pub struct LineTransport<R: AsyncRead, W: AsyncWrite> {
    read: BufReader<R>,
    /// The line being read; it survives a cancelled `receive`.
    line: Vec<u8>,
    /// The first bytes of a line over the limit, while the rest is skipped.
    skipping: Option<Vec<u8>>,
    started: bool,
    /// The client's end; `None` once closed.
    write: Arc<Mutex<Option<W>>>,
}

impl<R: AsyncRead, W: AsyncWrite> fmt::Debug for LineTransport<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineTransport")
            .field("buffered", &self.line.len())
            .field("skipping", &self.skipping.is_some())
            .field("started", &self.started)
            .finish_non_exhaustive()
    }
}

/// What one line read produced.
enum Read {
    /// A whole line is in `line`.
    Line,
    /// A line over the limit ended; these are its first bytes.
    TooLarge(Vec<u8>),
    /// End of input (a last line without a newline is incomplete: dropped).
    End,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Reads requests from `read`, writes answers to `write`.
    pub fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: None,
            started: false,
            write: Arc::new(Mutex::new(Some(write))),
        }
    }

    /// Reads up to the next newline, holding at most [`MAX_MESSAGE_BYTES`].
    /// Cancel-safe: what was read stays in `self` for the next call.
    async fn read_line(&mut self) -> std::io::Result<Read> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(Read::End);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let chunk = &available[..take];
            if let Some(prefix) = &mut self.skipping {
                let room = ID_PREFIX_BYTES.saturating_sub(prefix.len());
                prefix.extend_from_slice(&chunk[..room.min(chunk.len())]);
            } else if self.line.len() + take > MAX_MESSAGE_BYTES {
                let mut prefix = std::mem::take(&mut self.line);
                prefix.truncate(ID_PREFIX_BYTES);
                let room = ID_PREFIX_BYTES - prefix.len();
                prefix.extend_from_slice(&chunk[..room.min(chunk.len())]);
                self.skipping = Some(prefix);
            } else {
                self.line.extend_from_slice(chunk);
            }
            self.read.consume(take);
            if newline.is_some() {
                return Ok(match self.skipping.take() {
                    Some(prefix) => Read::TooLarge(prefix),
                    None => Read::Line,
                });
            }
        }
    }

    /// Writes `line` (one message, no newline) from a task of its own;
    /// tasks start in the order they are spawned and take the lock in that
    /// order, so messages go out in the order they were sent.
    fn write_line(&self, mut line: Vec<u8>) -> tokio::task::JoinHandle<io::Result<()>> {
        line.push(b'\n');
        let write = Arc::clone(&self.write);
        tokio::spawn(async move {
            let mut write = write.lock().await;
            let Some(out) = write.as_mut() else {
                return Err(io::Error::new(
                    io::ErrorKind::NotConnected,
                    "the MCP client is gone",
                ));
            };
            out.write_all(&line).await?;
            out.flush().await
        })
    }

    /// Answers a message that cannot be passed on, without waiting:
    /// `receive` may be cancelled at any await, and the answer must not be
    /// lost with it.
    fn answer(&self, error: ErrorData, id: Option<RequestId>) {
        let sending = self.write_line(error_line(error, id));
        tokio::spawn(async move {
            if let Ok(Err(error)) = sending.await {
                tracing::debug!(%error, "cannot answer a bad MCP message");
            }
        });
    }

    /// What to do with a message before the session has begun: `None`
    /// passes it on, `Some(None)` drops it, `Some(Some(answer))` answers it.
    fn before_start(
        &mut self,
        message: &ClientJsonRpcMessage,
    ) -> Option<Option<(ErrorData, RequestId)>> {
        if self.started {
            return None;
        }
        match message {
            ClientJsonRpcMessage::Request(request) => match &request.request {
                ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => None,
                ClientRequest::InitializeRequest(_) => {
                    self.started = true;
                    None
                }
                other if other.get_meta().protocol_version().is_some() => {
                    self.started = true;
                    None
                }
                _ => Some(Some((
                    ErrorData::invalid_request(NOT_INITIALIZED, None),
                    request.id.clone(),
                ))),
            },
            _ => {
                tracing::debug!("ignoring a notification or response before initialize");
                Some(None)
            }
        }
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let written = serde_json::to_vec(&item).map(|line| self.write_line(line));
        async move {
            written?
                .await
                .map_err(|error| io::Error::other(format!("the MCP writer stopped: {error}")))?
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(Read::Line) => {}
                Ok(Read::TooLarge(prefix)) => {
                    tracing::warn!("skipped an MCP message over {MAX_MESSAGE_BYTES} bytes");
                    self.answer(
                        ErrorData::invalid_request(TOO_LARGE, None),
                        id_in_prefix(&prefix),
                    );
                    continue;
                }
                Ok(Read::End) => return None,
                Err(error) => {
                    tracing::error!(%error, "cannot read from the MCP client");
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let parsed = parse(&line);
            self.line = line;
            self.line.clear();
            match parsed {
                Parsed::Message(message) => {
                    if let Some(id) = removed_ping(&message) {
                        let removed = ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "ping", None);
                        self.answer(removed, Some(id));
                        continue;
                    }
                    match self.before_start(&message) {
                        None => return Some(*message),
                        Some(Some((error, id))) => self.answer(error, Some(id)),
                        Some(None) => {}
                    }
                }
                Parsed::Answer(error, id) => self.answer(error, id),
                Parsed::Skip => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        match self.write.lock().await.take() {
            Some(mut out) => out.shutdown().await,
            None => Ok(()),
        }
    }
}

/// The id of a `ping` sent under 2026-07-28 or later (the revision that
/// removed it), which rmcp would still answer `{}`.
fn removed_ping(message: &ClientJsonRpcMessage) -> Option<RequestId> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    if !matches!(request.request, ClientRequest::PingRequest(_)) {
        return None;
    }
    let version = request.request.get_meta().protocol_version()?;
    (version >= ProtocolVersion::V_2026_07_28).then(|| request.id.clone())
}

/// What one line holds.
#[derive(Debug)]
pub enum Parsed {
    /// A message for rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// Not a message: this error answers it, with this `id` (`null` when
    /// none can be read).
    Answer(ErrorData, Option<RequestId>),
    /// Nothing to pass on or answer: a blank line, or a notification rmcp
    /// does not know (JSON-RPC never answers notifications).
    Skip,
}

/// Reads one line (newline, carriage return and byte-order mark allowed).
pub fn parse(line: &[u8]) -> Parsed {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Skip;
    }
    let typed_error = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(message) => return Parsed::Message(Box::new(message)),
        Err(error) => error,
    };
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(error) => {
            return answer(
                ErrorData::parse_error(format!("Parse error: {}", one_line(&error)), None),
                None,
            );
        }
    };
    let id = value.get("id");
    if id.is_none() && value.get("method").is_some_and(Value::is_string) {
        tracing::debug!(error = %typed_error, "ignoring a notification that does not parse");
        return Parsed::Skip;
    }
    let id = id.and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    answer(
        ErrorData::invalid_request(format!("Invalid request: {}", why_invalid(&value)), None),
        id,
    )
}

fn answer(error: ErrorData, id: Option<RequestId>) -> Parsed {
    Parsed::Answer(error, id)
}

/// A JSON-RPC 2.0 error response; `"id": null` when the request's id could
/// not be read, as JSON-RPC 2.0 asks (rmcp's own type would leave it out).
pub fn error_line(error: ErrorData, id: Option<RequestId>) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
        .to_string()
        .into_bytes()
}

/// serde_json's message without its position (one line, no input quoted).
fn one_line(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// Why `value`, valid JSON, is not a JSON-RPC 2.0 message (rmcp's own
/// error only says that no message shape matched).
fn why_invalid(value: &Value) -> String {
    let Some(object) = value.as_object() else {
        return "a message must be a JSON object".to_owned();
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return "\"jsonrpc\" must be \"2.0\"".to_owned();
    }
    if let Some(id) = object.get("id")
        && !(id.is_string() || id.is_i64() || id.is_u64())
    {
        return "\"id\" must be a string or an integer".to_owned();
    }
    match object.get("method") {
        Some(Value::String(method)) => format!("bad \"params\" for {method}"),
        Some(_) => "\"method\" must be a string".to_owned(),
        None if object.contains_key("result") || object.contains_key("error") => {
            "not a valid response".to_owned()
        }
        None => "no \"method\"".to_owned(),
    }
}

/// The top-level `id` of a message of which only the first bytes are
/// known, when it comes before the cut.
fn id_in_prefix(prefix: &[u8]) -> Option<RequestId> {
    let mut id = None;
    let mut deserializer = serde_json::Deserializer::from_slice(prefix);
    // The cut makes the whole parse fail; `id` is kept when it came first.
    let _ = IdSeed(&mut id).deserialize(&mut deserializer);
    id
}

/// Reads an object's keys in order, keeping `id` in `self.0`.
struct IdSeed<'a>(&'a mut Option<RequestId>);

impl<'de> DeserializeSeed<'de> for IdSeed<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for IdSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "id" {
                *self.0 = map.next_value::<RequestId>().ok();
                return Ok(());
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
