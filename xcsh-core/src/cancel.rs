//! Cooperative cancellation of a running tool call.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag the host sets when a call is aborted and the tool polls.
///
/// Clones share the flag.
#[derive(Clone, Debug, Default)]
pub struct CancellationToken(Arc<AtomicBool>);

impl CancellationToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks the call as cancelled.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// True once [`cancel`](Self::cancel) was called on any clone.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}
