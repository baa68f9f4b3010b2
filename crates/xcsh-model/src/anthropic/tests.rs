use serde_json::json;
use xcsh_core::{ToolCall, ToolChoice};

use super::*;
use crate::{Conversation, ToolSpec};

#[test]
fn results_and_reminders_share_one_user_message_and_required_is_any() {
    let mut conversation = Conversation::new(Some("sys".into()), "task");
    conversation.push(Message::Assistant {
        text: "On it.".into(),
        calls: vec![ToolCall::new("t1", "batch_rename_preview", json!({"x": 1}))],
    });
    conversation.push(Message::ToolResult {
        call_id: "t1".into(),
        name: "batch_rename_preview".into(),
        text: "preview".into(),
        is_error: false,
    });
    conversation.push(Message::User("reminder".into()));
    let tools = vec![ToolSpec {
        name: "resolve".into(),
        description: "d".into(),
        parameters: json!({"type": "object"}),
    }];
    let body = request_body(
        "claude",
        &Request {
            conversation: &conversation,
            tools: &tools,
            choice: &ToolChoice::Required,
            max_tokens: 100,
            deadline: None,
        },
        true,
    );
    assert_eq!(
        body,
        json!({
            "model": "claude",
            "max_tokens": 100,
            "system": "sys",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "task"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "On it."},
                    {"type": "tool_use", "id": "t1", "name": "batch_rename_preview", "input": {"x": 1}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "preview", "is_error": false},
                    {"type": "text", "text": "reminder"},
                ]},
            ],
            "tools": [{"name": "resolve", "description": "d", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "any"},
            "stream": true,
        })
    );
    assert_eq!(
        tool_choice(&ToolChoice::Tool {
            name: "resolve".into()
        }),
        json!({"type": "tool", "name": "resolve"})
    );
}

#[test]
fn a_streamed_message_gathers_text_tool_input_and_usage() {
    let mut streamed = StreamedReply::new(1024);
    for event in [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 12, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Done"}}),
        json!({"type": "content_block_start", "index": 1,
               "content_block": {"type": "tool_use", "id": "toolu_1", "name": "resolve", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1,
               "delta": {"type": "input_json_delta", "partial_json": "{\"action\": \"apply\","}}),
        json!({"type": "content_block_delta", "index": 1,
               "delta": {"type": "input_json_delta", "partial_json": " \"reason\": \"ok\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
    ] {
        assert!(streamed.add(&event).unwrap());
    }
    assert!(!streamed.add(&json!({"type": "message_stop"})).unwrap());
    let reply = streamed.finish().unwrap();
    assert_eq!(reply.text, "Done");
    assert_eq!(
        reply.calls,
        [ToolCall::new(
            "toolu_1",
            "resolve",
            json!({"action": "apply", "reason": "ok"})
        )]
    );
    assert_eq!((reply.usage.input, reply.usage.output), (12, 9));
}

#[test]
fn a_stream_cut_short_is_an_error() {
    let mut streamed = StreamedReply::new(1024);
    streamed
        .add(&json!({"type": "message_start", "message": {"usage": {}}}))
        .unwrap();
    assert!(streamed.finish().is_err());
}

#[test]
fn a_tool_input_past_the_limit_is_an_error_streamed_or_not() {
    let mut streamed = StreamedReply::new(16);
    streamed
        .add(&json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "tool_use", "id": "t", "name": "resolve", "input": {}}}))
        .unwrap();
    let piece = json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": "{\"action\": \""}});
    streamed.add(&piece).unwrap();
    let error = streamed.add(&piece).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool call 0's arguments grew past the limit of 16 bytes (--max-argument-bytes)"
    );
    let whole = json!({"content": [{"type": "tool_use", "id": "t", "name": "resolve",
        "input": {"action": "apply", "reason": "a reason longer than sixteen bytes"}}]});
    assert!(matches!(
        parse_reply(&whole, 16),
        Err(ModelError::TooLarge { limit: 16, .. })
    ));
    assert_eq!(parse_reply(&whole, 1024).unwrap().calls.len(), 1);
}
