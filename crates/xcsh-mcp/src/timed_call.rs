//! A tool call on a blocking thread whose time limit one timer thread
//! keeps.
//!
//! The call runs on one of tokio's blocking threads, as every call does;
//! with a time limit, the process's [`CallTimer`] watches it and, when the
//! limit passes, answers with the timeout at once while the stuck thread is
//! left to end on its own (see [`xcsh_core::watched_call`]). Under
//! `Session::execute` the limit cost a second thread hand-off per call, to
//! a worker of the session's runner; a tokio timer per call woke the
//! runtime's timer driver on every call (BENCHMARKS-history.md §10a).

use std::sync::{Arc, LazyLock};

use tokio::sync::oneshot;
use xcsh_core::{CallTimer, Session, ToolCall, ToolContext, ToolResult, watched_call};

/// The timer of every MCP session in this process.
static TIMER: LazyLock<CallTimer> = LazyLock::new(CallTimer::new);

/// Runs `call` in `context` in `session` on a blocking thread, under the
/// session's time limit: its result, or at the limit its timeout.
///
/// # Errors
///
/// The blocking task ended without answering (the runtime is shutting
/// down).
pub async fn run(
    session: &Arc<Session>,
    call: ToolCall,
    context: ToolContext,
) -> Result<ToolResult, oneshot::error::RecvError> {
    let (run, watch) = watched_call(session, call, context);
    let (answer, answered) = oneshot::channel();
    tokio::task::spawn_blocking(move || {
        TIMER.run(run, watch, move |result| {
            // The request may have gone (the client left): nothing to do.
            let _ = answer.send(result);
        });
    });
    answered.await
}
