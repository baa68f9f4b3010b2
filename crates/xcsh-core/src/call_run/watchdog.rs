//! A deadline watched by another thread.
//!
//! The thread running a call arms the watchdog before the call and disarms
//! it after; a watching thread waits for the deadline and takes what was
//! armed if it passes first. Arming and disarming take an uncontended
//! mutex and make no system call: the watching thread sleeps until the
//! deadline it knows of (the armed one, or an idle period from now), and
//! is woken early only for a deadline before that. With one time limit for
//! every call, an armed deadline is always later than the one the watcher
//! sleeps to, so back-to-back calls never wake it.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use xcsh_tool_types::sync::lock;

/// What [`Watchdog::next_event`] saw.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Event<P, E> {
    /// An armed deadline passed: what was armed with it.
    Expired(P),
    /// The watched work ended with this.
    Ended(E),
}

/// An armed deadline's ticket: only the arm that got it can disarm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ticket(u64);

/// One deadline at a time, and the end of the work it watches.
///
/// `P` is what is armed with a deadline and handed back by the disarm or
/// the expiry, whichever comes first; `E` is what the work ends with.
#[derive(Debug)]
pub(crate) struct Watchdog<P, E> {
    slot: Mutex<Slot<P, E>>,
    wake: Condvar,
}

#[derive(Debug)]
struct Slot<P, E> {
    armed: Option<Armed<P>>,
    ended: Option<E>,
    tickets: u64,
    /// When the watching thread wakes, while it sleeps.
    wakes_at: Option<Instant>,
}

#[derive(Debug)]
struct Armed<P> {
    ticket: Ticket,
    deadline: Instant,
    parked: P,
}

impl<P, E> Default for Watchdog<P, E> {
    fn default() -> Self {
        Self {
            slot: Mutex::new(Slot {
                armed: None,
                ended: None,
                tickets: 0,
                wakes_at: None,
            }),
            wake: Condvar::new(),
        }
    }
}

impl<P, E> Watchdog<P, E> {
    /// Arms `deadline` with `parked` (a disarmed or expired earlier arm is
    /// forgotten).
    pub(crate) fn arm(&self, deadline: Instant, parked: P) -> Ticket {
        let mut slot = lock(&self.slot);
        slot.tickets += 1;
        let ticket = Ticket(slot.tickets);
        slot.armed = Some(Armed {
            ticket,
            deadline,
            parked,
        });
        if slot.wakes_at.is_some_and(|wakes_at| deadline < wakes_at) {
            self.wake.notify_one();
        }
        ticket
    }

    /// What was armed with `ticket`, if its deadline has not been taken by
    /// the watcher.
    pub(crate) fn disarm(&self, ticket: Ticket) -> Option<P> {
        let mut slot = lock(&self.slot);
        if slot
            .armed
            .as_ref()
            .is_some_and(|armed| armed.ticket == ticket)
        {
            slot.armed.take().map(|armed| armed.parked)
        } else {
            None
        }
    }

    /// Ends the watch with `value` (the first end counts).
    pub(crate) fn end(&self, value: E) {
        let mut slot = lock(&self.slot);
        if slot.ended.is_none() {
            slot.ended = Some(value);
        }
        self.wake.notify_one();
    }

    /// Waits for the armed deadline to pass or the work to end; with
    /// nothing armed the watcher sleeps for `idle` at a time.
    pub(crate) fn next_event(&self, idle: Duration) -> Event<P, E> {
        let mut slot = lock(&self.slot);
        loop {
            if let Some(ended) = slot.ended.take() {
                return Event::Ended(ended);
            }
            let now = Instant::now();
            let wakes_at = match &slot.armed {
                Some(armed) if armed.deadline <= now => {
                    let armed = slot.armed.take().expect("matched as armed");
                    return Event::Expired(armed.parked);
                }
                Some(armed) => armed.deadline,
                None => now + idle,
            };
            slot.wakes_at = Some(wakes_at);
            slot = self
                .wake
                .wait_timeout(slot, wakes_at.saturating_duration_since(now))
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
            slot.wakes_at = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    type Dog = Watchdog<&'static str, u32>;

    #[test]
    fn a_disarm_before_the_deadline_hands_back_what_was_armed() {
        let dog = Dog::default();
        let ticket = dog.arm(Instant::now() + Duration::from_secs(60), "turns");
        assert_eq!(dog.disarm(ticket), Some("turns"));
        assert_eq!(dog.disarm(ticket), None, "only once");
        dog.end(7);
        assert_eq!(dog.next_event(Duration::from_secs(60)), Event::Ended(7));
    }

    #[test]
    fn a_passed_deadline_goes_to_the_watcher_and_the_late_disarm_gets_nothing() {
        let dog = Arc::new(Dog::default());
        let watcher = {
            let dog = Arc::clone(&dog);
            std::thread::spawn(move || dog.next_event(Duration::from_secs(60)))
        };
        // The watcher sleeps an idle minute: an earlier deadline wakes it.
        std::thread::sleep(Duration::from_millis(20));
        let started = Instant::now();
        let ticket = dog.arm(Instant::now() + Duration::from_millis(50), "turns");
        assert_eq!(watcher.join().unwrap(), Event::Expired("turns"));
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(dog.disarm(ticket), None);
    }

    #[test]
    fn a_stale_ticket_cannot_disarm_a_later_arm() {
        let dog = Dog::default();
        let stale = dog.arm(Instant::now(), "first");
        assert_eq!(
            dog.next_event(Duration::from_secs(60)),
            Event::Expired("first")
        );
        let fresh = dog.arm(Instant::now() + Duration::from_secs(60), "second");
        assert_eq!(dog.disarm(stale), None);
        assert_eq!(dog.disarm(fresh), Some("second"));
    }

    #[test]
    fn an_end_wakes_a_sleeping_watcher_and_the_first_end_counts() {
        let dog = Arc::new(Dog::default());
        let watcher = {
            let dog = Arc::clone(&dog);
            std::thread::spawn(move || dog.next_event(Duration::from_secs(600)))
        };
        std::thread::sleep(Duration::from_millis(20));
        let started = Instant::now();
        dog.end(1);
        dog.end(2);
        assert_eq!(watcher.join().unwrap(), Event::Ended(1));
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
