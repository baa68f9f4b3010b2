//! How many of this agent's pack processes still run, so that the agent
//! can wait for all of them at its end: each removes the placeholders made
//! for its sandbox as it ends (see [`placeholders`](super::placeholders)),
//! and they end together, not one after another.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

static RUNNING: Mutex<usize> = Mutex::new(0);
static ENDED: Condvar = Condvar::new();

/// One running pack process, counted until dropped (when its reader has
/// seen it end and cleaned up after it).
#[derive(Debug)]
pub struct Running(());

impl Running {
    /// Counts one more running process.
    pub fn start() -> Self {
        *xcsh_core::sync::lock(&RUNNING) += 1;
        Self(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut running = xcsh_core::sync::lock(&RUNNING);
        *running = running.saturating_sub(1);
        ENDED.notify_all();
    }
}

/// Waits up to `limit` until no pack process of this agent runs (call it
/// when the sessions are over: their processes have been told to end).
/// False if some still ran at the limit.
pub fn wait_for_all(limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut running = xcsh_core::sync::lock(&RUNNING);
    while *running > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        running = match ENDED.wait_timeout(running, left) {
            Ok((guard, _)) => guard,
            Err(poisoned) => poisoned.into_inner().0,
        };
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_ends_when_the_last_process_has() {
        let one = Running::start();
        let two = Running::start();
        assert!(!wait_for_all(Duration::from_millis(10)));
        let ender = std::thread::spawn(move || {
            drop(one);
            std::thread::sleep(Duration::from_millis(20));
            drop(two);
        });
        assert!(wait_for_all(Duration::from_secs(5)));
        ender.join().unwrap();
    }
}
