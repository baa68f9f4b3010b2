//! The session's workers: code that must end at the time limit while its
//! caller waits (the tool of a call run one at a time, an apply, a reject).
//!
//! Without a limit the code runs on the caller's thread. With one it runs
//! on a worker thread and the caller stops waiting at the limit. Code that
//! never returns cannot be stopped from outside (threads cannot be killed
//! safely), so its worker is abandoned: it keeps what it needs alive and
//! ends when that code returns, if ever. Workers that finish in time are
//! reused, so a call costs no thread start. Both sides of each hand-off
//! (the worker waiting for a job, the caller for its result) spin briefly
//! before they sleep ([`Spin`]), so that back-to-back calls cost no
//! wake-up of a sleeping thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

use xcsh_tool_types::sync::{lock, read, write};

use crate::call::RunningCall;
use crate::call_run::spin::{Spin, wake};
use crate::limits::CallLimits;
use crate::panic::catch;
use crate::pending::PendingActionStore;

/// Main threads get 8 MiB of stack; calls (parsers, pack code) keep that.
pub(crate) const WORKER_STACK_BYTES: usize = 8 * 1024 * 1024;

type Job = Box<dyn FnOnce() + Send>;

/// Why a call gave no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// It ran past the limit and was abandoned.
    TimedOut(Duration),
    /// It panicked (message), or its worker could not start.
    Panicked(String),
}

/// The session's limits and its idle workers, shared by the session and
/// its `resolve` tool.
#[derive(Debug, Default)]
pub(crate) struct Runner {
    limits: RwLock<CallLimits>,
    idle: Mutex<Vec<Worker>>,
    /// How long callers spin for a result before they sleep.
    caller_spin: Spin,
}

impl Runner {
    pub(crate) fn limits(&self) -> CallLimits {
        *read(&self.limits)
    }

    pub(crate) fn set_limits(&self, limits: CallLimits) {
        *write(&self.limits) = limits;
    }

    /// Runs `job`, an apply or a reject, as one call that may push
    /// nothing ([`PushRefused::FromApplyOrReject`](crate::call::PushRefused)):
    /// an action belongs to the tool call that previewed it. On a timeout
    /// the call ends at once.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        store: &PendingActionStore,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Failure> {
        self.run_call(RunningCall::refusing_pushes(), store, job).0
    }

    /// [`run`](Self::run), also returning the ids of the actions the call
    /// pushed (none after a timeout: those were taken back).
    pub(crate) fn run_collecting<T: Send + 'static>(
        &self,
        store: &PendingActionStore,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> (Result<T, Failure>, Vec<u64>) {
        self.run_call(RunningCall::default(), store, job)
    }

    /// [`run_collecting`](Self::run_collecting) as `call`.
    fn run_call<T: Send + 'static>(
        &self,
        call: RunningCall,
        store: &PendingActionStore,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> (Result<T, Failure>, Vec<u64>) {
        let Some(limit) = self.limits().time else {
            return Self::run_unlimited_as(call, job);
        };
        let reply = Arc::new(Reply::for_this_thread());
        let answer = Arc::clone(&reply);
        let in_worker = call.clone();
        let worker = match self.dispatch(Box::new(move || {
            let _entered = in_worker.enter();
            answer.put(catch(job));
        })) {
            Ok(worker) => worker,
            Err(failure) => return (Err(failure), Vec::new()),
        };
        let deadline = Instant::now() + limit;
        match self.caller_spin.wait(Some(deadline), || reply.take()) {
            Some(outcome) => {
                let pushed = call.finish();
                lock(&self.idle).push(worker);
                (outcome.map_err(Failure::Panicked), pushed)
            }
            None => {
                worker.abandon();
                Self::take_back(store, call.finish());
                (Err(Failure::TimedOut(limit)), Vec::new())
            }
        }
    }

    /// Removes the actions `pushed` by a call that timed out from `store`,
    /// with a warning naming each.
    pub(crate) fn take_back(store: &PendingActionStore, pushed: Vec<u64>) {
        for id in pushed {
            if let Some(entry) = store.remove(id) {
                tracing::warn!(
                    label = entry.action().label(),
                    "dropped a pending action pushed by a call that timed out"
                );
            }
        }
    }

    /// Runs `job` as one call on this thread, with no time limit (no limit
    /// is set, or the tool enforces it itself); returns the ids of the
    /// actions it pushed.
    pub(crate) fn run_unlimited<T>(job: impl FnOnce() -> T) -> (Result<T, Failure>, Vec<u64>) {
        Self::run_unlimited_as(RunningCall::default(), job)
    }

    fn run_unlimited_as<T>(
        call: RunningCall,
        job: impl FnOnce() -> T,
    ) -> (Result<T, Failure>, Vec<u64>) {
        let entered = call.enter();
        let outcome = catch(job).map_err(Failure::Panicked);
        let pushed = call.finish();
        drop(entered);
        (outcome, pushed)
    }

    /// Hands `job` to an idle worker, or to a new one.
    fn dispatch(&self, job: Job) -> Result<Worker, Failure> {
        let idle = lock(&self.idle).pop();
        if let Some(worker) = idle {
            worker.give(job);
            return Ok(worker);
        }
        let state = Arc::new(WorkerState::default());
        *lock(&state.job) = Some(job);
        state.has_job.store(true, Ordering::Release);
        let serving = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name("xcsh-call".to_owned())
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || serving.serve())
            .map_err(|e| Failure::Panicked(format!("cannot start a thread for the call: {e}")))?
            .thread()
            .clone();
        Ok(Worker { thread, state })
    }
}

impl Drop for Runner {
    /// Idle workers end with the runner.
    fn drop(&mut self) {
        for worker in lock(&self.idle).drain(..) {
            worker.abandon();
        }
    }
}

/// A worker thread, as the runner holds it.
#[derive(Debug)]
struct Worker {
    thread: Thread,
    state: Arc<WorkerState>,
}

impl Worker {
    /// Gives the idle worker its next job.
    fn give(&self, job: Job) {
        *lock(&self.state.job) = Some(job);
        self.state.has_job.store(true, Ordering::Release);
        wake(&self.thread);
    }

    /// Lets the worker end once its current job (if any) returns.
    fn abandon(&self) {
        self.state.closed.store(true, Ordering::Release);
        wake(&self.thread);
    }
}

/// What a worker thread and the runner share.
#[derive(Default)]
struct WorkerState {
    job: Mutex<Option<Job>>,
    has_job: AtomicBool,
    closed: AtomicBool,
    /// How long the worker spins for its next job before it sleeps.
    spin: Spin,
}

impl std::fmt::Debug for WorkerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerState")
            .field("has_job", &self.has_job.load(Ordering::Relaxed))
            .field("closed", &self.closed.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl WorkerState {
    /// The worker thread: runs jobs as they come, until abandoned.
    fn serve(&self) {
        loop {
            let next = self.spin.wait(None, || {
                // Look before writing: a spinning poll keeps the line shared.
                if self.has_job.load(Ordering::Acquire)
                    && self.has_job.swap(false, Ordering::Acquire)
                {
                    Some(lock(&self.job).take())
                } else if self.closed.load(Ordering::Acquire) {
                    Some(None)
                } else {
                    None
                }
            });
            match next.flatten() {
                Some(job) => job(),
                None => return,
            }
        }
    }
}

/// The result of one call, on its way back to the caller.
struct Reply<T> {
    value: Mutex<Option<T>>,
    done: AtomicBool,
    caller: Thread,
}

impl<T> Reply<T> {
    /// A reply the calling thread will wait for.
    fn for_this_thread() -> Self {
        Self {
            value: Mutex::new(None),
            done: AtomicBool::new(false),
            caller: std::thread::current(),
        }
    }

    /// Hands `value` over and wakes the caller.
    fn put(&self, value: T) {
        *lock(&self.value) = Some(value);
        self.done.store(true, Ordering::Release);
        wake(&self.caller);
    }

    /// The value, once it was put.
    fn take(&self) -> Option<T> {
        if self.done.load(Ordering::Acquire) {
            lock(&self.value).take()
        } else {
            None
        }
    }
}

/// A session's runner, shared.
pub(crate) type SharedRunner = Arc<Runner>;

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use xcsh_tool_types::ToolOutput;

    use super::*;
    use crate::call::{PUSH_FROM_RESOLVE, PushRefused, push_for_running_call};
    use crate::pending::PendingAction;

    fn limited(ms: u64) -> Runner {
        let runner = Runner::default();
        runner.set_limits(CallLimits {
            time: Some(Duration::from_millis(ms)),
            ..CallLimits::default()
        });
        runner
    }

    #[test]
    fn a_call_past_the_limit_is_abandoned_and_workers_are_reused() {
        let runner = limited(100);
        let store = PendingActionStore::new();
        let started = Instant::now();
        let outcome = runner.run(&store, || std::thread::sleep(Duration::from_secs(2)));
        assert_eq!(outcome, Err(Failure::TimedOut(Duration::from_millis(100))));
        assert!(started.elapsed() < Duration::from_secs(1));
        let first = runner.run(&store, || std::thread::current().id()).unwrap();
        let second = runner.run(&store, || std::thread::current().id()).unwrap();
        assert_eq!(first, second, "an idle worker is reused");
        assert_ne!(first, std::thread::current().id());
    }

    #[test]
    fn a_panic_is_a_failure_and_the_worker_survives() {
        let runner = limited(1000);
        let store = PendingActionStore::new();
        let outcome = runner.run(&store, || -> () { panic!("boom") });
        assert_eq!(outcome, Err(Failure::Panicked("boom".to_owned())));
        assert_eq!(runner.run(&store, || 7).unwrap(), 7);
    }

    #[test]
    fn pushes_of_a_call_that_timed_out_are_taken_back_and_later_ones_refused() {
        let runner = limited(100);
        let store = Arc::new(PendingActionStore::new());
        let (tx, rx) = mpsc::channel();
        let in_call = Arc::clone(&store);
        let (outcome, _) = runner.run_collecting(&store, move || {
            let push = |label: &str| {
                let action = PendingAction::try_new(label, |_| Ok(ToolOutput::default())).unwrap();
                push_for_running_call(&in_call, action)
            };
            push("early").unwrap();
            std::thread::sleep(Duration::from_millis(300));
            tx.send(push("late")).unwrap();
        });
        assert!(matches!(outcome, Err(Failure::TimedOut(_))));
        assert!(store.is_empty(), "the early push was taken back");
        assert!(rx.recv().unwrap().is_err(), "the late push was refused");
        assert!(store.is_empty());
    }

    #[test]
    fn an_apply_or_reject_may_push_nothing_with_or_without_a_limit() {
        for runner in [limited(1000), Runner::default()] {
            let store = Arc::new(PendingActionStore::new());
            let in_call = Arc::clone(&store);
            let pushed = runner
                .run(&store, move || {
                    let action =
                        PendingAction::try_new("x", |_| Ok(ToolOutput::default())).unwrap();
                    push_for_running_call(&in_call, action)
                })
                .unwrap();
            assert_eq!(pushed, Err(PushRefused::FromApplyOrReject));
            assert_eq!(pushed.unwrap_err().to_string(), PUSH_FROM_RESOLVE);
            assert!(store.is_empty());
        }
    }

    #[test]
    fn a_worker_that_went_to_sleep_between_calls_is_woken_for_the_next() {
        let runner = limited(1000);
        let store = PendingActionStore::new();
        let first = runner.run(&store, || std::thread::current().id()).unwrap();
        for pause in [1, 5, 20] {
            // Longer than any spin: both sides sleep in the kernel.
            std::thread::sleep(Duration::from_millis(pause));
            let started = Instant::now();
            let outcome = runner.run(&store, move || {
                std::thread::sleep(Duration::from_millis(pause));
                std::thread::current().id()
            });
            assert_eq!(outcome, Ok(first), "the sleeping worker took the call");
            assert!(started.elapsed() < Duration::from_millis(500));
        }
    }

    #[test]
    fn a_worker_abandoned_at_the_limit_ends_when_its_call_returns() {
        let runner = limited(50);
        let store = PendingActionStore::new();
        let (ended_tx, ended) = mpsc::channel();
        let outcome = runner.run(&store, move || {
            std::thread::sleep(Duration::from_millis(150));
            // Dropped when the worker thread ends, not before.
            struct OnExit(mpsc::Sender<()>);
            impl Drop for OnExit {
                fn drop(&mut self) {
                    let _ = self.0.send(());
                }
            }
            thread_local! {
                static EXIT: std::cell::RefCell<Option<OnExit>> =
                    const { std::cell::RefCell::new(None) };
            }
            EXIT.with(|exit| *exit.borrow_mut() = Some(OnExit(ended_tx)));
        });
        assert_eq!(outcome, Err(Failure::TimedOut(Duration::from_millis(50))));
        assert_eq!(
            ended.recv_timeout(Duration::from_secs(5)),
            Ok(()),
            "the abandoned worker's thread ended after its call returned"
        );
        assert_eq!(
            runner.run(&store, || 7),
            Ok(7),
            "a fresh worker takes the next call"
        );
    }

    #[test]
    fn without_a_limit_the_call_runs_on_the_callers_thread() {
        let runner = Runner::default();
        let store = PendingActionStore::new();
        let id = runner.run(&store, || std::thread::current().id()).unwrap();
        assert_eq!(id, std::thread::current().id());
    }
}
