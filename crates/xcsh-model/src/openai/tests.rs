use serde_json::json;
use xcsh_core::{ToolCall, ToolChoice};

use super::*;
use crate::{Conversation, ToolSpec};

fn conversation() -> Conversation {
    let mut conversation = Conversation::new(Some("be brief".into()), "rename the drafts");
    conversation.push(Message::Assistant {
        text: String::new(),
        calls: vec![ToolCall::new("c1", "batch_rename_preview", json!({"x": 1}))],
    });
    conversation.push(Message::ToolResult {
        call_id: "c1".into(),
        name: "batch_rename_preview".into(),
        text: "preview".into(),
        is_error: false,
    });
    conversation.push(Message::User("<system-reminder>…".into()));
    conversation
}

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "resolve".into(),
        description: "Apply or discard".into(),
        parameters: json!({"type": "object"}),
    }]
}

#[test]
fn the_body_carries_empty_content_and_json_text_arguments() {
    let conversation = conversation();
    let tools = tools();
    let choice = ToolChoice::Tool {
        name: "resolve".into(),
    };
    let body = request_body(
        "m",
        &Request {
            conversation: &conversation,
            tools: &tools,
            choice: &choice,
            max_tokens: 64,
            deadline: None,
        },
        false,
    );
    assert_eq!(
        body,
        json!({
            "model": "m",
            "max_tokens": 64,
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "rename the drafts"},
                {"role": "assistant", "content": "", "tool_calls": [{
                    "id": "c1", "type": "function",
                    "function": {"name": "batch_rename_preview", "arguments": "{\"x\":1}"}}]},
                {"role": "tool", "tool_call_id": "c1", "name": "batch_rename_preview", "content": "preview"},
                {"role": "user", "content": "<system-reminder>…"},
            ],
            "tools": [{"type": "function", "function": {
                "name": "resolve", "description": "Apply or discard", "parameters": {"type": "object"}}}],
            "tool_choice": {"type": "function", "function": {"name": "resolve"}},
        })
    );
    assert_eq!(tool_choice(&ToolChoice::Required), json!("required"));
    assert_eq!(tool_choice(&ToolChoice::Auto), json!("auto"));
}

#[test]
fn a_completion_gives_text_calls_and_usage() {
    let reply = parse_reply(&json!({
        "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "resolve", "arguments": "{\"action\": \"apply\", \"reason\": \"ok\"}"}},
            {"type": "function", "function": {"name": "resolve", "arguments": "not json"}},
        ]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5},
    }), 1024)
    .unwrap();
    assert_eq!(reply.text, "");
    // The second call has no id: it is named by its position.
    assert_eq!(
        reply.calls,
        [
            ToolCall::new(
                "call_1",
                "resolve",
                json!({"action": "apply", "reason": "ok"})
            ),
            ToolCall::new("call_1", "resolve", json!("not json")),
        ]
    );
    assert_eq!(reply.usage.total(), 15);
}

#[test]
fn streamed_tool_calls_are_put_together_by_index() {
    let mut streamed = StreamedReply::new(1024);
    for chunk in [
        json!({"choices": [{"delta": {"role": "assistant", "content": "Sure"}}]}),
        json!({"choices": [{"delta": {"tool_calls": [
            {"index": 0, "id": "a", "function": {"name": "resolve", "arguments": "{\"action\""}}]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": ": \"discard\", \"reason\": \"no\"}"}}]}}]}),
        // llama-cpp-python names the tool again in every chunk of a call.
        json!({"choices": [{"delta": {"tool_calls": [
            {"index": 0, "function": {"name": "resolve", "arguments": ""}}]}}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}),
    ] {
        streamed.add(&chunk).unwrap();
    }
    let reply = streamed.finish().unwrap();
    assert_eq!(reply.text, "Sure");
    assert_eq!(
        reply.calls,
        [ToolCall::new(
            "a",
            "resolve",
            json!({"action": "discard", "reason": "no"})
        )]
    );
    assert_eq!(reply.usage.total(), 7);
}

#[test]
fn a_streamed_request_asks_for_the_usage_chunk() {
    let conversation = conversation();
    let tools = tools();
    let body = request_body(
        "m",
        &Request {
            conversation: &conversation,
            tools: &tools,
            choice: &ToolChoice::Auto,
            max_tokens: 64,
            deadline: None,
        },
        true,
    );
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[test]
fn arguments_past_the_limit_are_an_error_streamed_or_not() {
    let mut streamed = StreamedReply::new(10);
    let piece = |text: &str| {
        json!({"choices": [{"delta": {"tool_calls": [
            {"index": 3, "id": "a", "function": {"name": "resolve", "arguments": text}}]}}]})
    };
    streamed.add(&piece("{\"action\"")).unwrap();
    let error = streamed.add(&piece(": \"apply\"}")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool call 0's arguments grew past the limit of 10 bytes (--max-argument-bytes)"
    );
    let whole = json!({"choices": [{"message": {"tool_calls": [
        {"id": "a", "function": {"name": "resolve", "arguments": "{}"}},
        {"id": "b", "function": {"name": "resolve", "arguments": "{\"action\": \"apply\"}"}},
    ]}}]});
    assert_eq!(
        parse_reply(&whole, 10).unwrap_err().to_string(),
        "tool call 1's arguments grew past the limit of 10 bytes (--max-argument-bytes)"
    );
}

#[test]
fn a_reply_without_usage_is_counted_by_estimate() {
    let reply = Reply {
        text: "12345678".into(),
        ..Reply::default()
    }
    .counted(400);
    assert_eq!(
        reply.usage,
        Usage {
            input: 100,
            output: 2,
            estimated: true
        }
    );
    let counted = Reply {
        usage: Usage {
            input: 7,
            output: 1,
            estimated: false,
        },
        ..Reply::default()
    }
    .counted(400);
    assert_eq!(counted.usage.total(), 8);
}
