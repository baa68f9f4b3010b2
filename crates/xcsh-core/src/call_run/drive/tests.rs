use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Turns, drive};
use crate::call_run::work_tool::session;
use crate::output::ToolResult;
use crate::session::Session;
use crate::tool::ToolCall;
use crate::tool::ToolContext;

/// Calls in order; records each result, the pending count after it, and
/// the thread that took it.
#[derive(Default)]
struct Script {
    calls: VecDeque<ToolCall>,
    contexts: Vec<ToolContext>,
    results: Vec<(ToolResult, usize)>,
    threads: Vec<ThreadId>,
    panic_after: Option<usize>,
}

impl Script {
    fn of(calls: Vec<Value>) -> Self {
        Self {
            calls: calls
                .into_iter()
                .enumerate()
                .map(|(i, call)| {
                    let name = call["tool"].as_str().unwrap_or("work").to_owned();
                    ToolCall::new(format!("c{i}"), name, call["args"].clone())
                })
                .collect(),
            ..Self::default()
        }
    }

    fn texts(&self) -> Vec<String> {
        self.results.iter().map(|(r, _)| r.text()).collect()
    }
}

impl Turns for Script {
    fn next_call(&mut self, session: &Session) -> Option<(ToolCall, ToolContext)> {
        if self.panic_after == Some(self.results.len()) {
            panic!("front end bug");
        }
        let call = self.calls.pop_front()?;
        let context = ToolContext::new(call.id.clone(), session.cwd().to_path_buf());
        self.contexts.push(context.clone());
        Some((call, context))
    }

    fn take_result(&mut self, session: &Session, result: ToolResult) {
        self.threads.push(std::thread::current().id());
        self.results.push((result, session.store().len()));
    }
}

fn work(args: Value) -> Value {
    json!({"args": args})
}

#[test]
fn without_a_limit_every_call_runs_on_the_callers_thread() {
    let (session, _) = session(None);
    let script = drive(&session, Script::of(vec![work(json!({})), work(json!({}))]));
    let here = format!("{:?} cancelled=false", std::thread::current().id());
    assert_eq!(script.texts(), [here.clone(), here]);
}

#[test]
fn under_a_limit_the_loop_and_its_calls_share_one_session_thread() {
    let (session, _) = session(Some(5_000));
    let script = drive(
        &session,
        Script::of(vec![work(json!({})), work(json!({})), work(json!({}))]),
    );
    let texts = script.texts();
    assert_eq!(texts[0], texts[1]);
    assert_eq!(texts[1], texts[2]);
    assert!(texts[0].ends_with("cancelled=false"), "{texts:?}");
    let caller = format!("{:?}", std::thread::current().id());
    assert!(!texts[0].starts_with(&format!("{caller} ")), "{texts:?}");
    assert_eq!(
        format!("{:?} cancelled=false", script.threads[0]),
        texts[0],
        "the front end runs on the thread that runs the calls"
    );
}

#[test]
fn refused_and_panicking_calls_give_the_results_execute_gives() {
    let (session, _) = session(Some(5_000));
    let script = drive(
        &session,
        Script::of(vec![
            json!({"tool": "nope", "args": {}}),
            work(json!({"ms": "soon"})),
            work(json!({"label": "panic"})),
            work(json!({})),
        ]),
    );
    let texts = script.texts();
    assert_eq!(texts[0], "Unknown tool: nope");
    assert!(texts[1].contains("ms"), "{}", texts[1]);
    assert!(script.results[1].0.is_error);
    assert_eq!(texts[2], "Tool work panicked: work bug");
    assert!(texts[3].ends_with("cancelled=false"));
}

#[test]
fn a_call_past_the_limit_times_out_its_pushes_are_taken_back_and_the_drive_goes_on() {
    let (session, returned) = session(Some(300));
    let started = Instant::now();
    let script = drive(
        &session,
        Script::of(vec![
            work(json!({})),
            work(json!({"label": "early", "ms": 600})),
            // Running when the stuck call returns: its late disarm must not
            // take these calls' place.
            work(json!({"ms": 200})),
            work(json!({"ms": 200})),
            work(json!({"label": "kept"})),
        ]),
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let texts = script.texts();
    assert_eq!(texts[1], "Tool work timed out after 300ms");
    assert_eq!(script.results[1].1, 0, "the early push was taken back");
    assert!(script.contexts[1].cancellation().is_cancelled());
    for text in [&texts[0], &texts[2], &texts[3], &texts[4]] {
        assert!(text.ends_with("cancelled=false"), "{texts:?}");
    }
    assert_ne!(texts[0], texts[2], "a fresh thread goes on after a timeout");
    assert_eq!(texts[2], texts[4]);
    assert_eq!(script.results[4].1, 1, "a later call's push is kept");
    assert_eq!(
        session
            .preview(session.store().peek().unwrap().id())
            .as_deref(),
        Some(texts[4].as_str())
    );
    assert_eq!(
        script.results.len(),
        5,
        "the stuck call's late result is dropped"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while returned.load(Ordering::SeqCst) < 5 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        returned.load(Ordering::SeqCst),
        5,
        "the stuck call returned"
    );
    assert_eq!(session.store().len(), 1);
}

#[test]
fn the_stuck_calls_late_push_is_refused() {
    let (session, returned) = session(Some(50));
    let script = drive(
        &session,
        Script::of(vec![work(json!({"label": "late", "ms": 200}))]),
    );
    assert_eq!(script.texts(), ["Tool work timed out after 50ms"]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while returned.load(Ordering::SeqCst) < 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(returned.load(Ordering::SeqCst), 1);
    assert!(session.store().is_empty(), "the late push was refused");
}

#[test]
fn resolve_in_a_drive_applies_what_an_earlier_call_pushed() {
    let (session, _) = session(Some(5_000));
    let script = drive(
        &session,
        Script::of(vec![
            work(json!({"label": "rename"})),
            json!({"tool": "resolve", "args": {"action": "apply", "reason": "ok"}}),
        ]),
    );
    assert_eq!(script.results[0].1, 1);
    assert_eq!(script.texts()[1], "applied");
    assert_eq!(script.results[1].1, 0);
}

#[test]
fn a_panic_in_the_front_end_reaches_the_caller() {
    let (session, _) = session(Some(5_000));
    let mut script = Script::of(vec![work(json!({})), work(json!({}))]);
    script.panic_after = Some(1);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        drive(&session, script);
    }));
    let payload = caught.expect_err("the panic was resumed");
    assert_eq!(xcsh_tool_types::panic_message(&*payload), "front end bug");
}
