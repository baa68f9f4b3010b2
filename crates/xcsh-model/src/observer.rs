//! Who the loop reports to as it goes.

use crate::Event;

/// What a model loop reports its [`Event`]s to: a front end's printer, a
/// test's record.
///
/// The loop runs on the session's own thread (see [`xcsh_core::drive`])
/// and moves to a fresh one when a tool call passes the time limit, so
/// the observer goes with it: it is `Send`, owns what it holds, and
/// [`ModelLoop::run`](crate::ModelLoop::run) gives it back at the end.
/// Every closure `FnMut(Event) + Send + 'static` is one.
pub trait Observer: Send + 'static {
    /// One thing the loop did, in order.
    fn observe(&mut self, event: Event<'_>);
}

impl<F: FnMut(Event<'_>) + Send + 'static> Observer for F {
    fn observe(&mut self, event: Event<'_>) {
        self(event);
    }
}
