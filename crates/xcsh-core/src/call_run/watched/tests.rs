use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};

use super::watched_call;
use crate::call_run::work_tool::session;
use crate::tool::ToolCall;
use crate::tool::ToolContext;

fn call(arguments: Value) -> (ToolCall, ToolContext) {
    let call = ToolCall::new("w1", "work", arguments);
    let context = ToolContext::new("w1", std::env::temp_dir());
    (call, context)
}

#[test]
fn a_call_within_the_limit_gives_its_result_and_keeps_its_push() {
    let (session, returned) = session(Some(5_000));
    let (call, context) = call(json!({"ms": 0, "label": "kept"}));
    let (run, watch) = watched_call(&session, call, context);
    assert_eq!(watch.limit(), Some(Duration::from_secs(5)));
    let result = std::thread::spawn(move || run.run())
        .join()
        .unwrap()
        .unwrap();
    assert!(!result.is_error, "{}", result.text());
    assert!(
        result.text().ends_with("cancelled=false"),
        "{}",
        result.text()
    );
    assert!(watch.expire().is_none());
    assert_eq!(session.store().len(), 1);
    assert_eq!(returned.load(Ordering::SeqCst), 1);
}

#[test]
fn an_expired_call_answers_at_once_and_what_it_pushed_is_taken_back() {
    let (session, returned) = session(Some(5_000));
    let (call, context) = call(json!({"ms": 300, "label": "early"}));
    let cancellation = context.cancellation().clone();
    let (run, watch) = watched_call(&session, call, context);
    let running = std::thread::spawn(move || run.run());
    while session.store().is_empty() {
        std::thread::yield_now();
    }
    let result = watch.expire().expect("the call was running");
    assert!(result.is_error);
    assert_eq!(result.text(), "Tool work timed out after 5s");
    assert!(cancellation.is_cancelled());
    assert!(session.store().is_empty());
    assert_eq!(
        returned.load(Ordering::SeqCst),
        0,
        "answered before the call returned"
    );
    assert!(
        running.join().unwrap().is_none(),
        "the late result is dropped"
    );
    assert!(watch.expire().is_none(), "expired once");
}

#[test]
fn a_push_after_the_expiry_is_refused() {
    let (session, returned) = session(Some(5_000));
    let (call, context) = call(json!({"ms": 200, "label": "late"}));
    let (run, watch) = watched_call(&session, call, context);
    let running = std::thread::spawn(move || run.run());
    std::thread::sleep(Duration::from_millis(50));
    assert!(watch.expire().is_some());
    assert!(running.join().unwrap().is_none());
    assert_eq!(returned.load(Ordering::SeqCst), 1);
    assert!(session.store().is_empty(), "the late push stayed out");
}

#[test]
fn a_call_expired_before_it_ran_never_runs() {
    let (session, returned) = session(Some(5_000));
    let (call, context) = call(json!({"ms": 0, "label": "never"}));
    let (run, watch) = watched_call(&session, call, context);
    assert_eq!(
        watch.expire().map(|result| result.text()).as_deref(),
        Some("Tool work timed out after 5s")
    );
    assert!(run.run().is_none());
    assert_eq!(returned.load(Ordering::SeqCst), 0);
    assert!(session.store().is_empty());
}

#[test]
fn a_panic_is_an_error_result() {
    let (session, _) = session(Some(5_000));
    let (call, context) = call(json!({"label": "panic"}));
    let (run, _watch) = watched_call(&session, call, context);
    let result = run.run().unwrap();
    assert!(result.is_error);
    assert_eq!(result.text(), "Tool work panicked: work bug");
}

#[test]
fn without_a_limit_or_for_resolve_the_watch_keeps_away() {
    let (unlimited, _) = session(None);
    let (call, context) = call(json!({"ms": 0}));
    let (run, watch) = watched_call(&unlimited, call, context);
    assert_eq!(watch.limit(), None);
    assert!(watch.expire().is_none());
    assert!(run.run().is_some());

    let (session, _) = session(Some(5_000));
    let call = ToolCall::new("r1", "resolve", json!({"action": "apply", "reason": "r"}));
    let context = ToolContext::new("r1", std::env::temp_dir());
    let (run, watch) = watched_call(&session, call, context);
    let result = run.run().unwrap();
    assert_eq!(
        result.text(),
        "No pending action to resolve. Nothing to apply or discard."
    );
    assert!(watch.expire().is_none());
}

#[test]
fn an_unknown_tool_is_refused_by_the_run() {
    let (session, _) = session(Some(5_000));
    let call = ToolCall::new("u1", "missing", json!({}));
    let context = ToolContext::new("u1", std::env::temp_dir());
    let (run, watch) = watched_call(&session, call, context);
    assert_eq!(run.run().unwrap().text(), "Unknown tool: missing");
    assert!(watch.expire().is_none());
}
