//! The request states of input-required results a 2026-07-28 client has
//! not answered yet, each with the store id of the action it names.
//!
//! They are bounded: a state is forgotten once answered, once its action
//! left the stack (applied, discarded or ended with the session: see
//! [`RequestStates::retain`]), after [`STATE_LIFETIME`], and, beyond
//! [`MAX_STATES`] unanswered ones, oldest first. A retry with a forgotten
//! state is refused as an unknown one.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// How long a state may wait for its answer.
pub const STATE_LIFETIME: Duration = Duration::from_secs(60 * 60);

/// How many unanswered states a connection keeps.
pub const MAX_STATES: usize = 64;

/// Issued, unanswered request states.
#[derive(Debug)]
pub struct RequestStates {
    /// By state: the action's store id and when the state was issued.
    by_state: HashMap<String, (u64, Instant)>,
    /// States, oldest first (some may be answered already).
    order: VecDeque<String>,
    lifetime: Duration,
    max: usize,
}

impl Default for RequestStates {
    fn default() -> Self {
        Self::with_bounds(STATE_LIFETIME, MAX_STATES)
    }
}

impl RequestStates {
    /// States kept for `lifetime`, at most `max` of them.
    pub fn with_bounds(lifetime: Duration, max: usize) -> Self {
        Self {
            by_state: HashMap::new(),
            order: VecDeque::new(),
            lifetime,
            max,
        }
    }

    /// Issues a new state, unguessable, for the action `entry`, at `now`;
    /// forgets the oldest states beyond the bound.
    pub fn issue(&mut self, entry: u64, now: Instant) -> String {
        self.expire(now);
        let state = format!("xcsh-approval-{}", uuid::Uuid::new_v4().simple());
        self.by_state.insert(state.clone(), (entry, now));
        self.order.push_back(state.clone());
        while self.by_state.len() > self.max {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.by_state.remove(&oldest);
        }
        state
    }

    /// The action `state` names, if it was issued and is still kept at
    /// `now`; it is forgotten either way.
    pub fn redeem(&mut self, state: &str, now: Instant) -> Option<u64> {
        self.expire(now);
        let (entry, _) = self.by_state.remove(state)?;
        self.order.retain(|kept| kept != state);
        Some(entry)
    }

    /// Keeps only the states whose action `pending` says is still on the
    /// stack.
    pub fn retain(&mut self, mut pending: impl FnMut(u64) -> bool) {
        self.by_state.retain(|_, (entry, _)| pending(*entry));
        let by_state = &self.by_state;
        self.order.retain(|state| by_state.contains_key(state));
    }

    /// How many states are kept.
    pub fn len(&self) -> usize {
        self.by_state.len()
    }

    /// True when no state is kept.
    pub fn is_empty(&self) -> bool {
        self.by_state.is_empty()
    }

    /// Forgets the states older than the lifetime at `now`.
    fn expire(&mut self, now: Instant) {
        while let Some(oldest) = self.order.front() {
            match self.by_state.get(oldest) {
                Some((_, at)) if now.duration_since(*at) < self.lifetime => break,
                Some(_) => {
                    self.by_state.remove(oldest);
                }
                None => {}
            }
            self.order.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_redeemed_once() {
        let (mut states, now) = (RequestStates::default(), Instant::now());
        let state = states.issue(7, now);
        assert!(state.starts_with("xcsh-approval-") && state.len() > 40);
        assert_eq!(states.redeem("xcsh-approval-forged", now), None);
        assert_eq!(states.redeem(&state, now), Some(7));
        assert_eq!(states.redeem(&state, now), None);
        assert!(states.is_empty());
    }

    #[test]
    fn a_state_expires_after_its_lifetime() {
        let mut states = RequestStates::with_bounds(Duration::from_secs(10), 8);
        let start = Instant::now();
        let old = states.issue(1, start);
        let young = states.issue(2, start + Duration::from_secs(5));
        let later = start + Duration::from_secs(10);
        assert_eq!(states.redeem(&old, later), None, "expired");
        assert_eq!(states.redeem(&young, later), Some(2));
        // Expired states go even when nothing is redeemed.
        states.issue(3, start);
        states.issue(4, later + Duration::from_secs(20));
        assert_eq!(states.len(), 1);
    }

    #[test]
    fn beyond_the_bound_the_oldest_states_are_forgotten() {
        let (mut states, now) = (
            RequestStates::with_bounds(STATE_LIFETIME, 3),
            Instant::now(),
        );
        let issued: Vec<String> = (0..5).map(|entry| states.issue(entry, now)).collect();
        assert_eq!(states.len(), 3);
        assert_eq!(states.redeem(&issued[0], now), None);
        assert_eq!(states.redeem(&issued[1], now), None);
        assert_eq!(states.redeem(&issued[4], now), Some(4));
        assert_eq!(states.order.len(), 2);
    }

    #[test]
    fn states_of_actions_no_longer_pending_are_forgotten() {
        let (mut states, now) = (RequestStates::default(), Instant::now());
        let gone = states.issue(1, now);
        let kept = states.issue(2, now);
        states.retain(|entry| entry == 2);
        assert_eq!(states.redeem(&gone, now), None);
        assert_eq!(states.redeem(&kept, now), Some(2));
        assert!(states.order.is_empty());
    }
}
