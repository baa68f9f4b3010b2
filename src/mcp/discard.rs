//! What happens to pending actions when the client goes away.

use std::panic::{AssertUnwindSafe, catch_unwind};

use xcsh_core::{PendingActionStore, panic_message};

/// The reason every reject gets when a session ends with actions pending.
pub const SESSION_ENDED: &str = "MCP session ended without resolve";

/// Discards every pending action, newest first, through its reject code
/// (nothing is applied), and logs each at warn level:
/// `Discarded pending action "{label}": MCP session ended without resolve`.
/// A reject that fails or panics is logged too; the others still run.
/// Returns how many were discarded.
pub fn discard_pending(store: &PendingActionStore) -> usize {
    let mut discarded = 0;
    while let Some(entry) = store.pop() {
        discarded += 1;
        let action = entry.action();
        let label = action.label();
        match catch_unwind(AssertUnwindSafe(|| action.reject(SESSION_ENDED))) {
            Ok(None | Some(Ok(_))) => {
                tracing::warn!("Discarded pending action \"{label}\": {SESSION_ENDED}");
            }
            Ok(Some(Err(error))) => tracing::warn!(
                "Discarded pending action \"{label}\": {SESSION_ENDED}; its cleanup failed: {error}"
            ),
            Err(payload) => tracing::warn!(
                "Discarded pending action \"{label}\": {SESSION_ENDED}; its cleanup panicked: {}",
                panic_message(&*payload)
            ),
        }
    }
    discarded
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use xcsh_core::{PendingAction, ToolError, ToolOutput};

    use super::*;

    #[test]
    fn every_action_is_rejected_newest_first_and_none_applied() {
        let store = PendingActionStore::new();
        let rejected = Arc::new(std::sync::Mutex::new(Vec::new()));
        let applied = Arc::new(AtomicUsize::new(0));
        for label in ["first", "second", "third"] {
            let (rejected, applied) = (Arc::clone(&rejected), Arc::clone(&applied));
            let action = PendingAction::new(label, move |_| {
                applied.fetch_add(1, Ordering::SeqCst);
                Ok(ToolOutput::default())
            })
            .unwrap()
            .with_reject(move |reason| {
                rejected.lock().unwrap().push(format!("{label}: {reason}"));
                match label {
                    "second" => panic!("cleanup exploded"),
                    "third" => Err(ToolError::new("cleanup failed")),
                    _ => Ok(None),
                }
            });
            store.push(action);
        }
        assert_eq!(discard_pending(&store), 3);
        assert!(store.is_empty());
        assert_eq!(applied.load(Ordering::SeqCst), 0);
        assert_eq!(
            *rejected.lock().unwrap(),
            [
                format!("third: {SESSION_ENDED}"),
                format!("second: {SESSION_ENDED}"),
                format!("first: {SESSION_ENDED}"),
            ]
        );
    }
}
