//! Cooperative cancellation of a running tool call.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag the host sets when a call is aborted and the tool polls.
///
/// Clones share the flag. A [`child`](Self::child) has a flag of its own
/// and is also cancelled with its parent: a call's token under a model
/// loop's, so that a call that times out (which cancels its own token)
/// does not end the loop, while Ctrl-C (the loop's token) reaches every
/// call.
#[derive(Clone, Debug, Default)]
pub struct CancellationToken(Arc<Flag>);

/// One token's flag and the flag of the token it was made from.
#[derive(Debug, Default)]
struct Flag {
    cancelled: AtomicBool,
    parent: Option<Arc<Flag>>,
}

impl Flag {
    fn is_set(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
            || self.parent.as_ref().is_some_and(|parent| parent.is_set())
    }
}

impl CancellationToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// A token cancelled when this one is, or on its own: cancelling the
    /// child leaves this token as it was.
    pub fn child(&self) -> Self {
        Self(Arc::new(Flag {
            cancelled: AtomicBool::new(false),
            parent: Some(Arc::clone(&self.0)),
        }))
    }

    /// Marks the call as cancelled.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::Release);
    }

    /// True once [`cancel`](Self::cancel) was called on any clone of this
    /// token or of a token it is a [`child`](Self::child) of.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_set()
    }
}

#[cfg(test)]
mod tests {
    use super::CancellationToken;

    #[test]
    fn a_child_is_cancelled_with_its_parent_and_never_cancels_it() {
        let parent = CancellationToken::new();
        let (one, two) = (parent.child(), parent.child());
        one.cancel();
        assert!(one.is_cancelled());
        assert!(!parent.is_cancelled(), "a child's cancel stays its own");
        assert!(!two.is_cancelled(), "siblings do not share a flag");
        parent.cancel();
        assert!(two.is_cancelled());
        assert!(parent.child().child().is_cancelled());
    }
}
