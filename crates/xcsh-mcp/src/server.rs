//! The MCP server of one connection: its session's tools, one call at a
//! time, and the list-changed notifications.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value};
use tokio::sync::watch;
use xcsh_core::{CancellationToken, RESOLVE_TOOL_NAME, Subscription, ToolCall, ToolContext};

use super::convert;
use super::elicit::{ElicitingApprover, ModernCall};
use super::listing::ResolveListing;
use super::logging::{ClientLogLevel, Logs};
use super::notify::ListChanged;
use super::progress::Progress;
use super::stdio::input_closed;
use super::timed_call;
use xcsh_agent::Agent;

/// Serves one session's tools to one MCP client.
#[derive(Clone, Debug)]
pub struct XcshServer {
    agent: Arc<Agent>,
    /// One call at a time, in arrival order, so each result carries the
    /// reminders its own call queued; shutdown takes it to wait for calls.
    calls: Arc<tokio::sync::Mutex<()>>,
    list_changed: Arc<ListChanged>,
    next_call: Arc<AtomicU64>,
    /// The level the client asked for with `logging/setLevel`.
    log_level: Arc<ClientLogLevel>,
    /// Flips when the client closes its end; ends listen streams.
    input_closed: Option<watch::Receiver<bool>>,
    /// Asks the client's user under the `ask` policy; learns the peer
    /// from each call.
    approver: Option<Arc<ElicitingApprover>>,
    /// Kept alive as long as the server (an HTTP session's end, see
    /// `super::sessions`).
    held: Option<Arc<dyn std::any::Any + Send + Sync>>,
    /// When `resolve` is listed.
    listing: ResolveListing,
    /// Where the HTTP session's id goes once a request names it.
    session_id: Option<Arc<OnceLock<String>>>,
}

impl XcshServer {
    /// A server over `agent`'s session.
    pub fn new(agent: Arc<Agent>) -> Self {
        let store = Arc::clone(agent.session.store());
        Self {
            agent,
            calls: Arc::new(tokio::sync::Mutex::new(())),
            list_changed: Arc::new(ListChanged::new(store, ResolveListing::default())),
            next_call: Arc::new(AtomicU64::new(1)),
            log_level: Arc::default(),
            input_closed: None,
            approver: None,
            held: None,
            listing: ResolveListing::default(),
            session_id: None,
        }
    }

    /// Lists `resolve` as `listing` says (the default:
    /// [`ResolveListing::Always`]).
    pub fn listing_resolve(mut self, listing: ResolveListing) -> Self {
        let store = Arc::clone(self.agent.session.store());
        self.list_changed = Arc::new(ListChanged::new(store, listing));
        self.listing = listing;
        self
    }

    /// Writes the MCP session's id (`Mcp-Session-Id`) into `cell` at the
    /// first request that carries it (see `super::sessions`).
    pub fn knowing_session_id(mut self, cell: Arc<OnceLock<String>>) -> Self {
        self.session_id = Some(cell);
        self
    }

    /// Notes the session id the request of `context` carries.
    fn note_session_id(&self, context: &RequestContext<RoleServer>) {
        let Some(cell) = &self.session_id else {
            return;
        };
        if cell.get().is_some() {
            return;
        }
        let id = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.headers.get("mcp-session-id"))
            .and_then(|value| value.to_str().ok());
        if let Some(id) = id {
            let _ = cell.set(id.to_owned());
        }
    }

    /// Keeps `held` alive while any clone of this server is.
    pub fn holding(mut self, held: Arc<dyn std::any::Any + Send + Sync>) -> Self {
        self.held = Some(held);
        self
    }

    /// Lets `approver` ask this connection's client.
    pub fn asking_through(mut self, approver: Arc<ElicitingApprover>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Ends `subscriptions/listen` streams once `input_closed` flips (see
    /// [`super::stdio::WatchEof`]).
    pub fn ending_with(mut self, input_closed: watch::Receiver<bool>) -> Self {
        self.input_closed = Some(input_closed);
        self
    }

    /// The session's agent.
    pub fn agent(&self) -> &Arc<Agent> {
        &self.agent
    }

    /// Waits for the call in progress, if any, then holds off new ones.
    pub async fn stop_calls(&self) -> tokio::sync::OwnedMutexGuard<()> {
        Arc::clone(&self.calls).lock_owned().await
    }

    /// Sends list-changed notifications for pushes made outside a call's
    /// own bookkeeping (e.g. a pack thread pushing after its call returned)
    /// until the returned watcher drops. Must run inside the runtime.
    pub fn watch_pushes(&self) -> PushWatcher {
        let wake = Arc::new(tokio::sync::Notify::new());
        let listener_wake = Arc::clone(&wake);
        let subscription = self
            .agent
            .session
            .store()
            .subscribe(move |_| listener_wake.notify_one());
        let list_changed = Arc::clone(&self.list_changed);
        let task = tokio::spawn(async move {
            loop {
                wake.notified().await;
                list_changed.sync().await;
            }
        });
        PushWatcher {
            _subscription: subscription,
            task,
        }
    }
}

/// Keeps [`XcshServer::watch_pushes`] running; stops it when dropped.
#[derive(Debug)]
pub struct PushWatcher {
    _subscription: Subscription,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PushWatcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ServerHandler for XcshServer {
    // `enable_logging`: see `set_level`.
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_logging()
                .build(),
        )
        .with_server_info(
            Implementation::new("xcsh", env!("CARGO_PKG_VERSION")).with_title("xcsh tool packs"),
        )
        .with_instructions(self.listing.instructions())
    }

    // rmcp marks MCP logging deprecated (SEP-2577); the 2025 revisions
    // clients speak still define it.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(request.level);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.list_changed.set_peer(&context.peer);
        self.note_session_id(&context);
        let session = &self.agent.session;
        let tools = match self.listing {
            ResolveListing::Always => session
                .tools()
                .into_iter()
                .filter(|tool| tool.offered() || tool.name() == RESOLVE_TOOL_NAME)
                .collect(),
            ResolveListing::WhilePending => session.offered_tools(),
        };
        let tools = tools
            .iter()
            .map(|tool| convert::tool(tool.as_ref()))
            .collect();
        let result = ListToolsResult::with_all_items(tools);
        Ok(match self.listing {
            ResolveListing::Always => result,
            // The list changes with the pending stack: never cache it.
            ResolveListing::WhilePending => result.with_ttl_ms(0),
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.list_changed.set_peer(&context.peer);
        self.note_session_id(&context);
        if let Some(approver) = &self.approver {
            approver.set_peer(&context.peer);
        }
        // A 2026-07-28 client is asked through an input-required result,
        // and answers by retrying the call.
        let modern = self
            .approver
            .clone()
            .filter(|_| asked_through_input_required(&context.peer));
        let retry = request.request_state.is_some() || request.input_responses.is_some();
        let can_ask = context
            .client_capabilities()
            .and_then(|capabilities| capabilities.elicitation)
            .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none());
        let arguments = request
            .arguments
            .map_or_else(|| Value::Object(Map::new()), Value::Object);
        let id = format!("mcp-{}", self.next_call.fetch_add(1, Ordering::Relaxed));
        let call = ToolCall::new(id, request.name.into_owned(), arguments);

        let cancellation = CancellationToken::new();
        let cancel_on_request = {
            let (token, request_cancelled) = (cancellation.clone(), context.ct.clone());
            tokio::spawn(async move {
                request_cancelled.cancelled().await;
                token.cancel();
            })
        };
        // A pack's progress, as notifications, when the client asked.
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| Progress::start(context.peer.clone(), token));
        // A pack's log lines, as notifications, once the client set a level.
        let logs = self
            .log_level
            .get()
            .map(|least| Logs::start(context.peer.clone(), least));
        let one_at_a_time = self.stop_calls().await;
        if let Some(approver) = &self.approver {
            approver.begin_call(context.ct.clone());
        }
        if let Some(approver) = &modern {
            let answer = if retry {
                let newest = self.agent.session.store().peek().map(|entry| entry.id());
                let redeemed = if call.name == RESOLVE_TOOL_NAME {
                    approver
                        .redeem(
                            request.request_state.as_deref(),
                            request.input_responses.as_ref(),
                            newest,
                        )
                        // The answer is about an apply: a retry asking for
                        // anything else is not the call that was asked about.
                        .and_then(|answer| {
                            if call.arguments.get("action").and_then(Value::as_str) == Some("apply")
                            {
                                Ok(answer)
                            } else {
                                Err(super::elicit::STATE_OTHER_CALL)
                            }
                        })
                } else {
                    Err(super::elicit::STATE_UNKNOWN)
                };
                match redeemed {
                    Ok(answer) => Some(answer),
                    Err(refused) => {
                        cancel_on_request.abort();
                        tracing::warn!(tool = %call.name, "{refused}");
                        return Ok(CallToolResult::error(vec![ContentBlock::text(refused)]).into());
                    }
                }
            } else {
                None
            };
            approver.begin_modern_call(ModernCall { can_ask, answer });
        }
        let (report, progress) = progress.unzip();
        let (log, logs) = logs.unzip();
        let session = &self.agent.session;
        tracing::debug!(tool = %call.name, id = %call.id, "calling tool");
        let mut context = ToolContext::new(call.id.clone(), session.cwd().to_path_buf())
            .with_cancellation(cancellation);
        if let Some(report) = report {
            context = context.with_progress(report);
        }
        if let Some(log) = log {
            context = context.with_log(log);
        }
        // On a blocking thread, its time limit kept here: a call past it is
        // answered at the limit, and the next call need not wait for it.
        let outcome = timed_call::run(session, call, context).await;
        // Inside the one-call-at-a-time section, like its beginning.
        let input_required = modern.and_then(|approver| approver.end_modern_call());
        let queued = session.take_messages();
        drop(one_at_a_time);
        cancel_on_request.abort();
        if let Some(progress) = progress {
            progress.flush().await;
        }
        if let Some(logs) = logs {
            logs.flush().await;
        }
        let result = outcome.map_err(|error| {
            ErrorData::internal_error(format!("the tool call task failed: {error}"), None)
        })?;
        if let Some(approver) = &self.approver {
            let store = self.agent.session.store();
            approver.forget_states_unless(|entry| store.get(entry).is_some());
        }
        if let Some(input_required) = input_required {
            // The action stays pending until the retry brings the answer.
            return Ok(input_required.into());
        }
        // Before the response, so a client sees the new list by the time
        // the call returns.
        self.list_changed.sync().await;
        Ok(convert::result(result, &queued).into())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let key = self.list_changed.add_stream(context.sink().clone());
        match self.input_closed.clone() {
            Some(closed) => {
                tokio::select! {
                    () = context.cancelled() => {}
                    () = input_closed(closed) => {}
                }
            }
            None => context.cancelled().await,
        }
        self.list_changed.remove_stream(key);
        Ok(())
    }
}

/// Whether the client of a request speaks 2026-07-28 or later, whose
/// questions go out as input-required results: over standard input and
/// output it never sent `initialize` (no peer info); over HTTP rmcp gives
/// each sessionless request peer info naming the revision in its
/// `MCP-Protocol-Version`.
fn asked_through_input_required(peer: &rmcp::service::Peer<RoleServer>) -> bool {
    peer.peer_info()
        .is_none_or(|info| info.protocol_version >= rmcp::model::ProtocolVersion::V_2026_07_28)
}
