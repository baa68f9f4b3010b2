//! What a pack does when its time runs out or its call is cancelled: the
//! harness sets a time limit and cancels calls the way the agent does.

use std::thread;
use std::time::{Duration, Instant};

use xcsh_pack_test::{CancellationToken, PackTest, json};
use xcsh_plugin_api::prelude::*;

#[params]
struct Millis {
    /// How long to take, in milliseconds.
    ms: u64,
}

fn slow(_host: &Host) -> Result<ToolPack, ToolError> {
    let slow_apply = FnTool::new(
        "slow_apply_preview",
        "Slow apply",
        "Pushes an action whose apply takes `ms` milliseconds.",
        |p: Millis, ctx: &ToolContext<'_>| {
            let ms = p.ms;
            ctx.push_pending_action(PendingAction::new("Slow: apply", move |_| {
                thread::sleep(Duration::from_millis(ms));
                Ok(ToolOutput::text("applied slowly"))
            }))?;
            Ok(ToolOutput::text("would apply slowly"))
        },
    )
    .with_hints(ToolHints::PREVIEW);
    let until_cancelled = FnTool::new(
        "until_cancelled",
        "Until cancelled",
        "Works until its call is cancelled, at most `ms` milliseconds.",
        |p: Millis, ctx: &ToolContext<'_>| {
            let deadline = Instant::now() + Duration::from_millis(p.ms);
            while Instant::now() < deadline {
                if ctx.is_cancelled() {
                    return Ok(ToolOutput::text("stopped: cancelled"));
                }
                thread::sleep(Duration::from_millis(5));
            }
            Ok(ToolOutput::text("finished, never cancelled"))
        },
    )
    .with_hints(ToolHints::READ_ONLY);
    Ok(ToolPack::new()
        .with_tool(slow_apply)
        .with_tool(until_cancelled))
}

#[test]
fn an_apply_past_the_time_limit_fails_and_leaves_the_action_pending() {
    let pack = PackTest::new("slow", slow)
        .unwrap()
        .with_time_limit(Duration::from_millis(100));
    let preview = pack.call("slow_apply_preview", json!({"ms": 1500}));
    assert_eq!(preview.text(), "would apply slowly");

    let started = Instant::now();
    let applied = pack.apply("go");
    assert!(started.elapsed() < Duration::from_millis(1000));
    assert!(applied.is_error);
    assert_eq!(applied.text(), "Apply failed: apply timed out after 100ms");
    assert_eq!(pack.pending_labels(), ["Slow: apply"]);
}

#[test]
fn an_apply_within_the_time_limit_applies() {
    let pack = PackTest::new("slow", slow)
        .unwrap()
        .with_time_limit(Duration::from_secs(10));
    pack.call("slow_apply_preview", json!({"ms": 1}));
    assert_eq!(pack.apply("go").text(), "applied slowly");
    assert!(pack.pending_labels().is_empty());
}

#[test]
fn a_call_past_the_time_limit_times_out_and_sees_cancellation() {
    let pack = PackTest::new("slow", slow)
        .unwrap()
        .with_time_limit(Duration::from_millis(100));
    let result = pack.call("until_cancelled", json!({"ms": 5000}));
    assert!(result.is_error);
    assert_eq!(result.text(), "Tool until_cancelled timed out after 100ms");
    // The next call has a flag of its own, not the timed-out one's.
    assert_eq!(
        pack.call("until_cancelled", json!({"ms": 1})).text(),
        "finished, never cancelled"
    );
}

#[test]
fn a_tool_sees_its_call_cancelled_while_it_runs() {
    let pack = PackTest::new("slow", slow).unwrap();
    let cancellation = CancellationToken::new();
    let result = thread::scope(|scope| {
        let canceller = cancellation.clone();
        scope.spawn(move || {
            thread::sleep(Duration::from_millis(50));
            canceller.cancel();
        });
        pack.call_with_cancellation("until_cancelled", json!({"ms": 5000}), &cancellation)
    });
    assert!(!result.is_error, "{}", result.text());
    assert_eq!(result.text(), "stopped: cancelled");
    assert_eq!(
        pack.call("until_cancelled", json!({"ms": 1})).text(),
        "finished, never cancelled"
    );
}
