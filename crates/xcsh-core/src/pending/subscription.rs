//! Push listeners and the handle that keeps one subscribed.

use std::fmt;
use std::sync::{Arc, Mutex, Weak};

use super::PendingActionView;

/// What push listeners are told: the pushed action and the new count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushEvent {
    /// The pushed action's label and source.
    pub action: PendingActionView,
    /// How many actions are pending after the push.
    pub count: usize,
}

pub(crate) type Listener = dyn Fn(&PushEvent) + Send + Sync;

/// The listeners of one store, each with its id.
#[derive(Default)]
pub(crate) struct Listeners {
    next_id: u64,
    entries: Vec<(u64, Arc<Listener>)>,
}

impl Listeners {
    pub(crate) fn add(&mut self, listener: Arc<Listener>) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.entries.push((id, listener));
        id
    }

    pub(crate) fn remove(&mut self, id: u64) {
        self.entries.retain(|(i, _)| *i != id);
    }

    pub(crate) fn snapshot(&self) -> Vec<Arc<Listener>> {
        self.entries.iter().map(|(_, l)| Arc::clone(l)).collect()
    }
}

/// Keeps a push listener subscribed; dropping it (or calling
/// [`unsubscribe`](Self::unsubscribe)) removes the listener.
#[must_use = "the listener is removed when the subscription is dropped"]
pub struct Subscription {
    listeners: Weak<Mutex<Listeners>>,
    id: u64,
}

impl Subscription {
    pub(crate) fn new(listeners: &Arc<Mutex<Listeners>>, id: u64) -> Self {
        Self {
            listeners: Arc::downgrade(listeners),
            id,
        }
    }

    /// Removes the listener now.
    pub fn unsubscribe(self) {}
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(listeners) = self.listeners.upgrade() {
            xcsh_tool_types::sync::lock(&listeners).remove(self.id);
        }
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .finish()
    }
}
