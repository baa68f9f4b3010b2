use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use xcsh_tool_types::{ToolError, ToolOutput};

use super::*;
use crate::call::push_for_running_call;
use crate::output::ToolResult;
use crate::pending::PendingAction;
use crate::session::Session;
use crate::tool::ToolCall;
use crate::tool::{Tool, ToolContext};

/// Pushes an action whose apply and reject are written down in `log`.
struct Rename {
    store: Arc<crate::pending::PendingActionStore>,
    log: Arc<Mutex<Vec<String>>>,
    schema: Value,
}

impl Tool for Rename {
    fn name(&self) -> &str {
        "rename"
    }
    fn label(&self) -> &str {
        "Rename"
    }
    fn description(&self) -> &str {
        "previews a rename"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute(&self, _: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (applied, rejected) = (Arc::clone(&self.log), Arc::clone(&self.log));
        let action = PendingAction::try_new("Rename: 1 file", move |reason| {
            applied.lock().unwrap().push(format!("apply: {reason}"));
            Ok(ToolOutput::text("Renamed a → b"))
        })
        .unwrap()
        .with_source_tool_name("rename_source")
        .with_details(json!({"from": "a"}))
        .with_reject(move |reason| {
            rejected.lock().unwrap().push(format!("reject: {reason}"));
            Ok(Some(ToolOutput::text("Nothing was renamed.")))
        });
        push_for_running_call(&self.store, action).map_err(|e| ToolError::new(e.to_string()))?;
        Ok(ToolOutput::text("Preview: a → b"))
    }
}

/// Answers with what it was given and keeps the questions.
struct Scripted {
    answer: Answer,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Approver for Scripted {
    fn ask(&self, request: &ApprovalRequest) -> Answer {
        self.asked.lock().unwrap().push(request.clone());
        self.answer.clone()
    }
}

#[derive(Default)]
struct Kept(Mutex<Vec<JournalEntry>>);

impl Journal for Kept {
    fn record(&self, entry: &JournalEntry) {
        self.0.lock().unwrap().push(entry.clone());
    }
}

struct Fixture {
    session: Session,
    log: Arc<Mutex<Vec<String>>>,
    journal: Arc<Kept>,
}

fn fixture(policy: Policy) -> Fixture {
    let session = Session::new(std::env::temp_dir());
    let log = Arc::new(Mutex::new(Vec::new()));
    session
        .register_tool(Arc::new(Rename {
            store: Arc::clone(session.store()),
            log: Arc::clone(&log),
            schema: json!({"type": "object"}),
        }))
        .unwrap();
    session.set_policy(move |tool| {
        if tool == "rename" {
            policy
        } else {
            Policy::Model
        }
    });
    let journal = Arc::new(Kept::default());
    session.set_journal(Arc::clone(&journal) as Arc<dyn Journal>);
    Fixture {
        session,
        log,
        journal,
    }
}

fn approver(session: &Session, answer: Answer) -> Arc<Scripted> {
    let approver = Arc::new(Scripted {
        answer,
        asked: Mutex::default(),
    });
    session.set_approver(Arc::clone(&approver) as Arc<dyn Approver>);
    approver
}

fn preview(session: &Session) -> ToolResult {
    session.execute(&ToolCall::new("p", "rename", json!({})))
}

fn apply(session: &Session) -> ToolResult {
    session.execute(&ToolCall::new(
        "r",
        "resolve",
        json!({"action": "apply", "reason": "looks right"}),
    ))
}

fn events(journal: &Kept) -> Vec<(JournalEvent, String)> {
    journal
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|e| (e.event, e.outcome.clone()))
        .collect()
}

#[test]
fn the_session_keeps_each_pushed_actions_preview_and_journals_the_push() {
    let f = fixture(Policy::Model);
    preview(&f.session);
    let id = f.session.store().peek().unwrap().id();
    assert_eq!(f.session.preview(id).as_deref(), Some("Preview: a → b"));
    let journal = f.journal.0.lock().unwrap();
    assert_eq!(journal.len(), 1);
    let push = &journal[0];
    assert_eq!(push.event, JournalEvent::Push);
    assert_eq!(push.tool, "rename");
    assert_eq!(push.source_tool_name, "rename_source");
    assert_eq!(push.label, "Rename: 1 file");
    assert_eq!(push.preview.as_deref(), Some("Preview: a → b"));
    assert_eq!(push.details, Some(json!({"from": "a"})));
}

#[test]
fn under_model_the_apply_runs_without_asking() {
    let f = fixture(Policy::Model);
    let asked = approver(&f.session, Answer::Cancel);
    preview(&f.session);
    let result = apply(&f.session);
    assert!(!result.is_error, "{result:?}");
    assert!(asked.asked.lock().unwrap().is_empty());
    assert_eq!(*f.log.lock().unwrap(), ["apply: looks right"]);
    assert_eq!(
        events(&f.journal),
        [
            (JournalEvent::Push, "pushed".to_owned()),
            (JournalEvent::Resolve, "applied".to_owned())
        ]
    );
    assert_eq!(f.session.preview(0), None, "forgotten once resolved");
}

#[test]
fn under_ask_a_person_sees_the_preview_and_an_approval_applies() {
    let f = fixture(Policy::Ask);
    let asked = approver(&f.session, Answer::Approve);
    preview(&f.session);
    let result = apply(&f.session);
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.text(), "Renamed a → b");
    let request = asked.asked.lock().unwrap()[0].clone();
    assert_eq!(request.label, "Rename: 1 file");
    assert_eq!(request.tool, "rename");
    assert_eq!(request.reason, "looks right");
    assert_eq!(request.preview.as_deref(), Some("Preview: a → b"));
    assert_eq!(
        request.to_text(),
        "The model wants to apply \"Rename: 1 file\" (from rename).\nIts reason: looks right\n\nPreview:\nPreview: a → b"
    );
    assert_eq!(*f.log.lock().unwrap(), ["apply: looks right"]);
    let journal = f.journal.0.lock().unwrap();
    assert_eq!(journal[1].event, JournalEvent::Answer);
    assert_eq!(journal[1].outcome, "approve");
    assert_eq!(journal[1].decided_by.as_deref(), Some("person"));
    assert_eq!(journal[2].outcome, "applied");
    assert_eq!(journal[2].decided_by.as_deref(), Some("person"));
}

#[test]
fn a_decline_discards_runs_reject_with_the_persons_reason_and_tells_the_model() {
    let f = fixture(Policy::Ask);
    approver(
        &f.session,
        Answer::Decline {
            reason: Some("keep the old name".to_owned()),
        },
    );
    preview(&f.session);
    let result = apply(&f.session);
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "A person declined to apply \"Rename: 1 file\": it was discarded and nothing was applied. Their reason: keep the old name\nNothing was renamed."
    );
    let details = result.details.unwrap();
    assert_eq!(details["action"], "discard");
    assert_eq!(details["decidedBy"], "person");
    assert_eq!(details["modelReason"], "looks right");
    assert!(!f.session.store().has_pending());
    assert_eq!(*f.log.lock().unwrap(), ["reject: keep the old name"]);
    let journal = f.journal.0.lock().unwrap();
    assert_eq!(journal[1].outcome, "decline");
    assert_eq!(journal[1].reason.as_deref(), Some("keep the old name"));
    assert_eq!(journal[2].outcome, "declined");
}

#[test]
fn a_decline_without_a_reason_says_so() {
    let f = fixture(Policy::Ask);
    approver(&f.session, Answer::Decline { reason: None });
    preview(&f.session);
    let result = apply(&f.session);
    assert!(result.text().starts_with(
        "A person declined to apply \"Rename: 1 file\": it was discarded and nothing was applied. They gave no reason."
    ));
    assert_eq!(*f.log.lock().unwrap(), ["reject: declined by a person"]);
}

#[test]
fn a_cancel_or_nobody_to_ask_leaves_the_action_pending() {
    let f = fixture(Policy::Ask);
    preview(&f.session);
    let result = apply(&f.session);
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Apply needs a person's approval (policy ask for rename), but no one can be asked in this session. The action is still pending."
    );
    approver(&f.session, Answer::Cancel);
    let result = apply(&f.session);
    assert_eq!(
        result.text(),
        "Apply not approved: the question was cancelled without an answer. The action is still pending."
    );
    approver(
        &f.session,
        Answer::Unavailable("this client cannot ask".to_owned()),
    );
    let result = apply(&f.session);
    assert_eq!(
        result.text(),
        "Apply needs a person's approval (policy ask for rename), but this client cannot ask. The action is still pending."
    );
    assert_eq!(f.session.store().len(), 1);
    assert!(f.log.lock().unwrap().is_empty());
    assert!(
        f.session
            .preview(f.session.store().peek().unwrap().id())
            .is_some()
    );
    // Nobody decided what no person could be asked.
    let journal = f.journal.0.lock().unwrap();
    let last_answer = journal
        .iter()
        .rfind(|entry| entry.event == JournalEvent::Answer)
        .unwrap();
    assert_eq!(last_answer.outcome, "unavailable");
    assert_eq!(last_answer.decided_by.as_deref(), Some("nobody"));
    let cancelled = journal
        .iter()
        .find(|entry| entry.outcome == "cancel")
        .unwrap();
    assert_eq!(cancelled.decided_by.as_deref(), Some("person"));
}

#[test]
fn under_deny_apply_is_refused_and_discard_still_works() {
    let f = fixture(Policy::Deny);
    let asked = approver(&f.session, Answer::Approve);
    preview(&f.session);
    let result = apply(&f.session);
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Apply refused: the policy for rename is deny; only discard is allowed. The action is still pending."
    );
    assert!(asked.asked.lock().unwrap().is_empty());
    assert_eq!(f.session.store().len(), 1);
    let discarded = f.session.execute(&ToolCall::new(
        "d",
        "resolve",
        json!({"action": "discard", "reason": "not allowed"}),
    ));
    assert!(!discarded.is_error);
    assert_eq!(*f.log.lock().unwrap(), ["reject: not allowed"]);
    let journal = f.journal.0.lock().unwrap();
    assert_eq!(journal[1].outcome, "refused");
    assert_eq!(journal[1].decided_by.as_deref(), Some("policy"));
    assert_eq!(journal[2].outcome, "discarded");
}

#[test]
fn a_panicking_approver_is_nobody_to_ask() {
    struct Broken;
    impl Approver for Broken {
        fn ask(&self, _: &ApprovalRequest) -> Answer {
            panic!("terminal gone")
        }
    }
    let f = fixture(Policy::Ask);
    f.session.set_approver(Arc::new(Broken));
    preview(&f.session);
    let result = apply(&f.session);
    assert_eq!(
        result.text(),
        "Apply needs a person's approval (policy ask for rename), but asking failed: terminal gone. The action is still pending."
    );
    assert_eq!(f.session.store().len(), 1);
}

#[test]
fn the_session_end_is_journaled_as_a_discard() {
    let f = fixture(Policy::Ask);
    preview(&f.session);
    f.session.end();
    let journal = f.journal.0.lock().unwrap();
    let end = journal.last().unwrap();
    assert_eq!(end.outcome, "discarded");
    assert_eq!(end.decided_by.as_deref(), Some("session end"));
    assert_eq!(
        end.reason.as_deref(),
        Some(crate::session_end::SESSION_ENDED)
    );
}

#[test]
fn a_deferred_question_leaves_the_action_pending_and_journals_it_as_asked() {
    let f = fixture(Policy::Ask);
    preview(&f.session);
    approver(&f.session, Answer::Deferred);
    let result = apply(&f.session);
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Apply waits for a person's approval (policy ask for rename): the question was sent to them. The action is still pending."
    );
    assert_eq!(f.session.store().len(), 1);
    assert!(f.log.lock().unwrap().is_empty());
    assert_eq!(
        events(&f.journal),
        vec![
            (JournalEvent::Push, "pushed".to_owned()),
            (JournalEvent::Answer, "asked".to_owned()),
        ]
    );
}

/// Cancels the call it was asked in, then answers: as a client that
/// cancels `resolve` while its user is asked, then sends the answer.
struct CancelsThenAnswers {
    call: crate::cancel::CancellationToken,
    answer: Answer,
}

impl Approver for CancelsThenAnswers {
    fn ask(&self, _: &ApprovalRequest) -> Answer {
        self.call.cancel();
        self.answer.clone()
    }
}

#[test]
fn an_answer_to_a_cancelled_resolve_is_not_acted_on() {
    for answer in [
        Answer::Approve,
        Answer::Decline {
            reason: Some("no".to_owned()),
        },
    ] {
        let f = fixture(Policy::Ask);
        let call = crate::cancel::CancellationToken::new();
        f.session.set_approver(Arc::new(CancelsThenAnswers {
            call: call.clone(),
            answer: answer.clone(),
        }));
        preview(&f.session);
        let context =
            ToolContext::new("r".to_owned(), std::env::temp_dir()).with_cancellation(call);
        let result = f.session.execute_with(
            &ToolCall::new(
                "r",
                "resolve",
                json!({"action": "apply", "reason": "looks right"}),
            ),
            context,
        );
        assert!(result.is_error, "{answer:?}");
        assert_eq!(
            result.text(),
            "Apply not run: the resolve call was cancelled while a person was asked. The action is still pending."
        );
        assert_eq!(f.session.store().len(), 1, "{answer:?}: still pending");
        assert!(
            f.log.lock().unwrap().is_empty(),
            "neither apply nor reject ran"
        );
        assert_eq!(
            events(&f.journal)[1..],
            [
                (JournalEvent::Answer, answer.as_str().to_owned()),
                (JournalEvent::Resolve, "refused".to_owned()),
            ]
        );
    }
}
