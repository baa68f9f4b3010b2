//! Who reads a pack process's requests while a call runs.
//!
//! The thread that reads a request runs it, then reads the next one
//! itself: a run of short calls is served by one thread, which finds the
//! next request with a brief spin (`SpinRead`) and wakes no other thread
//! per call. Before, the reading thread woke a follower to read on before
//! each call, and the next request woke that follower from its sleep:
//! three threads took turns, four futex calls and a wake-up per call.
//!
//! A call that runs long must still not keep the pipe unread: a
//! cancellation, another call or an apply may come meanwhile. So the
//! right to read (the *lead*) is a token. A thread lets it go when it
//! starts a job and takes it back when the job ends, if no other thread
//! has it by then; otherwise it waits among the idle threads. A watcher
//! thread looks every [`TICK`] while calls come, and hands the lead to an
//! idle thread (or starts one) once it has been free for [`TICK`] while a
//! job runs. After [`QUIET`] with no job it sleeps until the next one
//! wakes it, so an idle pack's process keeps no thread ticking.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

use xcsh_core::sync::lock;

/// How long the lead may stay free while a job runs, and how often the
/// watcher looks while calls come: the most a request waits behind a
/// long call before another thread reads it.
pub(crate) const TICK: Duration = Duration::from_millis(1);

/// With no job started for this long, the watcher sleeps until the next.
pub(crate) const QUIET: Duration = Duration::from_millis(100);

/// Threads without the lead and without a job.
#[derive(Debug, Default)]
struct Idle {
    /// Waiting to be given the lead.
    waiting: usize,
    /// Given it and not yet woken.
    summoned: usize,
}

/// The lead token, the jobs running and the watcher's state.
#[derive(Debug)]
pub(crate) struct Relief {
    clock: Instant,
    /// True while a thread reads the pipe, or has been given the right to.
    led: AtomicBool,
    /// Threads running a job.
    in_jobs: AtomicUsize,
    /// When the lead was last let go for a job (nanoseconds on `clock`).
    let_go_at: AtomicU64,
    /// The watcher sleeps with no deadline: the next job wakes it.
    asleep: AtomicBool,
    watcher: OnceLock<Thread>,
    idle: Mutex<Idle>,
    summons: Condvar,
}

impl Relief {
    /// The lead held by the thread that creates this.
    pub(crate) fn new() -> Self {
        Self {
            clock: Instant::now(),
            led: AtomicBool::new(true),
            in_jobs: AtomicUsize::new(0),
            let_go_at: AtomicU64::new(0),
            asleep: AtomicBool::new(false),
            watcher: OnceLock::new(),
            idle: Mutex::new(Idle::default()),
            summons: Condvar::new(),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.clock.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// The lead's holder is about to run a job (it has stopped reading):
    /// the lead is free until the job ends or the watcher gives it away.
    pub(crate) fn job_starts(&self) {
        self.let_go_at.store(self.now(), Ordering::Relaxed);
        self.in_jobs.fetch_add(1, Ordering::SeqCst);
        self.led.store(false, Ordering::SeqCst);
        if self.asleep.load(Ordering::SeqCst)
            && let Some(watcher) = self.watcher.get()
        {
            watcher.unpark();
        }
    }

    /// A job ended: true if this thread has the lead again and reads on,
    /// false if another has it (then [`wait_for_lead`](Self::wait_for_lead)).
    pub(crate) fn job_ends(&self) -> bool {
        let lead = self
            .led
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        self.in_jobs.fetch_sub(1, Ordering::SeqCst);
        lead
    }

    /// Waits among the idle threads until the watcher gives this one the
    /// lead.
    pub(crate) fn wait_for_lead(&self) {
        let mut idle = lock(&self.idle);
        idle.waiting += 1;
        while idle.summoned == 0 {
            idle = self
                .summons
                .wait(idle)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        idle.summoned -= 1;
        idle.waiting -= 1;
    }

    /// The watcher's loop, on a thread of its own; never returns. When the
    /// lead has been free for [`TICK`] while a job runs, it gives the lead
    /// to an idle thread or, with none, calls `start_reader`, which starts
    /// a thread that holds it (false if none could start: tried again at
    /// the next look).
    pub(crate) fn watch(&self, start_reader: impl Fn() -> bool) -> ! {
        let _ = self.watcher.set(std::thread::current());
        let tick = u64::try_from(TICK.as_nanos()).unwrap_or(u64::MAX);
        let quiet = u64::try_from(QUIET.as_nanos()).unwrap_or(u64::MAX);
        // Asleep until the first job: a session starting a hundred packs'
        // processes keeps none of them ticking before its first call.
        self.sleep_until_a_job();
        loop {
            std::thread::park_timeout(TICK);
            let now = self.now();
            let let_go_at = self.let_go_at.load(Ordering::Relaxed);
            if self.in_jobs.load(Ordering::SeqCst) == 0 {
                if now.saturating_sub(let_go_at) >= quiet {
                    self.sleep_until_a_job();
                }
                continue;
            }
            if now.saturating_sub(let_go_at) < tick
                || self
                    .led
                    .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                    .is_err()
            {
                continue;
            }
            // This thread holds the lead now, for whoever it gives it to.
            let mut idle = lock(&self.idle);
            if idle.waiting > idle.summoned {
                idle.summoned += 1;
                self.summons.notify_one();
            } else {
                drop(idle);
                if !start_reader() {
                    self.led.store(false, Ordering::SeqCst);
                }
            }
        }
    }

    /// Parks until a job starts (a job that started meanwhile is seen).
    fn sleep_until_a_job(&self) {
        self.asleep.store(true, Ordering::SeqCst);
        while self.in_jobs.load(Ordering::SeqCst) == 0 {
            std::thread::park();
        }
        self.asleep.store(false, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// A relief whose watcher counts the readers it starts.
    fn watched() -> (Arc<Relief>, Arc<AtomicUsize>) {
        let relief = Arc::new(Relief::new());
        let started = Arc::new(AtomicUsize::new(0));
        let (watching, counted) = (Arc::clone(&relief), Arc::clone(&started));
        std::thread::spawn(move || {
            watching.watch(|| {
                counted.fetch_add(1, Ordering::SeqCst);
                true
            })
        });
        (relief, started)
    }

    #[test]
    fn a_short_job_keeps_the_lead_and_starts_no_reader() {
        let (relief, started) = watched();
        let mut kept = 0;
        for _ in 0..1000 {
            relief.job_starts();
            // False only if preempted past a tick mid-job: the reader
            // started holds the lead then (played by this thread too).
            if relief.job_ends() {
                kept += 1;
            }
        }
        std::thread::sleep(TICK * 20);
        assert!(kept >= 990, "only {kept} of 1000 short jobs kept the lead");
        assert_eq!(started.load(Ordering::SeqCst), 1000 - kept);
    }

    #[test]
    fn a_long_job_has_its_lead_given_away_and_waits_for_it_after() {
        let (relief, started) = watched();
        relief.job_starts();
        std::thread::sleep(TICK * 50);
        assert_eq!(started.load(Ordering::SeqCst), 1, "one reader started");
        assert!(!relief.job_ends(), "the reader started holds the lead");

        // That reader runs a long job of its own: the idle thread is given
        // the lead rather than a new one started.
        let (waiter_relief, woke) = (Arc::clone(&relief), Arc::new(AtomicBool::new(false)));
        let woken = Arc::clone(&woke);
        let waiter = std::thread::spawn(move || {
            waiter_relief.wait_for_lead();
            woken.store(true, Ordering::SeqCst);
        });
        while lock(&relief.idle).waiting == 0 {
            std::thread::yield_now();
        }
        relief.job_starts();
        waiter.join().unwrap();
        assert!(woke.load(Ordering::SeqCst));
        assert_eq!(
            started.load(Ordering::SeqCst),
            1,
            "no second reader started"
        );
        assert!(!relief.job_ends());
    }

    #[test]
    fn the_watcher_sleeps_until_the_first_job_and_when_quiet() {
        let (relief, started) = watched();
        std::thread::sleep(TICK * 20);
        assert!(
            relief.asleep.load(Ordering::SeqCst),
            "asleep before any job"
        );
        relief.job_starts();
        assert!(relief.job_ends());
        std::thread::sleep(QUIET * 2);
        assert!(
            relief.asleep.load(Ordering::SeqCst),
            "asleep after a quiet spell"
        );
        relief.job_starts();
        std::thread::sleep(TICK * 50);
        assert_eq!(started.load(Ordering::SeqCst), 1);
    }
}
