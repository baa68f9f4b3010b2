//! A pack's `report_progress` under `xcsh mcp`: `notifications/progress`
//! for a request with a `progressToken`, in order and before the response;
//! none for a request without one.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::support::{Env, arg, pack_path};

#[test]
fn progress_reaches_an_mcp_client_that_asked_for_it_before_the_result() {
    let env = Env::new();
    let mut child = env
        .command(&["mcp", "--plugin", arg(&pack_path("fixture-hostile"))])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    // Every message up to and including the response to `id`.
    let mut until = |id: u64| {
        let mut seen = Vec::new();
        loop {
            let mut line = String::new();
            assert_ne!(stdout.read_line(&mut line).unwrap(), 0, "the server left");
            let message: Value = serde_json::from_str(&line).unwrap();
            let done = message["id"] == id;
            seen.push(message);
            if done {
                return seen;
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    until(1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "progress", "arguments": {}, "_meta": {"progressToken": "p-1"}}}),
    );
    let seen = until(2);
    let progress = |step: f64, message: &str| {
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
            "progressToken": "p-1", "progress": step, "message": message}})
    };
    assert_eq!(
        seen[..2],
        [progress(1.0, "step 1"), progress(2.0, "step 2")],
        "{seen:#?}"
    );
    assert_eq!(seen.len(), 3, "{seen:#?}");
    assert_eq!(seen[2]["result"]["content"][0]["text"], "done in mcp-1");

    // Without a token, no notifications.
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "progress", "arguments": {}}}),
    );
    let seen = until(3);
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(seen[0]["result"]["content"][0]["text"], "done in mcp-2");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
