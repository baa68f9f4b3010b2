//! A `resolve` the MCP client cancels while its user is asked applies
//! nothing: the question is cancelled with it, an answer sent after the
//! cancellation is ignored, no result comes for the cancelled call (as
//! MCP says), and the action stays pending.

use serde_json::{Value, json};

use crate::mcp_wire::Server;
use crate::support::{Env, arg, batch_rename};

const INITIALIZE: &str = r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}}, "clientInfo": {"name": "raw", "version": "0"}}}"#;

/// The next message that is not a notification of a changed tool list.
fn next(server: &Server) -> Value {
    loop {
        let message = server.answer();
        if message["method"] != "notifications/tools/list_changed" {
            return message;
        }
    }
}

#[test]
fn a_resolve_cancelled_while_its_user_is_asked_applies_nothing_whatever_they_answer() {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let mut server = Server::start_with(
        &env,
        &["mcp", "--ask", "all", "--plugin", arg(&batch_rename())],
    );
    server.send(INITIALIZE.as_bytes());
    assert_eq!(next(&server)["id"], 1);
    server.send(br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);
    server.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "batch_rename_preview", "arguments": {"files": ["a.txt"], "rule": {"kind": "prefix", "prefix": "old-"}}}})
            .to_string()
            .as_bytes(),
    );
    let preview = next(&server);
    assert_eq!(preview["id"], 2);
    assert_eq!(preview["result"]["isError"], false, "{preview}");

    server.send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "resolve", "arguments": {"action": "apply", "reason": "sure"}}})
            .to_string()
            .as_bytes(),
    );
    let question = next(&server);
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let question_id = question["id"].clone();

    // The client gives up on the call, then its user's answer arrives.
    server.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "the user pressed stop"}})
            .to_string()
            .as_bytes(),
    );
    server.send(
        json!({"jsonrpc": "2.0", "id": question_id, "result": {"action": "accept", "content": {"decision": "apply"}}})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(
        next(&server),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": question_id, "reason": "the resolve call that asked it was cancelled"}})
    );
    server.send(br#"{"jsonrpc": "2.0", "id": 4, "method": "tools/list"}"#);
    let listed = next(&server);
    assert_eq!(
        listed["id"], 4,
        "no result for the cancelled call: {listed}"
    );
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["resolve", "ast_edit", "batch_rename_preview"]);
    assert_eq!(env.files(), ["a.txt"], "nothing was renamed");

    let (status, rest) = server.finish();
    assert!(status.success(), "{status}");
    assert!(
        rest.iter().all(|message| message["id"] != 3),
        "the cancelled call got a result: {rest:?}"
    );
    assert_eq!(env.files(), ["a.txt"], "the session's end discarded it");

    // The journal says who answered what, and that nothing was applied.
    let journal = std::fs::read_to_string(env.work().join(".xcsh/journal.jsonl")).unwrap();
    let lines: Vec<(String, String, String)> = journal
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|line| {
            let field = |name: &str| line[name].as_str().unwrap_or("").to_owned();
            (field("event"), field("outcome"), field("error"))
        })
        .collect();
    let line = |event: &str, outcome: &str, error: &str| {
        (event.to_owned(), outcome.to_owned(), error.to_owned())
    };
    assert_eq!(
        lines,
        [
            line("push", "pushed", ""),
            line(
                "answer",
                "unavailable",
                "the MCP client cancelled the resolve call before its user answered"
            ),
            line(
                "resolve",
                "refused",
                "Apply needs a person's approval (policy ask for batch_rename_preview), but the MCP client cancelled the resolve call before its user answered. The action is still pending."
            ),
            line("resolve", "discarded", ""),
        ]
    );
}
