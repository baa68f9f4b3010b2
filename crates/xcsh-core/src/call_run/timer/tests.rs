use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use serde_json::json;

use super::CallTimer;
use crate::call_run::watched::watched_call;
use crate::call_run::work_tool::session;
use crate::tool::ToolCall;
use crate::tool::ToolContext;

fn armed(timer: &CallTimer) -> usize {
    xcsh_tool_types::sync::lock(&timer.shared.state).armed.len()
}

#[test]
fn calls_within_the_limit_are_answered_on_their_thread_and_leave_nothing_armed() {
    let (session, _) = session(Some(60_000));
    let timer = CallTimer::new();
    for i in 0..100 {
        let call = ToolCall::new(format!("c{i}"), "work", json!({"ms": 0}));
        let context = ToolContext::new(call.id.clone(), std::env::temp_dir());
        let (run, watch) = watched_call(&session, call, context);
        let (send, answers) = mpsc::channel();
        let here = std::thread::current().id();
        timer.run(run, watch, move |result| {
            send.send((result, std::thread::current().id())).unwrap();
        });
        let (result, thread) = answers.try_recv().expect("answered before run returned");
        assert!(!result.is_error, "{}", result.text());
        assert_eq!(thread, here);
    }
    assert_eq!(armed(&timer), 0);
}

#[test]
fn a_call_past_the_limit_is_answered_once_at_the_limit_from_the_timer() {
    let (session, returned) = session(Some(100));
    let timer = Arc::new(CallTimer::new());
    let call = ToolCall::new("slow", "work", json!({"ms": 1_000, "label": "early"}));
    let context = ToolContext::new("slow", std::env::temp_dir());
    let (run, watch) = watched_call(&session, call, context);
    let answers = Arc::new(AtomicUsize::new(0));
    let (send, answer) = mpsc::channel();
    let started = Instant::now();
    let running = {
        let (timer, answers) = (Arc::clone(&timer), Arc::clone(&answers));
        std::thread::spawn(move || {
            timer.run(run, watch, move |result| {
                answers.fetch_add(1, Ordering::SeqCst);
                send.send(result).unwrap();
            });
        })
    };
    let result = answer.recv_timeout(Duration::from_secs(30)).unwrap();
    let after = started.elapsed();
    assert_eq!(result.text(), "Tool work timed out after 100ms");
    assert!(after >= Duration::from_millis(100), "{after:?}");
    assert!(
        after < Duration::from_millis(900),
        "at the limit: {after:?}"
    );
    assert_eq!(returned.load(Ordering::SeqCst), 0, "the call still runs");
    assert!(session.store().is_empty(), "its push was taken back");
    running.join().unwrap();
    assert_eq!(returned.load(Ordering::SeqCst), 1);
    assert_eq!(answers.load(Ordering::SeqCst), 1, "answered once");
    assert_eq!(armed(&timer), 0);
}

#[test]
fn a_shorter_limit_after_a_longer_one_still_wakes_the_timer() {
    let (long, _) = session(Some(60_000));
    let (short, _) = session(Some(50));
    let timer = CallTimer::new();
    let call = ToolCall::new("a", "work", json!({"ms": 0}));
    let (run, watch) = watched_call(&long, call, ToolContext::new("a", std::env::temp_dir()));
    timer.run(run, watch, drop);
    // The timer now sleeps for a minute; a 50 ms deadline wakes it.
    std::thread::sleep(Duration::from_millis(20));
    let call = ToolCall::new("b", "work", json!({"ms": 2_000}));
    let (run, watch) = watched_call(&short, call, ToolContext::new("b", std::env::temp_dir()));
    let (send, answer) = mpsc::channel();
    let started = Instant::now();
    std::thread::spawn(move || timer.run(run, watch, move |result| send.send(result).unwrap()));
    let result = answer.recv_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(result.text(), "Tool work timed out after 50ms");
    assert!(started.elapsed() < Duration::from_millis(1_500));
}
