//! Several sessions in one process, pack tools run from several threads:
//! every push lands in the store of the session that owns the tool.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::thread;

use serde_json::json;
use tempfile::TempDir;
use xcsh_core::{Session, ToolCall};
use xcsh_test_support::pack_path;

const SESSIONS: usize = 4;
const THREADS_PER_SESSION: usize = 3;
const CALLS_PER_THREAD: usize = 150;

#[test]
fn pushes_from_many_threads_land_in_their_own_session() {
    let dir = TempDir::new().unwrap();
    let sessions: Vec<Arc<Session>> = (0..SESSIONS)
        .map(|_| {
            let session = Arc::new(Session::new(dir.path()));
            let report = xcsh_loader::load_packs(&session, &[pack_path("fixture-hostile")]);
            assert!(report.is_clean(), "{:?}", report.problems());
            session
        })
        .collect();

    let workers: Vec<_> = sessions
        .iter()
        .enumerate()
        .flat_map(|(s, session)| (0..THREADS_PER_SESSION).map(move |t| (s, t, Arc::clone(session))))
        .map(|(s, t, session)| {
            thread::spawn(move || {
                for i in 0..CALLS_PER_THREAD {
                    let tag = format!("s{s}-t{t}-{i}");
                    let result = session.execute(&ToolCall::new(
                        tag.clone(),
                        "push_marker",
                        json!({"tag": tag}),
                    ));
                    assert!(!result.is_error, "{}", result.text());
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }

    for (s, session) in sessions.iter().enumerate() {
        let labels: BTreeSet<String> = session
            .store()
            .views()
            .into_iter()
            .map(|v| v.label)
            .collect();
        let expected: BTreeSet<String> = (0..THREADS_PER_SESSION)
            .flat_map(|t| (0..CALLS_PER_THREAD).map(move |i| format!("Marker: s{s}-t{t}-{i}")))
            .collect();
        assert_eq!(labels, expected, "session {s} holds exactly its own pushes");
        assert_eq!(
            session.store().len(),
            THREADS_PER_SESSION * CALLS_PER_THREAD
        );
        assert_eq!(
            session.take_messages().len(),
            THREADS_PER_SESSION * CALLS_PER_THREAD,
            "one reminder per push"
        );
    }

    // Resolving from several threads at once applies each action once.
    let session = Arc::clone(&sessions[0]);
    let resolvers: Vec<_> = (0..THREADS_PER_SESSION)
        .map(|_| {
            let session = Arc::clone(&session);
            thread::spawn(move || {
                let mut applied = Vec::new();
                loop {
                    let result = session.execute(&ToolCall::new(
                        "r",
                        "resolve",
                        json!({"action": "apply", "reason": "drain"}),
                    ));
                    if result.is_error {
                        assert_eq!(
                            result.text(),
                            "No pending action to resolve. Nothing to apply or discard."
                        );
                        return applied;
                    }
                    applied.push(result.text());
                }
            })
        })
        .collect();
    let mut applied: Vec<String> = resolvers
        .into_iter()
        .flat_map(|r| r.join().unwrap())
        .collect();
    let total = applied.len();
    applied.sort();
    applied.dedup();
    assert_eq!(total, THREADS_PER_SESSION * CALLS_PER_THREAD);
    assert_eq!(applied.len(), total, "no action applied twice");
}
