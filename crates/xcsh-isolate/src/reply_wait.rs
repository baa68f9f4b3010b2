//! How a request that does not hold the reply pipe waits for its next
//! event (progress, a push, its reply, the lead) from the request or watcher
//! that reads it: a short adaptive spin on the channel before it
//! sleeps on it, so that a reply that comes soon costs no wake-up of a
//! sleeping caller on top of the two the pipes already cost. The spin is
//! learned across requests ([`Spin`]): it shrinks to a microsecond when
//! replies are slow, so a long call keeps no core busy.

use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use xcsh_core::Spin;

/// The spin of every request's wait for its events.
static SPIN: Spin = Spin::new();

/// [`Receiver::recv_timeout`], spinning briefly first.
pub(crate) fn next_event<T>(events: &Receiver<T>, wait: Duration) -> Result<T, RecvTimeoutError> {
    let deadline = Instant::now() + wait;
    SPIN.wait_or_block(
        Some(deadline),
        || match events.try_recv() {
            Ok(event) => Some(Ok(event)),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(RecvTimeoutError::Disconnected)),
        },
        || events.recv_timeout(deadline.saturating_duration_since(Instant::now())),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    #[test]
    fn an_event_sent_after_the_spin_is_still_received() {
        let (sender, events) = mpsc::channel();
        let handle = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            sender.send(5).unwrap();
        });
        assert_eq!(next_event(&events, Duration::from_secs(5)), Ok(5));
        handle.join().unwrap();
    }

    #[test]
    fn no_event_within_the_wait_is_a_timeout_and_a_gone_sender_is_disconnected() {
        let (sender, events) = mpsc::channel::<u8>();
        let started = Instant::now();
        assert_eq!(
            next_event(&events, Duration::from_millis(20)),
            Err(RecvTimeoutError::Timeout)
        );
        assert!(started.elapsed() >= Duration::from_millis(20));
        drop(sender);
        assert_eq!(
            next_event(&events, Duration::from_millis(20)),
            Err(RecvTimeoutError::Disconnected)
        );
    }
}
