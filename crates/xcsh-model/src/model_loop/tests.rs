use std::sync::Mutex;

use xcsh_core::{CancellationToken, PendingAction, RESOLVE_TOOL_NAME, ToolChoice, ToolOutput};

use super::*;
use crate::{EndReason, Event, Message, ModelError, Reply, Request, Usage};

/// A provider that answers every request from `answer`, keeping the
/// choices it was sent.
struct Scripted {
    sent: Mutex<Vec<ToolChoice>>,
    answer: fn(&ToolChoice) -> Result<Reply, ModelError>,
}

impl Provider for Scripted {
    fn api(&self) -> &'static str {
        "scripted"
    }

    fn complete(
        &self,
        request: &Request<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Reply, ModelError> {
        self.sent.lock().unwrap().push(request.choice.clone());
        (self.answer)(request.choice)
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

/// Keeps the ladder's steps.
#[derive(Default)]
struct Steps(Vec<String>);

impl Observer for Steps {
    fn observe(&mut self, event: Event<'_>) {
        if let Event::Ladder { step } = event {
            self.0.push(step.to_string());
        }
    }
}

fn run(session: &Arc<Session>, provider: &Arc<Scripted>) -> (Outcome, Vec<String>) {
    let mut conversation = Conversation::new(None, "task");
    let (outcome, steps) = ModelLoop::new(
        Arc::clone(session),
        Arc::clone(provider) as Arc<dyn Provider>,
        ProviderCapabilities::default(),
        Bounds::default(),
    )
    .run(&mut conversation, Steps::default());
    (outcome, steps.0)
}

fn forced() -> ToolChoice {
    ToolChoice::Tool {
        name: RESOLVE_TOOL_NAME.to_owned(),
    }
}

/// A 500 that names nothing (a proxy refusing a message's shape) is not a
/// refusal of the tool choice: the same request fails without the forced
/// choice too, so the server has failed and the ladder does not move.
#[test]
fn a_server_that_fails_at_every_choice_has_failed_and_the_ladder_stays() {
    let session = pending_session();
    let provider = Arc::new(Scripted {
        sent: Mutex::default(),
        answer: |_| {
            Err(ModelError::Status {
                status: 500,
                message: "no".into(),
                retry_after: None,
            })
        },
    });
    let mut model_loop = ModelLoop::new(
        Arc::clone(&session),
        Arc::clone(&provider) as Arc<dyn Provider>,
        ProviderCapabilities::default(),
        Bounds::default(),
    );
    let (outcome, steps) = model_loop.run(&mut Conversation::new(None, "task"), Steps::default());
    assert_eq!(
        *provider.sent.lock().unwrap(),
        [forced(), ToolChoice::Required, ToolChoice::Auto]
    );
    assert_eq!(steps.0, Vec::<String>::new());
    assert_eq!(
        outcome.message,
        "model request failed: the model server answered HTTP 500: no"
    );
    assert_eq!(model_loop.ladder().start(), Rung::Named);
    assert_eq!(outcome.discarded, 1);
    assert!(!session.store().has_pending());
}

#[test]
fn a_model_that_never_resolves_is_asked_three_times_then_the_loop_ends() {
    let session = pending_session();
    let provider = Arc::new(Scripted {
        sent: Mutex::default(),
        answer: |_| {
            Ok(Reply {
                text: "no".into(),
                calls: Vec::new(),
                usage: Usage {
                    input: 5,
                    output: 1,
                    estimated: false,
                },
            })
        },
    });
    let (outcome, steps) = run(&session, &provider);
    assert_eq!(provider.sent.lock().unwrap().len(), 3);
    assert_eq!(
        steps,
        [
            "tool choice named resolve ignored by the model (no resolve call); next: required (resolve only)",
            "tool choice required (resolve only) ignored by the model (no resolve call); next: auto with reminder",
        ]
    );
    assert_eq!(
        outcome.reason,
        EndReason::NeverResolved {
            label: "Rename 2 files".into()
        }
    );
    assert_eq!(
        (outcome.turns, outcome.tokens, outcome.discarded),
        (3, 18, 1)
    );
}

#[test]
fn an_authentication_error_is_not_a_refused_choice() {
    let session = pending_session();
    let provider = Arc::new(Scripted {
        sent: Mutex::default(),
        answer: |_| {
            Err(ModelError::Status {
                status: 401,
                message: "invalid x-api-key".into(),
                retry_after: None,
            })
        },
    });
    let (outcome, steps) = run(&session, &provider);
    assert_eq!(provider.sent.lock().unwrap().len(), 1);
    assert!(steps.is_empty());
    assert_eq!(
        outcome.message,
        "model request failed: the model server answered HTTP 401: invalid x-api-key"
    );
}

/// A tool that sleeps `ms` and says which thread ran it.
struct Sleep(serde_json::Value);

impl xcsh_core::Tool for Sleep {
    fn name(&self) -> &str {
        "sleep"
    }
    fn label(&self) -> &str {
        "Sleep"
    }
    fn description(&self) -> &str {
        "sleeps"
    }
    fn parameters(&self) -> &serde_json::Value {
        &self.0
    }
    fn execute(
        &self,
        arguments: serde_json::Value,
        _: &xcsh_core::ToolContext,
    ) -> Result<ToolOutput, xcsh_core::ToolError> {
        let ms = arguments["ms"].as_u64().unwrap_or(0);
        std::thread::sleep(std::time::Duration::from_millis(ms));
        Ok(ToolOutput::text(format!(
            "{:?}",
            std::thread::current().id()
        )))
    }
}

/// A provider that gives its replies in order and keeps every
/// conversation it was sent.
struct Replies {
    replies: Mutex<std::collections::VecDeque<Reply>>,
    sent: Mutex<Vec<Conversation>>,
}

impl Provider for Replies {
    fn api(&self) -> &'static str {
        "replies"
    }

    fn complete(
        &self,
        request: &Request<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Reply, ModelError> {
        self.sent.lock().unwrap().push(request.conversation.clone());
        Ok(self.replies.lock().unwrap().pop_front().unwrap_or_default())
    }
}

fn sleep_call(id: &str, ms: u64) -> xcsh_core::ToolCall {
    xcsh_core::ToolCall::new(id, "sleep", serde_json::json!({ "ms": ms }))
}

/// The loop runs on the session's thread: a call past the session's time
/// limit is answered at the limit with the timeout, the model reads it,
/// and the loop goes on to the reply's next call and the next request.
#[test]
fn a_tool_call_past_the_time_limit_times_out_at_the_limit_and_the_loop_goes_on() {
    let session = Session::new(std::env::temp_dir()).with_limits(xcsh_core::CallLimits {
        time: Some(std::time::Duration::from_millis(200)),
        ..xcsh_core::CallLimits::default()
    });
    let schema = serde_json::json!({"type": "object", "properties": {"ms": {"type": "integer"}}});
    session.register_tool(Arc::new(Sleep(schema))).unwrap();
    let session = Arc::new(session);
    let provider = Arc::new(Replies {
        replies: Mutex::new(
            [Reply {
                calls: vec![sleep_call("stuck", 10_000), sleep_call("quick", 0)],
                ..Reply::default()
            }]
            .into(),
        ),
        sent: Mutex::default(),
    });
    let mut conversation = Conversation::new(None, "task");
    let started = std::time::Instant::now();
    let (outcome, _) = ModelLoop::new(
        Arc::clone(&session),
        Arc::clone(&provider) as Arc<dyn Provider>,
        ProviderCapabilities::default(),
        Bounds::default(),
    )
    .run(&mut conversation, |_: Event<'_>| {});
    let took = started.elapsed();

    assert_eq!(outcome.reason, EndReason::Finished);
    assert_eq!(outcome.turns, 2);
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    let sent = provider.sent.lock().unwrap();
    let results: Vec<(&str, &str, bool)> = sent[1]
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::ToolResult {
                call_id,
                text,
                is_error,
                ..
            } => Some((call_id.as_str(), text.as_str(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(
        results[0],
        ("stuck", "Tool sleep timed out after 200ms", true)
    );
    let (id, quick_thread, is_error) = results[1];
    assert_eq!((id, is_error), ("quick", false));
    assert_ne!(
        quick_thread,
        format!("{:?}", std::thread::current().id()),
        "the calls run on the session's thread, not the caller's"
    );
    // The conversation comes back with the last (empty) answer too.
    let (last, earlier) = conversation.messages.split_last().unwrap();
    assert_eq!(earlier, &sent[1].messages[..]);
    assert_eq!(
        last,
        &Message::Assistant {
            text: String::new(),
            calls: Vec::new()
        }
    );
}
