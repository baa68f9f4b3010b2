//! Waiting for another thread: a short adaptive spin, then parking.
//!
//! A limited call is two hand-offs (the job to a worker, its result back),
//! and a thread that sleeps in the kernel takes tens of microseconds to
//! wake on an idle virtual CPU, which is a hundred times a `noop` call. So
//! a waiter first polls for a while, and parks only when that did not
//! pay. How long it polls adapts to what it has seen: a spin that caught
//! its value makes the next one a quarter longer (and twice what it took);
//! a spin that failed halves the next one, down to a microsecond, so idle
//! sessions (a model thinking between calls) keep no core busy, and on a
//! loaded machine, where the thread waited for is often not running while
//! this one spins, waiting becomes plain parking. Each look at the clock
//! also yields the CPU (`sched_yield`): under load the thread waited for is
//! often queued behind this spinner (with two CPU hogs an isolated `noop`
//! measured 37–53 µs yielding against 37–65 µs without, within the noise
//! of a second run: BENCHMARKS-history.md §10b). The other side always calls [`Thread::unpark`] after making
//! its value ready: that costs an atomic swap when the waiter is still
//! spinning, and park's token makes a wake-up between poll and park safe.

use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// The longest a waiter spins before parking: about two wake-ups.
const MAX_SPIN_NANOS: u64 = 50_000;
/// The shortest spin, once waits have turned out long.
const MIN_SPIN_NANOS: u64 = 1_000;
/// Spin iterations between two looks at the clock.
const POLLS_PER_CLOCK: u32 = 16;

/// How long a waiter spins before it sleeps, learned from its past waits.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use xcsh_core::Spin;
///
/// let spin = Spin::new();
/// let ready = Arc::new(AtomicBool::new(false));
/// let waiter = std::thread::current();
/// let setter = Arc::clone(&ready);
/// std::thread::spawn(move || {
///     setter.store(true, Ordering::Release);
///     waiter.unpark();
/// });
/// let got = spin.wait(None, || ready.load(Ordering::Acquire).then_some("ready"));
/// assert_eq!(got, Some("ready"));
/// ```
#[derive(Debug)]
pub struct Spin {
    nanos: AtomicU64,
}

impl Default for Spin {
    fn default() -> Self {
        Self::new()
    }
}

impl Spin {
    /// A spin that starts at its longest.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            nanos: AtomicU64::new(MAX_SPIN_NANOS),
        }
    }

    /// Polls `ready` until it gives a value, spinning at first and then
    /// parking this thread, until `deadline` if there is one. The thread
    /// that makes the value ready must then call [`Thread::unpark`] on
    /// this one. `None` only once the deadline has passed.
    pub fn wait<R>(
        &self,
        deadline: Option<Instant>,
        mut ready: impl FnMut() -> Option<R>,
    ) -> Option<R> {
        if let Ok(value) = self.spin(deadline, &mut ready) {
            return Some(value);
        }
        let value = loop {
            if let Some(value) = ready() {
                break Some(value);
            }
            match deadline {
                None => std::thread::park(),
                Some(end) => {
                    let now = Instant::now();
                    if now >= end {
                        break None;
                    }
                    std::thread::park_timeout(end - now);
                }
            }
        };
        self.shrink();
        value
    }

    /// Polls `ready` for as long as this spin lasts (and not past
    /// `deadline`); if that gave nothing, waits with `block` (which sleeps
    /// in whatever way the value's maker wakes, e.g. a channel's
    /// `recv_timeout`) and shrinks the next spin.
    pub fn wait_or_block<R>(
        &self,
        deadline: Option<Instant>,
        mut ready: impl FnMut() -> Option<R>,
        block: impl FnOnce() -> R,
    ) -> R {
        match self.spin(deadline, &mut ready) {
            Ok(value) => value,
            Err(SpinMissed(())) => {
                let value = block();
                self.shrink();
                value
            }
        }
    }

    /// Polls `ready` for as long as this spin lasts. If that gave
    /// nothing, wait in whatever way the value's maker wakes (a `poll(2)`
    /// on a pipe, say), then hand the miss to [`missed`](Self::missed) so
    /// the next spin is shorter.
    ///
    /// # Errors
    ///
    /// [`SpinMissed`]: the spin ran out before `ready` gave a value.
    pub fn poll<R>(&self, mut ready: impl FnMut() -> Option<R>) -> Result<R, SpinMissed> {
        self.spin(None, &mut ready)
    }

    /// Shrinks the next spin after a wait that outlasted this one (see
    /// [`poll`](Self::poll)); the miss is the proof that one did.
    pub fn missed(&self, _missed: SpinMissed) {
        self.shrink();
    }

    /// The spin: a value `ready` gave, or when the spin started if it ran
    /// out (or reached `deadline`) first.
    fn spin<R>(
        &self,
        deadline: Option<Instant>,
        ready: &mut impl FnMut() -> Option<R>,
    ) -> Result<R, SpinMissed> {
        if let Some(value) = ready() {
            return Ok(value);
        }
        let started = Instant::now();
        let budget = Duration::from_nanos(self.nanos.load(Ordering::Relaxed));
        let mut polls = 0u32;
        loop {
            if let Some(value) = ready() {
                self.caught(started.elapsed());
                return Ok(value);
            }
            polls = polls.wrapping_add(1);
            if !polls.is_multiple_of(POLLS_PER_CLOCK) {
                std::hint::spin_loop();
                continue;
            }
            let spent = started.elapsed();
            if spent >= budget || deadline.is_some_and(|end| started + spent >= end) {
                return Err(SpinMissed(()));
            }
            // Lets a thread waiting for this CPU run: on a loaded machine
            // that is often the one this spin waits for.
            std::thread::yield_now();
        }
    }

    /// Halves the next spin, after a wait that outlasted the spin.
    /// Under load the thread waited for is often not running while this
    /// one spins, so a spin that failed must never grow the next one
    /// (growing it measured 100 µs per limited call at load 6).
    fn shrink(&self) {
        let now = self.nanos.load(Ordering::Relaxed);
        self.nanos
            .store((now / 2).max(MIN_SPIN_NANOS), Ordering::Relaxed);
    }

    /// Sets the next spin from a spin that caught its value after
    /// `spent`: a quarter longer, and at least twice `spent`, within the
    /// maximum (so spinning that pays grows back after failures shrank it).
    fn caught(&self, spent: Duration) {
        let spent = u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX);
        let now = self.nanos.load(Ordering::Relaxed);
        let next = (now + now / 4)
            .max(spent.saturating_mul(2))
            .min(MAX_SPIN_NANOS);
        if next != now {
            self.nanos.store(next, Ordering::Relaxed);
        }
    }

    /// The current spin, for tests.
    #[cfg(test)]
    fn nanos(&self) -> u64 {
        self.nanos.load(Ordering::Relaxed)
    }
}

/// A spin that ran out (see [`Spin::poll`]).
#[derive(Debug)]
#[must_use = "hand it to Spin::missed once the value came"]
pub struct SpinMissed(());

/// Wakes `waiter` after the value it polls for was made ready.
pub(crate) fn wake(waiter: &Thread) {
    waiter.unpark();
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::*;

    #[test]
    fn a_value_made_ready_while_parked_wakes_the_waiter() {
        let spin = Spin::default();
        let flag = Arc::new(AtomicBool::new(false));
        let waiter = std::thread::current();
        let setter = Arc::clone(&flag);
        let handle = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            setter.store(true, Ordering::Release);
            wake(&waiter);
        });
        let got = spin.wait(None, || flag.load(Ordering::Acquire).then_some(7));
        assert_eq!(got, Some(7));
        handle.join().unwrap();
        assert_eq!(
            spin.nanos(),
            (MAX_SPIN_NANOS / 2),
            "a wait far longer than any spin halves the next one"
        );
    }

    #[test]
    fn a_wait_past_the_deadline_gives_none() {
        let spin = Spin::default();
        let started = Instant::now();
        let got: Option<()> = spin.wait(Some(started + Duration::from_millis(20)), || None);
        assert_eq!(got, None);
        assert!(started.elapsed() >= Duration::from_millis(20));
    }

    #[test]
    fn long_waits_shrink_the_spin_to_its_minimum() {
        let spin = Spin::default();
        for _ in 0..10 {
            spin.shrink();
        }
        assert_eq!(spin.nanos(), MIN_SPIN_NANOS);
        spin.caught(Duration::from_micros(10));
        assert_eq!(
            spin.nanos(),
            20_000,
            "a value caught after 10 µs of spinning keeps a spin of twice that"
        );
        spin.shrink();
        assert_eq!(
            spin.nanos(),
            10_000,
            "a spin that failed halves, however short the wait"
        );
    }
}
