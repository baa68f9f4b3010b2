//! Anthropic Messages, against a loopback server that checks every
//! request's shape (llama-cpp-python 0.3.36's server has no
//! `/v1/messages`).

use std::sync::Arc;

use serde_json::{Value, json};
use xcsh_core::{JournalEvent, ProviderCapabilities, ToolChoice};
use xcsh_model::{
    ANTHROPIC_VERSION, AnswerLimits, Api, Bounds, EndReason, ModelLoop, ModelSettings, Provider,
    RESOLVE_REMINDER, Rung,
    ladder::{Cause, Proof},
};

use crate::support::{
    DRAFTS, Keep, Seen, TASK, choices, names, resolves, scripted_first_turn, session, workspace,
};
use xcsh_test_support::loopback::{Loopback, Script, Seen as Request, events};

/// Set by cargo for every test process, so the test needs no key of its
/// own: the provider must send this variable's value.
const KEY_VARIABLE: &str = "CARGO_PKG_NAME";

fn settings(loopback: &Loopback, stream: bool) -> ModelSettings {
    ModelSettings {
        api: Api::Anthropic,
        base_url: loopback.url.clone(),
        model: "claude-test".into(),
        api_key_env: Some(KEY_VARIABLE.into()),
        stream,
        limits: AnswerLimits {
            request_time: Some(std::time::Duration::from_secs(30)),
            ..AnswerLimits::default()
        },
    }
}

fn tool_names(request: &Request) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The message list's last user message's blocks.
fn last_user_blocks(request: &Request) -> Vec<Value> {
    let messages = request.body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    last["content"].as_array().unwrap().clone()
}

fn streamed_resolve(action: &str) -> String {
    events(&[
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
               "content": [], "usage": {"input_tokens": 321, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "tool_use", "id": "toolu_01", "name": "resolve", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "input_json_delta", "partial_json": format!("{{\"action\": \"{action}\", ")}}),
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "input_json_delta", "partial_json": "\"reason\": \"the drafts are final\"}"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}}),
        json!({"type": "message_stop"}),
    ])
}

fn text_message(text: &str) -> String {
    json!({"id": "msg_2", "type": "message", "role": "assistant",
           "content": [{"type": "text", "text": text}],
           "stop_reason": "end_turn", "usage": {"input_tokens": 400, "output_tokens": 3}})
    .to_string()
}

#[test]
fn the_messages_shape_forces_resolve_by_name_and_a_streamed_apply_runs() {
    let dir = workspace();
    let (session, journal) = session(&dir);
    let mut conversation = scripted_first_turn(&session);
    let first: Script = Box::new(|_| (200, "text/event-stream", streamed_resolve("apply")));
    let second: Script = Box::new(|_| {
        (
            200,
            "text/event-stream",
            events(&[
                json!({"type": "message_start", "message": {"usage": {"input_tokens": 500, "output_tokens": 1}}}),
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Renamed both."}}),
                json!({"type": "content_block_stop", "index": 0}),
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
                json!({"type": "message_stop"}),
            ]),
        )
    });
    let loopback = Loopback::serve(vec![first, second]);
    let provider: Arc<dyn Provider> = settings(&loopback, true).connect().unwrap().into();
    let (outcome, Keep(seen)) = ModelLoop::new(
        Arc::clone(&session.session),
        Arc::clone(&provider),
        ProviderCapabilities::default(),
        Bounds::default(),
    )
    .run(&mut conversation, Keep::default());

    assert_eq!(outcome.reason, EndReason::Finished, "{outcome:?}");
    assert_eq!(outcome.message, "the model finished");
    assert_eq!((outcome.turns, outcome.tokens), (2, 322 + 20 + 500 + 4 - 1));
    let requests = loopback.seen();
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!(first.path, "/v1/messages");
    assert_eq!(first.header("anthropic-version"), Some(ANTHROPIC_VERSION));
    assert_eq!(first.header("x-api-key"), Some(env!("CARGO_PKG_NAME")));
    assert_eq!(first.header("authorization"), None);
    assert_eq!(first.body["model"], "claude-test");
    assert_eq!(first.body["stream"], true);
    assert!(first.body["max_tokens"].as_u64().unwrap() > 0);
    assert_eq!(first.body["system"], xcsh_model::DEFAULT_SYSTEM_PROMPT);
    assert_eq!(
        first.body["tool_choice"],
        json!({"type": "tool", "name": "resolve"})
    );
    // Every tool is offered (this session has no built-ins), with its
    // schema as `input_schema`.
    assert_eq!(tool_names(first), ["resolve", "batch_rename_preview"]);
    for tool in first.body["tools"].as_array().unwrap() {
        assert_eq!(tool["input_schema"]["type"], "object", "{tool}");
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
    }
    // user task, assistant tool_use, user [tool_result, reminder].
    let messages = first.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": [{"type": "text", "text": TASK}]})
    );
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"][0]["type"], "tool_use");
    assert_eq!(messages[1]["content"][0]["id"], "call_preview");
    assert_eq!(messages[1]["content"][0]["input"]["files"], json!(DRAFTS));
    let blocks = last_user_blocks(first);
    assert_eq!(blocks[0]["type"], "tool_result");
    assert_eq!(blocks[0]["tool_use_id"], "call_preview");
    assert_eq!(blocks[0]["is_error"], false);
    assert!(
        blocks[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("Batch rename preview (2 files):")
    );
    assert_eq!(
        blocks[1],
        json!({"type": "text", "text": xcsh_core::PREVIEW_REMINDER})
    );
    // The apply ran, and its result went back as a tool_result; nothing is
    // pending, so the choice is auto again and `resolve` is not offered.
    assert_eq!(names(dir.path()), ["final-intro.md", "final-usage.md"]);
    let second = &requests[1];
    assert_eq!(second.body["tool_choice"], json!({"type": "auto"}));
    assert_eq!(tool_names(second), ["batch_rename_preview"]);
    let blocks = last_user_blocks(second);
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0]["tool_use_id"], "toolu_01");
    assert!(
        blocks[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("Renamed 2 files:")
    );
    assert!(seen.contains(&Seen::Text("Renamed both.".into())));
    let resolved = journal.resolves();
    assert_eq!(resolved.len(), 1);
    assert_eq!(resolved[0].outcome, "applied");
    assert_eq!(resolved[0].decided_by.as_deref(), Some("model"));
    assert_eq!(resolved[0].reason.as_deref(), Some("the drafts are final"));
}

#[test]
fn a_refused_forced_tool_steps_to_any_then_auto_and_a_model_that_never_resolves_ends_the_loop() {
    let dir = workspace();
    let (session, journal) = session(&dir);
    let mut conversation = scripted_first_turn(&session);
    let refusal = json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": "Thinking may not be enabled when tool_choice forces tool use."}});
    let answers: Vec<Script> = vec![
        Box::new(move |_| (400, "application/json", refusal.to_string())),
        Box::new(|_| (200, "application/json", text_message("I would rather not."))),
        Box::new(|_| (200, "application/json", text_message("Still thinking."))),
        // Never asked for: the loop must have ended.
        Box::new(|_| (200, "application/json", text_message("a fourth request"))),
    ];
    let loopback = Loopback::serve(answers);
    let provider: Arc<dyn Provider> = settings(&loopback, false).connect().unwrap().into();
    let mut model_loop = ModelLoop::new(
        Arc::clone(&session.session),
        Arc::clone(&provider),
        ProviderCapabilities::default(),
        Bounds::default(),
    );
    let (outcome, Keep(seen)) = model_loop.run(&mut conversation, Keep::default());

    let requests = loopback.seen();
    let sent: Vec<Value> = requests
        .iter()
        .map(|r| r.body["tool_choice"].clone())
        .collect();
    assert_eq!(
        sent,
        [
            json!({"type": "tool", "name": "resolve"}),
            json!({"type": "any"}),
            json!({"type": "auto"}),
        ]
    );
    assert_eq!(requests[1].body.get("stream"), None);
    // `any` offers only resolve; auto offers everything again, with the
    // reminder sent once more.
    assert_eq!(tool_names(&requests[1]), ["resolve"]);
    assert_eq!(
        tool_names(&requests[2]),
        ["resolve", "batch_rename_preview"]
    );
    let blocks = last_user_blocks(&requests[2]);
    assert_eq!(
        blocks.last().unwrap(),
        &json!({"type": "text", "text": RESOLVE_REMINDER})
    );
    assert_eq!(
        choices(&seen),
        [
            ToolChoice::Tool {
                name: "resolve".into()
            },
            ToolChoice::Required,
            ToolChoice::Auto
        ]
    );
    let steps: Vec<_> = seen
        .iter()
        .filter_map(|seen| match seen {
            Seen::Ladder(step) => Some(step.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(steps.len(), 2);
    assert_eq!(
        (steps[0].from, steps[0].to, steps[0].remembered),
        (Rung::Named, Rung::Required, true)
    );
    assert_eq!(
        steps[0].cause,
        Cause::Refused {
            status: 400,
            message: "Thinking may not be enabled when tool_choice forces tool use.".into(),
            proof: Proof::Named,
        }
    );
    assert_eq!(
        (steps[1].from, steps[1].to, steps[1].cause.clone()),
        (Rung::Required, Rung::Auto, Cause::Ignored)
    );
    // The refusal is remembered: the next action would start at `any`.
    assert_eq!(model_loop.ladder().start(), Rung::Required);

    assert_eq!(
        outcome.reason,
        EndReason::NeverResolved {
            label: "Batch Rename: 2 files".into()
        }
    );
    assert_eq!(
        outcome.message,
        "the model never called resolve for \"Batch Rename: 2 files\" at any tool choice"
    );
    assert_eq!((outcome.turns, outcome.discarded), (3, 1));
    assert!(resolves(&seen).is_empty());
    assert_eq!(names(dir.path()), ["draft-intro.md", "draft-usage.md"]);
    let resolved = journal.resolves();
    assert_eq!(resolved.len(), 1);
    assert_eq!(resolved[0].event, JournalEvent::Resolve);
    assert_eq!(resolved[0].outcome, "discarded");
    assert_eq!(resolved[0].decided_by.as_deref(), Some("session end"));
}
