use std::sync::Arc;

use serde_json::{Value, json};
use xcsh_tool_types::{ToolError, ToolOutput};

use crate::output::ToolResult;
use crate::pending::PendingAction;
use crate::session::{PREVIEW_REMINDER, Session, SessionMessage};
use crate::tool::ToolCall;
use crate::tool::{Tool, ToolContext};
use crate::tool_choice::{ProviderCapabilities, ToolChoice};

/// A preview tool: pushes a pending action labelled by its argument.
struct Preview {
    store: Arc<crate::pending::PendingActionStore>,
    schema: Value,
}

impl Preview {
    fn new(session: &Session) -> Arc<Self> {
        Arc::new(Self {
            store: Arc::clone(session.store()),
            schema: json!({
                "type": "object",
                "properties": {"label": {"type": "string"}},
                "required": ["label"]
            }),
        })
    }
}

impl Tool for Preview {
    fn name(&self) -> &str {
        "preview"
    }
    fn label(&self) -> &str {
        "Preview"
    }
    fn description(&self) -> &str {
        "pushes a pending action"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute(&self, arguments: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let label = arguments["label"].as_str().unwrap().to_owned();
        if label == "panic" {
            panic!("preview bug");
        }
        let action = PendingAction::try_new(label.clone(), |_| Ok(ToolOutput::default()))
            .map_err(|e| ToolError::new(e.to_string()))?;
        self.store.push(action);
        Ok(ToolOutput::text(format!("preview of {label}")))
    }
}

fn preview_call(label: &str) -> ToolCall {
    ToolCall::new("p", "preview", json!({"label": label}))
}

fn session_with_preview() -> Session {
    let session = Session::new(std::env::temp_dir());
    session.register_tool(Preview::new(&session)).unwrap();
    session
}

/// Sibling calls run in order; every call runs, whatever a previous one
/// pushed or returned.
fn execute_all(session: &Session, calls: &[ToolCall]) -> Vec<ToolResult> {
    calls.iter().map(|call| session.execute(call)).collect()
}

fn offered(session: &Session) -> Vec<String> {
    session
        .offered_tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect()
}

fn resolve_choice() -> ToolChoice {
    ToolChoice::Tool {
        name: "resolve".into(),
    }
}

const NAMED: ProviderCapabilities = ProviderCapabilities {
    named_tool_choice: true,
};
const UNNAMED: ProviderCapabilities = ProviderCapabilities {
    named_tool_choice: false,
};

#[test]
fn resolve_is_registered_but_offered_only_while_pending() {
    let session = session_with_preview();
    assert!(session.tools().iter().any(|t| t.name() == "resolve"));
    assert_eq!(offered(&session), ["preview"]);
    session.execute(&preview_call("a"));
    assert_eq!(offered(&session), ["resolve", "preview"]);
    session.execute(&ToolCall::new(
        "r",
        "resolve",
        json!({"action": "apply", "reason": "ok"}),
    ));
    assert_eq!(offered(&session), ["preview"]);
}

#[test]
fn tool_choice_is_forced_to_resolve_while_pending() {
    let session = session_with_preview();
    assert_eq!(session.tool_choice(NAMED), ToolChoice::Auto);
    session.execute(&preview_call("a"));
    assert_eq!(session.tool_choice(NAMED), resolve_choice());
    assert_eq!(session.next_tool_choice(NAMED), resolve_choice());
    assert_eq!(session.tool_choice(UNNAMED), ToolChoice::Required);
    session.store().clear();
    assert_eq!(session.next_tool_choice(NAMED), ToolChoice::Auto);
}

#[test]
fn queued_override_waits_until_the_stack_is_empty() {
    let session = session_with_preview();
    session.execute(&preview_call("a"));
    session.queue_tool_choice(ToolChoice::None);
    assert_eq!(session.next_tool_choice(NAMED), resolve_choice());
    assert_eq!(session.next_tool_choice(NAMED), resolve_choice());
    session.store().clear();
    assert_eq!(
        session.tool_choice(NAMED),
        ToolChoice::None,
        "peek keeps it"
    );
    assert_eq!(session.next_tool_choice(NAMED), ToolChoice::None);
    assert_eq!(
        session.next_tool_choice(NAMED),
        ToolChoice::Auto,
        "used once"
    );
}

#[test]
fn queued_named_override_degrades_for_providers_that_cannot_force() {
    let session = session_with_preview();
    session.queue_tool_choice(ToolChoice::Tool {
        name: "preview".into(),
    });
    assert_eq!(session.next_tool_choice(UNNAMED), ToolChoice::Required);
}

#[test]
fn every_push_queues_one_hidden_reminder() {
    let session = session_with_preview();
    assert!(session.take_messages().is_empty());
    execute_all(&session, &[preview_call("a"), preview_call("b")]);
    let reminder = SessionMessage {
        text: PREVIEW_REMINDER.into(),
        hidden: true,
    };
    assert_eq!(
        session.queued_messages(),
        [reminder.clone(), reminder.clone()]
    );
    assert_eq!(session.take_messages().len(), 2);
    assert!(session.take_messages().is_empty());
    assert_eq!(
        PREVIEW_REMINDER,
        "<system-reminder>\nThis is a preview. Call the `resolve` tool to apply or discard these changes.\n</system-reminder>"
    );
}

#[test]
fn sibling_calls_in_a_batch_still_run_after_a_push() {
    let session = session_with_preview();
    let results = execute_all(
        &session,
        &[
            preview_call("first"),
            ToolCall::new("x", "missing", json!({})),
            preview_call("second"),
        ],
    );
    assert_eq!(results[0].text(), "preview of first");
    assert!(results[1].is_error);
    assert_eq!(results[2].text(), "preview of second");
    assert_eq!(session.store().len(), 2);
    assert_eq!(session.store().peek().unwrap().action().label(), "second");
}

#[test]
fn unknown_tool_is_an_error_result() {
    let session = session_with_preview();
    let result = session.execute(&ToolCall::new("x", "nope", json!({})));
    assert!(result.is_error);
    assert_eq!(result.text(), "Unknown tool: nope");
}

#[test]
fn invalid_arguments_never_reach_the_tool() {
    let session = session_with_preview();
    let result = session.execute(&ToolCall::new("x", "preview", json!({"label": 7})));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Invalid arguments for preview: /label: 7 is not of type \"string\""
    );
    assert!(!session.store().has_pending());
}

#[test]
fn a_panicking_tool_gives_an_error_result_and_the_session_goes_on() {
    let session = session_with_preview();
    session.execute(&preview_call("kept"));
    let result = session.execute(&preview_call("panic"));
    assert!(result.is_error);
    assert_eq!(result.text(), "Tool preview panicked: preview bug");
    assert_eq!(session.store().len(), 1);
    let result = session.execute(&ToolCall::new(
        "r",
        "resolve",
        json!({"action": "apply", "reason": "ok"}),
    ));
    assert_eq!(result.text(), "Applied: kept.");
}

#[test]
fn duplicate_tool_registration_conflicts() {
    let session = session_with_preview();
    let err = session.register_tool(Preview::new(&session)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Tool name \"preview\" conflicts with existing tool"
    );
    let err = session
        .register_tool(Arc::new(crate::resolve::ResolveTool::new(Arc::clone(
            session.store(),
        ))))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Tool name \"resolve\" conflicts with existing tool"
    );
}

#[test]
fn progress_and_cancellation_reach_the_tool() {
    struct Watcher(Value);
    impl Tool for Watcher {
        fn name(&self) -> &str {
            "watch"
        }
        fn label(&self) -> &str {
            "Watch"
        }
        fn description(&self) -> &str {
            "reports progress until cancelled"
        }
        fn parameters(&self) -> &Value {
            &self.0
        }
        fn execute(&self, _: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
            ctx.report_progress(&ToolOutput::text("half way"));
            if ctx.is_cancelled() {
                return Err("cancelled".into());
            }
            Ok(ToolOutput::text(ctx.call_id()))
        }
    }
    let session = Session::new(std::env::temp_dir());
    session
        .register_tool(Arc::new(Watcher(json!({"type": "object"}))))
        .unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let token = crate::cancel::CancellationToken::new();
    let context = ToolContext::new("call-7", session.cwd())
        .with_progress(Arc::new(move |p: &ToolOutput| {
            sink.lock().unwrap().push(p.clone())
        }))
        .with_cancellation(token.clone());
    let call = ToolCall::new("call-7", "watch", json!({}));
    assert_eq!(
        session.execute_with(&call, context.clone()).text(),
        "call-7"
    );
    token.cancel();
    let result = session.execute_with(&call, context);
    assert!(result.is_error);
    assert_eq!(result.text(), "cancelled");
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn tool_choice_serialises_in_provider_shape() {
    assert_eq!(
        serde_json::to_value(ToolChoice::Auto).unwrap(),
        json!({"type": "auto"})
    );
    assert_eq!(
        serde_json::to_value(resolve_choice()).unwrap(),
        json!({"type": "tool", "name": "resolve"})
    );
}

#[test]
fn session_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Session>();
    assert_send_sync::<crate::tool::ToolContext>();
    assert_send_sync::<crate::registry::ToolRegistry>();
}

/// A built-in-style tool that sleeps, then pushes, on its own thread.
struct SlowPreview {
    store: Arc<crate::pending::PendingActionStore>,
    pushed: Arc<std::sync::Mutex<Vec<Result<u64, crate::call::PushRefused>>>>,
    schema: Value,
}

impl Tool for SlowPreview {
    fn name(&self) -> &str {
        "slow_preview"
    }
    fn label(&self) -> &str {
        "Slow preview"
    }
    fn description(&self) -> &str {
        "sleeps `ms`, then pushes"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute(&self, arguments: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let ms = arguments["ms"].as_u64().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let action = PendingAction::try_new("Slow", |_| Ok(ToolOutput::default())).unwrap();
        let pushed = crate::call::push_for_running_call(&self.store, action);
        self.pushed.lock().unwrap().push(pushed);
        Ok(ToolOutput::text("pushed"))
    }
}

#[test]
fn a_built_in_tool_past_the_limit_times_out_and_its_late_push_is_refused() {
    let session = Session::new(std::env::temp_dir()).with_limits(crate::limits::CallLimits {
        time: Some(std::time::Duration::from_millis(100)),
        ..crate::limits::CallLimits::default()
    });
    let pushed = Arc::new(std::sync::Mutex::new(Vec::new()));
    session
        .register_tool(Arc::new(SlowPreview {
            store: Arc::clone(session.store()),
            pushed: Arc::clone(&pushed),
            schema: json!({"type": "object"}),
        }))
        .unwrap();
    let call = |ms: u64| session.execute(&ToolCall::new("s", "slow_preview", json!({"ms": ms})));
    let result = call(400);
    assert!(result.is_error);
    assert_eq!(result.text(), "Tool slow_preview timed out after 100ms");
    // A later call runs while the abandoned one pushes: still refused.
    assert_eq!(call(1).text(), "pushed");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let pushed = pushed.lock().unwrap();
    assert_eq!(pushed.len(), 2);
    assert!(pushed[0].is_ok(), "the call in time pushed");
    assert_eq!(pushed[1], Err(crate::call::PushRefused::NotRunning));
    assert_eq!(
        pushed[1].unwrap_err().to_string(),
        crate::call::PUSH_OUTSIDE_CALL
    );
    assert_eq!(session.store().len(), 1);
}

#[test]
fn a_result_over_the_cap_is_cut_with_the_note() {
    let session = Session::new(std::env::temp_dir()).with_limits(crate::limits::CallLimits {
        time: None,
        result_bytes: Some(10),
    });
    session.register_tool(Preview::new(&session)).unwrap();
    let result = session.execute(&preview_call("a long label here"));
    assert!(!result.is_error);
    assert_eq!(
        result.text(),
        "preview of\n[Result truncated: 28 bytes, over the 10-byte limit]"
    );
}
