//! What the pack's process does with each request: a call, an apply or a
//! reject becomes a job for the thread that read it (see `serve`), a
//! cancellation or a forget is done at once; every action the pack pushes
//! is forwarded to the agent before the reply of the call that pushed it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use xcsh_core::sync::lock;
use xcsh_core::{
    CancellationToken, PendingEntry, Session, Tool, ToolContext, ToolError, panic_message,
};
use xcsh_isolate_protocol::{Outcome, PushedAction, Reply, Request, convert};

use crate::writer::Writer;

/// Work that may take long: a call, an apply or a reject.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// The pack's tools, its pushed actions and the calls in flight.
pub(crate) struct Server {
    writer: Arc<Writer>,
    tools: HashMap<String, Arc<dyn Tool>>,
    cwd: PathBuf,
    actions: Arc<Mutex<HashMap<u64, PendingEntry>>>,
    cancels: Arc<Mutex<HashMap<u64, CancellationToken>>>,
    // Keeps the pack's store and the push forwarding alive.
    _session: Arc<Session>,
    _forwarding: xcsh_core::Subscription,
}

impl Server {
    pub(crate) fn new(
        writer: Arc<Writer>,
        session: Session,
        tools: Vec<Arc<dyn Tool>>,
        cwd: PathBuf,
    ) -> Self {
        let actions = Arc::new(Mutex::new(HashMap::new()));
        let session = Arc::new(session);
        let next = Arc::new(AtomicU64::new(1));
        let forward = {
            let (session, writer, actions, next) = (
                Arc::downgrade(&session),
                Arc::clone(&writer),
                Arc::clone(&actions),
                Arc::clone(&next),
            );
            move || {
                if let Some(session) = session.upgrade() {
                    forward_pushes(&session, &actions, &writer, &next);
                }
            }
        };
        let forwarding = session.store().subscribe({
            let forward = forward.clone();
            move |_| forward()
        });
        // Anything the factory pushed while the pack opened.
        forward();
        Self {
            writer,
            tools: tools
                .into_iter()
                .map(|tool| (tool.name().to_owned(), tool))
                .collect(),
            cwd,
            actions,
            cancels: Arc::new(Mutex::new(HashMap::new())),
            _session: session,
            _forwarding: forwarding,
        }
    }

    /// Handles a quick request at once; returns the work of a long one.
    pub(crate) fn handle(&self, request: Request) -> Option<Job> {
        match request {
            Request::Call {
                id,
                tool,
                call_id,
                arguments_json,
            } => self.call(id, tool, call_id, arguments_json),
            Request::Cancel { id } => {
                if let Some(token) = lock(&self.cancels).get(&id) {
                    token.cancel();
                }
                None
            }
            Request::Apply { id, action, reason } => {
                let entry = lock(&self.actions).get(&action).cloned();
                let writer = Arc::clone(&self.writer);
                Some(Box::new(move || {
                    let outcome = match entry {
                        Some(entry) => {
                            into_outcome(guarded(|| entry.action().apply(&reason)), |o| {
                                Outcome::Output(convert::output_to_wire(&o))
                            })
                        }
                        None => unknown_action(action),
                    };
                    writer.send(&Reply::Done { id, outcome });
                }))
            }
            Request::Reject { id, action, reason } => {
                let entry = lock(&self.actions).remove(&action);
                let writer = Arc::clone(&self.writer);
                Some(Box::new(move || {
                    let outcome = match entry {
                        Some(entry) => {
                            match guarded(|| entry.action().reject(&reason).unwrap_or(Ok(None))) {
                                Ok(Some(output)) => {
                                    Outcome::Output(convert::output_to_wire(&output))
                                }
                                Ok(None) => Outcome::Nothing,
                                Err(error) => convert::error_to_wire(&error),
                            }
                        }
                        None => unknown_action(action),
                    };
                    writer.send(&Reply::Done { id, outcome });
                }))
            }
            Request::Forget { action } => {
                lock(&self.actions).remove(&action);
                None
            }
            Request::Open(_) => {
                tracing::warn!("ignored a second request to open a pack");
                None
            }
        }
    }

    fn call(&self, id: u64, tool: String, call_id: String, arguments_json: String) -> Option<Job> {
        let Some(tool) = self.tools.get(&tool).cloned() else {
            let message = format!("Unknown tool: {tool}");
            self.writer.send(&Reply::Done {
                id,
                outcome: Outcome::Error {
                    message,
                    details_json: None,
                },
            });
            return None;
        };
        let token = CancellationToken::new();
        lock(&self.cancels).insert(id, token.clone());
        let (progress_writer, log_writer) = (Arc::clone(&self.writer), Arc::clone(&self.writer));
        let context = ToolContext::new(call_id, self.cwd.clone())
            .with_cancellation(token)
            .with_progress(Arc::new(move |partial| {
                progress_writer.send(&Reply::Progress {
                    id,
                    output: convert::output_to_wire(partial),
                });
            }))
            // The pack's own lines during this call (see `xcsh_loader`'s
            // attribution); the agent names the pack itself.
            .with_log(Arc::new(move |level, _pack, message| {
                log_writer.send(&Reply::Log {
                    id,
                    level: convert::log_level_to_wire(level),
                    message: message.to_owned(),
                });
            }));
        let (writer, cancels) = (Arc::clone(&self.writer), Arc::clone(&self.cancels));
        Some(Box::new(move || {
            let result = serde_json::from_str::<Value>(&arguments_json)
                .map_err(|e| ToolError::new(format!("arguments are not JSON: {e}")))
                // A call of its own, as the agent's session runs it: the
                // pack's pushes count only until it returns.
                .and_then(|arguments| {
                    let _request = RequestOnThread::enter(id);
                    xcsh_core::run_as_call(|| guarded(|| tool.execute(arguments, &context)))
                });
            lock(&cancels).remove(&id);
            let outcome = into_outcome(result, |o| Outcome::Output(convert::output_to_wire(&o)));
            writer.send(&Reply::Done { id, outcome });
        }))
    }
}

thread_local! {
    /// The request whose call runs on this thread: pushes forwarded from
    /// it name that call, so the agent can attribute them.
    static CURRENT_REQUEST: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Marks this thread as running request `id` until dropped.
struct RequestOnThread(Option<u64>);

impl RequestOnThread {
    fn enter(id: u64) -> Self {
        Self(CURRENT_REQUEST.replace(Some(id)))
    }
}

impl Drop for RequestOnThread {
    fn drop(&mut self) {
        CURRENT_REQUEST.set(self.0);
    }
}

/// Forwards every action on the pack's store to the agent, oldest first.
///
/// Runs in the pushing thread, after the push. The actions lock is held
/// while the stack is drained and sent: whichever listener drains a push,
/// it is on the pipe before the push returns, so before the reply of the
/// call that made it.
fn forward_pushes(
    session: &Session,
    actions: &Mutex<HashMap<u64, PendingEntry>>,
    writer: &Writer,
    next: &AtomicU64,
) {
    let mut actions = lock(actions);
    // The agent's session reminds its model; this one has no model.
    session.take_messages();
    for entry in session.store().clear().into_iter().rev() {
        let action = next.fetch_add(1, Ordering::Relaxed);
        let pushed = entry.action();
        writer.send(&Reply::Pushed(PushedAction {
            action,
            call: CURRENT_REQUEST.get(),
            label: pushed.label().to_owned(),
            source_tool_name: pushed.source_tool_name().to_owned(),
            details_json: pushed.details().map(Value::to_string),
            has_reject: pushed.has_reject(),
        }));
        actions.insert(action, entry);
    }
}

/// Runs host-side code that should not panic; if it does, an error.
fn guarded<T>(work: impl FnOnce() -> Result<T, ToolError>) -> Result<T, ToolError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|payload| {
        Err(ToolError::new(format!(
            "pack host panicked: {}",
            panic_message(&*payload)
        )))
    })
}

fn into_outcome<T>(result: Result<T, ToolError>, ok: impl FnOnce(T) -> Outcome) -> Outcome {
    match result {
        Ok(value) => ok(value),
        Err(error) => convert::error_to_wire(&error),
    }
}

fn unknown_action(action: u64) -> Outcome {
    Outcome::Error {
        message: format!("the pack's process has no pending action {action}"),
        details_json: None,
    }
}
