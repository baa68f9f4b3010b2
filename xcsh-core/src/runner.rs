//! Running one call under the session's time limit.
//!
//! Without a limit a call runs on the caller's thread. With one it runs on
//! a worker thread and the caller stops waiting at the limit. Code that
//! never returns cannot be stopped from outside (threads cannot be killed
//! safely), so its worker is abandoned: it keeps what it needs alive and
//! ends when that code returns, if ever. Workers that finish in time are
//! reused, so a call costs no thread start.

use std::sync::{Arc, Mutex, RwLock, mpsc};
use std::time::Duration;

use crate::PendingActionStore;
use crate::call::RunningCall;
use crate::limits::CallLimits;
use crate::panic::catch;
use crate::sync::{lock, read, write};

/// Main threads get 8 MiB of stack; calls (parsers, pack code) keep that.
const WORKER_STACK_BYTES: usize = 8 * 1024 * 1024;

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
    idle: Mutex<Vec<mpsc::Sender<Job>>>,
}

impl Runner {
    pub(crate) fn limits(&self) -> CallLimits {
        *read(&self.limits)
    }

    pub(crate) fn set_limits(&self, limits: CallLimits) {
        *write(&self.limits) = limits;
    }

    /// Runs `job`, an apply or a reject, as one call that may push
    /// nothing ([`PushRefused::FromApplyOrReject`](crate::PushRefused)):
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
        let (sender, receiver) = mpsc::sync_channel(1);
        let in_worker = call.clone();
        let worker = match self.dispatch(Box::new(move || {
            let _entered = in_worker.enter();
            let _ = sender.send(catch(job));
        })) {
            Ok(worker) => worker,
            Err(failure) => return (Err(failure), Vec::new()),
        };
        match receiver.recv_timeout(limit) {
            Ok(outcome) => {
                let pushed = call.finish();
                lock(&self.idle).push(worker);
                (outcome.map_err(Failure::Panicked), pushed)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                for id in call.finish() {
                    if let Some(entry) = store.remove(id) {
                        tracing::warn!(
                            label = entry.action().label(),
                            "dropped a pending action pushed by a call that timed out"
                        );
                    }
                }
                (Err(Failure::TimedOut(limit)), Vec::new())
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let pushed = call.finish();
                (
                    Err(Failure::Panicked("the call's thread stopped".to_owned())),
                    pushed,
                )
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
    fn dispatch(&self, mut job: Job) -> Result<mpsc::Sender<Job>, Failure> {
        loop {
            let idle = lock(&self.idle).pop();
            let Some(worker) = idle else { break };
            match worker.send(job) {
                Ok(()) => return Ok(worker),
                Err(mpsc::SendError(returned)) => job = returned,
            }
        }
        let (worker, jobs) = mpsc::channel::<Job>();
        worker
            .send(job)
            .expect("the receiver is alive until the thread starts");
        std::thread::Builder::new()
            .name("xcsh-call".to_owned())
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || {
                while let Ok(job) = jobs.recv() {
                    job();
                }
            })
            .map_err(|e| Failure::Panicked(format!("cannot start a thread for the call: {e}")))?;
        Ok(worker)
    }
}

/// A session's runner, shared.
pub(crate) type SharedRunner = Arc<Runner>;

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::call::push_for_running_call;
    use crate::{PendingAction, ToolOutput};

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
            assert_eq!(pushed, Err(crate::PushRefused::FromApplyOrReject));
            assert_eq!(
                pushed.unwrap_err().to_string(),
                crate::call::PUSH_FROM_RESOLVE
            );
            assert!(store.is_empty());
        }
    }

    #[test]
    fn without_a_limit_the_call_runs_on_the_callers_thread() {
        let runner = Runner::default();
        let store = PendingActionStore::new();
        let id = runner.run(&store, || std::thread::current().id()).unwrap();
        assert_eq!(id, std::thread::current().id());
    }
}
