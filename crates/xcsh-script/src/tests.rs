use serde_json::json;
use xcsh_core::{PREVIEW_REMINDER, PendingAction, Session, ToolChoice, ToolOutput};

use super::*;

fn rejected(text: &str) -> Rejected {
    parse_line(text).unwrap().unwrap_err()
}

#[test]
fn blank_lines_and_comments_are_skipped() {
    for line in ["", "   \n", "# a comment", "  # indented"] {
        assert_eq!(parse_line(line), None, "{line:?}");
    }
}

#[test]
fn a_call_needs_only_a_tool() {
    assert_eq!(
        parse_line(r#"{"tool": "resolve"}"#).unwrap().unwrap(),
        Request {
            id: None,
            tool: "resolve".into(),
            arguments: json!({}),
        }
    );
    assert_eq!(
        parse_line(r#"{"id": 3, "tool": "t", "arguments": {"a": 1}}"#)
            .unwrap()
            .unwrap(),
        Request {
            id: Some(json!(3)),
            tool: "t".into(),
            arguments: json!({"a": 1}),
        }
    );
}

#[test]
fn bad_lines_name_the_problem_and_the_line() {
    assert_eq!(
        rejected("{nope").on_line(3),
        "invalid JSON on line 3: key must be a string at line 1 column 2"
    );
    assert_eq!(
        rejected("[1, 2]").on_line(1),
        r#"invalid tool call on line 1: expected an object like {"tool": NAME, "arguments": {...}}"#
    );
    let missing = rejected(r#"{"id": "x", "arguments": {}}"#);
    assert_eq!(missing.id, Some(json!("x")), "the id is kept for the reply");
    assert_eq!(
        missing.on_line(2),
        "invalid tool call on line 2: missing field `tool`"
    );
    assert_eq!(
        rejected(r#"{"tool": 1}"#).on_line(4),
        "invalid tool call on line 4: invalid type: integer `1`, expected a string"
    );
    assert_eq!(
        rejected(r#"{"tool": "t", "args": {}}"#).on_line(5),
        "invalid tool call on line 5: unknown field `args`, expected one of `tool`, `arguments`, `id`"
    );
}

/// Found by the `script_line` fuzz target: serde quotes an unknown field's
/// name, newline and all.
#[test]
fn a_field_name_with_control_characters_still_gives_one_line() {
    assert_eq!(
        rejected("{\"\\no0,too~\":\"opu\"}").on_line(1),
        "invalid tool call on line 1: unknown field `\\no0,too~`, expected one of `tool`, `arguments`, `id`"
    );
}

#[test]
fn steps_serialise_in_protocol_order_with_the_pending_count() {
    let session = Session::new(std::env::temp_dir());
    session
        .store()
        .push(PendingAction::try_new("Demo: one thing", |_| Ok(ToolOutput::text("done"))).unwrap());
    let steps = Steps::new();
    let step = steps.reject(
        &session,
        2,
        Some(json!("id-2")),
        "invalid JSON on line 2: x".into(),
    );
    assert_eq!(
        step.to_json_line(),
        format!(
            "{{\"line\":2,\"id\":\"id-2\",\"tool\":null,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"invalid JSON on line 2: x\"}}],\"isError\":true}},\"pending\":1,\"toolChoice\":{{\"type\":\"tool\",\"name\":\"resolve\"}},\"reminders\":[{}]}}",
            serde_json::to_string(PREVIEW_REMINDER).unwrap()
        )
    );
    let (started, call, context) = steps.start(
        &session,
        3,
        Request {
            id: None,
            tool: "resolve".into(),
            arguments: json!({"action": "apply", "reason": "ok"}),
        },
    );
    let result = session.execute_with(&call, context);
    let applied = steps.finish(&session, started, result);
    assert_eq!(applied.result.text(), "done");
    assert_eq!(applied.pending.count, 0);
    assert_eq!(applied.tool_choice, ToolChoice::Auto);
    assert!(applied.reminders.is_empty());
}

/// Requests from a list; every step shown is kept; a front end that
/// fails to show its second step.
struct Listed {
    requests: std::collections::VecDeque<Request>,
    entry: usize,
    shown: Vec<(usize, Option<String>, String)>,
    fail_at: Option<usize>,
}

impl StepFront for Listed {
    type Error = String;

    fn next_request(&mut self, _: &Session, _: &Steps) -> Result<Option<(usize, Request)>, String> {
        self.entry += 1;
        Ok(self
            .requests
            .pop_front()
            .map(|request| (self.entry, request)))
    }

    fn show(&mut self, step: &Step) -> Result<(), String> {
        if self.fail_at == Some(self.shown.len()) {
            return Err("output closed".into());
        }
        self.shown
            .push((step.line, step.tool.clone(), step.result.text()));
        Ok(())
    }
}

fn listed(tools: &[&str], fail_at: Option<usize>) -> Listed {
    Listed {
        requests: tools
            .iter()
            .map(|tool| Request {
                id: None,
                tool: (*tool).to_owned(),
                arguments: json!({"action": "apply", "reason": "r"}),
            })
            .collect(),
        entry: 0,
        shown: Vec::new(),
        fail_at,
    }
}

#[test]
fn step_turns_show_each_call_as_a_step_numbered_by_the_front_end() {
    let session = std::sync::Arc::new(Session::new(std::env::temp_dir()));
    let driven = xcsh_core::drive(
        &session,
        StepTurns::new(listed(&["resolve", "missing"], None), Steps::new()),
    );
    let (front, failed) = driven.into_parts();
    assert!(failed.is_none());
    assert_eq!(
        front.shown,
        [
            (
                1,
                Some("resolve".to_owned()),
                "No pending action to resolve. Nothing to apply or discard.".to_owned()
            ),
            (
                2,
                Some("missing".to_owned()),
                "Unknown tool: missing".to_owned()
            ),
        ]
    );
}

#[test]
fn step_turns_stop_at_the_first_error_and_give_it_back() {
    let session = std::sync::Arc::new(Session::new(std::env::temp_dir()));
    let driven = xcsh_core::drive(
        &session,
        StepTurns::new(
            listed(&["resolve", "resolve", "resolve"], Some(1)),
            Steps::new(),
        ),
    );
    let (front, failed) = driven.into_parts();
    assert_eq!(failed.as_deref(), Some("output closed"));
    assert_eq!(front.shown.len(), 1);
    assert_eq!(front.requests.len(), 1, "nothing read after the error");
}
