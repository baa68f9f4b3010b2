//! Chat Completions against the real local model server: SmolLM2-135M
//! under llama-cpp-python with `chatml-function-calling`, which honours a
//! named `tool_choice` and answers `"required"` with HTTP 500. Its text is
//! nonsense (135M parameters): the tests check structure, and accept
//! either decision the model makes where the issue allows both.

use std::sync::{Arc, Mutex};

use xcsh_core::{
    Answer, ApprovalRequest, Approver, JournalEvent, Policy, ProviderCapabilities, ToolChoice,
};
use xcsh_model::{
    AnswerLimits, Api, Bounds, EndReason, ModelLoop, ModelSettings, Provider, Rung,
    ladder::{Cause, Proof},
};
use xcsh_test_support::ModelServer;

use crate::support::{
    DRAFTS, Keep, Seen, choices, chosen, forced_resolve, names, resolves, scripted_first_turn,
    session, workspace,
};

fn settings(server: &ModelServer, stream: bool) -> ModelSettings {
    ModelSettings {
        api: Api::Openai,
        base_url: server.base_url(),
        model: "smollm2-135m".into(),
        api_key_env: None,
        stream,
        limits: AnswerLimits {
            request_time: Some(std::time::Duration::from_secs(120)),
            ..AnswerLimits::default()
        },
    }
}

/// One request: small answers keep the tests quick.
fn one_turn() -> Bounds {
    Bounds {
        turns: 1,
        answer_tokens: 128,
        ..Bounds::default()
    }
}

/// The first request forces `resolve` by name, the server answers with a
/// `resolve` call, and the session applies or discards as it chose; the
/// journal and the files agree.
fn forced_resolve_is_obeyed(stream: bool) {
    let server = ModelServer::lock();
    let dir = workspace();
    let (session, journal) = session(&dir);
    let mut conversation = scripted_first_turn(&session);
    let provider: Arc<dyn Provider> = settings(&server, stream).connect().unwrap().into();
    let (outcome, Keep(seen)) = ModelLoop::new(
        Arc::clone(&session.session),
        Arc::clone(&provider),
        ProviderCapabilities::default(),
        one_turn(),
    )
    .run(&mut conversation, Keep::default());

    assert_eq!(choices(&seen), [forced_resolve()]);
    let resolved = resolves(&seen);
    assert_eq!(
        resolved.len(),
        1,
        "the server answered the forced choice: {seen:?}"
    );
    let (call, result) = &resolved[0];
    assert!(!result.is_error, "{}", result.text());
    let action = chosen(call);
    let entries = journal.resolves();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].decided_by.as_deref(), Some("model"));
    assert_eq!(entries[0].action.as_deref(), Some(action));
    match action {
        "apply" => {
            assert_eq!(entries[0].outcome, "applied");
            assert_eq!(names(dir.path()), ["final-intro.md", "final-usage.md"]);
        }
        "discard" => {
            assert_eq!(entries[0].outcome, "discarded");
            assert_eq!(names(dir.path()), DRAFTS);
        }
        other => panic!("resolve ran with action {other:?}"),
    }
    assert_eq!(outcome.reason, EndReason::Turns { limit: 1 });
    assert_eq!(outcome.discarded, 0);
    // llama-cpp-python counts tokens in whole answers only (its streams
    // carry no usage even when asked): a stream's are estimated.
    assert!(outcome.tokens > 0, "tokens are counted: {outcome:?}");
}

#[test]
fn a_forced_resolve_gets_a_resolve_call_and_the_journal_records_the_choice() {
    forced_resolve_is_obeyed(false);
}

#[test]
fn a_streamed_forced_resolve_gets_a_resolve_call_too() {
    forced_resolve_is_obeyed(true);
}

#[test]
fn the_required_rung_meets_http_500_and_the_ladder_steps_down_without_looping() {
    let server = ModelServer::lock();
    let dir = workspace();
    let (session, journal) = session(&dir);
    let mut conversation = scripted_first_turn(&session);
    let provider: Arc<dyn Provider> = settings(&server, false).connect().unwrap().into();
    // A provider that cannot force a named tool starts at `required`.
    let capabilities = ProviderCapabilities {
        named_tool_choice: false,
    };
    // Two requests: `required` (refused), then `auto` with the reminder.
    // (A third, `auto` with nothing pending, kept this server busy for
    // over ten minutes in a probe, `max_tokens` notwithstanding.)
    let bounds = Bounds {
        turns: 2,
        answer_tokens: 128,
        ..Bounds::default()
    };
    let mut model_loop = ModelLoop::new(
        Arc::clone(&session.session),
        Arc::clone(&provider),
        capabilities,
        bounds,
    );
    let (outcome, Keep(seen)) = model_loop.run(&mut conversation, Keep::default());

    let sent = choices(&seen);
    assert_eq!(sent[0], ToolChoice::Required);
    assert_eq!(
        seen[0],
        Seen::Request(ToolChoice::Required, 1),
        "only resolve is offered"
    );
    // The 500 names nothing (its body is empty): the same request without
    // the forced choice goes out, and only once it goes through is the
    // 500 known to be a refusal of `required`.
    assert_eq!(seen[1], Seen::Request(ToolChoice::Auto, 2), "{seen:?}");
    let Seen::Ladder(step) = &seen[2] else {
        panic!("expected a step down after the refusal: {seen:?}");
    };
    assert_eq!(
        (step.from, step.to, step.remembered),
        (Rung::Required, Rung::Auto, true)
    );
    assert!(
        matches!(
            step.cause,
            Cause::Refused {
                status: 500,
                proof: Proof::AcceptedWithout,
                ..
            }
        ),
        "{:?}",
        step.cause
    );
    // `required` is sent once, never again: the refusal is remembered.
    assert_eq!(
        sent.iter()
            .filter(|choice| **choice == ToolChoice::Required)
            .count(),
        1,
        "{sent:?}"
    );
    assert_eq!(sent[1], ToolChoice::Auto);
    assert_eq!(model_loop.ladder().start(), Rung::Auto);
    // Auto is the last rung: a model that does not resolve there ends the
    // loop, its action discarded; one that does goes on within the bound.
    match &outcome.reason {
        EndReason::NeverResolved { label } => {
            assert_eq!(outcome.turns, 2);
            assert!(label.starts_with("Batch Rename"), "{label}");
        }
        EndReason::Turns { limit: 2 } | EndReason::Finished => {
            assert!(!resolves(&seen).is_empty(), "{seen:?}");
        }
        other => panic!("unexpected end: {other:?} after {seen:?}"),
    }
    assert!(outcome.turns <= 2);
    assert!(!session.session.store().has_pending());
    // Nothing was applied that the model did not resolve.
    for entry in journal.resolves() {
        if entry.outcome == "applied" {
            assert_eq!(entry.decided_by.as_deref(), Some("model"), "{entry:?}");
        }
    }
}

/// What the person saw when asked, and the files at that moment.
#[derive(Debug, Default)]
struct Person {
    asked: Mutex<Vec<(ApprovalRequest, Vec<String>)>>,
    dir: std::path::PathBuf,
}

impl Approver for Person {
    fn ask(&self, request: &ApprovalRequest) -> Answer {
        self.asked
            .lock()
            .unwrap()
            .push((request.clone(), names(&self.dir)));
        Answer::Approve
    }
}

#[test]
fn an_ask_policy_puts_the_models_apply_to_a_person_before_it_runs() {
    let server = ModelServer::lock();
    let provider: Arc<dyn Provider> = settings(&server, false).connect().unwrap().into();
    // The model decides apply or discard; a few sessions give it a few
    // chances to apply, and every session's outcome is checked.
    let mut applied = 0;
    for _ in 0..6 {
        let dir = workspace();
        let (session, journal) = session(&dir);
        session.session.set_policy(|_| Policy::Ask);
        let person = Arc::new(Person {
            dir: dir.path().to_path_buf(),
            ..Person::default()
        });
        session.session.set_approver(person.clone());
        let mut conversation = scripted_first_turn(&session);
        let (_, Keep(seen)) = ModelLoop::new(
            Arc::clone(&session.session),
            Arc::clone(&provider),
            ProviderCapabilities::default(),
            one_turn(),
        )
        .run(&mut conversation, Keep::default());
        let resolved = resolves(&seen);
        assert_eq!(resolved.len(), 1, "{seen:?}");
        let asked = person.asked.lock().unwrap();
        match chosen(&resolved[0].0) {
            "apply" => {
                applied += 1;
                assert_eq!(asked.len(), 1, "the apply was put to the person");
                let (request, files_then) = &asked[0];
                assert_eq!(request.label, "Batch Rename: 2 files");
                assert_eq!(request.tool, "batch_rename_preview");
                assert!(
                    request
                        .preview
                        .as_deref()
                        .unwrap()
                        .starts_with("Batch rename preview")
                );
                assert_eq!(files_then, &DRAFTS, "asked before anything was renamed");
                assert_eq!(names(dir.path()), ["final-intro.md", "final-usage.md"]);
                let entries = journal.0.lock().unwrap();
                let answer = entries
                    .iter()
                    .find(|entry| entry.event == JournalEvent::Answer)
                    .expect("the answer is journaled");
                assert_eq!(answer.outcome, "approve");
                assert_eq!(answer.decided_by.as_deref(), Some("person"));
                let resolve = entries
                    .iter()
                    .find(|entry| entry.event == JournalEvent::Resolve)
                    .unwrap();
                assert_eq!(resolve.outcome, "applied");
            }
            "discard" => {
                assert!(asked.is_empty(), "a discard needs nobody's approval");
                assert_eq!(names(dir.path()), DRAFTS);
            }
            other => panic!("resolve ran with action {other:?}"),
        }
        if applied > 0 {
            break;
        }
    }
    assert!(applied > 0, "the model never chose apply in six sessions");
}
