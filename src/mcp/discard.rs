//! What happens to pending actions when the client goes away.

use xcsh_core::Session;

/// The reason every reject gets when a session ends with actions pending.
pub const SESSION_ENDED: &str = "MCP session ended without resolve";

/// Discards every pending action, newest first, through its reject code
/// (nothing is applied), and logs each at warn level:
/// `Discarded pending action "{label}": MCP session ended without resolve`.
/// A reject that fails, panics or runs past the session's time limit is
/// logged too (`…; its cleanup failed: {message}`); the others still run.
/// Returns how many were discarded.
pub fn discard_pending(session: &Session) -> usize {
    let mut discarded = 0;
    while let Some(entry) = session.store().pop() {
        discarded += 1;
        let label = entry.action().label();
        match session.run_reject(&entry, SESSION_ENDED) {
            Ok(_) => tracing::warn!("Discarded pending action \"{label}\": {SESSION_ENDED}"),
            Err(message) => tracing::warn!(
                "Discarded pending action \"{label}\": {SESSION_ENDED}; its cleanup failed: {message}"
            ),
        }
    }
    discarded
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use xcsh_core::{CallLimits, PendingAction, ToolError, ToolOutput};

    use super::*;

    #[test]
    fn a_reject_that_never_returns_is_abandoned_at_the_time_limit() {
        let session = Session::new(std::env::temp_dir()).with_limits(CallLimits {
            time: Some(std::time::Duration::from_millis(100)),
            ..CallLimits::default()
        });
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = std::sync::Mutex::new(wait);
        let action = PendingAction::new("Stuck", |_| Ok(ToolOutput::default()))
            .unwrap()
            .with_reject(move |_| {
                let _ = wait.lock().unwrap().recv();
                Ok(None)
            });
        session.store().push(action);
        let started = std::time::Instant::now();
        assert_eq!(discard_pending(&session), 1);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert!(session.store().is_empty());
        drop(release);
    }

    #[test]
    fn every_action_is_rejected_newest_first_and_none_applied() {
        let session = Session::new(std::env::temp_dir());
        let store = session.store();
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
        assert_eq!(discard_pending(&session), 3);
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
