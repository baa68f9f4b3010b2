//! A pack's `Host::log` under `xcsh mcp`: the `logging` capability,
//! `logging/setLevel`, and the lines a pack writes during one of its calls
//! as `notifications/message` at or above the level set, in order and
//! before the response; none until the client sets a level. The same for
//! a pack run isolated, whose process sends its lines over the pipe.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::support::{Env, arg, pack_path};

#[test]
fn a_packs_log_lines_reach_an_mcp_client_at_the_level_it_set() {
    log_lines_reach_the_client(&[]);
}

#[test]
fn an_isolated_packs_log_lines_reach_an_mcp_client_at_the_level_it_set() {
    log_lines_reach_the_client(&["--isolate"]);
}

/// `xcsh mcp FLAGS --plugin fixture-conformance`, driven on the wire.
fn log_lines_reach_the_client(flags: &[&str]) {
    let env = Env::new();
    let pack = pack_path("fixture-conformance");
    let mut args = vec!["mcp"];
    args.extend_from_slice(flags);
    args.extend(["--plugin", arg(&pack)]);
    let mut child = env
        .command(&args)
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
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "test_tool_with_logging", "arguments": {}}})
    };
    let set_level = |id: u64, level: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "logging/setLevel",
            "params": {"level": level}})
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    let initialized = until(1);
    assert_eq!(
        initialized[0]["result"]["capabilities"]["logging"],
        json!({}),
        "{initialized:#?}"
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // Before the client set a level: no notifications.
    send(call(2));
    let seen = until(2);
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(seen[0]["result"]["content"][0]["text"], "Logged 3 lines.");

    send(set_level(3, "debug"));
    assert_eq!(until(3), [json!({"jsonrpc": "2.0", "id": 3, "result": {}})]);
    send(call(4));
    let seen = until(4);
    let line = |text: &str| {
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {
            "level": "info", "logger": "fixture-conformance", "data": text}})
    };
    assert_eq!(
        seen[..3],
        [
            line("Tool execution started"),
            line("Tool processing data"),
            line("Tool execution completed"),
        ],
        "{seen:#?}"
    );
    assert_eq!(seen.len(), 4, "{seen:#?}");
    assert_eq!(seen[3]["result"]["content"][0]["text"], "Logged 3 lines.");

    // Above the pack's lines: filtered out.
    send(set_level(5, "warning"));
    assert_eq!(until(5), [json!({"jsonrpc": "2.0", "id": 5, "result": {}})]);
    send(call(6));
    let seen = until(6);
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(seen[0]["result"]["content"][0]["text"], "Logged 3 lines.");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
