//! The per-session LIFO stack of pending actions.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use xcsh_tool_types::sync::lock;

use super::subscription::{Listener, Listeners, PushEvent};
use super::{PendingAction, PendingActionView, Subscription};

/// An action on the stack, with the id the store gave it.
#[derive(Clone, Debug)]
pub struct PendingEntry {
    id: u64,
    action: Arc<PendingAction>,
}

impl PendingEntry {
    /// The store-unique id of this push.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The action.
    pub fn action(&self) -> &PendingAction {
        &self.action
    }
}

/// How many actions are pending, and the newest few of them: what a front
/// end shows after every step, at a cost that does not grow with the stack.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PendingSummary {
    /// How many actions are pending.
    pub count: usize,
    /// The newest actions, newest first (at most as many as asked for).
    pub newest: Vec<PendingActionView>,
}

/// A LIFO stack of pending actions, safe to share across threads.
///
/// ```
/// use xcsh_core::{PendingAction, PendingActionStore, ToolOutput};
///
/// let store = PendingActionStore::new();
/// for label in ["first", "second"] {
///     store.push(PendingAction::try_new(label, |_| Ok(ToolOutput::default())).unwrap());
/// }
/// assert_eq!(store.peek().unwrap().action().label(), "second");
/// assert_eq!(store.pop().unwrap().action().label(), "second");
/// assert_eq!(store.len(), 1);
/// ```
#[derive(Default)]
pub struct PendingActionStore {
    stack: Mutex<Vec<PendingEntry>>,
    listeners: Arc<Mutex<Listeners>>,
    next_id: AtomicU64,
}

impl PendingActionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Puts `action` on top, then tells every push listener. Returns the
    /// id of the new entry.
    ///
    /// A panicking listener is logged and skipped; the push stands.
    pub fn push(&self, action: PendingAction) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let view = action.view();
        let count = {
            let mut stack = lock(&self.stack);
            stack.push(PendingEntry {
                id,
                action: Arc::new(action),
            });
            stack.len()
        };
        let event = PushEvent {
            action: view,
            count,
        };
        let listeners = lock(&self.listeners).snapshot();
        for listener in listeners {
            if let Err(message) = crate::panic::catch(|| listener(&event)) {
                tracing::error!(%message, "pending-action push listener panicked");
            }
        }
        id
    }

    /// The top entry, left in place.
    pub fn peek(&self) -> Option<PendingEntry> {
        lock(&self.stack).last().cloned()
    }

    /// The entry with this id, left in place.
    pub fn get(&self, id: u64) -> Option<PendingEntry> {
        lock(&self.stack)
            .iter()
            .rev()
            .find(|entry| entry.id == id)
            .cloned()
    }

    /// Removes and returns the top entry.
    pub fn pop(&self) -> Option<PendingEntry> {
        lock(&self.stack).pop()
    }

    /// Removes the entry with this id wherever it is in the stack.
    pub fn remove(&self, id: u64) -> Option<PendingEntry> {
        let mut stack = lock(&self.stack);
        let index = stack.iter().rposition(|entry| entry.id == id)?;
        Some(stack.remove(index))
    }

    /// How many actions are pending.
    pub fn len(&self) -> usize {
        lock(&self.stack).len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when something is pending.
    pub fn has_pending(&self) -> bool {
        !self.is_empty()
    }

    /// The count and the `newest` newest actions, read together. Costs
    /// O(`newest`), whatever the size of the stack.
    pub fn summary(&self, newest: usize) -> PendingSummary {
        let stack = lock(&self.stack);
        PendingSummary {
            count: stack.len(),
            newest: stack
                .iter()
                .rev()
                .take(newest)
                .map(|entry| entry.action.view())
                .collect(),
        }
    }

    /// Views of every pending action, newest first. Costs O(n): for a
    /// front end's step, [`summary`](Self::summary).
    pub fn views(&self) -> Vec<PendingActionView> {
        lock(&self.stack)
            .iter()
            .rev()
            .map(|entry| entry.action.view())
            .collect()
    }

    /// Every pending entry, newest first: the actions themselves (shared,
    /// not copied), with their labels, sources and details. Costs O(n).
    pub fn entries(&self) -> Vec<PendingEntry> {
        lock(&self.stack).iter().rev().cloned().collect()
    }

    /// Removes every pending action without applying or rejecting it and
    /// returns them, newest first.
    pub fn clear(&self) -> Vec<PendingEntry> {
        let mut drained: Vec<PendingEntry> = std::mem::take(&mut *lock(&self.stack));
        drained.reverse();
        drained
    }

    /// Calls `listener` after every push until the returned handle drops.
    pub fn subscribe(&self, listener: impl Fn(&PushEvent) + Send + Sync + 'static) -> Subscription {
        let listener: Arc<Listener> = Arc::new(listener);
        let id = lock(&self.listeners).add(listener);
        Subscription::new(&self.listeners, id)
    }
}

impl fmt::Debug for PendingActionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingActionStore")
            .field("pending", &self.summary(3))
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
