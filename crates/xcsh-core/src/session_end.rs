//! What happens to pending actions when a session ends: the same for every
//! front end.

use crate::approval::JournalEvent;
use crate::session::Session;

/// The reason every reject gets when a session ends with actions pending.
pub const SESSION_ENDED: &str = "session ended without resolve";

impl Session {
    /// Ends the session: discards every pending action, newest first,
    /// through its reject code (nothing is ever applied without `resolve`),
    /// and logs each at warn level:
    /// `Discarded pending action "{label}": session ended without resolve`;
    /// then has the journal flush what it holds back ([`Journal::flush`](crate::Journal::flush)).
    /// A reject that fails, panics or runs past the session's time limit is
    /// logged too (`…; its cleanup failed: {message}`) and the others still
    /// run. What a reject returns is dropped: nobody
    /// is left to read it.
    ///
    /// Every front end (`xcsh run`, `repl`, `mcp`) calls this when its
    /// session ends, and dropping a session does too, so a session always
    /// ends the same way. Returns how many actions were discarded; a second
    /// call finds nothing.
    pub fn end(&self) -> usize {
        let mut discarded = 0;
        while let Some(entry) = self.store().pop() {
            discarded += 1;
            let label = entry.action().label();
            let approvals = self.approvals();
            let mut record = approvals.entry(JournalEvent::Resolve, &entry, "discarded");
            record.action = Some("discard".to_owned());
            record.reason = Some(SESSION_ENDED.to_owned());
            record.decided_by = Some("session end".to_owned());
            match self.run_reject(&entry, SESSION_ENDED) {
                Ok(_) => tracing::warn!("Discarded pending action \"{label}\": {SESSION_ENDED}"),
                Err(message) => {
                    tracing::warn!(
                        "Discarded pending action \"{label}\": {SESSION_ENDED}; its cleanup failed: {message}"
                    );
                    record.error = Some(format!("Discard cleanup failed: {message}"));
                }
            }
            approvals.record(record);
            approvals.forget(entry.id());
        }
        self.approvals().flush_journal();
        discarded
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use xcsh_tool_types::{ToolError, ToolOutput};

    use super::*;
    use crate::limits::CallLimits;
    use crate::pending::PendingAction;

    fn push_three(session: &Session) -> (Arc<Mutex<Vec<String>>>, Arc<AtomicUsize>) {
        let rejected = Arc::new(Mutex::new(Vec::new()));
        let applied = Arc::new(AtomicUsize::new(0));
        for label in ["first", "second", "third"] {
            let (rejected, applied) = (Arc::clone(&rejected), Arc::clone(&applied));
            let action = PendingAction::try_new(label, move |_| {
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
            session.store().push(action);
        }
        (rejected, applied)
    }

    #[test]
    fn every_action_is_rejected_newest_first_and_none_applied() {
        let session = Session::new(".");
        let (rejected, applied) = push_three(&session);
        assert_eq!(session.end(), 3);
        assert!(session.store().is_empty());
        assert_eq!(applied.load(Ordering::SeqCst), 0);
        assert_eq!(
            *rejected.lock().unwrap(),
            [
                format!("third: {SESSION_ENDED}"),
                format!("second: {SESSION_ENDED}"),
                format!("first: {SESSION_ENDED}"),
            ]
        );
        assert_eq!(session.end(), 0, "a second end finds nothing");
    }

    #[test]
    fn dropping_a_session_ends_it() {
        let session = Session::new(".");
        let (rejected, applied) = push_three(&session);
        drop(session);
        assert_eq!(rejected.lock().unwrap().len(), 3);
        assert_eq!(applied.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_reject_that_never_returns_is_abandoned_at_the_time_limit() {
        let session = Session::new(std::env::temp_dir()).with_limits(CallLimits {
            time: Some(std::time::Duration::from_millis(100)),
            ..CallLimits::default()
        });
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Mutex::new(wait);
        let action = PendingAction::try_new("Stuck", |_| Ok(ToolOutput::default()))
            .unwrap()
            .with_reject(move |_| {
                let _ = wait.lock().unwrap().recv();
                Ok(None)
            });
        session.store().push(action);
        let started = std::time::Instant::now();
        assert_eq!(session.end(), 1);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert!(session.store().is_empty());
        drop(release);
    }
}
