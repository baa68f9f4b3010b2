//! `xcsh mcp`: the session's tools served to any Model Context Protocol
//! client over standard input and output (one connection, one session).
//!
//! - `tools/list` lists the offered tools with their JSON schemas, labels
//!   as titles and hints as annotations, and `resolve` always
//!   ([`listing::ResolveListing::Always`], for clients that keep their
//!   first list) or only while something is pending, with
//!   `notifications/tools/list_changed` whenever that changes
//!   ([`listing::ResolveListing::WhilePending`]).
//! - `tools/call` runs the tool in the session, one call at a time. A call
//!   that pushed a pending action ends with the preview reminder
//!   ([`xcsh_core::PREVIEW_REMINDER`]) as its last text block. Tool errors
//!   (unknown tool, invalid arguments, failures) are results with
//!   `isError`; malformed requests are JSON-RPC errors.
//! - An `apply` under the `ask` policy is put to the client's user through
//!   elicitation ([`elicit`]): a form request to a 2025-11-25 client, an
//!   input-required result (answered by retrying the call) to a 2026-07-28
//!   client; a client that cannot ask gets an error result and the action
//!   stays pending.
//! - When the client goes away with actions pending, the session ends as
//!   under every front end ([`xcsh_core::Session::end`]): each action is
//!   discarded through its reject code and logged; nothing is applied
//!   without `resolve`. The end is prompt: a question outstanding is
//!   cancelled at once ([`elicit::ElicitingApprover::close`]) when input
//!   closes or a signal stops the server, so the session-end discard is
//!   journaled before a client's close sequence would kill the process.
//!
//! Every line gets an answer ([`transport`]): an over-large or malformed
//! message a JSON-RPC error (`-32600`, `-32700`), a request before
//! `initialize` [`transport::NOT_INITIALIZED`].
//!
//! The protocol is `rmcp`'s: every revision it knows, 2024-11-05 through
//! 2026-07-28; clients that open with `initialize` get 2025-11-25 or the
//! revision they ask for.
//!
//! It serves an [`xcsh_agent::Agent`]'s session and depends on no other
//! front end; only the `xcsh` binary depends on it.
#![forbid(unsafe_code)]

pub mod auth;
pub mod convert;
pub mod elicit;
pub mod http;
pub mod listing;
pub mod logging;
pub mod notify;
pub mod orphans;
pub mod progress;
pub mod request_states;
pub mod server;
pub mod sessions;
pub mod stdio;
pub mod timed_call;
pub mod transport;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use rmcp::ServiceExt as _;

use listing::ResolveListing;
use server::XcshServer;
use xcsh_agent::Agent;

/// Serves `agent`'s session over standard input and output until the
/// client disconnects, then discards whatever is still pending; lists
/// `resolve` as `listing` says.
///
/// # Errors
///
/// The async runtime cannot start.
pub fn serve(agent: Agent, listing: ResolveListing) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let approver = Arc::new(elicit::ElicitingApprover::new(runtime.handle().clone()));
    agent
        .session
        .set_approver(Arc::clone(&approver) as Arc<dyn xcsh_core::Approver>);
    let server = XcshServer::new(Arc::new(agent))
        .listing_resolve(listing)
        .asking_through(Arc::clone(&approver));
    runtime.block_on(serve_stdio(server, &approver));
    // The read of standard input runs on a blocking thread that only
    // returns with the next line; after a signal it must not hold the
    // exit back.
    runtime.shutdown_timeout(SHUTDOWN_WAIT);
    Ok(())
}

/// How long the runtime may take to stop once the session has ended.
const SHUTDOWN_WAIT: Duration = Duration::from_millis(100);

/// How long the call a cancelled question cut short may take to send its
/// answer after a signal, before the connection is closed.
const CUT_SHORT_WAIT: Duration = Duration::from_millis(500);

/// Serves one connection on standard input and output, then ends the session.
async fn serve_stdio(server: XcshServer, approver: &elicit::ElicitingApprover) {
    let tools = server.agent().session.offered_tools().len();
    tracing::info!("serving {tools} tools over MCP on standard input and output");
    let watcher = server.watch_pushes();
    let (input, output) = rmcp::transport::stdio_pipes();
    let (input, closed) = stdio::WatchEof::new(input);
    let server = server.ending_with(closed.clone());
    let serving = serve_until_closed(server.clone(), input, output);
    tokio::pin!(serving);
    let input_ended = async {
        stdio::input_closed(closed).await;
        // rmcp goes on answering the requests in flight; the one asking a
        // person would never be answered.
        approver.close();
        std::future::pending::<()>().await;
    };
    tokio::select! {
        () = &mut serving => {}
        // Never finishes: it only closes the approver.
        () = input_ended => {}
        () = terminated() => {
            tracing::info!("stopped by a signal");
            approver.close();
            // The call the question held answers before the connection goes.
            let _ = tokio::time::timeout(CUT_SHORT_WAIT, server.stop_calls()).await;
        }
    }
    drop(watcher);
    end_session(&server).await;
}

/// Runs the protocol until the client disconnects.
async fn serve_until_closed(
    server: XcshServer,
    input: stdio::WatchEof<rmcp::transport::StdioReader>,
    output: rmcp::transport::StdioWriter,
) {
    match server
        .serve(transport::LineTransport::new(input, output))
        .await
    {
        Ok(running) => match running.waiting().await {
            Ok(reason) => tracing::info!(?reason, "MCP client disconnected"),
            Err(error) => tracing::error!(%error, "the MCP service task failed"),
        },
        Err(error) => tracing::info!(%error, "the MCP client left before the session began"),
    }
}

/// Resolves on Ctrl-C, or on SIGTERM where there is one: a client that
/// stops its server that way still gets every pending action discarded.
async fn terminated() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut terminate) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Waits for the call in progress, then discards what is still pending.
async fn end_session(server: &XcshServer) {
    let _no_more_calls = server.stop_calls().await;
    let agent = Arc::clone(server.agent());
    let ended = tokio::task::spawn_blocking(move || agent.session.end()).await;
    if let Err(error) = ended {
        tracing::error!(%error, "discarding pending actions failed");
    }
}
