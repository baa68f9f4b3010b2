//! One thread that keeps the time limits of watched calls.
//!
//! A front end that runs each call on a thread of its own (the MCP server,
//! on tokio's blocking threads) hands [`CallTimer::run`] the two sides of a
//! [`watched_call`](super::watched_call): the call runs on the calling
//! thread, and the timer's thread expires it if its limit passes first.
//! Either way the front end's `answer` gets the call's result exactly once,
//! at the latest at the limit.
//!
//! Arming and disarming a call each take one uncontended mutex and make no
//! system call: the timer's thread sleeps until the earliest deadline it
//! knows of (or an idle period as long as the last limit), and is woken
//! early only for a deadline before that. With one time limit for every
//! call, a new deadline is always later, so calls one after another never
//! wake it. (A tokio timer per call was measured first: registering one
//! woke the runtime's timer driver on every call, 4× the call's cost on a
//! loaded machine; BENCHMARKS-history.md §10a.)

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use xcsh_tool_types::sync::lock;

use crate::call_run::watched::{CallWatch, WatchedRun};
use crate::output::ToolResult;

/// Where a call's result goes, taken by whichever side answers.
type Answer = Arc<Mutex<Option<Box<dyn FnOnce(ToolResult) + Send>>>>;

/// A call the timer watches.
struct Armed {
    ticket: u64,
    deadline: Instant,
    watch: CallWatch,
    answer: Answer,
}

#[derive(Default)]
struct State {
    /// Earliest deadline first.
    armed: VecDeque<Armed>,
    tickets: u64,
    /// How long the thread sleeps with nothing armed: the last limit.
    idle: Duration,
    /// When the thread wakes, while it sleeps.
    wakes_at: Option<Instant>,
    stopped: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    /// Whether the thread started (`false`: it could not).
    thread: OnceLock<bool>,
}

/// Keeps the time limits of watched calls on one thread of its own,
/// started at the first limited call and stopped when the timer drops.
#[derive(Default)]
pub struct CallTimer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for CallTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let armed = lock(&self.shared.state).armed.len();
        f.debug_struct("CallTimer").field("armed", &armed).finish()
    }
}

impl CallTimer {
    /// A timer whose thread has not started yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs the call on this thread; `answer` gets its result, or, if its
    /// time limit passes first, the timeout result [`CallWatch::expire`]
    /// gives, from the timer's thread at the limit (the call is then left
    /// to end on its own). `answer` runs exactly once.
    ///
    /// Without a limit, or if the timer's thread cannot start (a warning
    /// is logged), the call runs unwatched.
    pub fn run(
        &self,
        run: WatchedRun,
        watch: CallWatch,
        answer: impl FnOnce(ToolResult) + Send + 'static,
    ) {
        let Some(limit) = watch.limit().filter(|_| self.started()) else {
            if let Some(result) = run.run() {
                answer(result);
            }
            return;
        };
        let answer: Answer = Arc::new(Mutex::new(Some(Box::new(answer))));
        let ticket = self.arm(Instant::now() + limit, limit, watch, Arc::clone(&answer));
        let ran = run.run();
        self.disarm(ticket);
        if let Some(result) = ran {
            // The timer takes the answer only when it expired the call,
            // and then the run gives `None`: a timer that took the entry
            // just after the run ended found nothing to expire.
            let answer = lock(&answer).take();
            if let Some(answer) = answer {
                answer(result);
            }
        }
    }

    /// Starts the thread if it has not started; whether it runs.
    fn started(&self) -> bool {
        *self.shared.thread.get_or_init(|| {
            let shared = Arc::clone(&self.shared);
            let spawned = std::thread::Builder::new()
                .name("xcsh-call-timer".to_owned())
                .spawn(move || watch_calls(&shared));
            match spawned {
                Ok(_) => true,
                Err(error) => {
                    tracing::warn!(
                        "cannot start the call timer ({error}); calls run without their time limit"
                    );
                    false
                }
            }
        })
    }

    fn arm(&self, deadline: Instant, limit: Duration, watch: CallWatch, answer: Answer) -> u64 {
        let mut state = lock(&self.shared.state);
        state.tickets += 1;
        let ticket = state.tickets;
        state.idle = limit;
        let armed = Armed {
            ticket,
            deadline,
            watch,
            answer,
        };
        // Deadlines come in order when every call has the same limit.
        let at = state
            .armed
            .iter()
            .rposition(|earlier| earlier.deadline <= deadline)
            .map_or(0, |index| index + 1);
        state.armed.insert(at, armed);
        if state.wakes_at.is_some_and(|wakes_at| deadline < wakes_at) {
            self.shared.wake.notify_one();
        }
        ticket
    }

    fn disarm(&self, ticket: u64) {
        let mut state = lock(&self.shared.state);
        if let Some(index) = state.armed.iter().rposition(|armed| armed.ticket == ticket) {
            state.armed.remove(index);
        }
    }
}

impl Drop for CallTimer {
    fn drop(&mut self) {
        lock(&self.shared.state).stopped = true;
        self.shared.wake.notify_one();
    }
}

/// The timer's thread: expires each call whose deadline passed.
fn watch_calls(shared: &Shared) {
    let mut state = lock(&shared.state);
    loop {
        if state.stopped {
            return;
        }
        let now = Instant::now();
        let wakes_at = match state.armed.front() {
            Some(first) if first.deadline <= now => {
                let due = state.armed.pop_front().expect("matched as armed");
                drop(state);
                expire(due);
                state = lock(&shared.state);
                continue;
            }
            Some(first) => first.deadline,
            None => now + state.idle.max(Duration::from_millis(1)),
        };
        state.wakes_at = Some(wakes_at);
        state = shared
            .wake
            .wait_timeout(state, wakes_at.saturating_duration_since(now))
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0;
        state.wakes_at = None;
    }
}

/// Ends a call whose deadline passed, answering with its timeout.
fn expire(due: Armed) {
    if let Some(timed_out) = due.watch.expire() {
        let answer = lock(&due.answer).take();
        if let Some(answer) = answer {
            answer(timed_out);
        }
    }
}

#[cfg(test)]
mod tests;
