use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use xcsh_core::{
    CancellationToken, PendingAction, ProviderCapabilities, RESOLVE_TOOL_NAME, Session, ToolCall,
    ToolChoice, ToolOutput,
};

use crate::ladder::{FirstSteer, Rung};
use crate::{
    Bounds, Conversation, EndReason, Event, Message, ModelError, ModelLoop, Provider, Reply,
    Request, Usage,
};

/// A provider that answers from a list, in order (then with text only),
/// keeping each request's choice and conversation.
#[derive(Default)]
struct Sequence {
    answers: Mutex<VecDeque<Result<Reply, ModelError>>>,
    sent: Mutex<Vec<(ToolChoice, Conversation)>>,
}

impl Sequence {
    fn new(answers: Vec<Result<Reply, ModelError>>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into()),
            sent: Mutex::default(),
        })
    }

    fn choices(&self) -> Vec<ToolChoice> {
        self.sent
            .lock()
            .unwrap()
            .iter()
            .map(|(c, _)| c.clone())
            .collect()
    }
}

impl Provider for Sequence {
    fn api(&self) -> &'static str {
        "sequence"
    }

    fn complete(
        &self,
        request: &Request<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Reply, ModelError> {
        self.sent
            .lock()
            .unwrap()
            .push((request.choice.clone(), request.conversation.clone()));
        self.answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| Ok(text("done")))
    }
}

fn text(text: &str) -> Reply {
    Reply {
        text: text.into(),
        calls: Vec::new(),
        usage: Usage {
            input: 10,
            output: 1,
            estimated: false,
        },
    }
}

fn calls(calls: Vec<ToolCall>) -> Reply {
    Reply { calls, ..text("") }
}

fn resolve(id: &str) -> ToolCall {
    ToolCall::new(
        id,
        RESOLVE_TOOL_NAME,
        json!({"action": "apply", "reason": "fine"}),
    )
}

fn status(status: u16, message: &str) -> ModelError {
    ModelError::Status {
        status,
        message: message.into(),
        retry_after: None,
    }
}

fn forced() -> ToolChoice {
    ToolChoice::Tool {
        name: RESOLVE_TOOL_NAME.to_owned(),
    }
}

fn pending_session() -> Arc<Session> {
    let session = Arc::new(Session::new(std::env::temp_dir()));
    session
        .store()
        .push(PendingAction::new("Rename 2 files", |_| {
            Ok(ToolOutput::text("renamed"))
        }));
    session
}

/// Every event, as owned text.
#[derive(Default)]
struct Events(Vec<String>);

impl crate::Observer for Events {
    fn observe(&mut self, event: Event<'_>) {
        self.0.push(match event {
            Event::Ladder { step } => format!("ladder: {step}"),
            Event::Retry {
                attempt,
                attempts,
                delay,
                error,
            } => format!("retry {attempt} of {attempts} in {delay:?}: {error}"),
            Event::NotRun { call, message } => format!("not run {}: {message}", call.id),
            Event::Call { call, result } => format!("call {}: {}", call.id, result.text()),
            Event::Request { .. } | Event::Text { .. } => return,
        });
    }
}

fn quick() -> Bounds {
    Bounds {
        retry_delay: Duration::from_millis(10),
        ..Bounds::default()
    }
}

fn run(
    session: &Arc<Session>,
    provider: &Arc<Sequence>,
    bounds: Bounds,
    first: FirstSteer,
) -> (crate::Outcome, Vec<String>, ModelLoop) {
    let mut model_loop = ModelLoop::new(
        Arc::clone(session),
        Arc::clone(provider) as Arc<dyn Provider>,
        ProviderCapabilities::default(),
        bounds,
    )
    .first_steer(first);
    let (outcome, Events(events)) =
        model_loop.run(&mut Conversation::new(None, "task"), Events::default());
    (outcome, events, model_loop)
}

#[test]
fn a_refusal_that_names_the_tool_choice_steps_down_at_once_and_is_remembered() {
    let session = pending_session();
    let provider = Sequence::new(vec![
        Err(status(400, "tool_choice of type function is not supported")),
        Ok(calls(vec![resolve("r")])),
    ]);
    let (outcome, events, model_loop) = run(&session, &provider, quick(), FirstSteer::Force);
    assert_eq!(provider.choices()[..2], [forced(), ToolChoice::Required]);
    assert_eq!(
        events[0],
        "ladder: tool choice named resolve refused by the provider (HTTP 400, its error names the tool choice); next: required (resolve only) (remembered for this session)"
    );
    assert_eq!(events[1], "call r: renamed");
    assert_eq!(outcome.reason, EndReason::Finished);
    assert_eq!(model_loop.ladder().start(), Rung::Required);
}

#[test]
fn an_error_that_may_be_a_refusal_is_one_once_the_request_goes_through_without_it() {
    let session = pending_session();
    let provider = Sequence::new(vec![
        Err(status(500, "Internal Server Error")),
        Ok(calls(vec![resolve("r")])),
    ]);
    let (outcome, events, model_loop) = run(&session, &provider, quick(), FirstSteer::Force);
    assert_eq!(provider.choices()[..2], [forced(), ToolChoice::Required]);
    assert_eq!(
        events[0],
        "ladder: tool choice named resolve refused by the provider (HTTP 500, the request went through without it); next: required (resolve only) (remembered for this session)"
    );
    assert_eq!(outcome.reason, EndReason::Finished, "{events:?}");
    assert_eq!(model_loop.ladder().start(), Rung::Required);
}

#[test]
fn transient_failures_are_retried_and_each_retry_is_reported() {
    let session = Arc::new(Session::new(std::env::temp_dir()));
    let provider = Sequence::new(vec![
        Err(status(503, "overloaded")),
        Err(status(429, "slow down")),
        Ok(text("hello")),
    ]);
    let (outcome, events, _) = run(&session, &provider, quick(), FirstSteer::Force);
    assert_eq!(
        events,
        [
            "retry 2 of 3 in 10ms: the model server answered HTTP 503: overloaded",
            "retry 3 of 3 in 20ms: the model server answered HTTP 429: slow down",
        ]
    );
    assert_eq!(outcome.reason, EndReason::Finished);
    // A retried request is not another turn.
    assert_eq!(outcome.turns, 1);

    let provider = Sequence::new(vec![
        Err(status(503, "overloaded")),
        Err(status(503, "overloaded")),
        Err(status(503, "still overloaded")),
    ]);
    let (outcome, events, _) = run(&session, &provider, quick(), FirstSteer::Force);
    assert_eq!(events.len(), 2);
    assert_eq!(
        outcome.message,
        "model request failed: the model server answered HTTP 503: still overloaded (after 3 attempts)"
    );
    // Not transient: never retried.
    let provider = Sequence::new(vec![Err(status(500, "boom"))]);
    let (outcome, events, _) = run(&session, &provider, quick(), FirstSteer::Force);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(
        outcome.message,
        "model request failed: the model server answered HTTP 500: boom"
    );
}

#[test]
fn a_retry_that_would_pass_the_time_limit_is_not_made() {
    let session = Arc::new(Session::new(std::env::temp_dir()));
    let provider = Sequence::new(vec![Err(ModelError::Status {
        status: 503,
        message: "overloaded".into(),
        retry_after: Some(Duration::from_secs(120)),
    })]);
    let bounds = Bounds {
        time: Some(Duration::from_secs(60)),
        ..quick()
    };
    let started = std::time::Instant::now();
    let (outcome, events, _) = run(&session, &provider, bounds, FirstSteer::Force);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(
        outcome.message,
        "model request failed: the model server answered HTTP 503: overloaded"
    );
}

#[test]
fn calls_past_the_per_answer_limit_are_refused_back_to_the_model_not_run() {
    let session = pending_session();
    let provider = Sequence::new(vec![Ok(calls(vec![
        resolve("r1"),
        resolve("r2"),
        resolve("r3"),
    ]))]);
    let bounds = Bounds {
        calls_per_answer: 2,
        ..quick()
    };
    let (outcome, events, _) = run(&session, &provider, bounds, FirstSteer::Force);
    assert_eq!(
        events,
        [
            "call r1: renamed",
            "call r2: No pending action to resolve. Nothing to apply or discard.",
            "not run r3: Not run: the answer made 3 tool calls and xcsh runs at most 2 of one answer (--max-calls-per-answer). Call resolve again in a later answer if it is still needed.",
        ]
    );
    assert_eq!(outcome.reason, EndReason::Finished);
    // The model read a result for every call it made.
    let sent = provider.sent.lock().unwrap();
    let (_, conversation) = sent.last().unwrap();
    let results: Vec<(&str, bool)> = conversation
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::ToolResult {
                call_id, is_error, ..
            } => Some((call_id.as_str(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(results, [("r1", false), ("r2", true), ("r3", true)]);
}

#[test]
fn reminding_first_leaves_the_choice_and_forces_only_once_the_model_ignores_it() {
    // The model follows the reminder: no tool choice changes.
    let session = pending_session();
    let provider = Sequence::new(vec![Ok(calls(vec![resolve("r")]))]);
    let (outcome, events, _) = run(&session, &provider, quick(), FirstSteer::Remind);
    assert_eq!(provider.choices(), [ToolChoice::Auto, ToolChoice::Auto]);
    assert_eq!(events, ["call r: renamed"]);
    assert_eq!(outcome.reason, EndReason::Finished);

    // It does not: `resolve` is forced for one request.
    let session = pending_session();
    let provider = Sequence::new(vec![Ok(text("later")), Ok(calls(vec![resolve("r")]))]);
    let (outcome, events, _) = run(&session, &provider, quick(), FirstSteer::Remind);
    assert_eq!(
        provider.choices(),
        [ToolChoice::Auto, forced(), ToolChoice::Auto]
    );
    assert_eq!(
        events,
        [
            "ladder: tool choice unchanged with reminder ignored by the model (no resolve call); next: named resolve",
            "call r: renamed",
        ]
    );
    assert_eq!(outcome.reason, EndReason::Finished);

    // An error to the unforced rung is the server failing, never a refusal.
    let session = pending_session();
    let provider = Sequence::new(vec![Err(status(400, "tool_choice is bad"))]);
    let (outcome, events, _) = run(&session, &provider, quick(), FirstSteer::Remind);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(
        outcome.message,
        "model request failed: the model server answered HTTP 400: tool_choice is bad"
    );
    assert!(matches!(outcome.reason, EndReason::Failed { .. }));
}
