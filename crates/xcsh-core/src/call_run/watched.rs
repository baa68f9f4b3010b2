//! A call whose time limit is kept by someone other than the thread that
//! runs it.
//!
//! [`Session::execute`] keeps the limit itself: it hands a limited call to
//! a worker and waits, a second thread hand-off on top of whatever brought
//! the call to it. A front end that already runs each call on a thread of
//! its own and waits for it elsewhere (the MCP server: a blocking task,
//! awaited by an async one) can keep the limit where it waits instead:
//! [`watched_call`] splits a call into the [`WatchedRun`], which runs the
//! call on the thread that takes it, and the [`CallWatch`], which the
//! waiting side [expires](CallWatch::expire) when the limit passes. An
//! expired call ends exactly as under `execute`: its pushes are taken back,
//! its cancellation flag is set, later pushes from its thread are refused,
//! and its result is `Tool {name} timed out after {limit}`; the stuck
//! thread's late result is dropped.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use xcsh_tool_types::sync::lock;

use crate::call::RunningCall;
use crate::call_run::prepared::{LimitedBy, PreparedCall, finish, time_out};
use crate::call_run::runner::Failure;
use crate::cancel::CancellationToken;
use crate::output::ToolResult;
use crate::panic::catch;
use crate::session::Session;
use crate::tool::ToolCall;
use crate::tool::ToolContext;

/// Where a watched call is.
#[derive(Debug)]
enum State {
    /// Not running tool code yet (the call is being looked up and checked).
    Waiting,
    /// Running under the watch: what an expiry takes back.
    Running(RunningCall),
    /// Running without the watch: `resolve` (which keeps the limit on its
    /// apply itself), a tool that keeps its own, or a call refused before
    /// it ran.
    Unwatched,
    /// Ended by the run.
    Done,
    /// Ended by the watch.
    Expired,
}

/// What the run and the watch of one call share.
#[derive(Debug)]
struct Shared {
    session: Arc<Session>,
    name: String,
    cancellation: CancellationToken,
    state: Mutex<State>,
}

/// The side of a [`watched_call`] that runs it.
#[derive(Debug)]
#[must_use = "a watched call runs only when its run is called"]
pub struct WatchedRun {
    shared: Arc<Shared>,
    call: ToolCall,
    context: ToolContext,
}

/// The side of a [`watched_call`] that keeps its time limit.
#[derive(Debug)]
pub struct CallWatch {
    shared: Arc<Shared>,
}

/// Splits `call` (in `context`) into its run and its watch.
///
/// Give the [`WatchedRun`] to the thread that is to run the call, and wait
/// for it; if [`CallWatch::limit`] is some and passes first, call
/// [`CallWatch::expire`]: its result, if it gives one, is the call's, and
/// the run's will be `None`.
///
/// ```
/// use std::sync::Arc;
/// use serde_json::json;
/// use xcsh_core::{Session, ToolCall, ToolContext, watched_call};
///
/// let session = Arc::new(Session::new(std::env::temp_dir()));
/// let call = ToolCall::new("1", "resolve", json!({"action": "apply", "reason": "ok"}));
/// let context = ToolContext::new("1", session.cwd().to_path_buf());
/// let (run, watch) = watched_call(&session, call, context);
/// let running = std::thread::spawn(move || run.run());
/// let result = running.join().unwrap().expect("not expired");
/// assert_eq!(result.text(), "No pending action to resolve. Nothing to apply or discard.");
/// // Once the run has ended, the watch has nothing to expire.
/// assert!(watch.expire().is_none());
/// ```
pub fn watched_call(
    session: &Arc<Session>,
    call: ToolCall,
    context: ToolContext,
) -> (WatchedRun, CallWatch) {
    let shared = Arc::new(Shared {
        session: Arc::clone(session),
        name: call.name.clone(),
        cancellation: context.cancellation().clone(),
        state: Mutex::new(State::Waiting),
    });
    let watch = CallWatch {
        shared: Arc::clone(&shared),
    };
    (
        WatchedRun {
            shared,
            call,
            context,
        },
        watch,
    )
}

impl WatchedRun {
    /// Runs the call on this thread: its result, or `None` if the watch
    /// expired it (the watch gave the result).
    pub fn run(self) -> Option<ToolResult> {
        let Self {
            shared,
            call,
            context,
        } = self;
        let session: &Session = &shared.session;
        let prepared = match PreparedCall::new(session, call, context) {
            Ok(prepared) => prepared,
            Err(refused) => return shared.end_unwatched(|| refused),
        };
        if prepared.limited_by != LimitedBy::Session || session.limits().time.is_none() {
            return shared.end_unwatched(|| prepared.run_here(session));
        }
        let running = RunningCall::default();
        let entered = running.enter();
        {
            let mut state = lock(&shared.state);
            if matches!(*state, State::Expired) {
                return None;
            }
            *state = State::Running(running.clone());
        }
        let outcome = catch(|| prepared.tool.execute(prepared.arguments, &prepared.context))
            .map_err(Failure::Panicked);
        {
            let mut state = lock(&shared.state);
            if matches!(*state, State::Expired) {
                // The watch took back what the call pushed and answered.
                return None;
            }
            *state = State::Done;
        }
        let pushed = running.finish();
        drop(entered);
        Some(finish(
            session,
            &prepared.name,
            prepared.context.cancellation(),
            outcome,
            &pushed,
        ))
    }
}

impl Shared {
    /// Runs `run` with the watch told to keep away; `None` if it had
    /// already expired the call.
    fn end_unwatched(&self, run: impl FnOnce() -> ToolResult) -> Option<ToolResult> {
        {
            let mut state = lock(&self.state);
            if matches!(*state, State::Expired) {
                return None;
            }
            *state = State::Unwatched;
        }
        let result = run();
        *lock(&self.state) = State::Done;
        Some(result)
    }
}

impl CallWatch {
    /// How long the waiting side waits before [`expire`](Self::expire):
    /// the session's time limit, or `None` for no limit.
    #[must_use]
    pub fn limit(&self) -> Option<Duration> {
        self.shared.session.limits().time
    }

    /// Ends the call as timed out, if the run has not ended it and runs it
    /// under the watch: takes back what it pushed, sets its cancellation
    /// flag and gives `Tool {name} timed out after {limit}`. `None` when
    /// the run ended first or runs unwatched: wait for the run's result.
    pub fn expire(&self) -> Option<ToolResult> {
        let limit = self.limit()?;
        let running = {
            let mut state = lock(&self.shared.state);
            match std::mem::replace(&mut *state, State::Expired) {
                State::Running(running) => Some(running),
                State::Waiting => None,
                kept @ (State::Unwatched | State::Done | State::Expired) => {
                    *state = kept;
                    return None;
                }
            }
        };
        Some(time_out(
            &*self.shared.session,
            &self.shared.name,
            &self.shared.cancellation,
            running.as_ref(),
            limit,
        ))
    }
}

#[cfg(test)]
mod tests;
