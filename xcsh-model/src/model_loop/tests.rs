use std::sync::Mutex;

use xcsh_core::{PendingAction, ToolOutput};

use super::*;
use crate::{Reply, Usage};

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

fn pending_session() -> Session {
    let session = Session::new(std::env::temp_dir());
    session
        .store()
        .push(PendingAction::new("Rename 2 files", |_| {
            Ok(ToolOutput::text("renamed"))
        }));
    session
}

fn run(session: &Session, provider: &Scripted) -> (Outcome, Vec<String>) {
    let mut steps = Vec::new();
    let mut conversation = Conversation::new(None, "task");
    let outcome = ModelLoop::new(
        session,
        provider,
        ProviderCapabilities::default(),
        Bounds::default(),
    )
    .run(&mut conversation, &mut |event| {
        if let Event::Ladder { step } = event {
            steps.push(step.to_string());
        }
    });
    (outcome, steps)
}

fn forced() -> ToolChoice {
    ToolChoice::Tool {
        name: RESOLVE_TOOL_NAME.to_owned(),
    }
}

#[test]
fn a_provider_that_refuses_everything_gets_each_choice_once() {
    let session = pending_session();
    let provider = Scripted {
        sent: Mutex::default(),
        answer: |_| {
            Err(ModelError::Status {
                status: 500,
                message: "no".into(),
            })
        },
    };
    let (outcome, steps) = run(&session, &provider);
    assert_eq!(
        *provider.sent.lock().unwrap(),
        [forced(), ToolChoice::Required, ToolChoice::Auto]
    );
    assert_eq!(steps.len(), 2);
    assert_eq!(
        outcome.message,
        "model request failed: the model server answered HTTP 500: no"
    );
    assert_eq!(outcome.discarded, 1);
    assert!(!session.store().has_pending());
}

#[test]
fn a_model_that_never_resolves_is_asked_three_times_then_the_loop_ends() {
    let session = pending_session();
    let provider = Scripted {
        sent: Mutex::default(),
        answer: |_| {
            Ok(Reply {
                text: "no".into(),
                calls: Vec::new(),
                usage: Usage {
                    input: 5,
                    output: 1,
                },
            })
        },
    };
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
    let provider = Scripted {
        sent: Mutex::default(),
        answer: |_| {
            Err(ModelError::Status {
                status: 401,
                message: "invalid x-api-key".into(),
            })
        },
    };
    let (outcome, steps) = run(&session, &provider);
    assert_eq!(provider.sent.lock().unwrap().len(), 1);
    assert!(steps.is_empty());
    assert_eq!(
        outcome.message,
        "model request failed: the model server answered HTTP 401: invalid x-api-key"
    );
}
