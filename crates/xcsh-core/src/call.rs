//! Which call a push belongs to.
//!
//! A pending action must come from a call that is still running: a push
//! from a call that already returned (finished, timed out, cancelled) would
//! put an action on the stack whose preview the model never saw, and the
//! next `apply` would run it. Packs push through a session-wide host API
//! (the frozen ABI gives the push no call handle), so the host attributes a
//! push by the thread that makes it: the session marks the thread running
//! each call, and a push is accepted only on a marked thread whose call is
//! still in flight. Threads a tool spawns are not marked: a tool pushes
//! from its own thread, before it returns.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::pending::{PendingAction, PendingActionStore};

/// The exact error a push gets when no call of its thread is running.
pub const PUSH_OUTSIDE_CALL: &str = "Pending action refused: the tool call that pushed it is not running (push from the call's own thread, before it returns)";

/// The exact error a push from an `apply` or a `reject` gets: an action
/// belongs to the tool call that previewed it, and an apply or reject
/// previews nothing (its pushes would be judged by no call's policy).
pub const PUSH_FROM_RESOLVE: &str = "Pending action refused: an apply or a reject cannot push a pending action (only a tool call can, with its preview)";

thread_local! {
    static CURRENT: RefCell<Option<RunningCall>> = const { RefCell::new(None) };
}

/// Why a push was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PushRefused {
    /// No call of the pushing thread is running: see [`PUSH_OUTSIDE_CALL`].
    #[error("{}", PUSH_OUTSIDE_CALL)]
    NotRunning,
    /// The pushing thread runs an `apply` or a `reject`: see
    /// [`PUSH_FROM_RESOLVE`].
    #[error("{}", PUSH_FROM_RESOLVE)]
    FromApplyOrReject,
}

#[derive(Debug, Default)]
struct CallState {
    finished: bool,
    /// An apply or a reject: every push is refused.
    refuses_pushes: bool,
    pushed: Vec<u64>,
}

/// One call in flight: shared by the host and the thread that runs it.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunningCall(Arc<Mutex<CallState>>);

impl RunningCall {
    /// An apply or a reject: it may push nothing.
    pub(crate) fn refusing_pushes() -> Self {
        let call = Self::default();
        call.lock().refuses_pushes = true;
        call
    }

    fn lock(&self) -> MutexGuard<'_, CallState> {
        xcsh_tool_types::sync::lock(&self.0)
    }

    /// Marks this thread as running the call until the guard drops.
    pub(crate) fn enter(&self) -> Entered {
        let previous = CURRENT.with(|current| current.replace(Some(self.clone())));
        Entered { previous }
    }

    /// Ends the call: later pushes from its thread are refused. Returns the
    /// ids of the actions it pushed. A push in progress completes first.
    pub(crate) fn finish(&self) -> Vec<u64> {
        let mut state = self.lock();
        state.finished = true;
        std::mem::take(&mut state.pushed)
    }
}

/// Restores the thread's previous call (if any) when dropped.
pub(crate) struct Entered {
    previous: Option<RunningCall>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| current.replace(previous));
    }
}

/// Pushes `action` onto `store` on behalf of the call running on this
/// thread. The host side of every producer (packs' `push_pending_action`,
/// built-in tools) goes through here; [`PendingActionStore::push`] itself
/// is for code that owns the session.
///
/// # Errors
///
/// [`PushRefused::NotRunning`] when this thread runs no call, or its call
/// has returned; [`PushRefused::FromApplyOrReject`] when it runs an apply
/// or a reject.
pub fn push_for_running_call(
    store: &PendingActionStore,
    action: PendingAction,
) -> Result<u64, PushRefused> {
    let call = CURRENT.with(|current| current.borrow().clone());
    let Some(call) = call else {
        return Err(PushRefused::NotRunning);
    };
    // Held across the push, so a call that times out meanwhile either sees
    // this push in `finish` (and removes it) or refuses it.
    let mut state = call.lock();
    if state.finished {
        return Err(PushRefused::NotRunning);
    }
    if state.refuses_pushes {
        return Err(PushRefused::FromApplyOrReject);
    }
    let id = store.push(action);
    state.pushed.push(id);
    Ok(id)
}

/// Runs `work` on this thread as one call: pushes it makes through
/// [`push_for_running_call`] are accepted while it runs and refused once
/// it has returned. [`Session`](crate::session::Session) does this for every tool
/// call; hosts that run a tool outside a session's runner (the process
/// serving an isolated pack) use this.
pub fn run_as_call<T>(work: impl FnOnce() -> T) -> T {
    let call = RunningCall::default();
    let entered = call.enter();
    let value = work();
    call.finish();
    drop(entered);
    value
}

#[cfg(test)]
mod tests {
    use xcsh_tool_types::ToolOutput;

    use super::*;

    fn action(label: &str) -> PendingAction {
        PendingAction::try_new(label, |_| Ok(ToolOutput::default())).unwrap()
    }

    #[test]
    fn run_as_call_accepts_pushes_until_it_returns() {
        let store = PendingActionStore::new();
        let id = run_as_call(|| push_for_running_call(&store, action("in call")));
        assert!(id.is_ok());
        assert_eq!(
            push_for_running_call(&store, action("after")),
            Err(PushRefused::NotRunning)
        );
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn a_push_outside_any_call_is_refused() {
        let store = PendingActionStore::new();
        let err = push_for_running_call(&store, action("x")).unwrap_err();
        assert_eq!(err.to_string(), PUSH_OUTSIDE_CALL);
        assert!(store.is_empty());
    }

    #[test]
    fn a_push_is_accepted_only_while_the_call_runs_on_its_thread() {
        let store = Arc::new(PendingActionStore::new());
        let call = RunningCall::default();
        let entered = call.enter();
        push_for_running_call(&store, action("in call")).unwrap();
        let helper = {
            let store = Arc::clone(&store);
            std::thread::spawn(move || push_for_running_call(&store, action("helper")))
        };
        assert_eq!(helper.join().unwrap(), Err(PushRefused::NotRunning));
        assert_eq!(call.finish().len(), 1);
        assert_eq!(
            push_for_running_call(&store, action("late")),
            Err(PushRefused::NotRunning)
        );
        drop(entered);
        assert_eq!(
            push_for_running_call(&store, action("after")),
            Err(PushRefused::NotRunning)
        );
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn leaving_a_nested_call_restores_the_outer_one() {
        let store = PendingActionStore::new();
        let outer = RunningCall::default();
        let _outer = outer.enter();
        {
            let inner = RunningCall::default();
            let _inner = inner.enter();
            inner.finish();
            assert!(push_for_running_call(&store, action("inner")).is_err());
        }
        push_for_running_call(&store, action("outer")).unwrap();
    }
}
