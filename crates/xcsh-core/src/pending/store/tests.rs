use std::sync::{Arc, Mutex};
use std::thread;

use xcsh_tool_types::ToolOutput;

use super::*;

fn action(label: &str) -> PendingAction {
    PendingAction::try_new(label, |_| Ok(ToolOutput::default())).unwrap()
}

fn labels(store: &PendingActionStore) -> Vec<String> {
    store.views().into_iter().map(|v| v.label).collect()
}

#[test]
fn pops_newest_first_over_several_pushes() {
    let store = PendingActionStore::new();
    for label in ["one", "two", "three"] {
        store.push(action(label));
    }
    assert_eq!(store.len(), 3);
    assert_eq!(store.peek().unwrap().action().label(), "three");
    assert_eq!(store.len(), 3, "peek leaves the action in place");
    let popped: Vec<String> = std::iter::from_fn(|| store.pop())
        .map(|e| e.action().label().to_owned())
        .collect();
    assert_eq!(popped, ["three", "two", "one"]);
    assert!(!store.has_pending());
    assert!(store.pop().is_none());
    assert!(store.peek().is_none());
}

#[test]
fn clear_empties_the_stack_and_returns_newest_first() {
    let store = PendingActionStore::new();
    store.push(action("a"));
    store.push(action("b"));
    let cleared: Vec<String> = store
        .clear()
        .iter()
        .map(|e| e.action().label().to_owned())
        .collect();
    assert_eq!(cleared, ["b", "a"]);
    assert!(store.is_empty());
}

#[test]
fn remove_takes_a_specific_entry() {
    let store = PendingActionStore::new();
    let first = store.push(action("a"));
    store.push(action("b"));
    assert_eq!(store.remove(first).unwrap().action().label(), "a");
    assert!(store.remove(first).is_none());
    assert_eq!(labels(&store), ["b"]);
}

#[test]
fn listeners_hear_each_push_with_the_new_count() {
    let store = PendingActionStore::new();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&heard);
    let _subscription = store.subscribe(move |event| sink.lock().unwrap().push(event.clone()));
    store.push(action("a").with_source_tool_name("ast_edit"));
    store.push(action("b"));
    let heard = heard.lock().unwrap();
    assert_eq!(
        *heard,
        [
            PushEvent {
                action: PendingActionView {
                    label: "a".into(),
                    source_tool_name: "ast_edit".into()
                },
                count: 1
            },
            PushEvent {
                action: PendingActionView {
                    label: "b".into(),
                    source_tool_name: "custom_tool".into()
                },
                count: 2
            },
        ]
    );
}

#[test]
fn dropping_or_unsubscribing_stops_notifications() {
    let store = PendingActionStore::new();
    let count = Arc::new(Mutex::new(0));
    let (a, b) = (Arc::clone(&count), Arc::clone(&count));
    let dropped = store.subscribe(move |_| *a.lock().unwrap() += 1);
    let explicit = store.subscribe(move |_| *b.lock().unwrap() += 10);
    store.push(action("x"));
    assert_eq!(*count.lock().unwrap(), 11);
    drop(dropped);
    store.push(action("y"));
    assert_eq!(*count.lock().unwrap(), 21);
    explicit.unsubscribe();
    store.push(action("z"));
    assert_eq!(*count.lock().unwrap(), 21);
}

#[test]
fn a_panicking_listener_does_not_undo_the_push_or_starve_others() {
    let store = PendingActionStore::new();
    let heard = Arc::new(Mutex::new(0));
    let sink = Arc::clone(&heard);
    let _bad = store.subscribe(|_| panic!("listener bug"));
    let _good = store.subscribe(move |_| *sink.lock().unwrap() += 1);
    store.push(action("x"));
    assert_eq!(store.len(), 1);
    assert_eq!(*heard.lock().unwrap(), 1);
}

#[test]
fn a_listener_may_read_the_store() {
    let store = Arc::new(PendingActionStore::new());
    let seen = Arc::new(Mutex::new(None));
    let (inner, sink) = (Arc::downgrade(&store), Arc::clone(&seen));
    let _s = store.subscribe(move |_| {
        let store = inner.upgrade().unwrap();
        *sink.lock().unwrap() = Some(store.len());
    });
    store.push(action("x"));
    assert_eq!(*seen.lock().unwrap(), Some(1));
}

#[test]
fn concurrent_pushes_lose_nothing() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 500;
    let store = Arc::new(PendingActionStore::new());
    let notified = Arc::new(Mutex::new(0usize));
    let sink = Arc::clone(&notified);
    let _s = store.subscribe(move |_| *sink.lock().unwrap() += 1);
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let store = Arc::clone(&store);
            thread::spawn(move || {
                for i in 0..PER_THREAD {
                    store.push(action(&format!("{t}-{i}")));
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(store.len(), THREADS * PER_THREAD);
    assert_eq!(*notified.lock().unwrap(), THREADS * PER_THREAD);
    let mut all = labels(&store);
    all.sort();
    all.dedup();
    assert_eq!(all.len(), THREADS * PER_THREAD, "every push is distinct");
    // Each thread's own pushes keep their order (newest first in the view).
    for t in 0..THREADS {
        let mine: Vec<usize> = labels(&store)
            .iter()
            .filter_map(|l| l.strip_prefix(&format!("{t}-"))?.parse().ok())
            .collect();
        assert!(mine.windows(2).all(|w| w[0] > w[1]), "thread {t} order");
    }
}

#[test]
fn store_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<PendingActionStore>();
    assert_send_sync::<PendingAction>();
    assert_send_sync::<PendingEntry>();
    assert_send_sync::<Subscription>();
}

#[test]
fn entries_are_newest_first_with_details_and_leave_the_stack_alone() {
    let store = PendingActionStore::new();
    store.push(action("one").with_details(serde_json::json!({"n": 1})));
    store.push(action("two").with_source_tool_name("two_preview"));
    let entries = store.entries();
    let seen: Vec<(&str, &str, Option<&serde_json::Value>)> = entries
        .iter()
        .map(|e| {
            let a = e.action();
            (a.label(), a.source_tool_name(), a.details())
        })
        .collect();
    let one = serde_json::json!({"n": 1});
    assert_eq!(
        seen,
        [
            ("two", "two_preview", None),
            ("one", "custom_tool", Some(&one))
        ]
    );
    assert_eq!(store.len(), 2);
    assert_eq!(store.peek().unwrap().id(), entries[0].id());
}
