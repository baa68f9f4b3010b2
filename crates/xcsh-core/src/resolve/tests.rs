use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use xcsh_tool_types::{ContentBlock, ToolError, ToolOutput};

use crate::output::ToolResult;
use crate::pending::PendingAction;
use crate::session::Session;
use crate::tool::ToolCall;

fn session() -> Session {
    Session::new(std::env::temp_dir())
}

fn resolve(session: &Session, action: &str, reason: &str) -> ToolResult {
    session.execute(&ToolCall::new(
        "r",
        "resolve",
        json!({"action": action, "reason": reason}),
    ))
}

fn ok_action(label: &str) -> PendingAction {
    PendingAction::try_new(label, |_| Ok(ToolOutput::default())).unwrap()
}

#[test]
fn nothing_pending_is_an_error() {
    let session = session();
    for action in ["apply", "discard"] {
        let result = resolve(&session, action, "r");
        assert!(result.is_error);
        assert_eq!(
            result.text(),
            "No pending action to resolve. Nothing to apply or discard."
        );
    }
}

#[test]
fn apply_without_content_says_applied_with_label() {
    let session = session();
    session.store().push(ok_action("Rename 2 files"));
    let result = resolve(&session, "apply", "looks right");
    assert!(!result.is_error);
    assert_eq!(result.text(), "Applied: Rename 2 files.");
    assert!(!session.store().has_pending());
    assert_eq!(
        result.details,
        Some(json!({
            "action": "apply",
            "reason": "looks right",
            "sourceToolName": "custom_tool",
            "label": "Rename 2 files"
        }))
    );
}

#[test]
fn apply_returns_source_content_dropping_empty_text_blocks() {
    let session = session();
    let action = PendingAction::try_new("Edit", |_| {
        Ok(ToolOutput::new(vec![
            ContentBlock::text(""),
            ContentBlock::text("Renamed a -> b"),
            ContentBlock::image("aGk=", "image/png"),
        ])
        .with_details(json!({"renamed": 1})))
    })
    .unwrap()
    .with_source_tool_name("batch_rename_preview");
    session.store().push(action);
    let result = resolve(&session, "apply", "ok");
    assert_eq!(
        result.content,
        [
            ContentBlock::text("Renamed a -> b"),
            ContentBlock::image("aGk=", "image/png")
        ]
    );
    assert_eq!(
        result.details.unwrap(),
        json!({
            "action": "apply",
            "reason": "ok",
            "sourceToolName": "batch_rename_preview",
            "label": "Edit",
            "sourceResultDetails": {"renamed": 1}
        })
    );
}

#[test]
fn apply_with_only_empty_text_falls_back_to_default() {
    let session = session();
    session
        .store()
        .push(PendingAction::try_new("Edit", |_| Ok(ToolOutput::text(""))).unwrap());
    assert_eq!(resolve(&session, "apply", "ok").text(), "Applied: Edit.");
}

#[test]
fn failed_apply_keeps_the_action_on_top() {
    let session = session();
    session.store().push(ok_action("below"));
    session
        .store()
        .push(PendingAction::try_new("Rename", |_| Err(ToolError::new("target exists"))).unwrap());
    let result = resolve(&session, "apply", "go");
    assert!(result.is_error);
    assert_eq!(result.text(), "Apply failed: target exists");
    assert_eq!(session.store().len(), 2);
    assert_eq!(session.store().peek().unwrap().action().label(), "Rename");
    assert_eq!(result.details.unwrap()["label"], "Rename");
}

#[test]
fn panicking_apply_keeps_the_action_and_the_session() {
    let session = session();
    session
        .store()
        .push(PendingAction::try_new("Boom", |_| panic!("apply exploded")).unwrap());
    let result = resolve(&session, "apply", "go");
    assert!(result.is_error);
    assert_eq!(result.text(), "Apply failed: apply exploded");
    assert_eq!(session.store().len(), 1);
    // The session still resolves: discard removes it.
    let result = resolve(&session, "discard", "broken");
    assert_eq!(result.text(), "Discarded: Boom. Reason: broken");
    assert!(!session.store().has_pending());
}

#[test]
fn apply_can_be_retried_after_a_failure() {
    let session = session();
    let attempts = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&attempts);
    session.store().push(
        PendingAction::try_new("Flaky", move |_| {
            if counter.fetch_add(1, Ordering::SeqCst) == 0 {
                Err("busy".into())
            } else {
                Ok(ToolOutput::default())
            }
        })
        .unwrap(),
    );
    assert_eq!(resolve(&session, "apply", "1").text(), "Apply failed: busy");
    assert_eq!(resolve(&session, "apply", "2").text(), "Applied: Flaky.");
    assert_eq!(attempts.load(Ordering::SeqCst), 2);
}

#[test]
fn reason_does_not_change_what_apply_does() {
    let session = session();
    let seen = Arc::new(Mutex::new(Vec::new()));
    for reason in ["short", "a much longer reason with `code` and \"quotes\""] {
        let sink = Arc::clone(&seen);
        session.store().push(
            PendingAction::try_new("Edit", move |_reason| {
                sink.lock().unwrap().push("applied");
                Ok(ToolOutput::text("done"))
            })
            .unwrap(),
        );
        let result = resolve(&session, "apply", reason);
        assert_eq!(result.text(), "done");
        assert_eq!(result.details.unwrap()["reason"], reason);
    }
    assert_eq!(*seen.lock().unwrap(), ["applied", "applied"]);
}

#[test]
fn discard_without_reject_gives_default_message() {
    let session = session();
    session.store().push(ok_action("Rename 3 files"));
    let result = resolve(&session, "discard", "wrong pattern");
    assert!(!result.is_error);
    assert_eq!(
        result.text(),
        "Discarded: Rename 3 files. Reason: wrong pattern"
    );
    assert!(!session.store().has_pending());
    assert_eq!(
        result.details.unwrap(),
        json!({
            "action": "discard",
            "reason": "wrong pattern",
            "sourceToolName": "custom_tool",
            "label": "Rename 3 files"
        })
    );
}

#[test]
fn discard_uses_the_reject_result_when_it_returns_one() {
    let session = session();
    session.store().push(ok_action("X").with_reject(|reason| {
        Ok(Some(
            ToolOutput::text(format!("Left 2 files alone ({reason})"))
                .with_details(json!({"kept": 2})),
        ))
    }));
    let result = resolve(&session, "discard", "nope");
    assert_eq!(result.text(), "Left 2 files alone (nope)");
    assert_eq!(
        result.details.unwrap()["sourceResultDetails"],
        json!({"kept": 2})
    );
}

#[test]
fn discard_with_a_reject_that_returns_nothing_gives_default_message() {
    let session = session();
    let called = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&called);
    session.store().push(ok_action("X").with_reject(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        Ok(None)
    }));
    let result = resolve(&session, "discard", "no");
    assert_eq!(result.text(), "Discarded: X. Reason: no");
    assert_eq!(called.load(Ordering::SeqCst), 1);
    assert!(result.details.unwrap().get("sourceResultDetails").is_none());
}

#[test]
fn failing_or_panicking_reject_still_discards() {
    let session = session();
    session
        .store()
        .push(ok_action("A").with_reject(|_| Err("temp file locked".into())));
    session
        .store()
        .push(ok_action("B").with_reject(|_| panic!("reject exploded")));
    let result = resolve(&session, "discard", "no");
    assert!(result.is_error);
    assert_eq!(result.text(), "Discard cleanup failed: reject exploded");
    assert_eq!(session.store().len(), 1);
    let result = resolve(&session, "discard", "no");
    assert_eq!(result.text(), "Discard cleanup failed: temp file locked");
    assert!(!session.store().has_pending());
}

#[test]
fn several_previews_resolve_newest_first() {
    let session = session();
    for label in ["first", "second", "third"] {
        session.store().push(ok_action(label));
    }
    let texts: Vec<String> = ["apply", "discard", "apply"]
        .iter()
        .map(|a| resolve(&session, a, "r").text())
        .collect();
    assert_eq!(
        texts,
        [
            "Applied: third.",
            "Discarded: second. Reason: r",
            "Applied: first."
        ]
    );
}

#[test]
fn bad_arguments_are_errors_and_leave_the_stack_untouched() {
    let session = session();
    let applied = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&applied);
    session.store().push(
        PendingAction::try_new("Keep", move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(ToolOutput::default())
        })
        .unwrap(),
    );
    let bad: [(Value, &str); 6] = [
        (json!({"action": "maybe", "reason": "r"}), "/action"),
        (
            json!({"action": "apply"}),
            "\"reason\" is a required property",
        ),
        (json!({"reason": "r"}), "\"action\" is a required property"),
        (json!({"action": "apply", "reason": 5}), "/reason"),
        (
            json!({"action": "apply", "reason": "r", "force": true}),
            "force",
        ),
        (json!("apply"), "not of type \"object\""),
    ];
    for (arguments, expected) in bad {
        let result = session.execute(&ToolCall::new("r", "resolve", arguments.clone()));
        assert!(result.is_error, "{arguments}");
        let text = result.text();
        assert!(
            text.starts_with("Invalid arguments for resolve: ") && text.contains(expected),
            "{arguments}: {text}"
        );
    }
    assert_eq!(session.store().len(), 1);
    assert_eq!(applied.load(Ordering::SeqCst), 0);
}

#[test]
fn resolve_is_hidden_with_a_strict_schema() {
    let session = session();
    let resolve = session
        .tools()
        .into_iter()
        .find(|t| t.name() == "resolve")
        .unwrap();
    assert_eq!(resolve.label(), "Resolve");
    assert!(resolve.hidden());
    let schema = resolve.parameters();
    assert_eq!(schema["required"], json!(["action", "reason"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(
        schema["properties"]["action"]["enum"],
        json!(["apply", "discard"])
    );
    assert_eq!(
        schema["properties"]["reason"]["description"],
        "Why you're applying or discarding"
    );
}

/// The session skips the schema for arguments `plainly_valid` accepts: it
/// must accept nothing the schema refuses.
#[test]
fn the_quick_check_accepts_only_what_the_schema_accepts() {
    let schema = crate::arguments::ArgumentValidator::new(&super::PARAMETERS).unwrap();
    let cases = [
        (json!({"action": "apply", "reason": "r"}), true),
        (json!({"action": "discard", "reason": ""}), true),
        (json!({"reason": "r", "action": "apply"}), true),
        (json!({"action": "maybe", "reason": "r"}), false),
        (json!({"action": "Apply", "reason": "r"}), false),
        (json!({"action": "apply"}), false),
        (json!({"reason": "r"}), false),
        (json!({"action": "apply", "reason": 5}), false),
        (json!({"action": "apply", "reason": null}), false),
        (json!({"action": ["apply"], "reason": "r"}), false),
        (
            json!({"action": "apply", "reason": "r", "force": true}),
            false,
        ),
        (json!({"action": "apply", "force": "r"}), false),
        (json!({}), false),
        (json!("apply"), false),
        (json!(null), false),
    ];
    for (arguments, quick) in cases {
        assert_eq!(super::plainly_valid(&arguments), quick, "{arguments}");
        if quick {
            assert!(schema.validate(&arguments).is_ok(), "{arguments}");
        }
    }
}

fn limited(ms: u64) -> Session {
    session().with_limits(crate::limits::CallLimits {
        time: Some(std::time::Duration::from_millis(ms)),
        ..crate::limits::CallLimits::default()
    })
}

/// An action whose apply and reject wait for `gate` (or forever).
fn stuck_action(label: &str, gate: Arc<Mutex<bool>>, applied: Arc<AtomicUsize>) -> PendingAction {
    let reject_gate = Arc::clone(&gate);
    let wait = move |gate: &Mutex<bool>| {
        while !*gate.lock().unwrap() {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    };
    PendingAction::try_new(label, move |_| {
        wait(&gate);
        applied.fetch_add(1, Ordering::SeqCst);
        Ok(ToolOutput::text("applied late"))
    })
    .unwrap()
    .with_reject(move |_| {
        wait(&reject_gate);
        Ok(None)
    })
}

#[test]
fn an_apply_past_the_limit_fails_and_the_action_stays_pending() {
    let session = limited(100);
    let gate = Arc::new(Mutex::new(false));
    let applied = Arc::new(AtomicUsize::new(0));
    session.store().push(ok_action("Below"));
    session.store().push(stuck_action(
        "Stuck",
        Arc::clone(&gate),
        Arc::clone(&applied),
    ));
    let started = std::time::Instant::now();
    let result = resolve(&session, "apply", "go");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(result.is_error);
    assert_eq!(result.text(), "Apply failed: apply timed out after 100ms");
    assert_eq!(session.store().peek().unwrap().action().label(), "Stuck");

    // While that apply still runs, another is refused: never two at once.
    let again = resolve(&session, "apply", "again");
    assert_eq!(
        again.text(),
        "Apply failed: an earlier apply of this action timed out and is still running"
    );
    assert_eq!(applied.load(Ordering::SeqCst), 0);

    // It returns after all: it was applied, so it is no longer pending.
    *gate.lock().unwrap() = true;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while session.store().len() > 1 {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(applied.load(Ordering::SeqCst), 1);
    assert_eq!(resolve(&session, "apply", "next").text(), "Applied: Below.");
}

#[test]
fn a_reject_past_the_limit_still_discards() {
    let session = limited(100);
    let gate = Arc::new(Mutex::new(false));
    session.store().push(stuck_action(
        "Stuck",
        Arc::clone(&gate),
        Arc::new(AtomicUsize::new(0)),
    ));
    let started = std::time::Instant::now();
    let result = resolve(&session, "discard", "no");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Discard cleanup failed: reject timed out after 100ms"
    );
    assert!(!session.store().has_pending());
    *gate.lock().unwrap() = true;
}
